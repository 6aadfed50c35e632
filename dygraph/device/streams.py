"""CUDA streams and events (Paddle's paddle.device.Stream and Event), over CuPy's.

DyGraph's GPU ops run on CuPy's current stream of their device, so making a Stream
current (`set_stream`, `stream_guard`) sends the ops that follow to it. `stream_base` and
`event_base` are the CuPy objects. The CPU has no streams: on it these raise a TypeError
("device should be gpu"), as Paddle's `current_stream` does on its CPU build.

Example:
    >>> with stream_guard(None):  # no stream: the block runs as it would without
    ...     pass
"""

import ctypes

from dygraph.device.selection import device as device_scope
from dygraph.device.selection import to_place
from dygraph.framework.place import CUDAPlace, current_place, get_device, set_device

__all__ = ["Stream", "Event", "current_stream", "set_stream", "stream_guard",
           "StreamContext", "get_stream_from_external", "is_current_stream_capturing"]

# Paddle's priorities: 1 and -1 are high, 0 and 2 (the default) are low.
_HIGH_PRIORITIES = (-1, 1)


def _gpu(device, op):
    """(cupy, GPU index) of a device that must be a GPU."""
    place = to_place(device, f"dygraph.device.{op}")
    if not isinstance(place, CUDAPlace):
        raise TypeError(f"dygraph.device.{op}: device should be gpu, got {place} (the CPU "
                        "has no streams)")
    from dygraph.backend import require_cupy

    return require_cupy(place), place.device_id


def _is_cupy_stream(cp, value):
    return isinstance(value, (cp.cuda.Stream, cp.cuda.ExternalStream))


class Stream:
    """A CUDA stream on GPU `device` (None: the current device); `priority` 1 or -1 is
    high, 0 or 2 (the default) low. `stream_base` wraps an existing CuPy stream instead.

    Example:
        >>> s = Stream('gpu:0')  # doctest: +SKIP
        >>> with stream_guard(s):  # doctest: +SKIP
        ...     y = x * 2  # runs on s
    """

    def __init__(self, device=None, priority=2, stream_base=None):
        if stream_base is not None:
            from dygraph.backend import _import_cupy

            cp = _import_cupy()
            if not _is_cupy_stream(cp, stream_base):
                raise TypeError("dygraph.device.Stream: stream_base should be a CuPy stream "
                                f"(cupy.cuda.Stream or ExternalStream), got "
                                f"{type(stream_base).__name__}")
            self.stream_base = stream_base
            self.device = CUDAPlace(stream_base.device_id)
            return
        cp, device_id = _gpu(device, "Stream")
        self.device = CUDAPlace(device_id)
        with cp.cuda.Device(device_id):
            high = priority in _HIGH_PRIORITIES
            # CUDA numbers priorities downwards: the range's second end is the highest.
            value = cp.cuda.runtime.deviceGetStreamPriorityRange()[1] if high else 0
            self.stream_base = cp.cuda.Stream(non_blocking=True, priority=value)

    @property
    def cuda_stream(self):
        """The cudaStream_t handle as an int."""
        return int(self.stream_base.ptr)

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.cuda_stream)

    def __cuda_stream__(self):
        """The CUDA stream protocol: (version 0, the cudaStream_t handle)."""
        return (0, self.cuda_stream)

    def wait_event(self, event):
        """Make the work submitted to this stream from now on wait for `event`."""
        self.stream_base.wait_event(event.event_base)

    def wait_stream(self, stream):
        """Make the work submitted to this stream from now on wait for the work already
        submitted to `stream`."""
        self.stream_base.wait_event(stream.stream_base.record())

    def record_event(self, event=None):
        """Record `event` (a new Event when None) on this stream and return it."""
        if event is None:
            with device_scope(self.device):  # an Event belongs to the current device
                event = Event()
        event.record(self)
        return event

    def query(self):
        """Whether all the work submitted to this stream has finished."""
        return bool(self.stream_base.done)

    def synchronize(self):
        """Wait until all the work submitted to this stream has finished."""
        self.stream_base.synchronize()

    def __eq__(self, other):
        return (isinstance(other, Stream) and self.device == other.device
                and self.cuda_stream == other.cuda_stream)

    def __hash__(self):
        return hash((self.cuda_stream, self.device))

    def __repr__(self):
        return f"<dygraph.device.Stream device={self.device} stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event on the current GPU: `enable_timing` lets `elapsed_time` measure,
    `blocking` makes `synchronize` sleep instead of spin, `interprocess` lets other
    processes open it.

    Example:
        >>> start, end = Event(enable_timing=True), Event(enable_timing=True)  # doctest: +SKIP
        >>> start.record(); y = x @ x; end.record(); end.synchronize()  # doctest: +SKIP
        >>> start.elapsed_time(end) > 0  # doctest: +SKIP
        True
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        cp, device_id = _gpu(None, "Event")
        self.device = CUDAPlace(device_id)
        self.enable_timing = enable_timing
        with cp.cuda.Device(device_id):
            self.event_base = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                            interprocess=interprocess)

    def record(self, stream=None):
        """Record this event on `stream` (None: the current stream of its device)."""
        if stream is None:
            stream = current_stream(self.device)
        self.event_base.record(stream.stream_base)

    def query(self):
        """Whether the work this event captured has finished."""
        return bool(self.event_base.done)

    def elapsed_time(self, end_event):
        """Milliseconds from this event's record to `end_event`'s (both recorded with
        enable_timing=True)."""
        from dygraph.backend import _import_cupy

        return _import_cupy().cuda.get_elapsed_time(self.event_base, end_event.event_base)

    def synchronize(self):
        """Wait until the work this event captured has finished."""
        self.event_base.synchronize()

    def __repr__(self):
        return f"Event(device={self.device}, event_base={self.event_base})"


def current_stream(device=None):
    """The current stream of GPU `device` (None: the current device).

    Example:
        >>> current_stream('gpu:0').query()  # doctest: +SKIP
        True
    """
    cp, device_id = _gpu(device, "current_stream")
    with cp.cuda.Device(device_id):
        return Stream(stream_base=cp.cuda.get_current_stream())


def set_stream(stream):
    """Make `stream` the current stream of its GPU; returns the stream it replaces.

    Example:
        >>> previous = set_stream(Stream())  # doctest: +SKIP
    """
    if not isinstance(stream, Stream):
        raise TypeError(f"dygraph.device.set_stream: expected a Stream, got "
                        f"{type(stream).__name__}")
    previous = current_stream(stream.device)
    from dygraph.backend import _import_cupy

    with _import_cupy().cuda.Device(stream.device.device_id):
        stream.stream_base.use()
    return previous


class stream_guard:
    """A context manager: `stream` is the current stream inside the block (and its GPU
    the current device); None leaves everything as it is.

    Example:
        >>> with stream_guard(None):
        ...     pass
    """

    def __init__(self, stream=None):
        self.stream = stream
        self._saved = []

    def __enter__(self):
        if self.stream is None:
            return
        device = None
        if current_place() != self.stream.device:
            device = get_device()
            set_device(self.stream.device)
        self._saved.append((device, set_stream(self.stream)))

    def __exit__(self, *exc):
        if self.stream is None:
            return
        device, previous = self._saved.pop()
        set_stream(previous)
        if device is not None:
            set_device(device)


StreamContext = stream_guard


def get_stream_from_external(data_ptr, device=None):
    """A Stream around a cudaStream_t made by another library (`data_ptr`, its handle as
    an int) on GPU `device`; the caller keeps that stream alive while this one is used.

    Example:
        >>> s = get_stream_from_external(torch_stream.cuda_stream, 'gpu:0')  # doctest: +SKIP
    """
    cp, device_id = _gpu(device, "get_stream_from_external")
    return Stream(stream_base=cp.cuda.ExternalStream(int(data_ptr), device_id))


def is_current_stream_capturing():
    """Whether the current GPU's current stream is capturing a CUDA graph (False on the
    CPU, which has no streams).

    Example:
        >>> is_current_stream_capturing()
        False
    """
    if isinstance(current_place(), CUDAPlace):
        from dygraph.backend import _import_cupy

        return bool(_import_cupy().cuda.get_current_stream().is_capturing())
    return False
