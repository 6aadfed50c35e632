"""Reading images as tensors: read_file (a file's bytes) and decode_jpeg (JPEG bytes to a
uint8 [C, H, W] image).

Decoding uses Pillow (the 'main' extra, pip install pillow), imported on first use; Paddle
decodes with nvJPEG on a GPU only, DyGraph on any device. In a static program each runs at
every run of the program, so a file is read again at each run (building the program reads
it once too, so it must exist then).

Example:
    >>> import os, tempfile
    >>> import dygraph
    >>> from dygraph.vision.ops import read_file
    >>> path = os.path.join(tempfile.mkdtemp(), 'data.bin')
    >>> with open(path, 'wb') as f:
    ...     _ = f.write(bytes([1, 2, 255]))
    >>> read_file(path).numpy()
    array([  1,   2, 255], dtype=uint8)
"""

import importlib
import io

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import as_numpy
from dygraph.framework.errors import op_error
from dygraph.framework.stand_in import is_stand_in
from dygraph.ops.common import as_tensor
from dygraph.tensor.tensor import _new_tensor

__all__ = ["read_file", "decode_jpeg"]

_MODES = ("unchanged", "gray", "rgb")


def _pil_image():
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        raise ImportError("decode_jpeg needs Pillow, which is not installed: pip install "
                          "pillow (or pip install 'dygraph-framework[main]')") from None


@captured_whole(free_dims=(0,), always="per_run")
def read_file(filename, name=None):
    """The bytes of the file `filename` as a 1-D uint8 tensor (on the CPU, as Paddle's).

    Example:
        >>> import os, tempfile
        >>> from dygraph.vision.ops import read_file
        >>> path = os.path.join(tempfile.mkdtemp(), 'empty')
        >>> open(path, 'wb').close()
        >>> read_file(path).shape
        [0]
    """
    if not isinstance(filename, (str, bytes)) and not hasattr(filename, "__fspath__"):
        raise op_error("read_file", f"filename must be a path, got {type(filename).__name__}",
                       TypeError)
    with open(filename, "rb") as f:
        data = f.read()
    return _new_tensor(np.frombuffer(data, np.uint8).copy(), None, 0, True)


@captured_whole(free_dims=(0, 1, 2))
def decode_jpeg(x, mode="unchanged", name=None):
    """Decode JPEG bytes (a 1-D uint8 tensor, as read_file gives) into a uint8 image
    [C, H, W]: 'unchanged' keeps the file's channels (1 for grayscale, 3 for colour),
    'gray' gives the luma plane [1, H, W], 'rgb' three channels.

    Example:
        >>> import io
        >>> import numpy as np
        >>> from PIL import Image
        >>> import dygraph
        >>> from dygraph.vision.ops import decode_jpeg
        >>> buffer = io.BytesIO()
        >>> Image.new('RGB', (5, 4), (200, 30, 90)).save(buffer, format='JPEG')
        >>> data = dygraph.to_tensor(np.frombuffer(buffer.getvalue(), np.uint8))
        >>> decode_jpeg(data).shape, decode_jpeg(data, mode='gray').shape
        ([3, 4, 5], [1, 4, 5])
    """
    if mode not in _MODES:
        raise op_error("decode_jpeg", f"mode must be one of {list(_MODES)}, got {mode!r}")
    x = as_tensor(x, "decode_jpeg")
    data = as_numpy(x._data)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise op_error("decode_jpeg", f"x must be a 1-D uint8 tensor of JPEG bytes, got shape "
                       f"{list(data.shape)} and dtype {data.dtype.name}", TypeError)
    if is_stand_in(x._data):  # a program being built: no bytes yet, every size free
        return _new_tensor(np.zeros((1, 1, 1), np.uint8), None, 0, True)
    image_module = _pil_image()
    try:
        image = image_module.open(io.BytesIO(data.tobytes()))
        if image.format != "JPEG":
            raise op_error("decode_jpeg", f"the data is a {image.format} image, not a JPEG")
        if mode == "gray":
            image.draft("L", image.size)  # the decoder's own luma, not a conversion after
        image.load()
    except (OSError, SyntaxError) as exc:  # Pillow's errors for data it cannot read
        raise op_error("decode_jpeg", f"cannot decode the {data.size} bytes as a JPEG "
                       f"image ({exc})") from None
    if mode == "gray" and image.mode != "L":
        image = image.convert("L")
    elif mode == "rgb" or image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    pixels = np.asarray(image, np.uint8)
    pixels = pixels[None] if pixels.ndim == 2 else pixels.transpose(2, 0, 1)
    from dygraph.backend import get_array_module

    xp = get_array_module(x._data)
    return _new_tensor(xp.asarray(np.ascontiguousarray(pixels)), None, 0, True)
