"""A restricted unpickler for data archives (CIFAR's batches and Paddle's `.pdparams` are
pickles).

`pickle.load` can run any callable the file names, so a tampered archive could execute
code; it also trusts every size the file claims, so a tiny file can make it allocate
gigabytes. `safe_load` admits only what plain data needs: the built-in containers,
strings, bytes and numbers, NumPy arrays and scalars of plain (bool, numeric, bytes,
text) dtypes, and `_codecs.encode(text, 'latin1')` and `bytes()` (how protocols 0 to 2
store bytes).
Every array must be backed by bytes in the file, and all that loading builds is bounded
by a small multiple of the file's size. A refused global raises `UnsafePickleError`
before anything is called; so does a damaged or hostile file, naming the file and the
offending field. `UnsafePickleError` is both a ValueError and a pickle.UnpicklingError.

It is built on pickle's pure-Python unpickler: the C one allocates the length a
BINBYTES opcode claims, and a memo as long as the largest LONG_BINPUT index, before
reading anything, so a few bytes can claim gigabytes.

Example:
    >>> import io, pickle
    >>> import numpy as np
    >>> blob = pickle.dumps({b'data': np.arange(3, dtype=np.uint8), b'labels': [1, 2]})
    >>> safe_load(io.BytesIO(blob))[b'labels']
    [1, 2]
"""

import io
import math
import pickle
import re
import struct
import sys

import numpy as np

__all__ = ["safe_load", "SafeUnpickler", "UnsafePickleError"]

# All that one load builds may reach this many times the file's size, plus the slack: a
# protocol-2 array is charged twice (its bytes spelled as a latin-1 string, then the array)
# and the containers and tuples that describe it are charged as well.
_BUDGET_FACTOR = 8
_BUDGET_SLACK = 1 << 20

# Array and scalar dtypes: bool, integers, floats, complex, bytes and text. Object dtypes
# would unpickle arbitrary objects, structured and datetime ones are not plain data.
_PLAIN_KINDS = "biufcSU"
# The dtype names NumPy's pickles use ('u1', 'f8', '<i4', 'S5', 'O8', ...); longer strings
# could spell structured dtypes with many fields from a few bytes.
_TYPECODE = re.compile(r"[<>|=]?[A-Za-z]\d{0,10}")
# Types that may be dict keys: hashing them cannot recurse (a deeply nested tuple key
# would overflow the C stack while being hashed).
_FLAT = (str, bytes, int, float, bool, type(None))
_MAX_DIMS = 64


class UnsafePickleError(ValueError, pickle.UnpicklingError):
    """A data pickle that is damaged, hostile or holds more than plain data.

    Example:
        >>> issubclass(UnsafePickleError, ValueError)
        True
    """


class _ArrayClass:
    """Stands for numpy.ndarray, which pickles name only as `_reconstruct`'s first
    argument; the real class could be called to allocate any shape."""

    def __repr__(self):
        return "numpy.ndarray"


_NDARRAY = _ArrayClass()


def _bounded(file):
    """`file` as a reader that never reads past its end, and the number of bytes left:
    asked for more, a buffered reader would allocate all that was asked."""
    if not (hasattr(file, "seekable") and file.seekable()):
        data = file.read()
        return io.BytesIO(data), len(data)
    start = file.tell()
    size = file.seek(0, io.SEEK_END) - start
    file.seek(start)
    return _Clamped(file, size), size


class _Clamped:
    """The read/readline that the unpickler uses, limited to the `left` bytes remaining."""

    def __init__(self, file, left):
        self._file, self._left = file, left

    def read(self, n=-1):
        data = self._file.read(self._left if n is None or n < 0 else min(n, self._left))
        self._left -= len(data)
        return data

    def readline(self, n=-1):
        data = self._file.readline(self._left if n is None or n < 0 else min(n, self._left))
        self._left -= len(data)
        return data


def _check_plain(dtype, field):
    if not isinstance(dtype, np.dtype):
        raise UnsafePickleError(f"{field} should be a numpy dtype, not a "
                                f"{type(dtype).__name__}")
    if dtype.kind not in _PLAIN_KINDS:
        raise UnsafePickleError(f"{field} {str(dtype)[:80]} is not a plain dtype (bool, "
                                f"numeric, bytes or text)")


def _plain_dtype(dtype, field):
    """A fresh copy of a plain dtype (later BUILDs on the pickle's object cannot reach it),
    or UnsafePickleError naming `field`."""
    _check_plain(dtype, field)
    return np.dtype(dtype.str)


def _raw_bytes(data, field):
    """The bytes of an array or scalar; Python 2 strings decoded to text are re-encoded."""
    if type(data) is str:
        data = data.encode("latin-1")
    if type(data) is not bytes:
        raise UnsafePickleError(f"{field} should be bytes, not a {type(data).__name__}")
    return data


def _shape(shape, field):
    if (type(shape) is not tuple or len(shape) > _MAX_DIMS
            or not all(type(d) is int and 0 <= d < 1 << 63 for d in shape)):
        raise UnsafePickleError(f"{field} should be a tuple of at most {_MAX_DIMS} sizes")
    return shape


def _refuse(opcode):
    def load(self):
        raise UnsafePickleError(f"the pickle uses the {opcode} opcode, which data archives "
                                f"do not need")
    return load


def _charged(load):
    """An opcode that creates a container, charged with the container's size."""
    def charged_load(self):
        load(self)
        self._charge(sys.getsizeof(self.stack[-1]))
    return charged_load


class _Dispatch(dict):
    def __missing__(self, code):
        raise UnsafePickleError(f"unknown pickle opcode {code:#04x}")


def _check_keys(keys):
    for key in keys:
        if type(key) not in _FLAT and not (
                type(key) is tuple and all(type(k) in _FLAT for k in key)):
            raise UnsafePickleError(f"a dict key should be a string, bytes, a number or a "
                                    f"tuple of those, not a {type(key).__name__}")


class SafeUnpickler(pickle._Unpickler):
    """An Unpickler that admits only plain data and allocates only what the file backs;
    `load()` raises UnsafePickleError for anything else, prefixed with `name` (by default
    the file's name). `encoding` decodes Python 2 strings ('bytes' keeps them bytes).

    Example:
        >>> import io, pickle
        >>> SafeUnpickler(io.BytesIO(pickle.dumps([1, 'a', b'b']))).load()
        [1, 'a', b'b']
    """

    dispatch = _Dispatch(pickle._Unpickler.dispatch)
    for _op in (pickle.EMPTY_DICT, pickle.EMPTY_LIST, pickle.LIST, pickle.TUPLE,
                pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3):
        dispatch[_op[0]] = _charged(dispatch[_op[0]])
    for _op in ("EMPTY_SET", "ADDITEMS", "FROZENSET", "BYTEARRAY8", "NEXT_BUFFER",
                "READONLY_BUFFER"):
        dispatch[getattr(pickle, _op)[0]] = _refuse(_op)
    del _op

    def __init__(self, file, encoding="bytes", name=None):
        self.name = str(name or getattr(file, "name", None) or "pickle")
        reader, size = _bounded(file)
        super().__init__(reader, encoding=encoding)
        self._left = _BUDGET_FACTOR * size + _BUDGET_SLACK
        self._size = size
        self._globals = {
            ("numpy.core.multiarray", "_reconstruct"): self._reconstruct,
            ("numpy._core.multiarray", "_reconstruct"): self._reconstruct,
            ("numpy.core.multiarray", "scalar"): self._scalar,
            ("numpy._core.multiarray", "scalar"): self._scalar,
            ("numpy", "ndarray"): _NDARRAY, ("numpy", "dtype"): self._dtype,
            ("_codecs", "encode"): self._encode, ("__builtin__", "bytes"): self._bytes,
            ("builtins", "bytes"): self._bytes}

    def load(self):
        """The unpickled object; UnsafePickleError (naming the file) if it is not plain
        data or the file is damaged."""
        try:
            return super().load()
        except UnsafePickleError as exc:
            raise UnsafePickleError(f"{self.name}: {exc}") from None
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
                LookupError, struct.error, OverflowError) as exc:
            detail = (type(exc).__name__ + (f": {exc}" if str(exc) else ""))[:300]
            raise UnsafePickleError(f"{self.name}: damaged pickle ({detail})") from exc

    def find_class(self, module, name):
        """The checked stand-in for an allowed global, or UnsafePickleError naming the
        refused one."""
        found = self._globals.get((module, name))
        if found is None:
            raise UnsafePickleError(
                f"refusing to unpickle the global {module[:100]}.{name[:100]}: data archives "
                f"may only hold arrays, lists, dicts, strings, bytes and numbers")
        return found

    def _charge(self, nbytes):
        self._left -= nbytes
        if self._left < 0:
            raise UnsafePickleError(
                f"a {self._size}-byte file builds more than {_BUDGET_FACTOR}x its size; "
                f"an array's claimed size must be backed by bytes in the file")

    def _reconstruct(self, subtype, shape, typecode):
        # NumPy's pickles rebuild an empty array here, which BUILD then fills from bytes.
        if subtype is not _NDARRAY:
            raise UnsafePickleError("_reconstruct may only rebuild a numpy.ndarray")
        if 0 not in _shape(shape, "_reconstruct's shape"):
            raise UnsafePickleError(f"_reconstruct's shape {shape} should be empty: the "
                                    f"array's data comes later, from the file")
        array = np.ndarray(shape, self._dtype(typecode))
        self._charge(sys.getsizeof(array))
        return array

    def _dtype(self, name, align=False, copy=True):
        if type(name) is bytes:
            name = name.decode("latin-1")
        if type(name) is not str or not _TYPECODE.fullmatch(name) or \
                type(align) not in (bool, int):
            raise UnsafePickleError("a dtype should be named by a short type code like 'f4'")
        # Always a copy: a BUILD on a shared dtype such as np.dtype('u1') would change it
        # for the whole process. Only plain dtypes: NumPy's __setstate__ crashes on some
        # states of the others (a datetime without its unit).
        dtype = np.dtype(name, bool(align), True)
        _check_plain(dtype, "the dtype")
        self._charge(sys.getsizeof(dtype))
        return dtype

    def _scalar(self, dtype, data):
        dtype = _plain_dtype(dtype, "a scalar's dtype")
        data = _raw_bytes(data, "a scalar's data")
        if len(data) != dtype.itemsize:
            raise UnsafePickleError(f"a {dtype} scalar's data should hold {dtype.itemsize} "
                                    f"bytes, not {len(data)}")
        self._charge(dtype.itemsize)
        return np.frombuffer(data, dtype)[0]

    def _encode(self, text, encoding="utf-8", errors="strict"):
        if type(text) is not str or type(encoding) is not str or type(errors) is not str \
                or encoding not in ("latin1", "latin-1") or errors != "strict":
            raise UnsafePickleError("_codecs.encode may only turn a string into bytes with "
                                    "the latin1 codec")
        self._charge(len(text))
        return text.encode("latin-1")

    @staticmethod
    def _bytes(*args):
        # How protocols 0 to 2 spell empty bytes; bytes(n) would allocate n zeros.
        if args:
            raise UnsafePickleError("bytes() may only make empty bytes")
        return b""

    def load_dict(self):
        items = self.pop_mark()
        self.append({})
        self._set_items(items)
    dispatch[pickle.DICT[0]] = _charged(load_dict)

    def load_setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._set_items([key, value])
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        self._set_items(self.pop_mark())
    dispatch[pickle.SETITEMS[0]] = load_setitems

    def _set_items(self, items):
        target = self.stack[-1]
        if type(target) is not dict or len(items) % 2:
            raise UnsafePickleError(f"SETITEMS needs a dict and key-value pairs, not a "
                                    f"{type(target).__name__} and {len(items)} items")
        _check_keys(items[::2])
        target.update(zip(items[::2], items[1::2]))

    def load_build(self):
        state = self.stack.pop()
        target = self.stack[-1]
        if type(target) is np.ndarray:
            self._build_array(target, state)
        elif isinstance(target, np.dtype):
            self._build_dtype(target, state)
        else:
            raise UnsafePickleError(f"BUILD may only set the state of an array or a plain "
                                    f"dtype, not a {type(target).__name__}")
    dispatch[pickle.BUILD[0]] = load_build

    @staticmethod
    def _build_dtype(dtype, state):
        # A plain dtype's state is flat: version, byte order, element size, alignment and
        # flags. NumPy takes the flags as given, so they must be those of the same dtype
        # built afresh.
        if type(state) is not tuple or not all(type(item) in _FLAT for item in state):
            raise UnsafePickleError("a dtype's state should hold only its byte order, sizes "
                                    "and flags")
        dtype.__setstate__(state)
        fresh = np.dtype(dtype.str)
        if (dtype.flags, dtype.alignment, dtype.itemsize) != \
                (fresh.flags, fresh.alignment, fresh.itemsize):
            raise UnsafePickleError(f"a dtype's state gives {dtype.str} the flags "
                                    f"{dtype.flags} and alignment {dtype.alignment}, which it "
                                    f"does not have")

    def _build_array(self, array, state):
        if type(state) is not tuple or len(state) not in (4, 5):
            raise UnsafePickleError("an array's state should be (version, shape, dtype, "
                                    "fortran_order, data)")
        shape, dtype, fortran, data = state[-4:]
        shape = _shape(shape, "an array's field 'shape'")
        dtype = _plain_dtype(dtype, "an array's field 'dtype'")
        data = _raw_bytes(data, "an array's field 'data'")
        if type(fortran) not in (bool, int):
            raise UnsafePickleError("an array's field 'fortran_order' should be a bool")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes != len(data):
            raise UnsafePickleError(
                f"an array's field 'shape' {shape} of {dtype} claims {nbytes} bytes, but "
                f"its field 'data' holds {len(data)}")
        self._charge(nbytes)
        array.__setstate__((1, shape, dtype, bool(fortran), data))


def safe_load(file, encoding="bytes", name=None):
    """Unpickle plain data from a binary file object with SafeUnpickler. `encoding`
    ('bytes' by default) decodes Python 2 strings, as CIFAR's batches need; `name` (by
    default the file's name) begins the message of an UnsafePickleError.

    Example:
        >>> import io, pickle
        >>> safe_load(io.BytesIO(pickle.dumps({'a': 1})))
        {'a': 1}
        >>> safe_load(io.BytesIO(b'\\x80\\x02]q\\x00(K\\x01'), name='batch_1')
        Traceback (most recent call last):
        ...
        dygraph.vision.datasets.safe_pickle.UnsafePickleError: batch_1: damaged pickle (EOFError)
    """
    return SafeUnpickler(file, encoding=encoding, name=name).load()
