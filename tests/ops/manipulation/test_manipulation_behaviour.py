"""Edge cases of the manipulation ops that the spec table does not reach: argument forms
(negative axes, -1 sections, int32/int64 and Tensor arguments), repeated indices, copy
semantics and error messages."""

import contextlib

import numpy as np
import pytest

import dygraph as D
from tests.op_specs.spec_manipulation import SPECS


def _t(values, dtype="float64", grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def _grads(spec, create_graph):
    arrays = spec.make_inputs(seed=3)
    diff = spec.grad_inputs
    tensors = [D.to_tensor(a, stop_gradient=a.dtype.kind != "f" or
                           (diff is not None and i not in diff)) for i, a in enumerate(arrays)]
    result = spec.fn(*tensors)
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    rng = np.random.default_rng(0)
    seeds = [D.to_tensor(rng.standard_normal(o.shape)) for o in outs]
    wrt = [t for t in tensors if not t.stop_gradient]
    return D.grad(outs, wrt, seeds, create_graph=create_graph, allow_unused=True)


@pytest.mark.parametrize("spec", [s for s in SPECS if not s.id.endswith("sq")],
                         ids=lambda s: s.name + (f"[{s.id}]" if s.id else ""))
def test_create_graph_gradient_equals_plain_gradient(spec):
    # Double backward checks only that the Tensor formula is self-consistent; this pins
    # its value to the array formula's.
    for plain, graphed in zip(_grads(spec, False), _grads(spec, True)):
        np.testing.assert_allclose(graphed.numpy(), plain.numpy(), rtol=1e-12, atol=1e-12)


def test_concat_is_one_op_and_names_the_bad_input():
    parts = [_t(np.ones((2, 3)) * i, grad=True) for i in range(5)]
    out = D.concat(parts, axis=D.to_tensor(1))
    assert out.shape == [2, 15] and len(out._node.inputs) == 5
    (out * _t(np.arange(15.0))).sum().backward()
    np.testing.assert_array_equal(parts[4].grad.numpy(), np.tile([12.0, 13.0, 14.0], (2, 1)))
    with pytest.raises(ValueError, match=r"input 2 has shape \[2, 4\].*dim 0 differs"):
        D.concat([D.ones([3, 4]), D.ones([3, 4]), D.ones([2, 4])], axis=1)
    with pytest.raises(ValueError, match=r"test_manipulation_behaviour.py:\d+"):
        D.concat([D.ones([3]), D.ones([3, 1])])
    with pytest.raises(TypeError, match="float32 but input 1 is int64"):
        D.concat([D.ones([2]), D.to_tensor([1, 2])])
    with pytest.raises(TypeError, match="list or tuple"):
        D.concat(D.ones([2, 2]))
    with pytest.raises(ValueError, match="0-D"):
        D.concat([D.to_tensor(1.0), D.to_tensor(2.0)])


def test_stack_errors_and_negative_axis():
    assert D.stack([D.ones([2, 3])] * 4, axis=-1).shape == [2, 3, 4]
    with pytest.raises(ValueError, match=r"input 1 has shape \[3\]"):
        D.stack([D.ones([2]), D.ones([3])])
    with pytest.raises(ValueError, match="out of range"):
        D.stack([D.ones([2])], axis=3)


def test_split_sections_forms():
    x = D.arange(10).reshape([2, 5])
    parts = D.split(x, [2, -1, D.to_tensor(1)], axis=-1)
    assert [p.shape for p in parts] == [[2, 2], [2, 2], [2, 1]]
    assert [p.shape for p in D.split(x, D.to_tensor([3, 2]), axis=D.to_tensor(1))] == \
        [[2, 3], [2, 2]]
    assert [p.shape for p in x.split(D.to_tensor(2))] == [[1, 5], [1, 5]]
    assert [p.shape for p in D.chunk(x, 5, axis=1)] == [[2, 1]] * 5
    with pytest.raises(IndexError, match="chunk: cannot chunk a 0-D") as info:
        D.chunk(D.to_tensor(1.0), 1)  # Paddle's IndexError; ValueError as split's is
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="only one section may be -1"):
        D.split(x, [-1, -1], axis=1)
    with pytest.raises(ValueError, match="sum to 4 but dim 1"):
        D.split(x, [2, 2], axis=1)
    with pytest.raises(ValueError, match="into 3 equal parts"):
        D.split(x, 3, axis=1)


def test_split_outputs_are_copies_and_unused_outputs_get_zero_gradient():
    x = _t(np.arange(6.0), grad=True)
    a, b, c = D.split(x, 3)
    a.numpy()[0] = 100.0
    assert x.numpy()[0] == 0.0
    (b * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 2, 2, 0, 0])
    y = _t(np.ones((2, 3)), grad=True)
    rows = D.unbind(y, axis=-1)
    assert len(rows) == 3 and rows[0].shape == [2]
    (rows[1] * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[0, 3, 0], [0, 3, 0]])


def test_tile_flip_roll_argument_forms():
    x = D.to_tensor([[1, 2], [3, 4]])
    assert D.tile(x, [2]).shape == [2, 4]
    assert D.tile(x, D.to_tensor([2, 1, 1])).shape == [2, 2, 2]
    with pytest.raises(ValueError, match="positive"):
        D.tile(x, [0, 1])
    assert D.flip(x, -1).tolist() == [[2, 1], [4, 3]]
    assert D.roll(x, 1).tolist() == [[4, 1], [2, 3]]
    assert D.roll(x, [1], axis=[-1]).tolist() == [[2, 1], [4, 3]]
    with pytest.raises(ValueError, match="same length"):
        D.roll(x, [1, 2], axis=0)
    assert D.moveaxis(D.ones([2, 3, 4]), [0, -1], [1, 0]).shape == [4, 2, 3]
    for x, source in ((D.ones([2, 3]), 2), (D.to_tensor(1.0), 0)):  # Paddle asserts
        with pytest.raises(AssertionError, match=f"moveaxis: axis {source} is out of range"):
            D.moveaxis(x, source, 0)
    with pytest.raises(ValueError, match=r"expand_as: cannot expand x of shape \[2\]"):
        D.expand_as(D.ones([2]), D.ones([3]))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gather_family_index_dtypes_and_repeats(dtype):
    x = _t(np.arange(12.0).reshape(3, 4), grad=True)
    idx = D.to_tensor([2, 0, 2], dtype=dtype)
    D.gather(x, idx).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[:, 0], [1, 0, 2])
    assert D.gather(x, D.to_tensor([[1], [2]], dtype=dtype)).shape == [2, 4]
    assert D.gather(x, D.to_tensor(1, dtype=dtype), axis=1).tolist() == [1.0, 5.0, 9.0]
    assert D.index_select(x, idx, axis=-1).shape == [3, 3]
    nd = D.gather_nd(x, D.to_tensor([[2, 3], [0, 1]], dtype=dtype))
    assert nd.tolist() == [11.0, 1.0]
    assert D.gather_nd(x, D.to_tensor([[1]], dtype=dtype)).shape == [1, 4]
    assert D.gather_nd(x, D.zeros([2, 0], dtype=dtype)).shape == [2, 3, 4]


def test_gather_family_errors():
    x = D.ones([3, 4])
    with pytest.raises(IndexError, match=r"index value 3 is out of range for dim 0"):
        D.gather(x, D.to_tensor([0, 3]))
    # index_select counts negative positions from the end, as Paddle does; out of range
    # is Paddle's ValueError there, and still an IndexError
    assert D.index_select(x, D.to_tensor([-1])).shape == [1, 4]
    with pytest.raises(IndexError, match="out of range") as info:
        D.index_select(x, D.to_tensor([-4]))
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="out of range"):
        D.take(x, D.to_tensor([12]))
    for op in (D.gather, D.index_select):  # a 0-D x has no axis 0: Paddle's IndexError
        with pytest.raises(IndexError, match="0-D"):
            op(D.to_tensor(1.0), D.to_tensor([0]))
    with pytest.raises(TypeError, match="int32 or int64.*float32"):
        D.gather(x, D.to_tensor([0.0]))
    with pytest.raises(ValueError, match="must be 1-D"):
        D.index_select(x, D.to_tensor([[0, 1]]))
    with pytest.raises(ValueError, match="as many dims as arr"):
        D.take_along_axis(x, D.to_tensor([0]), 0)
    with pytest.raises(ValueError, match="cannot broadcast"):
        D.take_along_axis(x, D.zeros([2, 4], dtype="int64"), 1)
    with pytest.raises(TypeError, match="bool"):
        D.masked_select(x, D.ones([3, 4]))


def test_take_along_axis_broadcast_flag():
    x = D.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert D.take_along_axis(x, D.to_tensor([[0]]), 0).tolist() == [[1, 2, 3]]
    assert D.take_along_axis(x, D.to_tensor([[0]]), 0, broadcast=False).tolist() == [[1]]


def test_scatter_overwrite_and_accumulate():
    x = _t(np.zeros((3, 2)), grad=True)
    up = _t([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], grad=True)
    idx = D.to_tensor([1, 0, 1], dtype="int32")
    out = D.scatter(x, idx, up)
    assert out.tolist() == [[2.0, 2.0], [3.0, 3.0], [0.0, 0.0]]
    out.sum().backward()
    # The first write to row 1 is overwritten, so it gets no gradient.
    np.testing.assert_array_equal(up.grad.numpy()[:, 0], [0, 1, 1])
    np.testing.assert_array_equal(x.grad.numpy()[:, 0], [0, 0, 1])
    acc = D.scatter(_t([[5.0, 5.0]] * 3), idx, up.detach(), overwrite=False)
    assert acc.tolist() == [[2.0, 2.0], [4.0, 4.0], [5.0, 5.0]]
    row = D.scatter(_t(np.zeros((2, 2))), D.to_tensor(1), _t([7.0, 8.0]))
    assert row.tolist() == [[0.0, 0.0], [7.0, 8.0]]
    with pytest.raises(ValueError, match=r"updates of shape \[3, 3\] do not fit x"):
        D.scatter(x, idx, _t(np.ones((3, 3))))
    with pytest.raises(IndexError, match="out of range"):
        D.scatter(x, D.to_tensor([3]), _t([[1.0, 1.0]]))


def test_scatter_nd_add_and_index_add():
    x = D.zeros([2, 3])
    out = D.scatter_nd_add(x, D.to_tensor([[1], [1]]), D.ones([2, 3]))
    assert out.tolist() == [[0.0] * 3, [2.0] * 3]
    with pytest.raises(ValueError, match=r"updates must have shape \[2, 3\]"):
        D.scatter_nd_add(x, D.to_tensor([[1], [1]]), D.ones([2]))
    added = D.index_add(D.ones([3, 3]), D.to_tensor([0, 2], dtype="int32"), 1, D.ones([3, 2]))
    assert added.tolist() == [[2.0, 1.0, 2.0]] * 3
    with pytest.raises(ValueError, match=r"value must have shape \[3, 2\]"):
        D.index_add(D.ones([3, 3]), D.to_tensor([0, 2]), 1, D.ones([2, 3]))
    with pytest.raises(TypeError, match="dtype of x"):
        D.index_add(D.ones([3, 3]), D.to_tensor([0]), 0, D.ones([1, 3], dtype="float64"))


def test_put_along_axis_reductions():
    x = D.to_tensor([[10, 30, 20], [60, 40, 50]])
    assert D.put_along_axis(x, D.to_tensor([[0]]), 99, 0).tolist() == \
        [[99, 99, 99], [60, 40, 50]]
    idx = D.zeros([2, 2], dtype="int32")
    value = D.to_tensor([[1, 2], [3, 4]])
    assert D.put_along_axis(x, idx, value, 0, "add", True, False).tolist() == \
        [[14, 36, 20], [60, 40, 50]]
    assert D.put_along_axis(x, idx, value, 0, "mean", include_self=False,
                            broadcast=False).tolist() == [[2, 3, 20], [60, 40, 50]]
    assert D.put_along_axis(x, idx, value, 0, "amax", broadcast=False).tolist() == \
        [[10, 30, 20], [60, 40, 50]]
    assert D.put_along_axis(x, D.to_tensor([[1, 1]]), D.to_tensor([[2, 3]]), 1, "multiply",
                            broadcast=False).tolist() == [[10, 180, 20], [60, 40, 50]]
    with pytest.raises(ValueError, match="reduce must be one of"):
        D.put_along_axis(x, idx, value, 0, "max")
    with pytest.raises(IndexError, match="indices value 2 is out of range"):
        D.put_along_axis(x, D.to_tensor([[2]]), 1, 0)


def test_masked_ops():
    x = _t([[1.0, -2.0], [3.0, -4.0]], grad=True)
    sel = D.masked_select(x, D.to_tensor([True, False]))
    assert sel.tolist() == [1.0, 3.0]
    sel.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 0], [1, 0]])
    value = _t(0.5, grad=True)
    filled = D.masked_fill(x, x < 0, value)
    assert filled.tolist() == [[1.0, 0.5], [3.0, 0.5]]
    filled.sum().backward()
    assert value.grad.item() == 2.0
    ints = D.masked_fill(D.to_tensor([1, 2]), D.to_tensor([True, False]), 7)
    assert ints.dtype == D.int64 and ints.tolist() == [7, 2]
    with pytest.raises(ValueError, match="does not broadcast"):
        D.masked_fill(x, D.to_tensor([True, False, True]), 1.0)
    with pytest.raises(ValueError, match="1-element"):
        D.masked_fill(x, x < 0, D.ones([2]))


def test_slice_and_strided_slice():
    x = D.arange(12).reshape([3, 4])
    out = D.slice(x, axes=[1, 0], starts=[D.to_tensor(-3), 0], ends=D.to_tensor([100, 2]))
    assert out.tolist() == [[1, 2, 3], [5, 6, 7]]
    assert D.slice(x, [0], [2], [1]).shape == [0, 4]
    view = D.slice(x, [0], [0], [1])
    view.numpy()[0, 0] = 99
    assert x.numpy()[0, 0] == 0
    assert D.strided_slice(x, [1], [-1], [-5], [-2]).tolist() == [[3, 1], [7, 5], [11, 9]]
    with pytest.raises(ValueError, match="same length"):
        D.slice(x, [0, 1], [0], [1])
    with pytest.raises(ValueError, match="appears twice"):
        D.slice(x, [0, 0], [0, 0], [1, 1])
    with pytest.raises(ValueError, match="must not be 0"):
        D.strided_slice(x, [0], [0], [1], [0])
    with pytest.raises(ValueError, match="axes must be >= 0"):  # Paddle refuses them
        D.strided_slice(x, [-1], [0], [2], [1])
    for op in (lambda t: D.slice(t, [0], [0], [1]),
               lambda t: D.strided_slice(t, [0], [0], [1], [1])):
        with pytest.raises(ValueError, match="0-D"):
            op(D.to_tensor(1.0))


def test_pad_layouts_and_errors():
    x = D.to_tensor(np.arange(6.0).reshape(1, 1, 2, 3))
    same = D.pad(x, [2, 2, 1, 1], mode="circular")
    np.testing.assert_array_equal(
        same.numpy(), np.pad(x.numpy(), ((0, 0), (0, 0), (1, 1), (2, 2)), mode="wrap"))
    nhwc = D.pad(D.ones([1, 2, 3, 4]), [1, 0, 0, 2], data_format="NHWC")
    assert nhwc.shape == [1, 4, 4, 4]
    assert D.pad(D.to_tensor([1, 2]), D.to_tensor([1, 2]), value=9).tolist() == [9, 1, 2, 9, 9]
    with pytest.raises(ValueError, match="too large for dim 3"):
        D.pad(x, [3, 0, 0, 0], mode="reflect")
    with pytest.raises(ValueError, match="even length"):
        D.pad(x, [1, 1, 1])
    with pytest.raises(ValueError, match="does not fit a tensor of 4 dims"):
        D.pad(x, [1, 1])
    with pytest.raises(ValueError, match="mode must be"):
        D.pad(x, [1, 1, 1, 1], mode="edge")
    with pytest.raises(ValueError, match="data_format"):
        D.pad(x, [1, 1, 1, 1], data_format="HW")


def test_diag_triangles_repeat():
    assert D.diag(D.to_tensor([1, 2]), padding_value=6).tolist() == [[1, 6], [6, 2]]
    assert D.diag(D.to_tensor([[1, 2, 3], [4, 5, 6]]), offset=-1).tolist() == [4]
    with pytest.raises(ValueError, match="1-D or 2-D"):
        D.diag(D.ones([2, 2, 2]))
    # a 0-D x is a 1-element vector, as in Paddle; the gradient reaches it
    s = D.to_tensor(3.0, stop_gradient=False)
    out = D.diag(s, offset=1, padding_value=7)
    assert out.tolist() == [[7, 3], [7, 7]]
    out.sum().backward()
    assert s.grad.shape == [] and s.grad.item() == 1.0
    with pytest.raises(IndexError, match="diagonal: expected a tensor with at least 2"):
        D.diagonal(D.ones([3]))
    with pytest.raises(ValueError, match="at least 2 dims"):
        D.tril(D.ones([3]))
    with pytest.raises(ValueError, match="must differ"):
        D.diagonal(D.ones([2, 2]), axis1=0, axis2=-2)
    assert D.diagonal(D.ones([2, 3, 4]), offset=1).shape == [4, 2]
    x = D.to_tensor([[1, 2, 3], [4, 5, 6]])
    assert D.repeat_interleave(x, D.to_tensor([3, 2, 1], dtype="int32"), 1).tolist() == \
        [[1, 1, 1, 2, 2, 3], [4, 4, 4, 5, 5, 6]]
    assert D.repeat_interleave(x, 2, 0).shape == [4, 3]
    with pytest.raises(ValueError, match="repeats has 2 values"):
        D.repeat_interleave(x, D.to_tensor([1, 2]), 1)


def test_methods_are_attached():
    x = D.arange(6).reshape([2, 3])
    assert x.flip(0).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.tile([1, 2]).shape == [2, 6]
    assert x.gather(D.to_tensor([1])).tolist() == [[3, 4, 5]]
    assert [p.shape for p in x.unbind()] == [[3], [3]]


def test_shape_ops_of_0_size_tensors():
    # the computed targets hold a 0, which reshape would read as "keep the input's dim"
    assert D.squeeze(D.zeros([2, 0, 1])).shape == [2, 0]
    assert D.unsqueeze(D.zeros([2, 0]), 0).shape == [1, 2, 0]
    assert D.flatten(D.zeros([2, 0, 3]), 1).shape == [2, 0]
    x = D.zeros([2, 0, 1])
    x.stop_gradient = False
    D.squeeze(x).sum().backward()
    assert x.grad.shape == [2, 0, 1]


def test_flatten_in_place_refuses_a_0_d_tensor_as_paddle():
    with pytest.raises(ValueError, match="flatten_: .*0-D"):
        D.to_tensor(1.5).flatten_()
    assert D.flatten(D.to_tensor(1.5)).shape == [1]  # the out-of-place form takes it
    x = D.ones([2, 3])
    assert D.flatten_(x) is x and x.shape == [6]


def test_masked_select_mask_that_does_not_broadcast_is_a_runtime_error_as_paddle():
    with pytest.raises(RuntimeError, match=r"mask of shape \[3, 4\]"):
        D.masked_select(D.zeros([0, 4]), D.ones([3, 4], dtype="bool"))


@pytest.mark.parametrize("device", ["cpu", "gpu"])
@pytest.mark.parametrize("shape", [(2, 1, 3), (64, 1, 512)])  # small, and a pooled size
def test_transpose_and_reshape_results_never_share_the_inputs_memory(device, shape):
    """A perm that keeps the order in memory (the identity, a size-1 dim moved) and a
    reshape of a contiguous input give views; the results are copies all the same, so
    writing into one leaves the input as it was (on the GPU path too)."""
    from tools import cupy_standin

    host = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with cupy_standin.installed() if device == "gpu" else contextlib.nullcontext():
        D.set_device(device)
        try:
            for perm in ([0, 1, 2], [1, 0, 2], [0, 2, 1]):
                x = D.to_tensor(host)
                y = D.transpose(x, perm)
                y[0] = -1.0
                np.testing.assert_array_equal(x.numpy(), host)
            for x in (D.to_tensor(host), D.transpose(D.to_tensor(host), [0, 2, 1])):
                before = x.numpy()
                y = D.reshape(x, [-1])
                y[0] = -1.0
                np.testing.assert_array_equal(x.numpy(), before)
                np.testing.assert_array_equal(y.numpy()[1:], before.ravel()[1:])
        finally:
            D.set_device("cpu")
