"""Ops without a complex gradient refuse it (dygraph/autograd/complex_grad.py); real data
never takes the complex set-up. The complex gradients themselves are checked against finite
differences in tests/op_specs/spec_complex_grad.py."""

import gc
import inspect
import weakref

import numpy as np
import pytest

import dygraph as D
from dygraph.ops.activation.piecewise import Relu
from dygraph.ops.math.arithmetic import Multiply
from dygraph.ops.unary.core import Exp

_Z = np.array([1 + 2j, -1 + 0.5j, 0.3 - 0.7j])
# The public relu, softmax and erf refuse complex input as Paddle 3.3 does (no complex
# kernel); these tests need complex forwards of ops without a complex gradient, so they
# call the functions under that check.
_relu = inspect.unwrap(D.nn.functional.relu)
_softmax = inspect.unwrap(D.nn.functional.softmax)
_erf = inspect.unwrap(D.erf)


def _leaf():
    return D.to_tensor(_Z, stop_gradient=False)


@pytest.mark.parametrize("name, fn", [
    ("relu", _relu),
    ("softmax", _softmax),
    ("erf", _erf),
])
def test_unsupported_op_refuses_a_complex_gradient(name, fn):
    z = _leaf()
    y = fn(z)  # the forward value is fine ...
    loss = D.real(y).sum() if D.is_complex(y) else y.sum()
    with pytest.raises(TypeError, match=rf"^{name}: complex inputs have no gradient here "
                                        r"\(the \w+ at .*test_complex_grad\.py:\d+"):
        loss.backward()  # ... the gradient is refused, naming the op and where it ran


def test_a_norm_of_complex_values_is_real_with_paddles_gradient():
    """|z| inside the norm: the result is real, and its gradient z / |z| per element for
    p=1 (Paddle 3.3 gives the same, checked by running it)."""
    z = _leaf()
    y = D.linalg.norm(z, p=1)
    assert y.dtype == D.float64  # the real dtype of complex128
    np.testing.assert_allclose(y.numpy(), np.abs(_Z).sum(), rtol=1e-6)
    y.backward()
    np.testing.assert_allclose(z.grad.numpy(), _Z / np.abs(_Z), rtol=1e-6)


def test_refusal_is_raised_only_when_the_gradient_flows_through():
    z = _leaf()
    unused = _relu(z)  # recorded, never differentiated
    (g,) = D.grad(D.real(D.exp(z)).sum(), z)
    np.testing.assert_allclose(g.numpy(), np.conj(np.exp(_Z)))
    assert unused.shape == [3]


def test_forward_only_use_of_unsupported_ops_keeps_working():
    z = D.to_tensor(_Z)  # stop_gradient=True
    np.testing.assert_allclose(_relu(z).numpy(), np.maximum(_Z, 0))
    with D.no_grad():
        out = _softmax(_leaf())
    assert out.stop_gradient


def test_detached_complex_input_lets_a_real_gradient_through():
    x = D.to_tensor([0.5, 2.0, 1.0], dtype="float64", stop_gradient=False)
    y = _relu(D.to_tensor(_Z).detach()) * x  # complex constant, real x
    D.real(y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.maximum(_Z, 0).real)


def test_holomorphic_gradient_is_the_conjugate_derivative():
    z = _leaf()
    D.real(D.sin(z)).sum().backward()  # d Re(sin z) = Re(cos(z) dz): gradient conj(cos z)
    np.testing.assert_allclose(z.grad.numpy(), np.conj(np.cos(_Z)))


def test_real_ops_take_no_complex_set_up():
    x = D.to_tensor([0.5, 2.0], stop_gradient=False)
    for y, cls in ((D.exp(x), Exp), (x * x, Multiply), (D.nn.functional.relu(x), Relu)):
        assert type(y._node) is cls  # the class's own backward runs
    node = D.exp(_leaf())._node
    assert type(node) is not Exp and isinstance(node, Exp) and node.name == "exp"


def test_complex_nodes_are_freed_without_the_garbage_collector():
    gc.disable()  # a node that referred to itself would live until a collection
    try:
        for fn in (D.exp, D.abs, _relu):
            y = fn(_leaf())
            node = weakref.ref(y._node)
            del y
            assert node() is None
    finally:
        gc.enable()
