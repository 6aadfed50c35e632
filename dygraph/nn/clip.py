"""Gradient clipping: ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm.

Give one to an optimizer as `grad_clip=`; it runs on the (parameter, gradient) pairs of each
step before weight decay and the update. Parameters with `need_clip=False` (from
`ParamAttr(need_clip=False)`) pass through untouched and do not count towards a global norm.
A clip object is also callable on its own with a list of (param, grad) pairs and returns a
new list; the gradients it was given are never modified.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.nn.clip import ClipGradByGlobalNorm
    >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
    >>> [(_, g)] = ClipGradByGlobalNorm(1.0)([(p, dygraph.to_tensor([3.0, 4.0]))])
    >>> g.numpy()
    array([0.6, 0.8], dtype=float32)
"""

import math

import numpy as np

from dygraph.backend import get_array_module, is_gpu_array
from dygraph.framework.errors import as_number, op_error
from dygraph.tensor.tensor import _new_tensor

__all__ = ["ClipGradBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


def _clippable(param, grad):
    return grad is not None and getattr(param, "need_clip", True)


def _sum_of_squares(data):
    """sum(g**2) as a Python float, accumulated in at least float32 without a temporary."""
    flat = data.reshape(-1)
    if flat.dtype.kind == "c":
        return float(get_array_module(data).vdot(flat, flat).real)
    if flat.dtype.itemsize < 4:  # float16 sums overflow at 65504
        flat = flat.astype("float32")
    return float(get_array_module(data).dot(flat, flat))


def _sum_of_squares_on(xp, data):
    """sum(g**2) as a 0-d float64 array of xp (a GPU's: no read on the host)."""
    flat = data.reshape(-1)
    if flat.dtype.kind == "c":
        return xp.vdot(flat, flat).real.astype(np.float64)
    if flat.dtype.itemsize < 4:  # float16 sums overflow at 65504
        flat = flat.astype("float32")
    return xp.dot(flat, flat).astype(np.float64)


def _scaled(grad, scale):
    data = grad._data * scale
    return _new_tensor(data.astype(grad._data.dtype, copy=False), None, 0, True)


class ClipGradBase:
    """Base class: `__call__(params_grads)` returns the clipped list of (param, grad).

    Example:
        >>> issubclass(ClipGradByNorm, ClipGradBase)
        True
    """

    def __call__(self, params_grads):
        return self._clip(list(params_grads))

    def _clip(self, params_grads):
        raise NotImplementedError


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into [min, max]; `min` defaults to -max.

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([0.0, 0.0, 0.0], stop_gradient=False)
        >>> ClipGradByValue(1.0)([(p, dygraph.to_tensor([-3.0, 0.5, 2.0]))])[0][1].numpy()
        array([-1. ,  0.5,  1. ], dtype=float32)
    """

    def __init__(self, max, min=None):  # noqa: A002 - Paddle's argument names
        self.max = as_number(max, "max", "ClipGradByValue")
        if min is None:
            if self.max <= 0:
                raise op_error("ClipGradByValue", f"max must be positive when min is not "
                               f"given (min defaults to -max), got max={self.max}")
            min = -self.max  # noqa: A001
        self.min = as_number(min, "min", "ClipGradByValue")
        if self.min > self.max:
            raise op_error("ClipGradByValue", f"min ({self.min}) must not exceed max "
                           f"({self.max})")

    def _clip(self, params_grads):
        out = []
        for param, grad in params_grads:
            if _clippable(param, grad):
                data = get_array_module(grad._data).clip(grad._data, self.min, self.max)
                grad = _new_tensor(data, None, 0, True)
            out.append((param, grad))
        return out

    def __repr__(self):
        return f"Gradient Clip By Value, min = {self.min:f}, max={self.max:f}"


class ClipGradByNorm(ClipGradBase):
    """Scale each gradient on its own so that its L2 norm is at most `clip_norm`:
    g * clip_norm / max(norm(g), clip_norm).

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
        >>> ClipGradByNorm(2.5)([(p, dygraph.to_tensor([3.0, 4.0]))])[0][1].numpy()
        array([1.5, 2. ], dtype=float32)
    """

    def __init__(self, clip_norm):
        self.clip_norm = as_number(clip_norm, "clip_norm", "ClipGradByNorm")
        if self.clip_norm <= 0:
            raise op_error("ClipGradByNorm", f"clip_norm must be positive, got "
                           f"{self.clip_norm}")

    def _clip(self, params_grads):
        out = []
        for param, grad in params_grads:
            if _clippable(param, grad) and is_gpu_array(grad._data):
                # On a GPU the norm and the scale stay there (a read would wait for it).
                xp = get_array_module(grad._data)
                norm = xp.sqrt(_sum_of_squares_on(xp, grad._data))
                scale = xp.where(norm > self.clip_norm, self.clip_norm / norm, 1.0)
                grad = _scaled(grad, scale.astype(grad._data.dtype))
            elif _clippable(param, grad):
                norm = math.sqrt(_sum_of_squares(grad._data))
                if norm > self.clip_norm:
                    grad = _scaled(grad, self.clip_norm / norm)
            out.append((param, grad))
        return out

    def __repr__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients together so that their joint L2 norm is at most `clip_norm`:
    g * clip_norm / max(global_norm, clip_norm).

    `group_name` is kept for Paddle compatibility (gradients clipped by one object form one
    group). `auto_skip_clip` is accepted too: gradients are never rescaled when the global
    norm is already within `clip_norm`, whatever its value.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([0.0], stop_gradient=False)
        >>> b = dygraph.to_tensor([0.0], stop_gradient=False)
        >>> pairs = [(a, dygraph.to_tensor([3.0])), (b, dygraph.to_tensor([4.0]))]
        >>> [g.numpy() for _, g in ClipGradByGlobalNorm(1.0)(pairs)]
        [array([0.6], dtype=float32), array([0.8], dtype=float32)]
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = as_number(clip_norm, "clip_norm", "ClipGradByGlobalNorm")
        if self.clip_norm <= 0:
            raise op_error("ClipGradByGlobalNorm", f"clip_norm must be positive, got "
                           f"{self.clip_norm}")
        if not isinstance(group_name, str):
            raise op_error("ClipGradByGlobalNorm", f"group_name must be a str, got "
                           f"{type(group_name).__name__}", TypeError)
        self.group_name = group_name
        self.auto_skip_clip = bool(auto_skip_clip)

    def global_norm(self, params_grads):
        """The joint L2 norm of the clippable gradients in `params_grads`.

        Example:
            >>> import dygraph
            >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
            >>> ClipGradByGlobalNorm(1.0).global_norm([(p, dygraph.to_tensor([3.0, 4.0]))])
            5.0
        """
        total = 0.0
        for param, grad in params_grads:
            if _clippable(param, grad):
                total += _sum_of_squares(grad._data)
        return math.sqrt(total)

    def _clip(self, params_grads):
        grads = [g._data for p, g in params_grads if _clippable(p, g)]
        if grads and all(is_gpu_array(g) for g in grads) and len(
                {g.device.id for g in grads}) == 1:
            return self._clip_on_device(params_grads, grads)
        norm = self.global_norm(params_grads)
        if not norm > self.clip_norm:  # also leaves NaN norms to show up in the update
            return params_grads
        scale = self.clip_norm / norm
        return [(p, _scaled(g, scale) if _clippable(p, g) else g) for p, g in params_grads]

    def _clip_on_device(self, params_grads, grads):
        """The same clip on one GPU with the norm kept there: a read of each gradient's
        sum of squares would wait for the GPU once per parameter. The scale is
        clip_norm / norm where the norm exceeds clip_norm (a NaN norm does not), else 1."""
        xp = get_array_module(grads[0])
        total = xp.stack([_sum_of_squares_on(xp, g) for g in grads]).sum()
        norm = xp.sqrt(total)
        scale = xp.where(norm > self.clip_norm, self.clip_norm / norm, 1.0)
        # in each gradient's dtype, as the CPU's Python float scale is rounded
        scales = {d: scale.astype(d) for d in {g.dtype for g in grads}}
        return [(p, _scaled(g, scales[g._data.dtype]) if _clippable(p, g) else g)
                for p, g in params_grads]

    def __repr__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"
