"""What a GPU is: its name, compute capability, memory and multiprocessors, from the CUDA
runtime through CuPy. A device that is not a usable GPU is a ValueError.

Example:
    >>> props = DeviceProperties('NVIDIA H100', 9, 0, 80 * 2**30, 132)
    >>> repr(props)[:58]
    "_gpuDeviceProperties(name='NVIDIA H100', major=9, minor=0,"
"""

from dygraph.device.selection import gpu_of

__all__ = ["DeviceProperties", "get_device_properties", "get_device_name",
           "get_device_capability"]


class DeviceProperties:
    """A GPU's properties, with the attributes of Paddle's _gpuDeviceProperties."""

    __slots__ = ("name", "major", "minor", "total_memory", "multi_processor_count",
                 "is_integrated", "is_multi_gpu_board")

    def __init__(self, name, major, minor, total_memory, multi_processor_count,
                 is_integrated=False, is_multi_gpu_board=False):
        self.name, self.major, self.minor = name, int(major), int(minor)
        self.total_memory = int(total_memory)
        self.multi_processor_count = int(multi_processor_count)
        self.is_integrated = bool(is_integrated)
        self.is_multi_gpu_board = bool(is_multi_gpu_board)

    def __repr__(self):
        return (f"_gpuDeviceProperties(name={self.name!r}, major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // 2**20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """The properties of GPU `device` (None: the current device; an int, 'gpu:N' or a
    CUDAPlace).

    Example:
        >>> get_device_properties('gpu:0').major >= 3  # doctest: +SKIP
        True
    """
    return _properties(device, "get_device_properties")


def _properties(device, op):
    cp, device_id = gpu_of(device, op)
    raw = cp.cuda.runtime.getDeviceProperties(device_id)
    name = raw["name"]
    return DeviceProperties(name.decode() if isinstance(name, bytes) else str(name),
                            raw["major"], raw["minor"], raw["totalGlobalMem"],
                            raw["multiProcessorCount"], raw.get("integrated", 0),
                            raw.get("isMultiGpuBoard", 0))


def get_device_name(device=None):
    """The name of GPU `device`.

    Example:
        >>> get_device_name(0)  # doctest: +SKIP
        'NVIDIA H100 80GB HBM3'
    """
    return _properties(device, "get_device_name").name


def get_device_capability(device=None):
    """(major, minor) compute capability of GPU `device`.

    Example:
        >>> get_device_capability(0)  # doctest: +SKIP
        (9, 0)
    """
    props = _properties(device, "get_device_capability")
    return props.major, props.minor
