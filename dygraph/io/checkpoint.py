"""Checkpoints: `dygraph.save(obj, path)` and `dygraph.load(path)`, without pickle.

`obj` is a nest of dicts, lists and tuples holding Tensors (Parameters included), NumPy
arrays and scalars, Python numbers, strings, bytes, bools and None: the state dicts of
layers and optimizers. The file format (docs/checkpoint-format.md) is a fixed preamble, a
JSON description of the nest and raw little-endian array bytes, each part checked by CRC32.
Nothing in a file is ever executed, so loading an untrusted checkpoint is safe; a truncated,
corrupt or foreign file raises ValueError naming the path and the problem.

Writes are atomic: the bytes go to a temporary file in the target's directory, which is
flushed, fsynced and renamed over the target, then the directory is fsynced. A crash
mid-save leaves the previous file whole.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dygraph
    >>> path = os.path.join(tempfile.mkdtemp(), "model.pdparams")
    >>> dygraph.save({"w": dygraph.to_tensor([1.0, 2.0]), "step": 3}, path)
    >>> state = dygraph.load(path)
    >>> state["w"].numpy(), state["step"]
    (array([1., 2.], dtype=float32), 3)
"""

import contextlib
import io
import json
import math
import os
import secrets
import struct
import zlib

import numpy as np

from dygraph.io.checkpoint_compat import check_exists, is_named_array, protocol_from_configs
from dygraph.tensor.tensor import Tensor, _new_tensor


class _LayerSaveError(ValueError, TypeError):
    """dygraph.save of a Layer: Paddle's ValueError, and the TypeError DyGraph raised for it
    before, so code written against either catches it."""

__all__ = ["save", "load"]

MAGIC = b"\x89DYGCKPT\r\n\x1a\n"
FORMAT_VERSION = 1
ALIGN = 64
# magic, format version, header length, payload length, header CRC32, payload CRC32
_FIELDS = struct.Struct("<12sIQQII")
_PREAMBLE_SIZE = 64  # the fields, a CRC32 of the fields, zero padding
_DTYPES = frozenset({"bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64",
                     "int64", "float16", "float32", "float64", "complex64", "complex128"})
_SAVE_CONFIGS = frozenset({"use_binary_format"})
_LOAD_CONFIGS = frozenset({"return_numpy"})


def _pad(n):
    return -n % ALIGN


# -- save ------------------------------------------------------------------------------------
class _Encoder:
    """Turns a nest into a JSON-able node tree plus a list of host arrays."""

    def __init__(self):
        self.arrays = []  # (C-contiguous little-endian ndarray, offset)
        self.table = []  # the header's description of each array
        self._by_id = {}  # id(source object) -> array index, so shared objects stay shared
        self._keep = []  # keep sources alive so their ids stay unique during the walk
        self._active = set()
        self._end = 0

    def _add_array(self, source, array, where):
        key = id(source)
        if key in self._by_id:
            return self._by_id[key]
        name = array.dtype.name
        if name not in _DTYPES:
            raise TypeError(f"dygraph.save: {where} has dtype {array.dtype}, which a "
                            f"checkpoint cannot hold (numeric and bool dtypes only)")
        if not array.flags.c_contiguous:  # (np.ascontiguousarray would make 0-d arrays 1-d)
            array = array.copy(order="C")
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        offset = self._end + _pad(self._end)
        self._end = offset + array.nbytes
        index = len(self.arrays)
        self.arrays.append((array, offset))
        self.table.append({"dtype": name, "shape": list(array.shape), "offset": offset,
                           "nbytes": array.nbytes})
        self._by_id[key] = index
        self._keep.append(source)
        return index

    def node(self, obj, where):
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, np.generic):  # first: np.float64 is also a Python float
            return {"type": "numpy_scalar", "array": self._add_array(obj, np.asarray(obj),
                                                                     where)}
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, int):
            return {"type": "int", "value": obj}
        if isinstance(obj, float):
            return {"type": "float", "value": obj.hex()}
        if isinstance(obj, complex):
            return {"type": "complex", "real": obj.real.hex(), "imag": obj.imag.hex()}
        if isinstance(obj, str):
            return {"type": "str", "value": obj}
        if isinstance(obj, Tensor):
            node = {"type": "tensor", "array": self._add_array(obj, obj.numpy(), where)}
            if obj._name is not None:
                node["name"] = obj._name
            return node
        if isinstance(obj, np.ndarray):
            return {"type": "ndarray", "array": self._add_array(obj, obj, where)}
        if isinstance(obj, (bytes, bytearray)):
            data = np.frombuffer(bytes(obj), dtype=np.uint8)
            return {"type": "bytes", "array": self._add_array(obj, data, where)}
        if isinstance(obj, (dict, list, tuple)):
            return self._container(obj, where)
        from dygraph.nn.layer.layers import Layer

        if isinstance(obj, Layer):
            # Paddle 3.3 refuses a Layer anywhere in the object (alone, or in a tuple, list
            # or dict) with a ValueError; this one is a TypeError too, DyGraph's old kind
            raise _LayerSaveError(f"dygraph.save: {where} is a Layer "
                                  f"({type(obj).__qualname__}), which cannot be saved; save "
                                  f"its state_dict() (or use dygraph.jit.save)")
        raise TypeError(f"dygraph.save: {where} is a {type(obj).__module__}."
                        f"{type(obj).__qualname__}; a checkpoint holds dicts, lists and "
                        f"tuples of Tensors, ndarrays, numbers, strings, bytes and None "
                        f"(save a Layer or Optimizer through its state_dict())")

    def _container(self, obj, where):
        if id(obj) in self._active:
            raise ValueError(f"dygraph.save: {where} contains itself (a reference cycle)")
        self._active.add(id(obj))
        try:
            if isinstance(obj, dict):
                keys, values = [], []
                for key, value in obj.items():
                    if key is not None and not isinstance(key, (str, int, float)):
                        raise TypeError(f"dygraph.save: {where} has a key of type "
                                        f"{type(key).__name__}; keys must be str, int, "
                                        f"float, bool or None")
                    keys.append(self.node(key, where))
                    values.append(self.node(value, f"{where}[{key!r}]"))
                return {"type": "dict", "keys": keys, "values": values}
            items = [self.node(v, f"{where}[{i}]") for i, v in enumerate(obj)]
            return {"type": "list" if isinstance(obj, list) else "tuple", "items": items}
        finally:
            self._active.discard(id(obj))


def _payload_chunks(arrays):
    """(padding, array bytes) pairs in file order; the views share the arrays' memory."""
    position = 0
    for array, offset in arrays:
        yield b"\0" * (offset - position), array.reshape(-1).view(np.uint8)
        position = offset + array.nbytes


def _encode(obj):
    encoder = _Encoder()
    root = encoder.node(obj, "obj")
    header = json.dumps({"format": "dygraph-checkpoint", "version": FORMAT_VERSION,
                         "arrays": encoder.table, "root": root},
                        separators=(",", ":"), allow_nan=False)
    header = header.encode("utf-8")
    payload_crc = 0
    for padding, data in _payload_chunks(encoder.arrays):
        payload_crc = zlib.crc32(data, zlib.crc32(padding, payload_crc))
    fields = _FIELDS.pack(MAGIC, FORMAT_VERSION, len(header), encoder._end,
                          zlib.crc32(header), payload_crc)
    preamble = fields + struct.pack("<I", zlib.crc32(fields))
    preamble += b"\0" * (_PREAMBLE_SIZE - len(preamble))
    return preamble, header, encoder.arrays


def _write(stream, preamble, header, arrays):
    stream.write(preamble)
    stream.write(header)
    stream.write(b"\0" * _pad(len(header)))
    for padding, data in _payload_chunks(arrays):
        stream.write(padding)
        stream.write(data)


def _fsync_directory(directory):
    if os.name == "nt":  # Windows cannot open a directory to fsync it
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write(path, parts):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:  # a random name; O_EXCL makes a clash (never in practice) try another
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}."
                                      f"{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for a plain open()
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as stream:
            _write(stream, *parts)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _check_configs(configs, allowed, api):
    unknown = sorted(set(configs) - allowed)
    if unknown:
        raise ValueError(f"{api}: the config {unknown} is not supported; supported: "
                         f"{sorted(allowed)}")


def _file_path(path, api):
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"{api}: path must be a str, os.PathLike or a binary file object, "
                        f"got {type(path).__name__}") from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.basename(path):
        raise ValueError(f"{api}: path must name a file (dirname/filename), got {path!r}")
    return path


def save(obj, path, protocol=4, **configs):
    """Save `obj` (a nest of dicts/lists/tuples of Tensors, ndarrays, numbers, strings) to
    `path` atomically, or to a writable binary file object such as io.BytesIO.

    `protocol` (or the deprecated `pickle_protocol=` config) is checked like Paddle's (an
    int, 2 to 4) and otherwise unused: the format has no pickle. `use_binary_format` is
    accepted for Paddle compatibility; there is one format.

    Example:
        >>> import io
        >>> import dygraph
        >>> buffer = io.BytesIO()
        >>> dygraph.save({"lr": 0.1, "names": ["a", "b"]}, buffer)
        >>> _ = buffer.seek(0); dygraph.load(buffer)
        {'lr': 0.1, 'names': ['a', 'b']}
    """
    configs = dict(configs)
    protocol = protocol_from_configs(protocol, configs)
    _check_configs(configs, _SAVE_CONFIGS, "dygraph.save")
    if isinstance(protocol, bool) or not isinstance(protocol, int):
        raise ValueError(f"dygraph.save: protocol must be an int, got "
                         f"{type(protocol).__name__}")
    if not 1 < protocol < 5:
        raise ValueError(f"dygraph.save: expected 1 < protocol < 5, got {protocol}")
    if hasattr(path, "write"):
        _write(path, *_encode(obj))
        return
    path = _file_path(path, "dygraph.save")
    if os.path.isdir(path):
        raise ValueError(f"dygraph.save: {path!r} is a directory; give a file name such "
                         f"as {os.path.join(path, 'model.pdparams')!r}")
    _atomic_write(path, _encode(obj))


# -- load ------------------------------------------------------------------------------------
class _Reader:
    """Reads and checks one checkpoint; every failure names the source."""

    # Lengths in a file are claims until the bytes are there: a buffer grows by at most
    # this much beyond the bytes actually read, so a 4 KB file claiming gigabytes never
    # makes load allocate them.
    _STEP = 1 << 20

    def __init__(self, stream, source):
        self.stream = stream
        self.source = source
        self.remaining = _remaining_bytes(stream)

    def fail(self, message):
        return ValueError(f"dygraph.load: {self.source}: {message}")

    def read_upto(self, n):
        """Up to n bytes, fewer only at the end of the file (streams may return less)."""
        # A seekable file's size bounds the buffer; an unseekable stream's grows with the
        # bytes that actually arrive.
        first = min(n, self.remaining) if self.remaining is not None else min(n, self._STEP)
        buffer = bytearray(first)
        got = 0
        while got < n:
            if got == len(buffer):
                buffer.extend(bytes(min(n - got, len(buffer), self._STEP * 64)))
            with memoryview(buffer) as view:
                count = self.stream.readinto(view[got:])
            if not count:
                break
            got += count
        del buffer[got:]
        return buffer

    def read_exact(self, n, what):
        buffer = self.read_upto(n)
        if len(buffer) < n:
            raise self.fail(f"the file is truncated: it ends inside the {what} "
                            f"({len(buffer)} of {n} bytes present)")
        return buffer

    def foreign(self, start):
        if not start:
            return self.fail("the file is empty, not a DyGraph checkpoint")
        if start[:1] == b"\x80" and len(start) > 1 and 2 <= start[1] <= 5:
            kind = ("a Python pickle (the format of PaddlePaddle's own .pdparams files); "
                    "DyGraph never unpickles, because loading a pickle can run arbitrary "
                    "code")
        elif start.startswith(b"PK\x03\x04"):
            kind = "a zip archive (an .npz or a PyTorch file?)"
        elif start.startswith(b"\x93NUMPY"):
            kind = "a NumPy .npy file (read it with numpy.load)"
        else:
            kind = f"an unknown format (it starts with {bytes(start[:12])!r})"
        return self.fail(f"not a DyGraph checkpoint: the file is {kind}")

    def read(self):
        start = bytes(self.read_upto(_PREAMBLE_SIZE))
        if not start or not start.startswith(MAGIC[:len(start)]):
            raise self.foreign(start)
        if len(start) < _PREAMBLE_SIZE:
            raise self.fail(f"the file is truncated: {len(start)} bytes, shorter than the "
                            f"{_PREAMBLE_SIZE}-byte preamble")
        fields = start[:_FIELDS.size]
        (stored_crc,) = struct.unpack_from("<I", start, _FIELDS.size)
        if zlib.crc32(fields) != stored_crc:
            raise self.fail("the preamble is corrupt (CRC32 mismatch)")
        _, version, header_len, payload_len, header_crc, payload_crc = _FIELDS.unpack(fields)
        if version > FORMAT_VERSION:
            raise self.fail(f"format version {version} was written by a newer DyGraph; "
                            f"this one reads up to version {FORMAT_VERSION}")
        claimed = header_len + _pad(header_len) + payload_len
        if self.remaining is not None and claimed > self.remaining - _PREAMBLE_SIZE:
            raise self.fail(f"the file is truncated or damaged: its preamble claims "
                            f"{claimed} bytes of header and array data, but only "
                            f"{self.remaining - _PREAMBLE_SIZE} bytes follow it")
        header_bytes = self.read_exact(header_len, "header")
        if zlib.crc32(header_bytes) != header_crc:
            raise self.fail("the header is corrupt (CRC32 mismatch)")
        self.read_exact(_pad(header_len), "header padding")
        payload = self.read_exact(payload_len, "array data")
        if self.stream.read(1):
            raise self.fail("the file has unexpected bytes after the array data")
        if zlib.crc32(payload) != payload_crc:
            raise self.fail("the array data is corrupt (CRC32 mismatch)")
        try:
            header = json.loads(header_bytes.decode("utf-8"), parse_constant=self._constant)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise self.fail(f"the header is not valid JSON ({exc})") from None
        if not isinstance(header, dict) or header.get("format") != "dygraph-checkpoint":
            raise self.fail("the header does not describe a DyGraph checkpoint")
        return header, payload

    def _constant(self, name):
        raise self.fail(f"the header holds the non-JSON constant {name}")


class _Decoder:
    def __init__(self, reader, header, payload, return_numpy):
        self.reader = reader
        self.payload = payload
        self.return_numpy = return_numpy
        self.table = header.get("arrays")
        if not isinstance(self.table, list):
            raise reader.fail("the header has no array table")
        self.arrays = {}
        self.objects = {}  # (node type, array index) -> object, so shared stays shared

    def array(self, index):
        if index in self.arrays:
            return self.arrays[index]
        if isinstance(index, bool) or not isinstance(index, int) or \
                not 0 <= index < len(self.table):
            raise self.reader.fail(f"an entry refers to array {index!r}, which the table "
                                   f"of {len(self.table)} arrays lacks")
        entry = self.table[index]
        try:
            dtype, shape = entry["dtype"], entry["shape"]
            offset, nbytes = entry["offset"], entry["nbytes"]
        except (TypeError, KeyError):
            raise self.reader.fail(f"array {index} is described incompletely") from None
        if dtype not in _DTYPES:
            raise self.reader.fail(f"array {index} has the unsupported dtype {dtype!r}")
        dims = shape if isinstance(shape, list) else None
        if dims is None or not all(type(d) is int and d >= 0 for d in dims) or \
                type(offset) is not int or type(nbytes) is not int:
            raise self.reader.fail(f"array {index} has a malformed shape or offset")
        dtype = np.dtype(dtype).newbyteorder("<")
        count = math.prod(dims)  # exact: a huge shape cannot wrap around to a small count
        if count * dtype.itemsize != nbytes or offset < 0 or \
                offset + nbytes > len(self.payload):
            raise self.reader.fail(f"array {index} ({nbytes} bytes at {offset}) does not "
                                   f"fit its shape {dims} or the {len(self.payload)}-byte "
                                   f"array data")
        if count:
            value = np.frombuffer(self.payload, dtype=dtype, count=count, offset=offset)
            value = value.astype(dtype.newbyteorder("="), copy=False).reshape(dims)
        else:  # frombuffer refuses an empty read at the very end of the buffer
            value = np.empty(dims, dtype=dtype.newbyteorder("="))
        self.arrays[index] = value
        return value

    def node(self, node):
        if not isinstance(node, dict):
            raise self.reader.fail(f"malformed entry {node!r:.60}")
        kind = node.get("type")
        try:
            if kind == "none":
                return None
            if kind in ("bool", "int", "str"):
                value = node["value"]
                expected = {"bool": bool, "int": int, "str": str}[kind]
                if type(value) is not expected:
                    raise TypeError(kind)
                return value
            if kind == "float":
                return float.fromhex(node["value"])
            if kind == "complex":
                return complex(float.fromhex(node["real"]), float.fromhex(node["imag"]))
            if kind in ("tensor", "ndarray", "numpy_scalar", "bytes"):
                return self._array_object(kind, node)
            if kind == "dict":
                keys = [self.node(k) for k in node["keys"]]
                values = [self.node(v) for v in node["values"]]
                if len(keys) != len(values):
                    raise ValueError("keys and values differ in length")
                return dict(zip(keys, values))
            if kind in ("list", "tuple"):
                items = [self.node(v) for v in node["items"]]
                if kind == "tuple" and is_named_array(
                        items, [v.get("type") for v in node["items"]]):
                    # Paddle 2.1's form of a Tensor: load gives the named Tensor back
                    return items[1] if self.return_numpy else _to_tensor(items[1], items[0])
                return items if kind == "list" else tuple(items)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, ValueError) and str(exc).startswith("dygraph.load:"):
                raise
            raise self.reader.fail(f"malformed {kind!r} entry ({exc!r})") from None
        raise self.reader.fail(f"unknown entry type {kind!r}")

    def _array_object(self, kind, node):
        key = (kind, node["array"])
        if key in self.objects:
            return self.objects[key]
        value = self.array(node["array"])
        if kind == "bytes":
            result = value.tobytes()
        elif kind == "numpy_scalar":
            result = value[()]
        elif kind == "ndarray" or self.return_numpy:
            result = value
        else:
            result = _to_tensor(value, node.get("name"))
        self.objects[key] = result
        return result


def _to_tensor(array, name):
    from dygraph.framework.place import current_place

    place = current_place()
    if place.is_gpu_place():
        from dygraph.backend import to_place

        array = to_place(array, place)
    tensor = _new_tensor(array, None, 0, True)
    if isinstance(name, str):
        tensor.name = name
    return tensor


def load(path, **configs):
    """Load what `save` wrote: Tensors come back as Tensors (stop_gradient=True, names
    kept), ndarrays as ndarrays, containers and scalars as they were saved; as in Paddle,
    a `(name, ndarray)` tuple (Paddle 2.1's form of a Tensor) comes back as that named
    Tensor. A missing path raises an error that is both ValueError (as Paddle) and
    FileNotFoundError.

    `return_numpy=True` returns ndarrays in place of Tensors. `path` may also be a readable
    binary file object.

    Example:
        >>> import io
        >>> import numpy as np
        >>> import dygraph
        >>> buffer = io.BytesIO()
        >>> dygraph.save({"w": np.arange(3, dtype=np.int32)}, buffer)
        >>> _ = buffer.seek(0); dygraph.load(buffer)
        {'w': array([0, 1, 2], dtype=int32)}
    """
    _check_configs(configs, _LOAD_CONFIGS, "dygraph.load")
    return_numpy = bool(configs.get("return_numpy", False))
    if hasattr(path, "read"):
        stream = path if hasattr(path, "readinto") else io.BytesIO(path.read())
        return _decode(_Reader(stream, "<file object>"), return_numpy)
    path = _file_path(path, "dygraph.load")
    if os.path.isdir(path):
        raise ValueError(f"dygraph.load: {path!r} is a directory; give the checkpoint "
                         f"file (for example {os.path.join(path, 'model.pdparams')!r})")
    check_exists(path, "dygraph.load")
    with open(path, "rb") as stream:
        return _decode(_Reader(stream, repr(path)), return_numpy)


def _remaining_bytes(stream):
    """Bytes from the stream's position to its end, or None when it cannot seek."""
    try:
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
    except (AttributeError, OSError, ValueError):
        return None
    return end - here


def _decode(reader, return_numpy):
    header, payload = reader.read()
    decoder = _Decoder(reader, header, payload, return_numpy)
    try:
        return decoder.node(header.get("root"))
    except RecursionError:
        raise reader.fail("the structure is nested too deeply") from None
