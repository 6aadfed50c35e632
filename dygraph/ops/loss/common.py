"""Pieces shared by the loss functions: the reduction argument, class-index targets (shape
checks, ignore_index, per-sample class weights) and the fused class-loss op base.

A class loss takes, per sample, one value along the class `axis` (picked at the label, or
a dot with a soft label), multiplies it by a per-sample weight and reduces. Its gradient
is `coef * dvalue/dx`, where `coef` is the reduction's gradient per sample; `ClassLoss`
computes both halves so the fused ops (cross_entropy, nll_loss) stay a single node.
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.backend import capturing, defer_check
from dygraph.framework.errors import IndexValueError, ValueTypeError, describe, op_error
from dygraph.ops.common import as_tensor
from dygraph.ops.reduction import reduce as _reduction
from dygraph.ops.reduction.axes import constant

REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction, op, allowed=REDUCTIONS):
    """Raise a ValueError unless `reduction` is one of `allowed`.

    Example:
        >>> check_reduction('mean', 'mse_loss')
        'mean'
    """
    if reduction not in allowed:
        raise op_error(op, f"reduction must be one of {', '.join(map(repr, allowed))}, got "
                       f"{reduction!r}")
    return reduction


def reduce_loss(loss, reduction):
    """Apply 'mean' / 'sum' (a 0-D result) or 'none' (unchanged) to an elementwise loss.

    Example:
        >>> import dygraph
        >>> reduce_loss(dygraph.to_tensor([1.0, 3.0]), 'mean').numpy()
        array(2., dtype=float32)
    """
    if reduction == "mean":
        return _reduction.mean(loss)
    if reduction == "sum":
        return _reduction.sum(loss)
    return loss


def keep_shape(shape, axis):
    """`shape` with the class axis set to 1 (the shape of one value per sample).

    Example:
        >>> keep_shape((4, 3, 5), 1)
        (4, 1, 5)
    """
    return shape[:axis] + (1,) + shape[axis + 1:]


class Targets:
    """Class-index labels checked against an input of shape `x_shape` with classes on
    `axis`: `index` (keepdim shape, ignored entries replaced by 0), `valid` (keepdim bool
    or None when nothing is ignored) and `out_shape` (the shape of the unreduced loss,
    which is the label's own shape, [N] or [N, 1] for [N, C] inputs).

    Example:
        >>> import numpy as np
        >>> t = Targets((2, 3), np.array([2, -100]), 1, -100, 'nll_loss')
        >>> t.index.ravel().tolist(), t.valid.ravel().tolist(), t.out_shape
        ([2, 0], [True, False], (2,))
    """

    def __init__(self, x_shape, label, axis, ignore_index, op):
        if label.dtype.kind not in "iu":
            # a float label: Paddle's nll_loss refuses it with a ValueError, its cross entropy
            # with a shape error where the label has the class axis (the common mistake of
            # soft labels without soft_label=True)
            raise op_error(op, f"label must hold integer class indices (int64 or int32) when "
                           f"soft_label is False, got dtype {label.dtype.name} (label shape "
                           f"{list(label.shape)}, input shape {list(x_shape)})",
                           ValueTypeError if label.dtype.kind == "f" else TypeError)
        keep = keep_shape(tuple(x_shape), axis)
        without = keep[:axis] + keep[axis + 1:]
        if label.shape == keep:
            index = label
        elif label.shape == without:
            index = label.reshape(keep)
        else:
            raise op_error(op, f"label shape {list(label.shape)} does not match input shape "
                           f"{list(x_shape)} with classes on axis {axis}; expected "
                           f"{list(without)} or {list(keep)}")
        self.out_shape = label.shape
        classes = x_shape[axis]
        self.index, self.valid, self.count = index, None, index.size
        if index.size and capturing():
            self._on_device(index, ignore_index, classes, x_shape, op)
            return
        if index.size == 0 or (not 0 <= ignore_index < classes and _in_range(index, classes)):
            return  # the common case, checked with two reductions: every label is valid
        valid = index != ignore_index
        bad = valid & ((index < 0) | (index >= classes))
        if bad.any():
            # Paddle: IndexError from cross_entropy, ValueError from nll_loss; this is both
            raise op_error(op, f"label values must lie in [0, {classes}) or equal "
                           f"ignore_index={ignore_index}; got {int(index[bad].ravel()[0])} "
                           f"(input shape {list(x_shape)})", IndexValueError)
        if not valid.all():
            self.valid = valid
            self.index = index * valid
            self.count = int(valid.sum())

    def _on_device(self, index, ignore_index, classes, x_shape, op):
        """The checks inside a CUDA graph, where no label can be read on the host: every
        label is masked by ignore_index (a mask of ones where none is ignored: the same
        sums), the count stays on the device, and a bad label raises after the run."""
        valid = index != ignore_index
        bad = (valid & ((index < 0) | (index >= classes))).any()
        defer_check(bad, lambda: op_error(
            op, f"label values must lie in [0, {classes}) or equal ignore_index="
                f"{ignore_index} (input shape {list(x_shape)})", IndexValueError))
        self.valid = valid
        self.index = index * valid
        self.count = valid.sum()


def _in_range(index, classes):
    """Whether every value of `index` (integers) lies in [0, classes): the largest of them
    read as unsigned, where a negative one is 2^(bits - 1) or more. One reduction, where
    the min and the max were two and a stack to read them together (on a GPU each is a
    launch, and the read waits for the device). Narrow signed labels with more classes than
    2^(bits - 1) (int8 past 128) take the min and the max: there a negative label read as
    unsigned could be a class.

    Example:
        >>> import numpy as np
        >>> _in_range(np.array([0, 2]), 3), _in_range(np.array([0, -1]), 3)
        (True, False)
        >>> _in_range(np.array([5, -1], np.int8), 300)
        False
    """
    size = index.dtype.itemsize
    if index.dtype.kind == "i" and classes > 2 ** (8 * size - 1):
        from dygraph.backend import min_max

        low, high = min_max(index)
        return low >= 0 and high < classes
    return int(index.view(f"u{size}").max()) < classes


def class_weight_array(weight, classes, like, op):
    """The `weight` argument (one value per class) as an array like the input `like`.

    Example:
        >>> import numpy as np
        >>> class_weight_array([1, 2], 2, np.zeros(1, np.float32), 'nll_loss').tolist()
        [1.0, 2.0]
    """
    w = as_tensor(weight, op)._data
    if type(w) is not np.ndarray or type(like) is not np.ndarray:
        from dygraph.backend import get_array_module

        w = get_array_module(like).asarray(w)  # the weights go where the input is
    if w.shape != (classes,):
        raise op_error(op, f"weight must have one value per class, shape [{classes}], got "
                       f"{describe(as_tensor(weight, op))}")
    return w.astype(like.dtype, copy=False)


def hard_weights(targets, weight):
    """Per-sample weights (keepdim shape or None) and the 'mean' denominator for class
    index targets: weight[label] on non-ignored samples, as Paddle's weighted mean uses.

    Example:
        >>> import numpy as np
        >>> t = Targets((2, 3), np.array([2, 0]), 1, -100, 'op')
        >>> w, denom = hard_weights(t, np.array([1.0, 1.0, 3.0]))
        >>> w.ravel().tolist(), denom
        ([3.0, 1.0], 4.0)
    """
    if weight is None:
        if targets.valid is None:
            return None, float(max(targets.index.size, 1))
        count = targets.count
        if not isinstance(count, int):  # a device count inside a CUDA graph
            return targets.valid.astype(np.float32), count.clip(1, None).astype(np.float32)
        return targets.valid.astype(np.float32), float(max(count, 1))
    per = weight[targets.index]
    if targets.valid is not None:
        per = per * targets.valid
    if capturing():  # the sum stays on the device
        denom = per.sum()
        return per, denom + (denom == 0)
    denom = float(per.sum())
    return per, (denom if denom != 0 else 1.0)


class ClassLoss(Op):
    """Base of the fused class losses. Subclasses compute the per-sample value `per`
    (keepdim shape) and call `finish`; their backward gets `coef(m, g)`."""

    attrs = ("axis", "denom", "out_shape", "reduction", "weights")

    def __init__(self, axis, weights, denom, reduction, out_shape):
        self.axis = axis
        self.weights = weights      # per-sample weights, keepdim shape, or None
        self.denom = denom          # divisor of 'mean'
        self.reduction = reduction
        self.out_shape = tuple(out_shape)

    def finish(self, xp, per):
        if self.weights is not None:
            self.weights = self.weights.astype(per.dtype, copy=False)
            per = per * self.weights
        if self.reduction == "none":
            return per.reshape(self.out_shape)
        total = per.sum()
        if self.reduction == "mean":
            total = total / self.denom
        return xp.asarray(total, dtype=per.dtype)

    def coef(self, m, g):
        """The gradient of the output with respect to each per-sample value."""
        if self.reduction == "none":
            c = m.reshape(g, self.keep)
        else:
            c = g / self.denom if self.reduction == "mean" else g
        if self.weights is not None:
            c = c * constant(m, self.weights)
        return c

    def onehot(self, xp, index, shape, dtype):
        """The one-hot of `index` (keepdim shape) along the class axis, as `dtype`."""
        line = [1] * len(shape)
        line[self.axis] = shape[self.axis]
        return (xp.arange(shape[self.axis]).reshape(line) == index).astype(dtype)
