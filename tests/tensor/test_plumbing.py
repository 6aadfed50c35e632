"""Tensor plumbing methods (dtype shorthands, new_*, layout queries, in-place storage
changes, diagonal fills), the top-level dtype info and helpers, LazyGuard and autocast."""

import numpy as np
import pytest

import dygraph as D


def test_dtype_shorthands():
    x = D.to_tensor([1.5, -2.0])
    for method, dtype in (("float", "float32"), ("double", "float64"), ("half", "float16"),
                          ("int", "int32"), ("long", "int64"), ("short", "int16"),
                          ("bool", "bool"), ("byte", "uint8"), ("char", "int8"),
                          ("cfloat", "complex64"), ("cdouble", "complex128"),
                          ("int8", "int8"), ("float64", "float64")):
        assert getattr(x, method)().dtype == dtype, method
    w = D.to_tensor([1.0, 2.0], stop_gradient=False)
    w.double().sum().backward()  # the conversion stays in the graph
    assert w.grad.tolist() == [1.0, 1.0]


def test_new_tensors_take_self_dtype():
    x = D.ones([2], dtype="float64")
    assert x.new_zeros([3]).dtype == D.float64 and x.new_zeros([3]).tolist() == [0.0] * 3
    assert x.new_full([2, 1], 7).tolist() == [[7.0], [7.0]]
    assert x.new_ones((2,), dtype="int32").dtype == D.int32
    assert x.new_empty([4]).shape == [4]
    assert not x.new_zeros([1], requires_grad=True).stop_gradient


def test_requires_grad_and_detach_():
    x = D.ones([2])
    assert x.requires_grad is False
    x.requires_grad = True
    assert not x.stop_gradient
    y = (x * 2).detach_()
    assert y.stop_gradient and y.grad_fn is None
    z = x * 3
    assert z.grad_fn is not None
    assert x.requires_grad_(False).stop_gradient


def test_layout_queries():
    x = D.zeros([2, 3], dtype="float64")
    assert x.strides == [3, 1] and x.get_strides() == [3, 1] and x.stride(0) == 3
    assert x.itemsize == 8 and x.element_size() == 8 and x.offset == 0
    assert x.is_contiguous() and x.is_dense() and not x.is_cuda
    assert x.device == "cpu" and x.get_device() == -1 and x.layout == "NCHW"
    assert x.type == x.type.LOD_TENSOR and str(x.type) == "VarType.DENSE_TENSOR"
    assert x.data_ptr() == x.detach().data_ptr() != x.clone().data_ptr()
    assert x.is_same_shape(D.ones([2, 3])) and not x.is_same_shape(D.ones([3, 2]))
    assert x.value() is x and x.get_tensor() is x
    assert x.is_tensor() and not x.is_integer() and bool(D.zeros([0]).is_empty())
    assert x.mT.shape == [3, 2]
    with pytest.raises(ValueError, match="mT"):
        _ = D.ones([3]).mT


def test_contiguous_copy_keeps_the_gradient():
    x = D.zeros([1]).set_(D.arange(6, dtype="float32"), [3, 2], [1, 3])  # transposed view
    assert not x.is_contiguous() and x.strides == [1, 3]
    assert x.contiguous().is_contiguous() and x.contiguous().tolist() == x.tolist()
    y = D.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    t = y.t()
    c = t.contiguous()
    assert c.is_contiguous()
    (c * D.to_tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_set_views_source_storage():
    source = D.arange(6, dtype="float32")
    x = D.zeros([1]).set_(source, [2, 2], [1, 2], 1)
    assert x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(ValueError, match="set_"):
        D.zeros([1]).set_(source, [3, 3], [3, 1])
    assert D.zeros([2]).set_().shape == [0]


def test_resize_keeps_row_major_order():
    x = D.arange(6, dtype="float32").reshape([2, 3])
    assert x.resize_([4]).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert x.resize_([2, 3]).tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]


@pytest.mark.parametrize("shape,offset,wrap", [((3, 4), 0, False), ((3, 4), 2, False),
                                               ((3, 4), -1, False), ((7, 3), 0, True),
                                               ((7, 3), 0, False), ((3, 3, 3), 0, False)])
def test_fill_diagonal_matches_numpy(shape, offset, wrap):
    want = np.zeros(shape, np.float32)
    if len(shape) > 2 or offset == 0:
        np.fill_diagonal(want, 5.0, wrap=wrap)
    else:
        rows, cols = np.nonzero(np.eye(*shape, k=offset))
        want[rows, cols] = 5.0
    got = D.zeros(list(shape)).fill_diagonal_(5.0, offset=offset, wrap=wrap)
    np.testing.assert_array_equal(got.numpy(), want)


def test_fill_diagonal_tensor_places_y_along_the_diagonal():
    x = D.zeros([2, 3, 4])
    y = D.to_tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    out = x.fill_diagonal_tensor(y, dim1=0, dim2=2)
    want = np.zeros((2, 3, 4), np.float32)
    for k in range(2):
        want[k, :, k] = np.arange(6.0).reshape(3, 2)[:, k]
    np.testing.assert_array_equal(out.numpy(), want)
    assert x.fill_diagonal_tensor_(y, dim1=0, dim2=2) is x
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(ValueError, match="fill_diagonal_tensor"):
        D.zeros([2, 2]).fill_diagonal_tensor(D.ones([3]))


def test_cast_apply_clone():
    x = D.to_tensor([1.7, -2.2])
    assert D.cast_(x, "int32") is x and x.dtype == D.int32 and x.tolist() == [1, -2]
    y = D.ones([2])
    assert y.apply(lambda t: t * 3).tolist() == [3.0, 3.0] and y.tolist() == [1.0, 1.0]
    assert y.apply_(lambda t: t + 1) is y and y.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="apply"):
        D.ones([1]).requires_grad_().apply(lambda t: t)
    w = D.to_tensor([2.0], stop_gradient=False)
    (D.clone(w) * 3).sum().backward()
    assert w.grad.tolist() == [3.0]
    s = D.to_tensor([0.0, 1.0])
    s.sigmoid_()
    np.testing.assert_allclose(s.numpy(), [0.5, 1 / (1 + np.exp(-1))], rtol=1e-6)


def test_top_level_predicates_and_check_shape():
    assert D.is_tensor(D.ones([1])) and not D.is_tensor(np.ones(1))
    assert D.is_integer(D.to_tensor([1])) and not D.is_integer(D.to_tensor([True]))
    assert D.is_floating_point(D.ones([1])) and not D.is_floating_point(D.to_tensor([1]))
    assert D.check_shape(["anything"], "op") is None  # dynamic mode checks nothing
    D.enable_static()
    try:
        with pytest.raises(TypeError, match="reshape"):
            D.check_shape([2, "a"], "reshape")
        with pytest.raises(ValueError, match="reshape"):
            D.check_shape([2, -3], "reshape")
        assert D.check_shape((2, -1), "reshape") is None
    finally:
        D.disable_static()


def test_dtype_aliases_and_limits():
    assert D.float == D.float32 and D.double == D.float64 and D.half == D.float16
    assert D.cfloat == D.complex64 and D.cdouble == D.complex128
    assert D.uint32.name == "uint32" and D.newaxis is None
    assert D.pi == np.pi and D.e == np.e and np.isinf(D.inf) and np.isnan(D.nan)
    info = D.finfo(D.float16)
    assert info.max == 65504.0 and info.bits == 16 and info.eps == 2 ** -10
    assert D.finfo("bfloat16").eps == 2 ** -7
    assert D.finfo("complex128").dtype == "float64"
    assert (D.iinfo(D.int16).min, D.iinfo("uint8").max) == (-32768, 255)
    with pytest.raises(TypeError, match="iinfo"):
        D.iinfo("float32")
    with pytest.raises(TypeError, match="finfo"):
        D.finfo("int32")


def test_lazy_guard_defers_initialisation():
    D.seed(4)
    eager = D.nn.Linear(3, 2).weight.numpy()
    D.seed(4)
    with D.LazyGuard():
        lazy = D.nn.Linear(3, 2)
    assert not lazy.weight.numpy().any()  # nothing drawn yet
    D.seed(4)
    for param in lazy.parameters():
        param.initialize()
    np.testing.assert_array_equal(lazy.weight.numpy(), eager)
    before = lazy.weight.numpy().copy()
    lazy.weight.initialize()  # a second call changes nothing
    np.testing.assert_array_equal(lazy.weight.numpy(), before)


def test_autocast_alias():
    x = D.ones([2, 2])
    with D.autocast("cpu", dtype=D.float16):
        assert D.is_autocast_enabled() and D.get_autocast_dtype() == "float16"
        assert D.matmul(x, x).dtype == D.float16
    assert not D.is_autocast_enabled()
    with D.autocast("cpu", enabled=False):
        assert D.matmul(x, x).dtype == D.float32
    assert D.get_autocast_cpu_dtype() == D.get_autocast_gpu_dtype() == "float16"
