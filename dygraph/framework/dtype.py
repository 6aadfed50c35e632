"""Data types: the `dygraph.float32`-style objects and conversion from user spellings.

A DType wraps a NumPy dtype. It compares equal to itself, to its NumPy dtype and to its
name, so `x.dtype == 'float32'`, `x.dtype == np.float32` and `x.dtype == dygraph.float32`
all hold.

Example:
    >>> import dygraph
    >>> dygraph.to_tensor([1.0]).dtype
    dygraph.float32
"""

import numpy as np

__all__ = [
    "DType", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128", "convert_dtype",
    "set_default_dtype", "get_default_dtype", "is_floating", "is_integer",
]


_py_bool = bool


class DType:
    """A tensor element type; `name` is Paddle's spelling ('float32', 'int64', 'bool')."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np_dtype

    def __repr__(self):
        return "dygraph." + self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.name == other.name
        try:
            return convert_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)


_BY_NP = {}
_BY_NAME = {}


def _register(name, np_type, *aliases):
    dt = DType(name, np.dtype(np_type))
    _BY_NP[dt.np_dtype] = dt
    for key in (name, *aliases):
        _BY_NAME[key] = dt
    return dt


bool = _register("bool", np.bool_, "bool_")  # noqa: A001 - Paddle's public name
uint8 = _register("uint8", np.uint8)
int8 = _register("int8", np.int8)
int16 = _register("int16", np.int16)
int32 = _register("int32", np.int32)
int64 = _register("int64", np.int64)
float16 = _register("float16", np.float16, "half")
float32 = _register("float32", np.float32, "float")
float64 = _register("float64", np.float64, "double")
complex64 = _register("complex64", np.complex64)
complex128 = _register("complex128", np.complex128)
# NumPy has no bfloat16: the name is accepted and stored as float32 so code that asks for
# it runs; the printed dtype says float32, which is what the values are.
bfloat16 = float32
_BY_NAME["bfloat16"] = float32


def convert_dtype(dtype):
    """Return the DType for any spelling: DType, 'float32', np.float32, np.dtype or Python type.

    Example:
        >>> convert_dtype('int64') is int64
        True
    """
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        found = _BY_NAME.get(dtype)
        if found is None:
            raise TypeError(f"unknown dtype {dtype!r}; expected one of {sorted(_BY_NAME)}")
        return found
    if dtype is float:
        return float32 if _default[0] is float32 else _default[0]
    if dtype is int:
        return int64
    if dtype is _py_bool:
        return bool
    try:
        return _BY_NP[np.dtype(dtype)]
    except (TypeError, KeyError) as exc:
        raise TypeError(f"unsupported dtype {dtype!r}") from exc


_default = [float32]


def set_default_dtype(d):
    """Set the floating dtype used when none is given (float16, float32 or float64).

    Example:
        >>> set_default_dtype('float64'); set_default_dtype('float32')
    """
    dt = convert_dtype(d)
    if dt not in (float16, float32, float64):
        raise TypeError(f"set_default_dtype only takes float16, float32 or float64, got {dt.name}")
    _default[0] = dt


def get_default_dtype():
    """Return the default floating dtype's name, 'float32' unless changed.

    Example:
        >>> get_default_dtype()
        'float32'
    """
    return _default[0].name


def default_float():
    """The default floating DType object (internal fast path)."""
    return _default[0]


def is_floating(np_dtype):
    """True for float and complex NumPy dtypes: the ones that can carry gradients."""
    return np_dtype.kind in "fc"


def is_integer(np_dtype):
    return np_dtype.kind in "iub"


def to_dtype_object(np_dtype):
    """Map a NumPy dtype to its DType (fast: one dict lookup)."""
    return _BY_NP[np_dtype]


def is_supported(np_dtype):
    """True for the NumPy dtypes a tensor can hold (uint16/32/64 are not Paddle dtypes)."""
    return np_dtype in _BY_NP
