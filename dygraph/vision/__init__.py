"""Computer vision (`paddle.vision`): datasets, transforms, models and image backends.

Submodules load on first use (`models` in particular is never imported by
`import dygraph.vision`). Names of the submodules are also reachable here, as in Paddle:
`dygraph.vision.MNIST`, `dygraph.vision.ToTensor`, `dygraph.vision.LeNet`.

Example:
    >>> import dygraph.vision as vision
    >>> vision.get_image_backend() in ('pil', 'cv2')
    True
"""

import importlib as _importlib

from dygraph.vision.image import get_image_backend, image_load, set_image_backend

_SUBMODULES = ("datasets", "transforms", "models", "ops", "image")
# Where a top-level name may live, searched in this order on first use.
_SEARCH = ("dygraph.vision.datasets", "dygraph.vision.transforms", "dygraph.vision.models")

__all__ = ["set_image_backend", "get_image_backend", "image_load", *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        module = _importlib.import_module(f"dygraph.vision.{name}")
        globals()[name] = module
        return module
    if not name.startswith("_"):
        for module_name in _SEARCH:
            try:
                module = _importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name != module_name:
                    raise
                continue
            if name in getattr(module, "__all__", ()):
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module 'dygraph.vision' has no attribute {name!r}")
