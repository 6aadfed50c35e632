"""The one place that sets Tensor's methods. `dygraph.ops` calls `attach_methods` once, at
import, with its op families; after it, every method a Paddle Tensor has is on `Tensor`:

- each family op not listed in the family's `NOT_METHODS` (`x.sum()`, `x.matmul(y)`);
- operators, conversion and device moves, and in-place forms (operators.py);
- dtype shorthands, strides, `requires_grad` and the other plumbing (plumbing.py);
- methods whose functions load on first use (tensor/lazy_methods.py);
- the sparse-tensor methods as a dense tensor answers them (dygraph/sparse/methods.py);
- Paddle's other spellings of existing methods (dygraph/ops/aliases.py).

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([1.0, -2.0])
    >>> x.abs().numpy().tolist(), x.mul_(2).numpy().tolist()
    ([1.0, 2.0], [2.0, -4.0])
"""

from dygraph.sparse.methods import attach_sparse_methods
from dygraph.tensor import lazy_methods, operators, plumbing
from dygraph.tensor.tensor import Tensor

# Torch-style spellings of in-place methods that Paddle 3 also has.
_INPLACE_ALIASES = (("mul_", "multiply_"), ("sub_", "subtract_"), ("div_", "divide_"),
                    ("clamp_", "clip_"))


def attach_methods(families, aliases):
    """Set every method on Tensor; returns the family ops and alias functions by name.

    `families` are the op modules (each with `__all__` and `NOT_METHODS`); `aliases` is the
    module of alternative names (`dygraph.ops.aliases`)."""
    ops = operators.attach(families)
    plumbing.attach()
    lazy_methods.attach_lazy(Tensor)
    attach_sparse_methods(Tensor)
    for alias, method in _INPLACE_ALIASES:
        if hasattr(Tensor, method):
            setattr(Tensor, alias, getattr(Tensor, method))
    ops.update(aliases.install(ops))
    return ops
