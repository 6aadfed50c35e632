"""dygraph.amp: mixed precision (Paddle's paddle.amp): `auto_cast`, `GradScaler`,
`decorate`, and the capability checks.

Example:
    >>> import dygraph
    >>> is_float16_supported()
    True
"""

from dygraph.amp.auto_cast import (
    BLACK_LIST,
    WHITE_LIST,
    amp_guard,
    auto_cast,
    get_autocast_dtype,
    is_autocast_enabled,
)
from dygraph.amp.grad_scaler import AmpScaler, GradScaler, decorate

__all__ = ["auto_cast", "amp_guard", "GradScaler", "AmpScaler", "decorate",
           "is_float16_supported", "is_bfloat16_supported", "is_autocast_enabled",
           "get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "WHITE_LIST", "BLACK_LIST"]


def is_float16_supported(device=None):
    """True: float16 tensors compute with NumPy on CPU (and CuPy on GPU). Paddle answers
    False on CPU, where its kernels lack float16; DyGraph's have it.

    Example:
        >>> is_float16_supported('cpu')
        True
    """
    return True


def is_bfloat16_supported(device=None):
    """True when the ml_dtypes package (bfloat16 rounding) is installed.

    Example:
        >>> isinstance(is_bfloat16_supported(), bool)
        True
    """
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        return False
    return True


def get_autocast_cpu_dtype(device_type=None):
    """The auto_cast dtype (one setting serves CPU and GPU; `device_type` is ignored, as in
    Paddle, where this is get_autocast_dtype under another name).

    Example:
        >>> get_autocast_cpu_dtype()
        'float16'
    """
    return get_autocast_dtype(device_type)


get_autocast_gpu_dtype = get_autocast_cpu_dtype
