"""Image backends: 'pil' (Pillow images) or 'cv2' (NumPy HWC arrays), and loading image files.

Pillow is optional: it is imported only when a PIL image is needed, with a clear message
when it is missing. The default backend is 'pil' (Paddle's default) when Pillow is
installed, else 'cv2', so that DyGraph works with NumPy alone.

Example:
    >>> from dygraph.vision.image import get_image_backend
    >>> get_image_backend() in ('pil', 'cv2')
    True
"""

import importlib
import importlib.util

import numpy as np

__all__ = ["set_image_backend", "get_image_backend", "image_load", "require_pil", "is_pil_image"]

_backend = [None]


def require_pil():
    """The `PIL.Image` module, or an ImportError that says how to install Pillow.

    Example:
        >>> require_pil().__name__
        'PIL.Image'
    """
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        raise ImportError("this needs Pillow, which is not installed: run "
                          "`pip install pillow` (or use the 'cv2' image backend, which "
                          "works on NumPy arrays)") from None


def is_pil_image(img):
    """True for a PIL image (without importing Pillow when it is not loaded yet).

    Example:
        >>> is_pil_image(np.zeros((2, 2)))
        False
    """
    import sys

    image_module = sys.modules.get("PIL.Image")
    return image_module is not None and isinstance(img, image_module.Image)


def check_backend(backend, owner):
    """Validate a backend name; None means the global default."""
    if backend is None:
        return get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{owner}: backend should be 'pil' or 'cv2', but got {backend!r}")
    return backend


def set_image_backend(backend):
    """Choose the image type that datasets return: 'pil' (PIL images) or 'cv2' (arrays).

    Example:
        >>> set_image_backend('cv2'); get_image_backend()
        'cv2'
        >>> set_image_backend('pil')
    """
    if backend not in ("pil", "cv2"):
        raise ValueError(f"set_image_backend: backend should be 'pil' or 'cv2', but got "
                         f"{backend!r}")
    _backend[0] = backend


def get_image_backend():
    """The current image backend: as set, else 'pil' when Pillow is installed, else 'cv2'.

    Example:
        >>> get_image_backend() in ('pil', 'cv2')
        True
    """
    if _backend[0] is not None:
        return _backend[0]
    return "pil" if importlib.util.find_spec("PIL") is not None else "cv2"


def image_load(path, backend=None):
    """Load an image file: a PIL image ('pil') or a uint8 HWC array in BGR order ('cv2',
    as OpenCV's imread; read with OpenCV when installed, else with Pillow).

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), 'a.png')
        >>> require_pil().fromarray(np.zeros((4, 5, 3), np.uint8)).save(p)
        >>> image_load(p, backend='cv2').shape
        (4, 5, 3)
    """
    backend = check_backend(backend, "image_load")
    if backend == "pil":
        return require_pil().open(path)
    if importlib.util.find_spec("cv2") is not None:
        return importlib.import_module("cv2").imread(path)
    img = np.asarray(require_pil().open(path).convert("RGB"))
    return np.ascontiguousarray(img[:, :, ::-1])
