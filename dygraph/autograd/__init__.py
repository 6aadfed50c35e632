"""Automatic differentiation: backward, grad, PyLayer (alias Function), grad modes,
gradcheck, jacobian/hessian and saved_tensors_hooks."""

from dygraph.autograd.engine import grad, run_backward
from dygraph.autograd.functional import hessian, jacobian
from dygraph.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from dygraph.autograd.gradcheck import gradcheck, gradgradcheck
from dygraph.autograd.py_layer import PyLayer, PyLayerContext
from dygraph.autograd.saved_hooks import saved_tensors_hooks

__all__ = ["backward", "grad", "PyLayer", "PyLayerContext", "gradcheck", "gradgradcheck",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "Function",
           "jacobian", "hessian", "saved_tensors_hooks"]

Function = PyLayer  # Paddle 3.x: paddle.autograd.Function is PyLayer


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Backward from several tensors at once (gradients accumulate into leaves' `.grad`).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([1.0], stop_gradient=False)
        >>> backward([x * 2, x * 3]); x.grad.numpy()
        array([5.], dtype=float32)
    """
    tensors = list(tensors)
    grads = list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    run_backward(tensors, grads, retain_graph)
