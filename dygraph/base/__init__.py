"""`paddle.base`: Paddle 2.6 renamed `paddle.fluid` to `paddle.base`, so code written for
2.6 and later imports the same names from here. Every name and submodule of
`dygraph.fluid` is reachable under `dygraph.base` (`dygraph.base.core`,
`from dygraph.base.dygraph import guard`, ...): they are the same module objects.

Example:
    >>> import dygraph.base as base
    >>> import dygraph.fluid as fluid
    >>> base.dygraph.guard is fluid.dygraph.guard
    True
    >>> from dygraph.base.framework import in_dygraph_mode
    >>> in_dygraph_mode is fluid.framework.in_dygraph_mode
    True
"""

import importlib
import importlib.abc
import importlib.util
import sys

_PREFIX = __name__ + "."
_TARGET = "dygraph.fluid"


class _FluidAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `dygraph.base.X.Y` as the module `dygraph.fluid.X.Y` itself."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        real = _TARGET + fullname[len(__name__):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module(_TARGET + spec.name[len(__name__):])

    def exec_module(self, module):
        """Nothing to run: the fluid module is already executed."""


# First in line: otherwise the path finder would load a second copy of a fluid submodule
# under the dygraph.base name (the parent's __path__ is fluid's folder).
if not any(isinstance(finder, _FluidAlias) for finder in sys.meta_path):
    sys.meta_path.insert(0, _FluidAlias())


def __getattr__(name):
    fluid = importlib.import_module(_TARGET)
    try:
        value = getattr(fluid, name)
    except AttributeError:
        raise AttributeError(f"module 'dygraph.base' (dygraph.fluid) has no attribute "
                             f"{name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(dir(importlib.import_module(_TARGET))))
