"""Reading and writing IDX files, the format of MNIST and Fashion-MNIST (gzipped or raw).

An IDX file is a big-endian header (two zero bytes, a type code, the number of dimensions,
then one uint32 per dimension) followed by the values. MNIST images are `0x00000803`
(uint8, 3 dims: count, rows, cols), labels `0x00000801` (uint8, 1 dim).

Example:
    >>> import numpy as np, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x-idx1-ubyte.gz")
    >>> write_idx(path, np.array([3, 1, 4], np.uint8))
    >>> read_idx(path).tolist()
    [3, 1, 4]
"""

import gzip
import os

import numpy as np

__all__ = ["read_idx", "write_idx", "IDXFormatError"]

_GZIP_MAGIC = b"\x1f\x8b"
_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
          0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_CODES = {np.dtype(np.uint8): 0x08, np.dtype(np.int8): 0x09}


class IDXFormatError(ValueError):
    """A file that is not a valid IDX file (bad magic number, or size not matching its
    header)."""


def _read_bytes(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == _GZIP_MAGIC else open
    try:
        with opener(path, "rb") as f:
            return f.read()
    except (OSError, EOFError) as exc:
        raise IDXFormatError(f"{path}: cannot read the file ({exc}); it looks like a "
                             f"truncated or corrupt gzip file") from exc


def read_idx(path, expect_dims=None):
    """The array stored in an IDX file (gzipped or raw), with the shape its header gives.

    `expect_dims` (e.g. 3 for images, 1 for labels) makes a file of another kind an error.

    Example:
        >>> import os, tempfile, numpy as np
        >>> p = os.path.join(tempfile.mkdtemp(), "img")
        >>> write_idx(p, np.zeros((2, 28, 28), np.uint8))
        >>> read_idx(p, expect_dims=3).shape
        (2, 28, 28)
    """
    data = _read_bytes(path)
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _TYPES:
        raise IDXFormatError(f"{path}: bad magic number {data[:4].hex() or '(empty)'}; "
                             f"expected an IDX file starting with 0x0000 then a type code "
                             f"(e.g. 00000803 for MNIST images, 00000801 for labels)")
    dtype, ndim = np.dtype(_TYPES[data[2]]), data[3]
    if expect_dims is not None and ndim != expect_dims:
        raise IDXFormatError(f"{path}: magic number {data[:4].hex()} means a {ndim}-D IDX "
                             f"file, but a {expect_dims}-D file was expected (images are "
                             f"00000803, labels 00000801)")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise IDXFormatError(f"{path}: the file ends inside its header ({len(data)} bytes)")
    shape = tuple(int(d) for d in np.frombuffer(data, ">u4", ndim, 4))
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) != expected:
        raise IDXFormatError(f"{path}: the header promises shape {list(shape)} "
                             f"({expected} bytes) but the file holds {len(data)} bytes")
    values = np.frombuffer(data, dtype, offset=header).reshape(shape)
    return values.astype(dtype.newbyteorder("="), copy=True)


def write_idx(path, array, compress=None):
    """Write a uint8 or int8 array as an IDX file, gzipped when `compress` is True or, by
    default, when `path` ends with '.gz'.

    Example:
        >>> import os, tempfile, numpy as np
        >>> p = os.path.join(tempfile.mkdtemp(), "lab-idx1-ubyte")
        >>> write_idx(p, np.arange(3, dtype=np.uint8)); open(p, 'rb').read(4).hex()
        '00000801'
    """
    array = np.ascontiguousarray(array)
    if array.dtype not in _CODES:
        raise TypeError(f"write_idx: expected a uint8 or int8 array, got {array.dtype}")
    header = bytes([0, 0, _CODES[array.dtype], array.ndim])
    header += np.asarray(array.shape, dtype=">u4").tobytes()
    compress = str(path).endswith(".gz") if compress is None else compress
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if compress:
        # mtime=0 keeps the file bytes (and their md5) the same from run to run.
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                    compresslevel=9) as f:
            f.write(header + array.tobytes())
    else:
        with open(path, "wb") as f:
            f.write(header + array.tobytes())
