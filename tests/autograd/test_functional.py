"""jacobian / hessian objects, saved_tensors_hooks and the Function alias (paddle.autograd)."""

import numpy as np
import pytest

import dygraph
from dygraph.autograd import Function, PyLayer, hessian, jacobian, saved_tensors_hooks


def _x(values):
    return dygraph.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


def test_jacobian_matches_the_analytic_matrix_and_indexes_like_a_tensor():
    a = np.array([0.3, -1.2, 0.7])
    x = _x(a)
    y = dygraph.tanh(x) * x[0]
    J = jacobian(y, x)
    want = np.diag((1 - np.tanh(a) ** 2) * a[0])
    want[:, 0] += np.tanh(a)
    assert J.shape == [3, 3]
    np.testing.assert_allclose(J[:].numpy(), want)
    np.testing.assert_allclose(J[1].numpy(), want[1])
    np.testing.assert_allclose(J[0:2, 2].numpy(), want[0:2, 2])
    np.testing.assert_allclose(J[-1, -1].numpy(), want[-1, -1])
    np.testing.assert_allclose((J * 2).numpy(), want * 2)  # evaluated by arithmetic
    np.testing.assert_allclose(J.numpy(), want)  # and by any tensor attribute


def test_jacobian_rows_are_lazy_and_cached():
    x = _x([1.0, 2.0, 3.0])
    J = jacobian(x * x, x)
    J[1]
    assert set(J._cache) == {1}
    J[0:2]
    assert set(J._cache) == {0, 1}


def test_jacobian_of_scalars_drops_their_axes():
    x = _x(2.0)
    J = jacobian(x * x * x, x)
    assert J.shape == []
    assert float(J[()]) == pytest.approx(12.0)
    v = _x([1.0, 2.0])
    assert jacobian((v * v).sum(), v).shape == [2]
    np.testing.assert_allclose(jacobian((v * v).sum(), v)[:].numpy(), [2.0, 4.0])


def test_batched_jacobian_is_one_block_per_row():
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    x = _x(a)
    J = jacobian(x[:, :2] * x[:, 1:], x, batch_axis=0)
    assert J.shape == [2, 2, 3]
    for b in range(2):
        want = np.zeros((2, 3))
        want[0, 0], want[0, 1] = a[b, 1], a[b, 0]
        want[1, 1], want[1, 2] = a[b, 2], a[b, 1]
        np.testing.assert_allclose(J[b].numpy(), want)
    np.testing.assert_allclose(J[:, 1, 2].numpy(), a[:, 1])


def test_jacobian_of_unused_input_is_zero_and_tuples_nest():
    x, z = _x([1.0, 2.0]), _x([3.0])
    Js = jacobian((x * 2, x * z), (x, z))
    assert len(Js) == 2 and len(Js[0]) == 2
    np.testing.assert_allclose(Js[0][1][:].numpy(), np.zeros((2, 1)))
    np.testing.assert_allclose(Js[1][0][:].numpy(), 3 * np.eye(2))
    np.testing.assert_allclose(Js[1][1][:].numpy(), [[1.0], [2.0]])


def test_hessian_single_batched_and_blocks():
    a = np.array([0.5, -1.0, 2.0])
    x = _x(a)
    H = hessian((x * x * x).sum(), x)
    np.testing.assert_allclose(H[:].numpy(), np.diag(6 * a))
    xb = _x([[1.0, 2.0], [3.0, 4.0]])
    Hb = hessian((xb * xb * xb).sum(axis=1), xb, batch_axis=0)
    assert Hb.shape == [2, 2, 2]
    np.testing.assert_allclose(Hb[1].numpy(), np.diag([18.0, 24.0]))
    y = _x([1.0, 2.0])
    blocks = hessian((x * x).sum() * (y * y).sum(), (x, y))
    np.testing.assert_allclose(blocks[0][1][:].numpy(), 4 * np.outer(a, [1.0, 2.0]))
    assert blocks[1][1].shape == [2, 2]


def test_bad_arguments_raise():
    x = _x([[1.0]])
    with pytest.raises(ValueError, match="jacobian"):
        jacobian(x, x)  # 2-D without a batch axis
    with pytest.raises(ValueError, match="batch_axis"):
        jacobian(x, x, batch_axis=1)
    with pytest.raises(ValueError, match="hessian"):
        hessian(_x([1.0, 2.0]) * 2, _x([1.0]))
    with pytest.raises(IndexError):
        jacobian(_x([1.0]) * 2, _x([1.0]))[..., 0]


def test_saved_tensors_hooks_pack_and_unpack_what_ops_save():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return t.numpy() * 10  # backward must see what unpack returns

    def unpack(a):
        unpacked.append(a.shape)
        return dygraph.to_tensor(a)

    x = _x([1.0, 2.0])
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()  # multiply saves both inputs
    z = (x * x).sum()  # recorded after the context: untouched
    assert packed == [[2], [2]]
    y.backward()
    assert len(unpacked) == 2
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 40.0])
    x.clear_gradient()
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_saved_tensors_hooks_cover_saved_outputs_and_pylayers():
    seen = []

    class Cube(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3 * x * x

    def pack(t):
        seen.append("pack")
        return t

    def unpack(t):
        seen.append("unpack")
        return t

    x = _x([2.0])
    with saved_tensors_hooks(pack, unpack):
        y = Cube.apply(x) + dygraph.exp(x)  # exp saves its output
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0 + np.exp(2.0)])
    assert seen.count("pack") >= 2 and seen.count("unpack") == seen.count("pack")
    with pytest.raises(TypeError, match="callable"):
        saved_tensors_hooks(pack, None)


def test_function_is_pylayer():
    assert Function is PyLayer
    assert dygraph.autograd.Function is PyLayer
