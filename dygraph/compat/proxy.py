"""Paddle 3.3's PyTorch compatibility switch: `paddle.enable_compat()` makes `import torch`
give the framework itself under torch's name, `paddle.disable_compat()` undoes it.

While the switch is on, an import finder placed first on `sys.meta_path` answers every
`torch` or `torch.<path>` import with a proxy of `dygraph` / `dygraph.<path>`: a module
named torch... whose attributes are DyGraph's, so `torch.sin is dygraph.sin`. A few torch
names stand for DyGraph functions of another path (`torch.relu` is
`dygraph.nn.functional.relu`), as in Paddle. Paddle also gives torch its `paddle.compat`
functions with torch's semantics (torch.max returning values and indices, ...); DyGraph
has none, so those names are DyGraph's own functions.

`scope` limits the switch to the imports made by the named modules (and their
submodules); `blocked_modules` are modules whose imports of torch always get the real
torch, if it is installed. The real torch modules imported before the switch are set
aside while it is on and put back by `disable_compat`.

Example:
    >>> import dygraph
    >>> enable_torch_proxy()
    >>> import torch
    >>> torch.sin is dygraph.sin
    True
    >>> disable_torch_proxy()
"""

import contextlib
import importlib
import importlib.abc
import importlib.util
import inspect
import sys
import types
import warnings

from dygraph.framework.errors import AssertedValueError, op_error

__all__ = ["enable_torch_proxy", "disable_torch_proxy", "use_torch_proxy_guard",
           "extend_torch_proxy_blocked_modules"]

# torch names whose DyGraph function lives at another path than torch's.
_OVERRIDES = {"torch.relu": ("dygraph.nn.functional", "relu")}
# Modules whose own imports of torch get the real torch (Paddle's default list).
_BLOCKED = {"tvm_ffi"}
# Set in the globals of a module loaded for `scope` (its imports get the proxy) or for
# `blocked_modules` (they do not): the finder looks for them along the importing frames.
_SCOPED_FLAG = "__enable_torch_proxy__"
_BLOCKED_FLAG = "__disable_torch_proxy__"
# The real torch modules set aside while the switch is on, by name.
_REAL_TORCH = {}


def _inside(name, package):
    return name == package or name.startswith(package + ".")


def _inside_any(name, packages):
    return any(_inside(name, p) for p in packages)


def _imported_by(flag):
    """Whether a frame on the stack runs code of a module whose globals carry `flag`."""
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_globals.get(flag):
            return True
        frame = frame.f_back
    return False


class ProxyModule(types.ModuleType):
    """torch.<path> standing for DyGraph module `source`: its attributes are the source's
    (its submodules proxied in turn), except the names in `overrides`."""

    def __init__(self, name, source, overrides):
        super().__init__(name)
        self._source = source
        self._overrides = overrides

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_source", "_overrides"):
            raise AttributeError(attr)
        if attr in self._overrides:
            module, name = self._overrides[attr]
            return getattr(importlib.import_module(module), name)
        return _proxied(self.__name__, attr, getattr(self._source, attr))

    def _fill(self):
        """Copy the source's attributes in (for `dir` and `from torch import *`)."""
        for key, value in vars(self._source).items():
            if key not in ("__name__", "__package__", "__path__", "__spec__", "__loader__")\
                    and key not in self._overrides:
                self.__dict__[key] = _proxied(self.__name__, key, value)


def _proxied(parent, attr, value):
    """A DyGraph submodule read through a proxy is a proxy too; other values as they are."""
    if not (isinstance(value, types.ModuleType) and _inside(value.__name__, "dygraph")):
        return value
    name = f"{parent}.{attr}"
    module = sys.modules.get(name)
    if isinstance(module, ProxyModule):
        return module
    return ProxyModule(name, value, _overrides_under(name))


def _overrides_under(name):
    prefix = name + "."
    return {k[len(prefix):]: v for k, v in _OVERRIDES.items()
            if k.startswith(prefix) and "." not in k[len(prefix):]}


class _ProxyLoader(importlib.abc.Loader):
    def __init__(self, source):
        self.source = source

    def create_module(self, spec):
        module = ProxyModule(spec.name, self.source, _overrides_under(spec.name))
        module.__file__ = getattr(self.source, "__file__", None)
        if hasattr(self.source, "__path__"):
            module.__path__ = list(self.source.__path__)
        return module

    def exec_module(self, module):
        module._fill()


class _FlaggingLoader(importlib.abc.Loader):
    """Loads a scoped or blocked module with its own loader, with the switch on (scoped)
    or off (blocked) while its code runs, and marks its globals with `flag`."""

    def __init__(self, loader, flag, switch_on):
        self.loader, self.flag, self.switch_on = loader, flag, switch_on

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        with use_torch_proxy_guard(enable=self.switch_on, silent=True):
            self.loader.exec_module(module)
        module.__dict__[self.flag] = True


class _TorchFinder(importlib.abc.MetaPathFinder):
    """The import finder of the switch; `scope` None means every importer."""

    def __init__(self):
        self.scope = None

    def find_spec(self, fullname, path=None, target=None):
        if _inside_any(fullname, _BLOCKED):
            return self._flagged_spec(fullname, path, target, _BLOCKED_FLAG, False)
        if self.scope and _inside_any(fullname, self.scope):
            return self._flagged_spec(fullname, path, target, _SCOPED_FLAG, True)
        if not _inside(fullname, "torch"):
            return None
        if _imported_by(_BLOCKED_FLAG) or (
                self.scope is not None and not _imported_by(_SCOPED_FLAG)):
            return self._real_spec(fullname)
        source = importlib.import_module("dygraph" + fullname[len("torch"):])
        return importlib.util.spec_from_loader(
            fullname, _ProxyLoader(source), origin=getattr(source, "__file__", None),
            is_package=hasattr(source, "__path__"))

    @staticmethod
    def _flagged_spec(fullname, path, target, flag, switch_on):
        """The spec the other finders give a scoped or blocked module, loaded so that it
        is flagged."""
        for finder in list(sys.meta_path):
            if finder is _FINDER or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _FlaggingLoader(spec.loader, flag, switch_on)
                return spec
        return None

    @staticmethod
    def _real_spec(fullname):
        """The real torch module set aside by the switch, else None (a normal search)."""
        if fullname not in _REAL_TORCH:
            return None
        module = _REAL_TORCH[fullname]

        class _Cached(importlib.abc.Loader):
            def create_module(self, spec):
                return module

            def exec_module(self, module):
                pass

        spec = importlib.util.spec_from_loader(fullname, _Cached(), is_package=True)
        spec.submodule_search_locations = list(getattr(module, "__path__", []))
        return spec


_FINDER = _TorchFinder()


def _scope_set(scope):
    if scope is None:
        return None
    return {scope} if isinstance(scope, str) else set(scope)


def _set_torch_aside():
    """Take every torch module out of sys.modules: the real ones are kept for later."""
    for name, module in list(sys.modules.items()):
        if _inside(name, "torch"):
            if not isinstance(module, ProxyModule):
                _REAL_TORCH[name] = module
            del sys.modules[name]


def _put_torch_back():
    for name, module in list(sys.modules.items()):
        if _inside(name, "torch") and isinstance(module, ProxyModule):
            del sys.modules[name]
    sys.modules.update(_REAL_TORCH)


def _widen_scope(scope, silent):
    """Merge a new `scope` into the finder's, warning (unless `silent`) when it changes."""
    def tell(message):
        if not silent:
            warnings.warn(message, stacklevel=4)

    if _FINDER not in sys.meta_path:
        _FINDER.scope = scope
    elif _FINDER.scope is None:
        if scope is not None:
            tell("PyTorch compat is already enabled globally; the scope is ignored.")
    elif scope is None:
        tell("Enabling PyTorch compat globally; the previous scope no longer applies.")
        _FINDER.scope = None
    else:
        if scope != _FINDER.scope:
            tell(f"Extending the PyTorch compat scope {sorted(_FINDER.scope)} with "
                 f"{sorted(scope)}.")
        _FINDER.scope = _FINDER.scope | scope


def enable_torch_proxy(*, scope=None, blocked_modules=None, backend="torch", silent=False):
    """Turn the torch compatibility switch on (paddle.enable_compat): `import torch` gives
    DyGraph under torch's names. `scope` (a module name or several) limits it to the
    imports those modules make; `blocked_modules` are added to the modules whose imports
    get the real torch; `silent` keeps quiet about scope changes. Returns None.

    Example:
        >>> import dygraph
        >>> enable_torch_proxy()
        >>> import torch
        >>> torch.relu is dygraph.nn.functional.relu
        True
        >>> disable_torch_proxy()
    """
    if backend != "torch":
        raise op_error("enable_compat", f"backend must be 'torch', got {backend!r}",
                       AssertedValueError)
    blocked = _scope_set(blocked_modules)
    if blocked:
        extend_torch_proxy_blocked_modules(blocked)
    _set_torch_aside()
    _widen_scope(_scope_set(scope), silent)
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    sys.meta_path.insert(0, _FINDER)


def disable_torch_proxy():
    """Turn the torch compatibility switch off (paddle.disable_compat): the torch proxies
    leave sys.modules and the real torch modules set aside come back; a warning when it
    was not on. Returns None.

    Example:
        >>> import sys
        >>> enable_torch_proxy(); disable_torch_proxy()
        >>> isinstance(sys.modules.get('torch'), ProxyModule)
        False
    """
    if _FINDER not in sys.meta_path:
        warnings.warn("torch compat is not installed.", stacklevel=2)
        return
    sys.meta_path.remove(_FINDER)
    _put_torch_back()


@contextlib.contextmanager
def use_torch_proxy_guard(*, enable=True, scope=None, silent=False):
    """A block with the torch compatibility switch on (or off, enable=False); the switch
    and its scope are as before afterwards.

    Example:
        >>> import dygraph
        >>> with use_torch_proxy_guard():
        ...     import torch
        ...     print(torch.sin is dygraph.sin)
        True
    """
    scope = _scope_set(scope)
    was_on = _FINDER in sys.meta_path
    old_scope = None if _FINDER.scope is None else set(_FINDER.scope)
    if enable == was_on and scope == old_scope:
        yield
        return
    try:
        if enable:
            enable_torch_proxy(scope=scope, silent=silent)
        elif was_on:
            disable_torch_proxy()
        yield
    finally:
        if was_on:
            enable_torch_proxy(silent=True)
        elif _FINDER in sys.meta_path:
            disable_torch_proxy()
        _FINDER.scope = old_scope


def extend_torch_proxy_blocked_modules(modules):
    """Add module names whose imports of torch always get the real torch.

    Example:
        >>> extend_torch_proxy_blocked_modules(['my_module'])
    """
    _BLOCKED.update(_scope_set(modules) or ())
