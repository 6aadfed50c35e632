"""Places (devices): CPUPlace and CUDAPlace, and the global default device.

A tensor's place follows from its array: a NumPy array lives on the CPU, a CuPy array on
the GPU it was allocated on. `set_device('gpu:0')` makes new tensors go to that GPU.

Example:
    >>> import dygraph
    >>> dygraph.set_device('cpu')
    'cpu'
"""

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "set_device", "get_device",
           "is_compiled_with_cuda", "device_count"]


class CPUPlace:
    """The host CPU.

    Example:
        >>> CPUPlace()
        CPUPlace
    """

    __slots__ = ()

    def __repr__(self):
        return "CPUPlace"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")

    def is_gpu_place(self):
        return False

    def is_cpu_place(self):
        return True


class CUDAPlace:
    """GPU number `device_id`; needs CuPy when a tensor is actually placed there.

    Example:
        >>> CUDAPlace(0)
        CUDAPlace(0)
    """

    __slots__ = ("device_id",)

    def __init__(self, device_id=0):
        self.device_id = int(device_id)

    def __repr__(self):
        return f"CUDAPlace({self.device_id})"

    def __eq__(self, other):
        return isinstance(other, CUDAPlace) and other.device_id == self.device_id

    def __hash__(self):
        return hash(("gpu", self.device_id))

    def get_device_id(self):
        return self.device_id

    def is_gpu_place(self):
        return True

    def is_cpu_place(self):
        return False


class CUDAPinnedPlace(CPUPlace):
    """Pinned host memory; on this framework the same as CPU memory."""

    __slots__ = ()

    def __repr__(self):
        return "CUDAPinnedPlace"


_CPU = CPUPlace()
_current = [_CPU]


def _parse_device(device):
    if isinstance(device, (CPUPlace, CUDAPlace)):
        return device
    text = str(device).lower().strip()
    if text == "cpu":
        return _CPU
    if text in ("gpu", "cuda"):
        return CUDAPlace(0)
    for prefix in ("gpu:", "cuda:"):
        if text.startswith(prefix):
            return CUDAPlace(int(text[len(prefix):]))
    raise ValueError(f"set_device: unknown device {device!r}; expected 'cpu', 'gpu' or 'gpu:N'")


def set_device(device):
    """Choose where new tensors are created: 'cpu', 'gpu' or 'gpu:N'. Returns the device string.

    Example:
        >>> set_device('cpu')
        'cpu'
    """
    place = _parse_device(device)
    if isinstance(place, CUDAPlace):
        from dygraph.backend import require_cupy

        require_cupy(place)
    _current[0] = place
    return get_device()


def get_device():
    """The current device as a string: 'cpu' or 'gpu:N'.

    Example:
        >>> get_device()
        'cpu'
    """
    place = _current[0]
    return "cpu" if isinstance(place, CPUPlace) else f"gpu:{place.device_id}"


def current_place():
    return _current[0]


def is_compiled_with_cuda():
    """True when CuPy is importable and sees a GPU, so CUDAPlace can be used.

    Example:
        >>> isinstance(is_compiled_with_cuda(), bool)
        True
    """
    return device_count() > 0


def device_count():
    """Number of visible CUDA GPUs (0 without CuPy)."""
    from dygraph.backend import cuda_device_count

    return cuda_device_count()
