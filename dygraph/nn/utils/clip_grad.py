"""Clip the gradients of parameters in place: clip_grad_norm_ and clip_grad_value_.

Call them between `loss.backward()` and `optimizer.step()`; they rescale or clamp the
`.grad` of each parameter that has one and leave the others alone.

Example:
    >>> import dygraph
    >>> from dygraph.nn.utils import clip_grad_norm_
    >>> w = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> (w * w).sum().backward()
    >>> float(clip_grad_norm_(w, max_norm=1.0)) > 1.0
    True
"""

import math

import dygraph

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

# The norms Paddle's clip_grad_norm_ accepts (0 counts the non-zero entries).
_NORM_TYPES = (math.inf, 0.0, 1.0, 2.0)


def _as_list(parameters):
    return [parameters] if isinstance(parameters, dygraph.Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients of `parameters` so that their joint norm is at most `max_norm`.

    The joint norm is the `norm_type` norm (inf, 0, 1 or 2) of the per-parameter gradient
    norms. Each gradient is multiplied by min(1, max_norm / (total_norm + 1e-6)) in place.

    Args:
        parameters (Tensor|Iterable[Tensor]): the parameters whose `.grad` is clipped.
        max_norm (float): the largest joint norm allowed.
        norm_type (float): inf, 0, 1 or 2; others raise ValueError.
        error_if_nonfinite (bool): raise RuntimeError when the joint norm is nan or inf.

    Returns:
        Tensor: the joint norm before clipping (0-D); 0. when no parameter has a gradient.

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import clip_grad_norm_
        >>> w = dygraph.to_tensor([3.0, 4.0], stop_gradient=False)
        >>> (w * 0.5 * w).sum().backward()
        >>> clip_grad_norm_([w], max_norm=1.0).numpy()
        array(5., dtype=float32)
        >>> w.grad.numpy().round(4)
        array([0.6, 0.8], dtype=float32)
    """
    parameters = _as_list(parameters)
    if norm_type not in _NORM_TYPES:
        raise ValueError(f"norm_type only support {list(_NORM_TYPES)}")
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return dygraph.to_tensor(0.0)
    max_norm, norm_type = float(max_norm), float(norm_type)
    with dygraph.no_grad():
        if norm_type == math.inf:
            norms = [g.abs().max() for g in grads]
            total_norm = norms[0] if len(norms) == 1 else dygraph.max(dygraph.stack(norms))
        else:
            norms = [dygraph.linalg.norm(g, norm_type) for g in grads]
            total_norm = dygraph.linalg.norm(dygraph.stack(norms), norm_type)
        if error_if_nonfinite and not bool(dygraph.isfinite(total_norm)):
            raise RuntimeError(
                f"The total norm of {norm_type} order of the gradients from `parameters` is "
                f"non-finite, so it cannot be clipped. To scale the gradients by it anyway, "
                f"set `error_if_nonfinite=False`")
        coef = (max_norm / (total_norm + 1e-6)).clip(max=1.0)
        for g in grads:
            g.multiply_(coef.astype(g.dtype))
    return total_norm


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient entry of `parameters` into [-clip_value, clip_value] in place.

    Args:
        parameters (Tensor|Iterable[Tensor]): the parameters whose `.grad` is clipped.
        clip_value (float): the largest magnitude allowed.

    Returns:
        None

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import clip_grad_value_
        >>> w = dygraph.to_tensor([1.0, -3.0], stop_gradient=False)
        >>> (w * w).sum().backward()
        >>> clip_grad_value_(w, 1.0)
        >>> w.grad.numpy()
        array([ 1., -1.], dtype=float32)
    """
    clip_value = float(clip_value)
    with dygraph.no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clip_(min=-clip_value, max=clip_value)
