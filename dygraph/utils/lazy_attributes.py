"""Module attributes loaded on first use, so `import dygraph` stays fast.

Example:
    >>> import types
    >>> ns = {}
    >>> getter = lazy_attributes("os", ns, submodules={"path"}, names={"sep2": ("os", "sep")})
    >>> getter("sep2") == __import__("os").sep and "sep2" in ns
    True
"""

import importlib


def lazy_attributes(package, namespace, submodules=(), names=None):
    """A module-level `__getattr__` for `package`: `submodules` are imported as
    `package.<name>`, `names` maps an attribute to (module, attribute). Each value is
    cached in `namespace` (the package's globals()) after the first lookup."""
    submodules = frozenset(submodules)
    names = dict(names or {})

    def __getattr__(name):
        if name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        elif name in names:
            module_name, attr = names[name]
            value = getattr(importlib.import_module(module_name), attr)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    return __getattr__
