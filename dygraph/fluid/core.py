"""fluid.core: device queries the 1.x examples use, and the core's EnforceNotMet error."""

from dygraph.framework.errors import EnforceNotMet
from dygraph.framework.place import CPUPlace, CUDAPlace, is_compiled_with_cuda

__all__ = ["is_compiled_with_cuda", "CPUPlace", "CUDAPlace", "get_cuda_device_count",
           "EnforceNotMet"]


def get_cuda_device_count():
    """Number of visible GPUs.

    Example:
        >>> get_cuda_device_count() >= 0
        True
    """
    from dygraph.framework.place import device_count

    return device_count()
