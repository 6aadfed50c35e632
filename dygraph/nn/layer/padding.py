"""Padding layers by mode: ConstantPad, ZeroPad, ReflectionPad, ReplicationPad and
CircularPad over 1, 2 or 3 spatial dims (Paddle 3's classes, with their torch-style
lowercase-d aliases). Each is Pad1D/2D/3D with the mode fixed.
"""

from dygraph.nn.layer.common import Pad1D, Pad2D, Pad3D

_DIMS = {1: (Pad1D, "NCL"), 2: (Pad2D, "NCHW"), 3: (Pad3D, "NCDHW")}
_EXAMPLE_SHAPE = {1: "[1, 1, 2]", 2: "[1, 1, 2, 2]", 3: "[1, 1, 2, 2, 2]"}


def _make(prefix, mode, d, with_value):
    base, data_format = _DIMS[d]
    name = f"{prefix}Pad{d}D"
    if with_value:
        def __init__(self, padding, value, data_format=data_format, name=None):
            base.__init__(self, padding, mode, value, data_format, name)
    else:
        def __init__(self, padding, data_format=data_format, name=None):
            base.__init__(self, padding, mode, 0.0, data_format, name)
    pads = ", ".join(["1"] * (2 * d))
    grown = {1: "[1, 1, 4]", 2: "[1, 1, 4, 4]", 3: "[1, 1, 4, 4, 4]"}[d]
    doc = (f"{prefix} padding of the last {d} spatial dim(s) ({data_format}); "
           f"padding is an int or {2 * d} ints (before/after, last dim first)"
           f"{', filled with value' if with_value else ''}.\n\n"
           f"    Example:\n"
           f"        >>> import dygraph\n"
           f"        >>> dygraph.nn.{name}([{pads}]{', 0.5' if with_value else ''})"
           f"(dygraph.ones({_EXAMPLE_SHAPE[d]})).shape\n"
           f"        {grown}\n")
    return type(name, (base,), {"__init__": __init__, "__doc__": doc,
                                "__module__": __name__, "__qualname__": name})


_KINDS = (("Constant", "constant", True), ("Zero", "constant", False),
          ("Reflection", "reflect", False), ("Replication", "replicate", False),
          ("Circular", "circular", False))

__all__ = []
for _prefix, _mode, _value in _KINDS:
    for _d in (1, 2, 3):
        if _prefix == "Zero" and _d == 2:
            continue  # ZeroPad2D is dygraph.nn.layer.common's (Paddle 2's class)
        _cls = _make(_prefix, _mode, _d, _value)
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)
        if _prefix != "Zero":
            # Paddle 3 exports torch's spelling too: ConstantPad1d is ConstantPad1D.
            globals()[f"{_prefix}Pad{_d}d"] = _cls
            __all__.append(f"{_prefix}Pad{_d}d")
