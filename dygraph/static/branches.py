"""case and switch_case: many-way branches, in static programs and eagerly.

Both reduce to `cond`: `case` chains the (pred, fn) pairs so the first pred that holds
wins, and `switch_case` compares `branch_index` with each key. Eagerly only the chosen
function runs; in a static program every branch is built and one Select per pair picks
the result at run time (so, as with `cond`, the branches must be free of side effects).

Example:
    >>> import dygraph
    >>> x = dygraph.to_tensor([3.0])
    >>> float(case([(x < 1, lambda: x * 0), (x < 5, lambda: x * 10)], lambda: x))
    30.0
    >>> float(switch_case(dygraph.to_tensor(2), {1: lambda: x, 2: lambda: x + 1}))
    4.0
"""

import numpy as np

from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor
from dygraph.static.control_flow import cond

__all__ = ["case", "switch_case"]


def _check_fn(api, fn, what):
    if not callable(fn):
        raise op_error(api, f"{what} must be callable, got {type(fn).__name__}", TypeError)


def _check_static_tensor(value, api, what):
    """In a static program a condition is a tensor of the program (Paddle refuses a Python
    value there, which would fix the choice when the program is built)."""
    from dygraph.autograd import grad_mode
    from dygraph.tensor.tensor import Tensor

    if grad_mode.state.static_program is not None and not isinstance(value, Tensor):
        raise op_error(api, f"{what} must be a tensor in a static program, got "
                       f"{type(value).__name__}", TypeError)


def _chain(pairs, default):
    """cond(p0, f0, cond(p1, f1, ... default)), built from the last pair up."""
    from dygraph.static.program import Variable

    if not any(isinstance(p, Variable) for p, _ in pairs):  # eager: the first true pred
        for pred, fn in pairs:
            if bool(pred._data.reshape(-1)[0]):
                return fn()
        return default()
    result = default
    for pred, fn in reversed(pairs):
        result = (lambda p, f, rest: lambda: cond(p, f, rest))(pred, fn, result)
    return result()


def case(pred_fn_pairs, default=None, name=None):
    """The result of the fn of the first (pred, fn) pair whose pred (one bool) holds, or of
    `default()` when none does (no default: the last pair's fn).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.5])
        >>> float(case([(x > 1, lambda: x + 1)], lambda: x - 1))
        -0.5
    """
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise op_error("case", f"pred_fn_pairs must be a non-empty list or tuple, got "
                       f"{type(pred_fn_pairs).__name__}", TypeError)
    pairs = []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise op_error("case", f"each element of pred_fn_pairs must be a (pred, fn) "
                           f"tuple, got {pair!r}", TypeError)
        pred, fn = pair
        _check_static_tensor(pred, "case", "pred")
        pred = as_tensor(pred, "case")
        if pred._data.dtype != np.bool_ or pred._data.size != 1:
            raise op_error("case", f"pred must be one bool, got shape {list(pred.shape)} "
                           f"and dtype {pred._data.dtype.name}", TypeError)
        _check_fn("case", fn, "fn")
        pairs.append((pred, fn))
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    _check_fn("case", default, "default")
    return _chain(pairs, default) if pairs else default()


def _branches(branch_fns):
    """{index: fn} from a dict, a list of (index, fn) pairs or a list of fns."""
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        items = [b if isinstance(b, tuple) else (i, b) for i, b in enumerate(branch_fns)]
    else:
        raise op_error("switch_case", f"branch_fns must be a dict, list or tuple, got "
                       f"{type(branch_fns).__name__}", TypeError)
    table = {}
    for item in items:
        if len(item) != 2 or not isinstance(item[0], (int, np.integer)):
            raise op_error("switch_case", f"each branch must be (int index, fn), got "
                           f"{item!r}", TypeError)
        key, fn = int(item[0]), item[1]
        _check_fn("switch_case", fn, f"the fn of branch {key}")
        if key in table:
            raise op_error("switch_case", f"branch index {key} appears twice")
        table[key] = fn
    if not table:
        raise op_error("switch_case", "branch_fns must not be empty")
    return table


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The result of branch_fns[branch_index](); `default()` for an index without a branch
    (no default: the branch with the largest index). `branch_fns` is a dict {index: fn}, a
    list of (index, fn) pairs or a list of fns (indexed by position).

    Example:
        >>> import dygraph
        >>> float(switch_case(dygraph.to_tensor(7), [lambda: 1.0, lambda: 2.0],
        ...                   lambda: -1.0))
        -1.0
    """
    from dygraph.ops.compare import equal
    from dygraph.static.program import Variable

    _check_static_tensor(branch_index, "switch_case", "branch_index")
    index = as_tensor(branch_index, "switch_case")
    if index._data.dtype.kind not in "iu" or index._data.size != 1:
        raise op_error("switch_case", f"branch_index must be one integer (int32, int64 or "
                       f"uint8), got shape {list(index.shape)} and dtype "
                       f"{index._data.dtype.name}", TypeError)
    table = _branches(branch_fns)
    if default is None:
        default = table.pop(max(table))
    _check_fn("switch_case", default, "default")
    if not isinstance(index, Variable):  # eager: call the one branch
        return table.get(int(index._data.reshape(-1)[0]), default)()
    pairs = [(equal(index, np.array(key, index._data.dtype)), fn) for key, fn in
             sorted(table.items())]
    return _chain(pairs, default) if pairs else default()
