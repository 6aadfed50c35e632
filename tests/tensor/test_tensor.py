"""Tensor basics: creation, dtypes, printing, operators, indexing, conversions."""

import numpy as np
import pytest

import dygraph as paddle


def test_to_tensor_defaults_and_attributes():
    t = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.shape == [2, 2] and t.ndim == 2 and t.size == 4
    assert t.dtype == paddle.float32 and t.dtype == "float32" and t.dtype == np.float32
    assert t.stop_gradient is True and t.grad is None and t.is_leaf
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert paddle.to_tensor(np.zeros(2, np.float64)).dtype == paddle.float64
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor(1.5, dtype="float16").dtype == paddle.float16
    assert str(t.place) == "CPUPlace"
    assert t.numpy().tolist() == [[1, 2], [3, 4]] and t.tolist() == [[1, 2], [3, 4]]


def test_integer_tensors_never_require_grad():
    t = paddle.to_tensor([1, 2], stop_gradient=False)
    assert t.stop_gradient
    t.stop_gradient = False
    assert t.stop_gradient


def test_default_dtype_switch():
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor([1.0]).dtype == paddle.float64
        assert paddle.ones([1]).dtype == paddle.float64
        assert paddle.get_default_dtype() == "float64"
    finally:
        paddle.set_default_dtype("float32")


def test_repr_matches_the_seed_format():
    a = paddle.to_tensor([[1.60883498, 0.43853286], [1.02701402, 1.91869283],
                          [-1.14591110, 1.26320088], [-0.04009963, 0.42621592]])
    assert str(a) == (
        "Tensor(shape=[4, 2], dtype=float32, place=CPUPlace, stop_gradient=True,\n"
        "       [[1.60883498, 0.43853286],\n"
        "        [1.02701402, 1.91869283],\n"
        "        [-1.14591110,  1.26320088],\n"
        "        [-0.04009963,  0.42621592]])")
    b = paddle.arange(1, 3, dtype="float32")
    assert str(b) == ("Tensor(shape=[2], dtype=float32, place=CPUPlace, stop_gradient=True,\n"
                      "       [1., 2.])")
    assert "[5, 7, 9]" in str(paddle.to_tensor([5, 7, 9]))
    big = str(paddle.zeros([40, 40]))
    assert "..." in big and big.count("\n") < 12


def test_operators_and_scalar_promotion():
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_allclose((x + 1).numpy(), [2, 3])
    np.testing.assert_allclose((2 - x).numpy(), [1, 0])
    np.testing.assert_allclose((x * x / 2).numpy(), [0.5, 2])
    np.testing.assert_allclose((x ** 2).numpy(), [1, 4])
    np.testing.assert_allclose((2 ** x).numpy(), [2, 4])
    np.testing.assert_allclose((-x).numpy(), [-1, -2])
    assert (x + 1).dtype == paddle.float32 and (x * 2.5).dtype == paddle.float32
    i = paddle.to_tensor([3, 4])
    assert (i + 1).dtype == paddle.int64
    assert (i * 1.5).dtype == paddle.float32  # int tensor with a float scalar
    assert (i / 2).dtype == paddle.float32
    np.testing.assert_array_equal((i // 2).numpy(), [1, 2])
    np.testing.assert_array_equal((i % 3).numpy(), [0, 1])
    assert (x + paddle.to_tensor([1.0], dtype="float64")).dtype == paddle.float64
    assert (i + x).dtype == paddle.float32
    m = paddle.ones([2, 3])
    assert (m @ paddle.ones([3, 4])).shape == [2, 4]
    assert (np.ones(2, np.float32) + x).dtype == paddle.float32


def test_comparisons_and_logic():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert (x > 1.5).tolist() == [False, True, True]
    assert (x == 2).tolist() == [False, True, False]
    mask = (x > 1) & (x < 3)
    assert mask.tolist() == [False, True, False]
    assert (~mask).tolist() == [True, False, True]
    assert ((x > 2) | (x < 2)).tolist() == [True, False, True]
    assert (paddle.to_tensor([6]) & paddle.to_tensor([3])).tolist() == [2]


def test_python_control_flow_on_one_element_tensors():
    r = paddle.to_tensor([0.7])
    assert bool(r > 0.5) and float(r) == pytest.approx(0.7) and int(r) == 0
    with pytest.raises(TypeError, match="one-element"):
        bool(paddle.ones([2]))
    assert paddle.to_tensor(3.0).item() == 3.0


def test_indexing_and_iteration():
    x = paddle.arange(12).reshape([3, 4])
    assert x[1].tolist() == [4, 5, 6, 7]
    assert x[:, 1:3].tolist() == [[1, 2], [5, 6], [9, 10]]
    assert x[paddle.to_tensor([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert x[x > 9].tolist() == [10, 11]
    assert x[..., None].shape == [3, 4, 1]
    assert len(x) == 3 and [r.tolist()[0] for r in x] == [0, 4, 8]
    with pytest.raises(IndexError, match="shape \\[3, 4\\]"):
        x[5]


def test_setitem_writes_in_place():
    x = paddle.zeros([2, 3])
    x[0, 1] = 5.0
    x[1] = paddle.to_tensor([1.0, 2.0, 3.0])
    x[x > 2.5] = -1.0
    assert x.tolist() == [[0, -1, 0], [1, 2, -1]]


def test_slices_are_copies():
    x = paddle.ones([3])
    y = x[0:2]
    x.fill_(2.0)
    assert y.tolist() == [1, 1]


def test_astype_clone_detach_and_methods():
    x = paddle.to_tensor([1.6, -2.2], stop_gradient=False)
    assert x.astype("int32").tolist() == [1, -2]
    assert x.cast(paddle.float64).dtype == paddle.float64
    c = x.clone()
    assert not c.stop_gradient and c.tolist() == pytest.approx([1.6, -2.2])
    d = x.detach()
    assert d.stop_gradient
    assert x.sum().item() == pytest.approx(-0.6, abs=1e-6)
    assert x.matmul(x).item() == pytest.approx(1.6 ** 2 + 2.2 ** 2, rel=1e-6)
    assert x.abs().tolist() == pytest.approx([1.6, 2.2])
    assert x.T.shape == [2]


def test_numel_is_a_tensor_and_clone_takes_name():
    # Paddle's Tensor.numel answers a 0-D int64 tensor (Tensor.size is the Python int)
    n = paddle.ones([3, 4]).numel(name="n")
    assert isinstance(n, paddle.Tensor) and n.shape == [] and n.dtype == paddle.int64
    assert int(n) == 12 and paddle.ones([3, 4]).size == 12
    assert paddle.to_tensor([1.0, 2.0]).clone(name="c").tolist() == [1.0, 2.0]


def test_creation_ops_and_seed():
    assert paddle.zeros([2, 3]).shape == [2, 3]
    assert paddle.full([2], 7).tolist() == [7, 7]
    assert paddle.eye(2).tolist() == [[1, 0], [0, 1]]
    assert paddle.linspace(0, 1, 5).shape == [5]
    assert paddle.zeros_like(paddle.ones([2], dtype="int32")).dtype == paddle.int32
    def draws():
        paddle.seed(123)
        return [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(),
                paddle.randint(0, 9, [3]).numpy(), paddle.randperm(5).numpy(),
                paddle.uniform([2]).numpy(), paddle.normal(0., 1., [2]).numpy()]

    for u, v in zip(draws(), draws()):
        np.testing.assert_array_equal(u, v)
    assert paddle.bernoulli(paddle.zeros([4])).tolist() == [0, 0, 0, 0]
    counts = paddle.multinomial(paddle.to_tensor([0.0, 1.0, 0.0]), 3, replacement=True)
    assert counts.tolist() == [1, 1, 1]


def test_in_place_methods():
    x = paddle.ones([2])
    assert x.add_(paddle.ones([2])) is x and x.tolist() == [2, 2]
    x.scale_(3.0)
    assert x.tolist() == [6, 6]
    x.zero_()
    assert x.tolist() == [0, 0]


def test_deepcopy_and_pickle_roundtrip():
    import copy
    import pickle

    x = paddle.to_tensor([1.0, 2.0])
    assert copy.deepcopy(x).tolist() == [1, 2]
    assert pickle.loads(pickle.dumps(x)).tolist() == [1, 2]


def test_unsigned_sums_and_unsupported_dtypes():
    assert paddle.to_tensor(np.full(3, 250, np.uint8)).sum().item() == 750
    assert paddle.to_tensor(np.ones(2, np.uint8)).sum().dtype == paddle.int64
    with pytest.raises(TypeError, match="uint32 is not supported"):
        paddle.to_tensor(np.zeros(2, np.uint32))


def test_integers_apply_before_an_array_index_as_in_paddle():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = paddle.to_tensor(a)
    idx = paddle.to_tensor([0, 3])
    np.testing.assert_array_equal(x[1, :, idx].numpy(), a[1][:, [0, 3]])  # [3, 2], not [2, 3]
    np.testing.assert_array_equal(x[:, 1, idx].numpy(), a[:, 1][:, [0, 3]])
    x[1, :, idx] = paddle.zeros([3, 2], dtype="float64")
    expected = a.copy()
    expected[1][:, [0, 3]] = 0
    np.testing.assert_array_equal(x.numpy(), expected)
