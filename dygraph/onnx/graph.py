"""The ONNX graph under construction, and the table of op mappings.

Each mapping turns one Op of a static program into ONNX nodes: `fn(g, op, ins, outs)`
reads the Op instance's attributes (the very object eager mode runs), takes its input
value names `ins` and must produce every name of `outs`. Program variable names are the
ONNX value names, so the graph reads like the program.

Example:
    >>> import numpy as np
    >>> g = Graph(None, 17, {})
    >>> g.ints([1, -1]) in g.initializers, g.value(g.const(np.float32(2)))
    (True, array(2., dtype=float32))
"""

import itertools

import numpy as np

__all__ = ["Graph", "MAPPINGS", "maps", "require_onnx", "INT64_MAX", "INT64_MIN"]

INT64_MAX, INT64_MIN = 2 ** 63 - 1, -2 ** 63

# Op class -> mapping function; filled by the map_* modules with @maps.
MAPPINGS = {}


def maps(*op_classes):
    """Register the decorated function as the ONNX mapping of `op_classes`."""

    def register(fn):
        for cls in op_classes:
            MAPPINGS[cls] = fn
        return fn

    return register


def require_onnx(*names):
    """Import and return the optional packages `names` (default: onnx), or raise
    ImportError naming the package and the extra that installs it."""
    import importlib

    modules = []
    for name in names or ("onnx",):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            raise ImportError(f"this needs the '{name}' package: pip install "
                              f"'dygraph-framework[onnx]' (or pip install {name})") from None
    return modules[0] if len(modules) == 1 else modules


class Graph:
    """Nodes, initializers and fresh names of one export; `shapes` maps program
    variable names to (static shape with -1 for free dims, NumPy dtype)."""

    def __init__(self, helper, opset, shapes):
        self.helper, self.opset, self.shapes = helper, opset, shapes
        self.nodes = []
        self.initializers = {}  # name -> NumPy array
        self._ids = itertools.count()

    def fresh(self, hint):
        return f"{hint}__{next(self._ids)}"

    def add(self, op_type, inputs, outputs=None, n_out=1, **attrs):
        """Append a node; returns its output name (or the list of them)."""
        outputs = list(outputs) if outputs is not None else [
            self.fresh(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), outputs,
                                                name=self.fresh(op_type), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, value, dtype=None, hint="const"):
        """A new initializer holding `value`; returns its name."""
        name = self.fresh(hint)
        self.initializers[name] = np.array(value, dtype=dtype)
        return name

    def ints(self, values):
        """An int64 1-D initializer (shapes, axes, indices)."""
        return self.const(np.asarray(values, np.int64).reshape(-1), hint="ints")

    def scalar(self, value, like):
        """A 0-d initializer of the dtype of program variable `like`."""
        return self.const(value, self.dtype(like), hint="scalar")

    def value(self, name):
        """The array of initializer `name`, or None for a computed value."""
        return self.initializers.get(name)

    def shape(self, name):
        return self.shapes[name][0]

    def dtype(self, name):
        return self.shapes[name][1]

    def rank(self, name):
        return len(self.shapes[name][0])

    def axes_op(self, op_type, x, axes, outputs=None, **attrs):
        """A node with an `axes` list: an input from opset 13 (Squeeze, Unsqueeze,
        ReduceSum) or 18 (the other reductions), an attribute before."""
        since = 13 if op_type in ("Squeeze", "Unsqueeze", "ReduceSum") else 18
        if axes is None:
            return self.add(op_type, [x], outputs, **attrs)
        if self.opset >= since:
            return self.add(op_type, [x, self.ints(axes)], outputs, **attrs)
        return self.add(op_type, [x], outputs, axes=list(axes), **attrs)
