"""Behaviour of the joining, view, scatter and gather ops (dygraph/ops/manipulation/) beyond
the spec table: values Paddle 3.3 gives (written down here, so the tests need no Paddle), the
in-place spellings, the error messages, and static programs that keep the batch dim free."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None, grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


X = np.arange(6.0).reshape(2, 3)


def test_atleast_and_stacks():
    assert D.atleast_3d(_t(1.0)).shape == [1, 1, 1]
    out = D.atleast_2d(_t(1.0), _t([1.0, 2.0]))
    assert [o.shape for o in out] == [[1, 1], [1, 2]]
    assert D.hstack([_t([1, 2]), _t([3])]).numpy().tolist() == [1, 2, 3]
    assert D.dstack([_t([1.0, 2.0, 3.0])] * 2).shape == [1, 3, 2]
    assert D.column_stack([_t([1, 2]), _t([[3], [4]])]).numpy().tolist() == [[1, 3], [2, 4]]


def test_tensor_split_forms():
    parts = D.tensor_split(D.arange(7), 3)
    assert [p.numpy().tolist() for p in parts] == [[0, 1, 2], [3, 4], [5, 6]]
    parts = D.tensor_split(D.arange(7), [2, 5])
    assert [p.numpy().tolist() for p in parts] == [[0, 1], [2, 3, 4], [5, 6]]
    assert [p.shape for p in D.tensor_split(D.arange(2), 3)] == [[1], [1], [0]]
    # Paddle's h/v/dsplit split an int count unevenly too, as tensor_split does
    assert [p.shape for p in D.hsplit(D.ones([2, 3]), 2)] == [[2, 2], [2, 1]]
    assert [p.shape for p in D.vsplit(D.ones([3, 4]), 4)] == [[1, 4]] * 3 + [[0, 4]]
    assert [p.shape for p in D.dsplit(D.ones([2, 2, 3]), 2)] == [[2, 2, 2], [2, 2, 1]]
    with pytest.raises(ValueError, match="vsplit.*at least 2 dims"):
        D.vsplit(D.ones([4]), 2)
    assert [p.shape for p in D.ones([5, 2]).split_with_sizes([2, 3])] == [[2, 2], [3, 2]]


def test_block_diag_and_cartesian_prod_and_unstack():
    out = D.block_diag([_t([[1.0, 2.0, 3.0]]), _t([[1.0, 2.0], [3.0, 4.0]]), _t(5.0)])
    assert out.numpy().tolist() == [[1, 2, 3, 0, 0, 0], [0, 0, 0, 1, 2, 0],
                                    [0, 0, 0, 3, 4, 0], [0, 0, 0, 0, 0, 5]]
    prod = D.cartesian_prod([_t([1, 2]), _t([3, 4, 5])])
    assert prod.numpy().tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    assert D.unstack(_t(X), 1, 3)[0].numpy().tolist() == [0.0, 3.0]
    with pytest.raises(ValueError, match="unstack: num=2"):
        D.unstack(_t(X), 1, 2)
    with pytest.raises(ValueError, match="broadcast_tensors"):
        D.broadcast_tensors([D.ones([2]), D.ones([3])])
    # a 0-D tensor where the list goes: Paddle asserts it has a length; column_stack
    # finds no rows (ValueError); the errors are TypeErrors too
    for op in (D.broadcast_tensors, D.cartesian_prod):
        with pytest.raises(AssertionError, match="got a 0-D Tensor") as info:
            op(_t(1.0))
        assert isinstance(info.value, TypeError)
    with pytest.raises(ValueError, match="column_stack: x is a 0-D Tensor") as info:
        D.column_stack(_t(1.0))
    assert isinstance(info.value, TypeError)


def test_meshgrid():
    x = _t([1.0, 2.0, 3.0], grad=True)
    a, b = D.meshgrid(x, _t([4.0, 5.0]))
    assert a.numpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    assert b.numpy().tolist() == [[4, 5]] * 3
    (a * _t(np.arange(6.0).reshape(3, 2), "float32")).sum().backward()
    assert x.grad.numpy().tolist() == [1, 5, 9]
    a, b = D.meshgrid([x, _t([4.0, 5.0])], indexing="xy")  # a list, NumPy's 'xy' layout
    assert a.numpy().tolist() == [[1, 2, 3]] * 2 and b.shape == [2, 3]
    assert [t.shape for t in D.meshgrid(_t(1.0), x, x)] == [[1, 3, 3]] * 3
    with pytest.raises(ValueError, match="meshgrid: inputs is an empty list"):
        D.meshgrid()
    with pytest.raises(ValueError, match="one dtype, input 0 is float64 and input 1 is int64"):
        D.meshgrid(x, _t([1, 2]))
    with pytest.raises(ValueError, match="0-D or 1-D, input 0 has shape \\[2, 3\\]"):
        D.meshgrid(_t(X))
    assert not hasattr(D.Tensor, "meshgrid")


def test_views():
    x = D.arange(8.0).reshape([2, 4])
    assert x.unfold(1, 2, 1).numpy().tolist() == [[[0, 1], [1, 2], [2, 3]],
                                                  [[4, 5], [5, 6], [6, 7]]]
    assert D.view(_t([1.0, 2.0], "float32"), "int32").numpy().tolist() == [1065353216,
                                                                          1073741824]
    assert D.view(_t([1.0, 2.0], "float32"), D.float16).shape == [4]
    assert D.as_strided(x, [3, 2], [1, 2], 1).numpy().tolist() == [[1, 3], [2, 4], [3, 5]]
    with pytest.raises(ValueError, match="as_strided.*outside"):
        D.as_strided(x, [3, 2], [2, 4], 1)
    assert D.narrow(_t(X), 1, -2, 2).numpy().tolist() == [[1, 2], [4, 5]]
    with pytest.raises(ValueError, match="narrow.*exceeds"):
        D.narrow(_t(X), 1, 2, 2)
    assert D.unflatten(D.ones([6]), 0, [2, 3]).shape == [2, 3]
    with pytest.raises(AssertionError, match="unflatten: cannot unflatten a 0-D"):
        D.unflatten(_t(1.0), 0, [1])
    with pytest.raises(ValueError, match="unflatten"):
        D.unflatten(D.ones([6]), 0, [4, -1])
    assert x.permute(1, 0).shape == [4, 2]
    assert D.ravel(x).shape == [8]


def test_rot90_reverse_crop_diag_embed():
    x = D.arange(8.0).reshape([2, 4])
    assert D.rot90(x).numpy().tolist() == [[3, 7], [2, 6], [1, 5], [0, 4]]
    assert D.rot90(x, 2).numpy().tolist() == np.rot90(x.numpy(), 2).tolist()
    assert D.rot90(x, 4).numpy().tolist() == x.numpy().tolist()
    assert D.reverse(x, 0).numpy().tolist() == [[4, 5, 6, 7], [0, 1, 2, 3]]
    assert D.crop(x, [1, 2], [1, 1]).numpy().tolist() == [[5, 6]]
    assert D.crop(x, [-1, 2]).numpy().tolist() == [[0, 1], [4, 5]]
    with pytest.raises(ValueError, match="crop"):
        D.crop(x, [2, 2], [1, 0])
    with pytest.raises(ValueError, match="crop: x must have at least 1 dim"):
        D.crop(_t(1.0))
    with pytest.raises(IndexError, match="diag_embed: input must have at least 1 dim"):
        D.diag_embed(_t(1.0))
    out = D.diag_embed(_t([[1.0, 2.0]]), -1, 2, 0)
    assert out.shape == [3, 1, 3]
    assert out.numpy()[:, 0, :].tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert D.diagflat(_t(X), -1).shape == [7, 7]


def test_scatter_family_values():
    x = _t(X)
    out = D.scatter_reduce(x, 1, _t([[0, 0], [2, 2]]), _t([[1.0, 2.0], [4.0, 5.0]]), "mean")
    np.testing.assert_allclose(out.numpy(), [[1, 1, 2], [3, 4, 14 / 3]])
    out = D.scatter_reduce(x, 1, _t([[0, 0], [2, 2]]), _t([[1.0, 2.0], [4.0, 5.0]]), "mean",
                           include_self=False)
    np.testing.assert_allclose(out.numpy(), [[1.5, 1, 2], [3, 4, 4.5]])
    assert D.scatter_nd(_t([[1], [1], [0]]), _t([1.0, 2.0, 3.0]), [3]).numpy().tolist() == [
        3, 3, 0]
    assert D.index_fill(x, _t([1]), 0, _t(9.0)).numpy().tolist() == [[0, 1, 2], [9, 9, 9]]
    assert D.index_put(x, (_t([True, False]),), _t(9.0)).numpy().tolist() == [
        [9, 9, 9], [3, 4, 5]]
    out = D.index_put(x, (_t([0, 0]),), _t([1.0, 1.0, 1.0]), accumulate=True)
    assert out.numpy().tolist() == [[2, 3, 4], [3, 4, 5]]
    out = D.masked_scatter(x, _t([True, False, True]), _t([10.0, 20, 30, 40, 50]))
    assert out.numpy().tolist() == [[10, 1, 20], [30, 4, 40]]
    with pytest.raises(ValueError, match="masked_scatter.*only 3"):
        D.masked_scatter(x, _t([True, True, True]), _t([1.0, 2.0, 3.0]))
    assert D.select_scatter(x, _t([1.0, 2.0]), 1, 0).numpy().tolist() == [[1, 1, 2],
                                                                           [2, 4, 5]]
    assert D.diagonal_scatter(x, _t([5.0, 5.0]), 1).numpy().tolist() == [[0, 5, 2],
                                                                          [3, 4, 5]]
    with pytest.raises(ValueError, match="scatter_reduce: reduce"):
        D.scatter_reduce(x, 1, _t([[0]]), _t([[1.0]]), "max")
    # Paddle refuses a wrong argument type with ValueError; ours is also a TypeError
    for bad_x, indices in ((x, _t([0])), ("abc", (_t([0]),))):
        with pytest.raises(TypeError, match="index_put: (indices|x) must") as info:
            D.index_put(bad_x, indices, _t(1.0))
        assert isinstance(info.value, ValueError)


def test_scatter_writes_refuse_as_paddle_asserts():
    x = _t(X)
    # Paddle checks these with asserts: the errors are AssertionErrors as well
    with pytest.raises(ValueError, match="diagonal's shape \\[2\\]") as info:
        D.diagonal_scatter(x, _t(np.ones((2, 3))))
    assert isinstance(info.value, AssertionError)
    for y in (_t(1.0), _t([1.0, 2.0])):
        with pytest.raises(AssertionError, match="diagonal_scatter: (x must|axis 1)"):
            D.diagonal_scatter(y, y, axis2=1)
    with pytest.raises(AssertionError, match="axis1 and axis2 must differ"):
        D.diagonal_scatter(x, _t([1.0, 2.0]), axis1=1, axis2=-1)
    with pytest.raises(TypeError, match="1-element tensor, got a tensor of shape \\[2\\]") \
            as info:
        D.select_scatter(x, _t([1.0, 2.0]), 1, _t([0, 1]))
    assert isinstance(info.value, AssertionError)
    with pytest.raises(IndexError, match="select_scatter: x must have at least 1 dim"):
        D.select_scatter(_t(1.0), _t(2.0), 0, 0)
    with pytest.raises(IndexError, match="slice_scatter: cannot slice a 0-D"):
        D.slice_scatter(_t(1.0), _t(2.0), [0], [0], [1], [1])


def test_gathers():
    x = _t(X)
    assert D.take(x, _t([[-1, 5], [0, 1]])).numpy().tolist() == [[5, 5], [0, 1]]
    assert D.take(x, _t([7, -8]), mode="wrap").numpy().tolist() == [1, 4]
    assert D.take(x, _t([7, -8]), mode="clip").numpy().tolist() == [5, 0]
    with pytest.raises(IndexError, match="take") as info:
        D.take(x, _t([6]))
    assert isinstance(info.value, ValueError)  # Paddle's type for it
    assert D.index_sample(x, _t([[2, 0], [1, 1]])).numpy().tolist() == [[2, 0], [4, 4]]
    assert D.multiplex([x, -x], _t([[1], [0]])).numpy().tolist() == [[0, -1, -2], [3, 4, 5]]
    assert D.take_along_dim(x, _t([[0], [2]]), 1).numpy().tolist() == [[0], [5]]


def test_inplace_variants():
    a = _t([[1.0, 2.0]])
    assert D.addmm_(a, _t([[1.0]]), _t([[1.0, 1.0]])) is a
    assert a.numpy().tolist() == [[2, 3]]
    b = D.zeros([3], dtype="float64")
    b.scatter_add_(0, _t([1, 1]), _t([1.0, 2.0]))
    assert b.numpy().tolist() == [0, 3, 0]
    assert D.index_fill_(b, _t([0]), 0, 7.0).numpy().tolist() == [7, 3, 0]
    b.index_put_((_t([2]),), _t(1.0))
    b.masked_scatter_(_t([False, True, False]), _t([5.0]))
    assert b.numpy().tolist() == [7, 5, 1]
    c = _t([[3.0, 4.0]])
    D.renorm_(c, 2, 0, 1.0)
    np.testing.assert_allclose(c.numpy(), [[0.6, 0.8]], rtol=1e-6)
    d = D.zeros([1, 2, 2])  # float32, as D.ones
    d.baddbmm_(D.ones([1, 2, 1]), D.ones([1, 1, 2]))
    assert d.numpy().tolist() == [[[1, 1], [1, 1]]]
    x = _t([1.0, 2.0], "float32")
    assert D.where_(_t([True, False]), x, D.zeros([2])) is x
    assert x.numpy().tolist() == [1, 0]
    # Recorded in place: the gradient flows through the changed tensor.
    w = _t([1.0, 2.0], grad=True)
    y = w * 1.0
    y.index_fill_(_t([0]), 0, 0.0)
    y.sum().backward()
    assert w.grad.numpy().tolist() == [0, 1]


STATIC_CASES = {
    "tensordot": lambda x: D.tensordot(x, D.ones([4, 2]), 1),
    "inner": lambda x: D.inner(x, x),
    "unflatten": lambda x: D.unflatten(x, 1, [2, 2]),
    "renorm": lambda x: D.renorm(x, 2, 0, 1.0),
    "crop": lambda x: D.crop(x, [-1, 2], [0, 1]),
    "kthvalue": lambda x: D.kthvalue(x, 2)[0],
    "msort": D.msort,
    "unfold": lambda x: x.unfold(1, 2, 1),
    "diag_embed": D.diag_embed,
    "pdist": D.pdist,
    "index_fill": lambda x: D.index_fill(x, D.to_tensor([1]), 1, 2.0),
    "masked_scatter": lambda x: D.masked_scatter(x, x > 0, x * 2),
}


def test_static_programs_keep_the_batch_dim_free():
    from dygraph import static

    D.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, 4], "float32")
            outs = {name: fn(x) for name, fn in STATIC_CASES.items()}
        exe = static.Executor()
        runs = {}
        for n in (5, 2):
            feed = np.random.default_rng(n).standard_normal((n, 4)).astype("float32")
            got = exe.run(main, feed={"x": feed}, fetch_list=list(outs.values()))
            runs[n] = feed, got
    finally:
        D.disable_static()
    for feed, got in runs.values():
        for (name, fn), value in zip(STATIC_CASES.items(), got):
            np.testing.assert_allclose(value, fn(D.to_tensor(feed)).numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=name)
