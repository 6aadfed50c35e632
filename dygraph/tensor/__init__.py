"""Tensor and all its methods, attached in one place.

- tensor.py: the class (data, graph links, properties) and `to_tensor`;
- operators.py: operators, conversion and device moves; plumbing.py: dtype shorthands,
  strides, in-place plumbing; diagonal.py, checks.py: the diagonal fills and type checks;
- tensor/lazy_methods.py: methods whose functions load on first use (linalg, signal);
- methods.py: `attach_methods`, the one place that sets all of these and the op families'
  functions on Tensor (called once, by `dygraph.ops`);
- printing.py: Paddle's print format.

`dygraph.tensor` is also Paddle's `paddle.tensor` namespace: any top-level op is reachable
through it (`paddle.tensor.matmul`).

Example:
    >>> import dygraph
    >>> dygraph.tensor.Tensor is dygraph.Tensor
    True
"""

from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["Tensor", "to_tensor"]


def __getattr__(name):
    """`paddle.tensor.<op>`: Paddle's `paddle.tensor` namespace holds the tensor functions
    too (`paddle.tensor.fill_constant`, `paddle.tensor.matmul`, ...); they are DyGraph's
    top-level ops.

    Example:
        >>> import dygraph
        >>> dygraph.tensor.fill_constant([2], 'float32', 3.0).numpy().tolist()
        [3.0, 3.0]
    """
    if name == "fill_constant":
        from dygraph.fluid.layers.tensor_op import fill_constant

        return fill_constant
    if name in ("create_array", "array_write", "array_read", "array_length"):
        from dygraph.static import tensor_array

        return getattr(tensor_array, name)  # a name from this closed tuple
    import types

    import dygraph

    if not name.startswith("_") and name in dir(dygraph):
        value = getattr(dygraph, name)
        if not isinstance(value, types.ModuleType):
            return value
    raise AttributeError(f"module 'dygraph.tensor' has no attribute {name!r}")
