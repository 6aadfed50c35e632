"""Peak GPU memory: CuPy's memory pool counts the bytes in use and reserved now, not the
most ever held, so DyGraph allocates through a thin wrapper of the pool that notes both
counts after every allocation (the only moment either can rise).

The backend installs the wrapper when it first imports CuPy; a program that sets its own
CuPy allocator afterwards replaces it, and the peaks then stop moving.

Example:
    >>> tracker = PeakTracker()
    >>> tracker.peaks(0)
    (0, 0)
"""

import threading

__all__ = ["PeakTracker", "TRACKER", "install"]


class PeakTracker:
    """The largest used and reserved byte counts of CuPy's pool, per GPU, since the start
    or the last reset."""

    def __init__(self):
        self._lock = threading.Lock()
        self._used, self._reserved = {}, {}

    def note(self, device_id, used, reserved):
        """Record the pool's counts on `device_id` just after an allocation."""
        with self._lock:
            if used > self._used.get(device_id, 0):
                self._used[device_id] = used
            if reserved > self._reserved.get(device_id, 0):
                self._reserved[device_id] = reserved

    def peaks(self, device_id):
        """(peak bytes in use, peak bytes reserved) on `device_id`.

        Example:
            >>> t = PeakTracker(); t.note(0, 10, 20); t.note(0, 5, 30); t.peaks(0)
            (10, 30)
        """
        with self._lock:
            return self._used.get(device_id, 0), self._reserved.get(device_id, 0)

    def reset(self, device_id, used=None, reserved=None):
        """Start the peaks of `device_id` again from the given current counts (None leaves
        that peak alone).

        Example:
            >>> t = PeakTracker(); t.note(0, 10, 20); t.reset(0, used=4); t.peaks(0)
            (4, 20)
        """
        with self._lock:
            if used is not None:
                self._used[device_id] = used
            if reserved is not None:
                self._reserved[device_id] = reserved


TRACKER = PeakTracker()


def install(cp):
    """Route CuPy's device allocations through the default pool and TRACKER (`cp` is the
    imported cupy module)."""
    pool = cp.get_default_memory_pool()

    def malloc(size):
        memory = pool.malloc(size)
        # The pool counts the current device, the one this allocation went to.
        TRACKER.note(memory.device_id, pool.used_bytes(), pool.total_bytes())
        return memory

    cp.cuda.set_allocator(malloc)
