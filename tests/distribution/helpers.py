"""Shared checks for the distribution tests: gradients against central differences, and
sample statistics against exact moments."""

import numpy as np

import dygraph


def check_grad(fn, params, seed=None, eps=1e-6, rtol=1e-5, atol=1e-8):
    """Compare dygraph's gradient of the scalar `fn(*tensors)` with central differences.

    `params` are float64 arrays. With `seed`, dygraph.seed(seed) runs before every call,
    so functions of random draws (rsample) are deterministic in the parameters.
    """
    params = [np.asarray(p, dtype="float64") for p in params]

    def value(arrays, grad):
        if seed is not None:
            dygraph.seed(seed)
        tensors = [dygraph.to_tensor(a, stop_gradient=not grad) for a in arrays]
        return fn(*tensors), tensors

    out, tensors = value(params, True)
    grads = dygraph.grad(out, tensors, allow_unused=True)
    for i, (param, grad) in enumerate(zip(params, grads)):
        numeric = np.zeros_like(param)
        for index in np.ndindex(param.shape):
            for sign in (1.0, -1.0):
                moved = [p.copy() for p in params]
                moved[i][index] += sign * eps
                numeric[index] += sign * float(value(moved, False)[0]) / (2 * eps)
        got = np.zeros_like(param) if grad is None else grad.numpy()
        np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of parameter {i}")


def float32_grads_match(fn, params, seed=None, rtol=1e-3, atol=1e-5):
    """The float32 gradients of `fn` agree with its float64 ones (with `seed`, both runs
    start from dygraph.seed(seed): the same draws up to rounding)."""
    results = []
    for dtype in ("float64", "float32"):
        if seed is not None:
            dygraph.seed(seed)
        tensors = [dygraph.to_tensor(np.asarray(p, dtype), stop_gradient=False) for p in params]
        out = fn(*tensors)
        assert out.dtype == getattr(dygraph, dtype)
        results.append([g.numpy() for g in dygraph.grad(out, tensors)])
    for g64, g32 in zip(*results):
        assert g32.dtype == np.float32
        np.testing.assert_allclose(g32, g64, rtol=rtol, atol=atol)


def check_moments(samples, mean, variance, n_sigma=5.0):
    """The sample mean and variance over axis 0 lie within n_sigma standard errors."""
    x = np.asarray(samples.numpy(), dtype="float64")
    n = x.shape[0]
    mean, variance = np.broadcast_arrays(np.asarray(mean, "float64"),
                                         np.asarray(variance, "float64"))
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), n_sigma * np.sqrt(variance / n))
    # the standard error of the sample variance, from the fourth central moment
    fourth = ((x - x.mean(0)) ** 4).mean(0)
    se_var = np.sqrt(np.maximum(fourth - x.var(0) ** 2, 0) / n)
    np.testing.assert_array_less(np.abs(x.var(0) - variance), n_sigma * se_var + 1e-12)


def assert_seeded(draw):
    """draw() gives the same values after the same dygraph.seed and different ones after
    another."""
    dygraph.seed(7)
    first = draw().numpy()
    dygraph.seed(7)
    again = draw().numpy()
    dygraph.seed(8)
    other = draw().numpy()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
