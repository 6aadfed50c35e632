"""fluid.core: device queries the 1.x examples use."""

from dygraph.framework.place import CPUPlace, CUDAPlace, is_compiled_with_cuda

__all__ = ["is_compiled_with_cuda", "CPUPlace", "CUDAPlace", "get_cuda_device_count"]


def get_cuda_device_count():
    """Number of visible GPUs.

    Example:
        >>> get_cuda_device_count() >= 0
        True
    """
    from dygraph.framework.place import device_count

    return device_count()
