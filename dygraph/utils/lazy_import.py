"""`paddle.utils.try_import`: import an optional dependency, or fail saying what to install.

Example:
    >>> try_import('math').sqrt(4.0)
    2.0
"""

import importlib

__all__ = ["try_import"]

# Modules whose pip package has another name.
_PIP_NAMES = {"cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn",
              "yaml": "pyyaml"}


def try_import(module_name, err_msg=None):
    """The module `module_name`, or an ImportError with `err_msg` (by default, one naming
    the package to install).

    Example:
        >>> try_import('no_such_module_xyz')  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ImportError: ... `pip install no_such_module_xyz` ...
    """
    top = module_name.split(".")[0]
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}: this needs an optional dependency "
                       f"that is not installed (usually `pip install "
                       f"{_PIP_NAMES.get(top, top)}` adds it).")
        raise ImportError(err_msg) from None
