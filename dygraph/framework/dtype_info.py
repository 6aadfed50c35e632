"""Top-level dtype aliases and limits: `dygraph.float` (float32), `double`, `half`, `cfloat`,
`cdouble`, `uint16` (Paddle's name for bfloat16 storage), `uint32`/`uint64` (names only:
no tensor holds them, as in Paddle), `finfo`/`iinfo`, and the constants e, pi, inf, nan,
newaxis.

Example:
    >>> import dygraph
    >>> dygraph.finfo(dygraph.float32).eps
    1.1920928955078125e-07
"""

import builtins
import math

import numpy as np

from dygraph.framework import dtype as _dt

__all__ = ["float", "double", "half", "cfloat", "cdouble", "uint16", "uint32", "uint64",
           "finfo", "iinfo", "e", "pi", "inf", "nan", "newaxis"]

float = _dt.float32  # noqa: A001 - Paddle's public names
double = _dt.float64
half = _dt.float16
cfloat = _dt.complex64
cdouble = _dt.complex128
uint16 = _dt.bfloat16  # Paddle stores bfloat16 as uint16; both name that dtype
uint32 = _dt.DType("uint32", np.dtype(np.uint32))
uint64 = _dt.DType("uint64", np.dtype(np.uint64))
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

# bfloat16's limits (NumPy has no bfloat16; DyGraph stores its values as float32).
_BFLOAT16 = {"bits": 16, "eps": 0.0078125, "min": -3.3895313892515355e38,
             "max": 3.3895313892515355e38, "tiny": 1.1754943508222875e-38,
             "smallest_normal": 1.1754943508222875e-38, "resolution": 0.01}


def _name(dtype):
    if isinstance(dtype, str) and dtype in ("bfloat16", "uint32", "uint64"):
        return dtype
    if isinstance(dtype, _dt.DType):
        return dtype.name
    try:
        return _dt.convert_dtype(dtype).name
    except TypeError:
        return np.dtype(dtype).name


class finfo:  # noqa: N801 - Paddle's public name
    """Limits of a float dtype: bits, eps, min, max, tiny (= smallest_normal), resolution.

    Example:
        >>> finfo('float16').max
        65504.0
    """

    def __init__(self, dtype):
        name = _name(dtype)
        if name == "bfloat16":
            values = _BFLOAT16
        else:
            try:
                info = np.finfo(np.dtype(name))
            except (TypeError, ValueError):
                raise TypeError(f"finfo: expected a float or complex dtype, got {name}") from None
            real = builtins.float
            values = {"bits": info.bits, "eps": real(info.eps), "min": real(info.min),
                      "max": real(info.max), "tiny": real(info.tiny),
                      "smallest_normal": real(info.smallest_normal),
                      "resolution": real(info.resolution)}
        self.dtype = name if name != "complex64" else "float32"
        if name == "complex128":
            self.dtype = "float64"
        for key, value in values.items():
            setattr(self, key, value)

    def __repr__(self):
        return (f"dygraph.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"resolution={self.resolution:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - Paddle's public name
    """Limits of an integer dtype: bits, min, max.

    Example:
        >>> iinfo('uint8').max, iinfo('int32').min
        (255, -2147483648)
    """

    def __init__(self, dtype):
        name = _name(dtype)
        try:
            info = np.iinfo(np.dtype(name))
        except (TypeError, ValueError):
            raise TypeError(f"iinfo: expected an integer dtype, got {name}") from None
        self.dtype, self.bits, self.min, self.max = name, info.bits, int(info.min), int(info.max)

    def __repr__(self):
        return (f"dygraph.iinfo(min={self.min}, max={self.max}, bits={self.bits}, "
                f"dtype={self.dtype})")
