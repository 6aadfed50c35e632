"""The random fills and samplers: reproducible under seed, the right dtype, shape and range,
in-place semantics, and clear errors."""

import numpy as np
import pytest

import dygraph as D

FILLS = [("normal_", ()), ("uniform_", ()), ("bernoulli_", (0.3,)), ("cauchy_", ()),
         ("geometric_", (0.4,)), ("log_normal_", ()), ("exponential_", (2.0,)),
         ("random_", (0, 10))]


@pytest.mark.parametrize("name,args", FILLS)
def test_fills_are_in_place_and_reproducible(name, args):
    draws = []
    for _ in range(2):
        D.seed(11)
        x = D.zeros([4, 5], dtype="float64")
        version = x.inplace_version
        assert getattr(x, name)(*args) is x
        assert x.dtype == D.float64 and x.shape == [4, 5]
        assert x.inplace_version == version + 1
        draws.append(x.numpy())
    np.testing.assert_array_equal(draws[0], draws[1])
    D.seed(11)
    y = D.zeros([4, 5], dtype="float64")
    getattr(D, name)(y, *args)  # the top-level form fills the same way
    np.testing.assert_array_equal(y.numpy(), draws[0])


def test_fill_distributions_look_right():
    D.seed(0)
    n = [20000]
    assert abs(float(D.zeros(n).normal_(2.0, 0.5).mean()) - 2.0) < 0.02
    u = D.zeros(n).uniform_(-3.0, -1.0).numpy()
    assert u.min() >= -3.0 and u.max() < -1.0
    assert abs(float(D.zeros(n).bernoulli_(0.25).mean()) - 0.25) < 0.02
    assert abs(float(D.zeros(n).exponential_(4.0).mean()) - 0.25) < 0.02
    g = D.zeros(n).geometric_(0.5).numpy()
    assert g.min() >= 1 and abs(g.mean() - 2.0) < 0.05
    assert abs(float(np.median(D.zeros(n).cauchy_(loc=3.0).numpy())) - 3.0) < 0.05
    ln = np.log(D.zeros(n, dtype="float64").log_normal_(1.0, 0.5).numpy())
    assert abs(ln.mean() - 1.0) < 0.02 and abs(ln.std() - 0.5) < 0.02
    r = D.zeros(n, dtype="int32").random_(-2, 3).numpy()
    assert set(np.unique(r).tolist()) == {-2, -1, 0, 1, 2}


def test_random_default_range_follows_the_dtype():
    D.seed(1)
    assert float(D.zeros([1000], dtype="float16").random_().max()) <= 2 ** 11
    assert int(D.zeros([1000], dtype="int8").random_().min()) >= 0


def test_bernoulli_with_tensor_probabilities():
    x = D.zeros([2, 3]).bernoulli_(D.to_tensor([[0.0], [1.0]]))
    assert x.tolist() == [[0.0] * 3, [1.0] * 3]


def test_samplers():
    D.seed(3)
    counts = D.binomial(D.to_tensor([10, 20, 0]), D.to_tensor([1.0, 0.0, 0.5]))
    assert counts.tolist() == [10, 0, 0] and counts.dtype == D.int64
    rates = D.full([20000], 3.0)
    assert abs(float(D.poisson(rates).mean()) - 3.0) < 0.05
    assert abs(float(D.standard_gamma(rates).mean()) - 3.0) < 0.05
    assert D.log_normal(D.to_tensor([1.0, 2.0]), 0.5).shape == [2]
    x = D.zeros([3, 2], dtype="float64")
    assert D.rand_like(x).dtype == D.float64 and D.randn_like(x).shape == [3, 2]
    assert not D.rand_like(x, requires_grad=True).stop_gradient
    ints = D.randint_like(x, 2, 5, dtype="int32")
    assert ints.dtype == D.int32 and set(ints.numpy().ravel()) <= {2, 3, 4}
    rows = D.to_tensor([[0.0, 1.0], [1.0, 0.0]]).multinomial(1)
    assert rows.tolist() == [[1], [0]]


def test_manual_seed_and_generator():
    D.manual_seed(5)
    a = D.rand([3]).numpy()
    D.seed(5)
    np.testing.assert_array_equal(a, D.rand([3]).numpy())
    g = D.Generator().manual_seed(9)
    assert g.initial_seed() == 9
    first = D.zeros([4]).random_(0, 100, generator=g).numpy()
    g.manual_seed(9)
    np.testing.assert_array_equal(first, D.zeros([4]).random_(0, 100, generator=g).numpy())
    assert D.Generator("cpu").initial_seed() is None
    assert isinstance(g.seed(), int)


def test_bad_arguments_name_the_op():
    with pytest.raises(ValueError, match="bernoulli_"):
        D.zeros([2]).bernoulli_(1.5)
    with pytest.raises(ValueError, match="exponential_"):
        D.zeros([2]).exponential_(0.0)
    with pytest.raises(ValueError, match="random_"):
        D.zeros([2]).random_(5, 5)
    with pytest.raises(ValueError, match="poisson"):
        D.poisson(D.to_tensor([np.inf]))  # a negative rate draws 0, as in Paddle
    with pytest.raises(ValueError, match="randint_like"):
        D.randint_like(D.zeros([2]), 3, 1)
    with pytest.raises(RuntimeError, match="normal_"):
        D.zeros([2], dtype="float32").requires_grad_().normal_()


def test_samplers_refuse_what_paddle_has_no_kernel_for():
    # Paddle's samplers are float-only (RuntimeError); the error is a TypeError as well
    for draw in (lambda: D.poisson(D.to_tensor([1, 2])),
                 lambda: D.standard_gamma(D.to_tensor([True])),
                 lambda: D.bernoulli(D.to_tensor([1])),
                 lambda: D.multinomial(D.to_tensor([1, 2])),
                 lambda: D.rand([2], dtype="int64"), lambda: D.randn([2], dtype="bool"),
                 lambda: D.standard_normal([2], dtype="int32"),
                 lambda: D.uniform([2], dtype="int64")):
        with pytest.raises(RuntimeError, match="floating-point|no kernel") as info:
            draw()
        assert isinstance(info.value, TypeError)
    assert D.randn([2], dtype="float64").dtype == D.float64
    # a 0-D rate or shape parameter gives a 0-D sample
    for sampler in (D.poisson, D.standard_gamma):
        assert sampler(D.to_tensor(2.0)).shape == []


def test_bernoulli_probabilities():
    assert D.bernoulli(D.zeros([3]), p=1.0).tolist() == [1.0, 1.0, 1.0]  # p overrides x
    assert D.bernoulli(D.to_tensor(1.0)).shape == []
    # out of [0, 1]: Paddle's OutOfRange (IndexError); a ValueError too
    with pytest.raises(IndexError, match="bernoulli: probabilities must be in \\[0, 1\\], "
                                         "got -0.5") as info:
        D.bernoulli(D.to_tensor([0.5, -0.5]))
    assert isinstance(info.value, ValueError)
