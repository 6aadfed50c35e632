"""Check gradients against float64 central differences (public: users check PyLayers too).

Following JAX's check_vjp, each input is probed along random directions: the analytic
<grad_x <v, f(x)>, u> must match <v, (f(x + eps u) - f(x - eps u)) / (2 eps)>. A handful of
directions catches a wrong formula with near certainty at a fraction of a full Jacobian.

Example:
    >>> import dygraph
    >>> from dygraph.autograd import gradcheck
    >>> x = dygraph.rand([3], dtype='float64'); x.stop_gradient = False
    >>> gradcheck(dygraph.tanh, [x])
    True
"""

import numpy as np

from dygraph.autograd.engine import grad
from dygraph.autograd.grad_mode import no_grad
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["gradcheck", "gradgradcheck"]


def _outputs(result):
    if isinstance(result, Tensor):
        return [result]
    return [r for r in result if isinstance(r, Tensor)]


def _probe(fn, inputs, i, direction, eps):
    """<f(x + eps u) - f(x - eps u)> / 2 eps for input i, per output, as float64 arrays."""
    base = inputs[i]._data

    def at(sign):
        moved = list(inputs)
        # Keep the input differentiable: fn may itself take gradients (gradgradcheck).
        moved[i] = _new_tensor(base + sign * eps * direction, None, 0, inputs[i]._sg)
        return [np.asarray(o.numpy(), np.float64) for o in _outputs(fn(*moved))]

    plus, minus = at(1.0), at(-1.0)
    return [(p - q) / (2 * eps) for p, q in zip(plus, minus)]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, directions=3, seed=0,
              raise_exception=True):
    """Compare the gradients of `fn(*inputs)` with central differences.

    inputs: Tensors (float64 recommended); those with stop_gradient=False are checked.
    Returns True, or raises AssertionError naming the input (False if raise_exception=False).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.3, 0.5], dtype='float64', stop_gradient=False)
        >>> gradcheck(lambda t: t * t, [x])
        True
    """
    inputs = list(inputs)
    rng = np.random.default_rng(seed)
    outs = _outputs(fn(*inputs))
    weights = [rng.standard_normal(o._data.shape) for o in outs]
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and not t._sg]
    diff_outs = [(o, w) for o, w in zip(outs, weights) if not o._sg]
    # With no differentiable output the claimed derivative is zero; the numeric probe
    # below still has to agree, so a dropped gradient cannot pass.
    grads = grad([o for o, _ in diff_outs],
                 [inputs[i] for i in checked],
                 [_new_tensor(w.astype(o._data.dtype), None, 0, True) for o, w in diff_outs],
                 allow_unused=True) if diff_outs else [None] * len(checked)
    for i, g in zip(checked, grads):
        analytic = np.zeros(inputs[i]._data.shape) if g is None else g.numpy().astype(np.float64)
        for _ in range(directions):
            u = rng.standard_normal(inputs[i]._data.shape)
            numeric_per_out = _probe(fn, inputs, i, u, eps)
            numeric = sum(float((w * d).sum()) for w, d in zip(weights, numeric_per_out))
            exact = float((analytic * u).sum())
            if not abs(exact - numeric) <= atol + rtol * abs(numeric):
                message = (f"gradcheck: input {i} (shape {list(inputs[i]._data.shape)}): "
                           f"analytic directional derivative {exact:.8g} but numeric "
                           f"{numeric:.8g}")
                if raise_exception:
                    raise AssertionError(message)
                return False
    return True


def gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=1, raise_exception=True):
    """Check second derivatives: gradcheck of x -> grad(<w, fn(x)>, x, create_graph=True).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([0.3], dtype='float64', stop_gradient=False)
        >>> gradgradcheck(dygraph.tanh, [x])
        True
    """
    inputs = list(inputs)
    rng = np.random.default_rng(seed)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and not t._sg]
    with no_grad():
        outs = _outputs(fn(*inputs))
    weights = [_new_tensor(rng.standard_normal(o._data.shape).astype(o._data.dtype), None, 0,
                           True) for o in outs]

    def first_grads(*xs):
        outs_now = _outputs(fn(*xs))
        ys = [o for o in outs_now if not o._sg]
        ws = [w for w, o in zip(weights, outs_now) if not o._sg]
        gs = grad(ys, [xs[i] for i in checked], ws, create_graph=True, allow_unused=True)
        return [g if g is not None else _new_tensor(np.zeros(xs[i]._data.shape), None, 0, True)
                for i, g in zip(checked, gs)]

    return gradcheck(first_grads, inputs, eps=eps, atol=atol, rtol=rtol, seed=seed,
                     raise_exception=raise_exception)
