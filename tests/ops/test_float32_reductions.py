"""float32 reductions of training (bias gradients, batch-norm statistics, loss means) are as
accurate as NumPy's pairwise summation on the same data.

Each case runs an op in float32 at a realistic size, takes the float32 result of a reduction
it performs, and compares that result's error against a float64 reference with the error of
np.sum on the same float32 terms in its pairwise form (each sum over one contiguous row, which
NumPy adds in blocks of 128 combined pairwise: an error bound growing like log2(n), where a
running sum's grows like n). The op passes within PAIRWISE_MARGIN times that error; a
row-by-row running sum over thousands of rows does not.
"""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import compiled

# The op's error over np.sum's pairwise error on the same terms. Correct sums (pairwise,
# BLAS products, float64 accumulators) measure up to 1.14 in these cases; running sums row
# by row measure 15 (the conv bias) and 18 (the linear bias), and a batch-norm weight
# gradient centered on the mean rounded to float32 110 to 250.
PAIRWISE_MARGIN = 2.0


def _pairwise_sums(terms, axes):
    """np.sum of float32 terms over `axes`, each sum over one contiguous row (pairwise)."""
    kept = [i for i in range(terms.ndim) if i not in axes]
    rows = np.ascontiguousarray(np.transpose(terms, kept + list(axes)))
    return rows.reshape(*(terms.shape[i] for i in kept), -1).sum(axis=-1)


def _assert_as_accurate_as_pairwise(got, terms64, axes, scale=1.0):
    """got (float32) approximates terms64.sum(axes) * scale at least as well, within
    PAIRWISE_MARGIN, as the pairwise float32 sum of the terms rounded to float32. An error
    below one float32 spacing of the result counts as one spacing, the scale of the
    result's own rounding."""
    exact = terms64.sum(axis=axes) * scale
    pairwise = _pairwise_sums(terms64.astype(np.float32), axes) * np.float32(scale)
    floor = np.spacing(np.abs(exact).astype(np.float32)).max()
    err = np.abs(np.asarray(got, np.float64).reshape(exact.shape) - exact).max()
    err_pairwise = max(np.abs(pairwise.astype(np.float64) - exact).max(), floor)
    assert got.dtype == np.float32
    assert err <= PAIRWISE_MARGIN * err_pairwise, (
        f"error {err:.3g} against np.sum's pairwise {err_pairwise:.3g} "
        f"({err / err_pairwise:.2f} times)")


def _leaf(a):
    return dygraph.to_tensor(a, stop_gradient=False)


def test_conv_bias_gradient_lenet_conv2_batch64():
    """LeNet's second conv (6 -> 16 channels, 5x5, 12x12 maps) at batch 64: the bias
    gradient sums 64 * 8 * 8 positions a channel."""
    rng = np.random.default_rng(0)
    x = _leaf(rng.standard_normal((64, 6, 12, 12)).astype(np.float32))
    w = _leaf((rng.standard_normal((16, 6, 5, 5)) * 0.1).astype(np.float32))
    b = _leaf(np.zeros(16, np.float32))
    g = rng.uniform(0.0, 1.0, (64, 16, 8, 8)).astype(np.float32)
    F.conv2d(x, w, b).backward(dygraph.to_tensor(g))
    _assert_as_accurate_as_pairwise(b.grad.numpy(), g.astype(np.float64), (0, 2, 3))


def test_linear_bias_gradient_4096_rows():
    rng = np.random.default_rng(1)
    x = _leaf(rng.standard_normal((4096, 32)).astype(np.float32))
    w = _leaf(rng.standard_normal((32, 64)).astype(np.float32))
    b = _leaf(np.zeros(64, np.float32))
    g = rng.uniform(0.0, 1.0, (4096, 64)).astype(np.float32)
    F.linear(x, w, b).backward(dygraph.to_tensor(g))
    _assert_as_accurate_as_pairwise(b.grad.numpy(), g.astype(np.float64), (0,))


@pytest.mark.parametrize("x_shape, out", [
    ((4096, 16), 10),      # a classifier head: few columns, summed transposed
    ((100, 64), 300),      # under 128 rows, summed in float64
    ((1000, 32), 40),      # blocks of rows and a remainder of 8
    ((8, 512, 24), 96),    # leading dims flattened: 4096 rows
])
def test_linear_bias_gradient_shapes(x_shape, out):
    rng = np.random.default_rng(5)
    x = _leaf(rng.standard_normal(x_shape).astype(np.float32))
    w = _leaf(rng.standard_normal((x_shape[-1], out)).astype(np.float32))
    b = _leaf(np.zeros(out, np.float32))
    g = rng.uniform(0.0, 1.0, x_shape[:-1] + (out,)).astype(np.float32)
    F.linear(x, w, b).backward(dygraph.to_tensor(g))
    axes = tuple(range(len(x_shape) - 1))
    _assert_as_accurate_as_pairwise(b.grad.numpy(), g.astype(np.float64), axes)


@pytest.fixture(scope="module", params=["compiled", "numpy"])
def batch_norm_run(request):
    """Batch norm in training over [64, 16, 28, 28] with momentum 0 (the running statistics
    become the batch's), and its backward for a positive cotangent; on the compiled kernel
    (dygraph.kernels.numba.batch_norm, where Numba is installed) and on the NumPy path."""
    rng = np.random.default_rng(2)
    x32 = (rng.standard_normal((64, 16, 28, 28)) + 2.0).astype(np.float32)
    g32 = rng.uniform(0.0, 1.0, x32.shape).astype(np.float32)
    mean, var = dygraph.zeros([16]), dygraph.ones([16])
    weight, bias = _leaf(np.ones(16, np.float32)), _leaf(np.zeros(16, np.float32))
    compiled.set_enabled(request.param == "compiled")
    try:
        y = F.batch_norm(_leaf(x32), mean, var, weight, bias, training=True, momentum=0.0)
        y.backward(dygraph.to_tensor(g32))
    finally:
        compiled.set_enabled(None)
    return x32.astype(np.float64), g32.astype(np.float64), mean, var, weight, bias


AXES = (0, 2, 3)
COUNT = 64 * 28 * 28


def _centered(x):
    return x - x.mean(axis=AXES, keepdims=True)


def test_batch_norm_mean_over_64x28x28(batch_norm_run):
    x, _, mean, _, _, _ = batch_norm_run
    _assert_as_accurate_as_pairwise(mean.numpy(), x, AXES, 1.0 / COUNT)


def test_batch_norm_variance_over_64x28x28(batch_norm_run):
    x, _, _, var, _, _ = batch_norm_run
    _assert_as_accurate_as_pairwise(var.numpy(), _centered(x) ** 2, AXES, 1.0 / COUNT)


def test_batch_norm_bias_gradient_over_64x28x28(batch_norm_run):
    _, g, _, _, _, bias = batch_norm_run
    _assert_as_accurate_as_pairwise(bias.grad.numpy(), g, AXES)


def test_batch_norm_weight_gradient_over_64x28x28(batch_norm_run):
    x, g, _, _, weight, _ = batch_norm_run
    c = _centered(x)
    xhat = c / np.sqrt((c ** 2).mean(axis=AXES, keepdims=True) + 1e-5)
    _assert_as_accurate_as_pairwise(weight.grad.numpy(), g * xhat, AXES)


def test_mse_loss_mean_over_1e5_elements():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1000, 100)).astype(np.float32)
    y = rng.standard_normal((1000, 100)).astype(np.float32)
    loss = F.mse_loss(dygraph.to_tensor(x), dygraph.to_tensor(y))
    d = x.astype(np.float64) - y
    _assert_as_accurate_as_pairwise(loss.numpy(), d * d, (0, 1), 1e-5)


def test_cross_entropy_mean_over_1e5_samples():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((100000, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 100000)
    loss = F.cross_entropy(dygraph.to_tensor(logits), dygraph.to_tensor(labels))
    z = logits.astype(np.float64)
    nll = np.log(np.exp(z).sum(axis=1)) - z[np.arange(100000), labels]
    _assert_as_accurate_as_pairwise(loss.numpy(), nll, (0,), 1e-5)
