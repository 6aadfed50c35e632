"""`jacobian` and `hessian` (paddle.autograd, Paddle 2.5+ semantics): lazily evaluated
matrices of derivatives of already computed outputs.

Without a batch axis, xs and ys are 0-D or 1-D and J has shape [ys.size, xs.size] (a 0-D
side drops its axis). With batch_axis=0 they are [B] or [B, N] and J is [B, M, N]. Indexing
J (ints and slices) computes only the rows it needs, one reverse pass per row of ys, and
caches them; any other use (arithmetic, `.numpy()`, `.shape` of the evaluated tensor)
evaluates all rows. Rows are computed with create_graph=True, so J can be differentiated
again: the Hessian is the Jacobian of the Jacobian.

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> J = dygraph.autograd.jacobian(x * x, x)
    >>> J.shape, J[:].numpy()
    ([2, 2], array([[2., 0.],
           [0., 4.]], dtype=float32))
"""

import operator
from collections.abc import Sequence

from dygraph.autograd.engine import grad
from dygraph.framework.errors import op_error
from dygraph.tensor.tensor import Tensor

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


class Jacobian:
    """The lazily evaluated Jacobian of ys (a Tensor or Jacobian) with respect to xs."""

    def __init__(self, ys, xs, is_batched=False):
        if isinstance(ys, Jacobian):
            ys = ys._evaluate_all()
        low = 1 if is_batched else 0
        for what, t in (("xs", xs), ("ys", ys)):
            if not isinstance(t, Tensor):
                raise op_error("jacobian", f"{what} must be a Tensor, got {type(t).__name__}",
                               TypeError)
            if not low <= t.ndim <= low + 1:
                raise op_error("jacobian", f"{what} must have {low} or {low + 1} dims "
                               f"{'with' if is_batched else 'without'} a batch axis, got "
                               f"shape {t.shape}")
        self._xs, self._ys, self.is_batched = xs, ys, is_batched
        self._cache = {}
        if is_batched:
            self._rows = ys.reshape([ys.shape[0], -1])
            self._inner = [ys.shape[0], self._rows.shape[1], xs.reshape([xs.shape[0], -1])
                           .shape[1]]
            self._kept = [True, ys.ndim == 2, xs.ndim == 2]
        else:
            self._rows = ys.reshape([-1])
            self._inner = [self._rows.shape[0], int(xs.size)]
            self._kept = [ys.ndim == 1, xs.ndim == 1]
        self._lazy = 1 if is_batched else 0
        self.shape = [n for n, kept in zip(self._inner, self._kept) if kept]

    def _row(self, k):
        """Row k (of ys) of the Jacobian: [N], or [B, N] with a batch axis."""
        row = self._cache.get(k)
        if row is None:
            y = self._rows[:, k] if self.is_batched else self._rows[k]
            (g,) = grad(y, self._xs, create_graph=True, allow_unused=True)
            if g is None:
                from dygraph.ops.creation.constructors import zeros_like

                g = zeros_like(self._xs)
            row = g.reshape([g.shape[0], -1]) if self.is_batched else g.reshape([-1])
            self._cache[k] = row
        return row

    def _full_index(self, index):
        """The user's index (over `shape`) as one int or slice per inner axis."""
        index = index if isinstance(index, tuple) else (index,)
        for i in index:
            if not isinstance(i, (int, slice)) or isinstance(i, bool):
                raise IndexError(f"Jacobian: only int and slice indices are supported, got "
                                 f"{i!r}")
        if len(index) > len(self.shape):
            raise IndexError(f"Jacobian: too many indices ({len(index)}) for shape "
                             f"{self.shape}")
        index = list(index) + [slice(None)] * (len(self.shape) - len(index))
        full = []
        for kept in self._kept:
            full.append(index.pop(0) if kept else 0)
        return full

    def __getitem__(self, index):
        from dygraph.ops.manipulation.rearrange import stack

        full = self._full_index(index)
        lazy = full[self._lazy]
        size = self._inner[self._lazy]
        if isinstance(lazy, int):
            if not -size <= lazy < size:
                raise IndexError(f"Jacobian: index {lazy} out of range for {size} rows")
            part = self._row(lazy % size)
            rest = tuple(i for a, i in enumerate(full) if a != self._lazy)
            return part[rest]
        rows = range(*lazy.indices(size))
        part = stack([self._row(k) for k in rows], axis=self._lazy)
        full[self._lazy] = slice(None)
        return part[tuple(full)]

    def _evaluate_all(self):
        return self[()]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)

    def __repr__(self):
        return f"{type(self).__name__}(shape={self.shape})"


def _binary(fn):
    def method(self, other):
        other = other._evaluate_all() if isinstance(other, Jacobian) else other
        return fn(self._evaluate_all(), other)

    return method


for _name in ("add", "sub", "mul", "truediv", "pow", "mod", "floordiv", "matmul", "eq", "ne",
              "lt", "le", "gt", "ge"):
    setattr(Jacobian, f"__{_name}__", _binary(getattr(operator, _name)))


class Hessian(Jacobian):
    """The lazily evaluated Hessian (the Jacobian of a Jacobian)."""


def jacobian(ys, xs, batch_axis=None):
    """Jacobian(s) of ys with respect to xs; a sequence on either side gives a tuple (a
    tuple of tuples when both are sequences: one row per ys).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
        >>> J = dygraph.autograd.jacobian((x * x).sum(axis=1), x, batch_axis=0)
        >>> J.shape, J[:, 0].numpy()
        ([2, 2], array([2., 6.], dtype=float32))
    """
    if batch_axis not in (None, 0):
        raise op_error("jacobian", f"batch_axis must be None or 0, got {batch_axis!r}")
    batched = batch_axis is not None
    ys_seq = isinstance(ys, Sequence)
    xs_seq = isinstance(xs, Sequence)
    if ys_seq and xs_seq:
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if ys_seq:
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if xs_seq:
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)


def hessian(ys, xs, batch_axis=None):
    """Hessian of a scalar ys (one value, or one per batch row with batch_axis=0) with
    respect to xs; a sequence xs gives a tuple of tuples of blocks.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> H = dygraph.autograd.hessian((x * x * x).sum(), x)
        >>> H[:].numpy()
        array([[ 6.,  0.],
               [ 0., 12.]], dtype=float32)
    """
    if batch_axis is None:
        if ys.size != 1:
            raise op_error("hessian", f"ys must hold one value without a batch axis, got "
                           f"shape {ys.shape}")
        ys = ys.reshape([])
    elif batch_axis == 0:
        if ys.ndim == 0 or ys[0].size != 1:
            raise op_error("hessian", f"ys must hold one value per batch row, got shape "
                           f"{ys.shape}")
        ys = ys.reshape([-1])
    else:
        raise op_error("hessian", f"batch_axis must be None or 0, got {batch_axis!r}")
    first = jacobian(ys, xs, batch_axis)
    if not isinstance(xs, Sequence):
        result = Jacobian(first, xs, batch_axis is not None)
        result.__class__ = Hessian
        return result
    blocks = tuple(tuple(Jacobian(j, x, batch_axis is not None) for x in xs) for j in first)
    for row in blocks:
        for block in row:
            block.__class__ = Hessian
    return blocks
