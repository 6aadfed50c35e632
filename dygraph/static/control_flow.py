"""Control flow that works in static programs and eagerly: `cond` and the 1.x `IfElse`.

`cond(pred, true_fn, false_fn)` records each branch into a sub-block and one op that runs
only the branch `pred` chooses at run time (dygraph.static.cond_block); the gradient
reaches only that branch. Eagerly, `cond` calls just the chosen function.

`IfElse(cond)` is 1.x's row-wise form, as the seeds' article uses it: `cond` is a [N, 1]
bool; `ie.input(x)` in `true_block()` gives the rows of x where cond holds (in
`false_block()` the others), `ie.output(...)` names each branch's results, and `ie()`
merges them back into the original row order.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> x = dygraph.to_tensor([[1.0], [2.0], [3.0]])
    >>> ie = IfElse(x > 1.5)
    >>> with ie.true_block():
    ...     ie.output(ie.input(x) * 10)
    >>> with ie.false_block():
    ...     ie.output(ie.input(x) * -1)
    >>> ie()[0].numpy().ravel().tolist()
    [-1.0, 20.0, 30.0]
"""

import contextlib

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor

__all__ = ["cond", "IfElse"]


def _check_fn(fn, which):
    if fn is not None and not callable(fn):
        raise TypeError(f"The {which} in cond must be callable, but received "
                        f"{type(fn).__name__}")


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """true_fn() if pred else false_fn(). Both return the same structure (a tensor, or
    nested lists, tuples and dicts of them), or both None; a missing function counts as
    one returning None.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([2.0])
        >>> cond(x > 1, lambda: x * 3, lambda: x - 1).tolist()
        [6.0]
        >>> cond(x > 5, lambda: {'y': x}, lambda: {'y': -x})['y'].tolist()
        [-2.0]
    """
    from dygraph.static.program import Variable
    from dygraph.tensor.tensor import Tensor

    if not isinstance(pred, Variable):  # eager: run the chosen branch only, as Paddle
        if not isinstance(pred, Tensor):
            if grad_mode.state.static_program is not None:
                raise TypeError(f"cond: pred must be a bool tensor, got "
                                f"{type(pred).__name__}")
            raise AssertionError("The pred in cond must be Variable")
        if pred._data.size != 1:
            raise AssertionError("condition input's numel should be 1")
        fn, which = ((true_fn, "true_fn") if bool(pred._data.reshape(-1)[0]) else
                     (false_fn, "false_fn"))
        _check_fn(fn, which)
        return fn() if fn is not None else None
    if pred._data.dtype != np.bool_:
        raise TypeError(f"cond: pred must be a bool tensor, got dtype "
                        f"{pred._data.dtype.name}")
    if pred._data.size != 1:
        raise op_error("cond", f"pred must be one bool, got shape {list(pred.shape)}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"cond: name must be a str or None, got {type(name).__name__}")
    _check_fn(true_fn, "true_fn")
    _check_fn(false_fn, "false_fn")
    from dygraph.static.cond_block import static_cond

    return static_cond(pred, true_fn, false_fn)


def _fit_rows(op, mask, rows):
    """The mask, checked against the rows of x (resized while a program is being built:
    stand-ins of a free batch need not match a cond of fixed size)."""
    if mask.shape[0] == rows:
        return mask
    if getattr(op, "probing", False):
        return np.resize(mask, (rows,) + mask.shape[1:])
    raise op_error("IfElse", f"cond has {mask.shape[0]} rows but the input has {rows}")


class _Rows(Op):
    """The rows of x where `cond` (a [N, 1] bool) is `side`."""

    attrs = ("side",)

    free_dims = (0,)  # how many rows: known only at run time

    def __init__(self, side):
        self.side = side

    def forward(self, xp, x, mask):
        mask = _fit_rows(self, mask, x.shape[0])
        self.keep = mask.reshape(-1) == self.side
        self.in_shape = x.shape
        return x[self.keep]

    def backward(self, m, g):
        full = np.zeros(self.in_shape, g.dtype)
        full[self.keep] = g
        return full, None


class _MergeRows(Op):
    """Put the true rows and the false rows back in the order of `cond`."""

    free_dims = (0,)

    def forward(self, xp, true_rows, false_rows, mask):
        if getattr(self, "probing", False):  # stand-ins: any row split will do
            mask = np.zeros(true_rows.shape[0] + false_rows.shape[0], bool)
            mask[:true_rows.shape[0]] = True
        self.keep = mask.reshape(-1)
        out = np.empty((self.keep.size,) + true_rows.shape[1:], true_rows.dtype)
        out[self.keep] = true_rows
        out[~self.keep] = false_rows
        return out

    def backward(self, m, g):
        return g[self.keep], g[~self.keep], None


class IfElse:
    """1.x row-wise if/else (see the module docstring)."""

    def __init__(self, cond, name=None):
        self.cond = as_tensor(cond, "IfElse")
        if self.cond._data.dtype != np.bool_ or self.cond.ndim != 2 or self.cond.shape[1] != 1:
            raise op_error("IfElse", f"cond must be a [N, 1] bool tensor, got shape "
                           f"{list(self.cond.shape)} and dtype {self.cond._data.dtype.name}")
        self._side = None
        self._outputs = {True: None, False: None}

    @contextlib.contextmanager
    def _block(self, side):
        if self._side is not None:
            raise RuntimeError("IfElse: blocks cannot be nested")
        self._side = side
        try:
            yield
        finally:
            self._side = None

    def true_block(self):
        """The block whose inputs are the rows where cond holds."""
        return self._block(True)

    def false_block(self):
        """The block whose inputs are the other rows."""
        return self._block(False)

    def input(self, x):
        """The rows of x that belong to the current block."""
        if self._side is None:
            raise RuntimeError("IfElse.input: call it inside true_block() or false_block()")
        return apply(_Rows(self._side), as_tensor(x, "IfElse.input"), self.cond)

    def output(self, *outs):
        """Name the current block's results (the same number in both blocks)."""
        if self._side is None:
            raise RuntimeError("IfElse.output: call it inside true_block() or false_block()")
        self._outputs[self._side] = list(outs)

    def __call__(self):
        true_outs, false_outs = self._outputs[True], self._outputs[False]
        if true_outs is None or false_outs is None or len(true_outs) != len(false_outs):
            raise RuntimeError("IfElse: both blocks must call output() with the same number "
                               "of results")
        return [apply(_MergeRows(), t, f, self.cond) for t, f in zip(true_outs, false_outs)]
