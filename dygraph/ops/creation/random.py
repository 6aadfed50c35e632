"""Random fills and samplers: the in-place fills (x.normal_(), x.uniform_(), x.bernoulli_(),
...), log_normal, poisson, standard_gamma, binomial, rand_like/randn_like/randint_like and
manual_seed.

Every draw comes from the global generator (`dygraph.seed(n)` / `dygraph.manual_seed(n)`),
so runs are reproducible. Values are drawn on the host and written to the tensor's device.
No gradients: the values do not depend differentiably on the inputs (poisson gives its
input a zero one, as Paddle does).
"""

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework import dtype as _dt
from dygraph.framework import random as _random
from dygraph.framework.errors import op_error
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor, shape_list
from dygraph.ops.creation import constructors as creation
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["bernoulli_", "cauchy_", "geometric_", "log_normal_", "normal_", "exponential_",
           "uniform_", "random_", "log_normal", "poisson", "standard_gamma", "binomial",
           "rand_like", "randn_like", "randint_like", "manual_seed"]
NONDIFF = set(__all__)
NOT_METHODS = {"log_normal", "binomial", "rand_like", "randn_like", "randint_like",
               "manual_seed"}


def _host(value):
    return value.numpy() if isinstance(value, Tensor) else value


def _fill(x, values, op, on_device=None):
    """Write `values` into x in place (x keeps its dtype, device and shape): host values,
    or a function making them; `on_device` = (kind, a, b) draws them on x's GPU instead
    where it has one (backend/device_random.py)."""
    if not isinstance(x, Tensor):
        raise op_error(op, f"expects a Tensor, got {type(x).__name__}", TypeError)
    x._bump_version(op)
    if on_device is not None and type(x._data) is not np.ndarray:
        from dygraph.backend import device_random

        drawn = device_random.draw_like(x._data, *on_device)
        if drawn is not None:
            x._data[...] = drawn
            return x
    values = np.asarray(values() if callable(values) else values).astype(x._data.dtype,
                                                                            copy=False)
    if type(x._data) is np.ndarray:
        x._data[...] = values
    else:
        from dygraph.backend import place_of, to_place

        x._data[...] = to_place(values, place_of(x._data))
    return x


def _like(x, values):
    """A new tensor with host `values`, on x's device."""
    if type(x._data) is not np.ndarray:
        from dygraph.backend import place_of, to_place

        values = to_place(values, place_of(x._data))
    return _new_tensor(values, None, 0, True)


def _probability(p, op):
    p = _host(p)
    if np.any((np.asarray(p) < 0) | (np.asarray(p) > 1)):
        raise op_error(op, f"probabilities must be in [0, 1], got {p!r}")
    return p


@captured_whole
def bernoulli_(x, p=0.5, name=None):
    """Fill x in place with 1 (probability p) or 0; p is a number or a tensor broadcast to x.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([3]).bernoulli_(1.0).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    p = _probability(p, "bernoulli_")
    return _fill(x, rng().random(x._data.shape) < p, "bernoulli_")


@captured_whole
def cauchy_(x, loc=0, scale=1, name=None):
    """Fill x in place from the Cauchy distribution with median loc and scale.

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 2]).cauchy_(loc=1.0).shape
        [2, 2]
    """
    return _fill(x, loc + scale * rng().standard_cauchy(x._data.shape), "cauchy_")


@captured_whole
def geometric_(x, probs, name=None):
    """Fill x in place with the number of Bernoulli(probs) trials up to the first success
    (values 1, 2, ...).

    Example:
        >>> import dygraph
        >>> bool((dygraph.zeros([100]).geometric_(0.5) >= 1).all())
        True
    """
    probs = _probability(probs, "geometric_")
    if np.any(np.asarray(probs) == 0):
        raise op_error("geometric_", "probs must be > 0")
    return _fill(x, rng().geometric(probs, x._data.shape), "geometric_")


@captured_whole
def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fill x in place with exp(N(mean, std)).

    Example:
        >>> import dygraph
        >>> bool((dygraph.zeros([10]).log_normal_() > 0).all())
        True
    """
    return _fill(x, rng().lognormal(mean, std, x._data.shape), "log_normal_")


@captured_whole
def normal_(x, mean=0.0, std=1.0, name=None):
    """Fill x in place from N(mean, std).

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2]).normal_(std=0.0).numpy()
        array([0., 0.], dtype=float32)
    """
    return _fill(x, lambda: rng().normal(mean, std, x._data.shape), "normal_",
                 ("normal", mean, std))


@captured_whole
def exponential_(x, lam=1.0, name=None):
    """Fill x in place from the exponential distribution with rate lam.

    Example:
        >>> import dygraph
        >>> bool((dygraph.zeros([10]).exponential_(2.0) >= 0).all())
        True
    """
    if lam <= 0:
        raise op_error("exponential_", f"lam must be > 0, got {lam}")
    return _fill(x, rng().exponential(1.0 / lam, x._data.shape), "exponential_")


@captured_whole
def uniform_(x, min=0, max=1.0, seed=0, name=None):  # noqa: A002 - Paddle's names
    """Fill x in place from U[min, max); a non-zero seed uses its own generator.

    Example:
        >>> import dygraph
        >>> bool((dygraph.zeros([10]).uniform_(2.0, 3.0) >= 2.0).all())
        True
    """
    if seed:  # a generator of its own, on the host
        values = np.random.default_rng(seed).uniform(min, max, x._data.shape)
        return _fill(x, lambda: values, "uniform_")
    return _fill(x, lambda: rng().uniform(min, max, x._data.shape), "uniform_",
                 ("uniform", min, max))


def _random_top(dtype):
    """The exclusive upper end of random_() with no `to`: the largest integer range the
    dtype holds exactly (2**mantissa bits for floats)."""
    if dtype.kind == "f":
        return 2 ** (np.finfo(dtype).nmant + 1) + 1
    if dtype.kind == "b":
        return 2
    return int(np.iinfo(dtype).max)


@captured_whole
def random_(x, from_=0, to=None, *, generator=None):
    """Fill x in place with integers uniform in [from_, to) (to defaults to the largest
    value the dtype holds exactly); `generator` is a dygraph Generator to draw from.

    Example:
        >>> import dygraph
        >>> v = dygraph.zeros([20]).random_(0, 3)
        >>> sorted(set(v.tolist())) <= [0.0, 1.0, 2.0]
        True
    """
    high = _random_top(x._data.dtype) if to is None else to
    if high <= from_:
        raise op_error("random_", f"to ({to}) must be greater than from_ ({from_})")
    gen = generator.rng if generator is not None else rng()
    return _fill(x, gen.integers(from_, high, x._data.shape), "random_")


@captured_whole(always="per_run")
def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """Samples of exp(N(mean, std)); mean/std may be tensors (broadcast), else `shape`
    gives the shape.

    Example:
        >>> import dygraph
        >>> dygraph.log_normal(shape=[2, 3]).shape
        [2, 3]
    """
    dtype = _dt.default_float().np_dtype
    for value in (mean, std):
        if isinstance(value, Tensor):
            dtype = value._data.dtype
    mean, std = _host(mean), _host(std)
    if shape is None:
        shape = np.broadcast(np.asarray(mean), np.asarray(std)).shape
    else:
        shape = shape_list(shape, "log_normal")
    return creation._wrap(rng().lognormal(mean, std, shape).astype(dtype))


def _zero_gradient_to(out, x):
    """`out`, with x given a zero gradient through it, as Paddle gives poisson's input
    (a `where` that always picks `out`)."""
    if x.stop_gradient or not grad_mode.state.grad_on:
        return out
    from dygraph.ops.unary.core import where

    return where(_like(x, np.ones(out._data.shape, bool)), out, x)


@captured_whole
def poisson(x, name=None):
    """Samples from Poisson(rate = x), elementwise, in x's (float) dtype. A negative or NaN
    rate draws 0, as in Paddle; an infinite rate is refused (Paddle returns garbage). The
    gradient to x is zero, as Paddle's.

    Example:
        >>> import dygraph
        >>> dygraph.poisson(dygraph.to_tensor([0.0, -1.0])).numpy()
        array([0., 0.], dtype=float32)
    """
    x, rate = creation._float_input(x, "poisson")
    if np.isinf(rate).any():
        raise op_error("poisson", "rates must be finite, got inf")
    rate = np.where(np.isnan(rate) | (rate < 0), 0, rate)
    return _zero_gradient_to(_like(x, np.asarray(rng().poisson(rate)).astype(x._data.dtype)),
                             x)


def _gamma_samples(alpha, gen):
    """Gamma(alpha, 1) samples at every alpha, as Paddle draws them: alpha < 1 is drawn
    as Gamma(alpha + 1) * U^(1 / alpha) (the usual boost). Paddle applies that to
    negative alpha too, which gives samples (of no named distribution) for -2/3 < alpha
    < 0 and the dtype's smallest positive number below that, at 0 and at NaN; every
    sample is at least that number, as in Paddle."""
    a = alpha.astype(np.float64)
    out = np.zeros(a.shape)
    positive = a > 0
    out[positive] = gen.standard_gamma(a[positive])
    boosted = (a < 0) & (a > -2.0 / 3.0)
    if boosted.any():
        b = a[boosted]
        u = 1.0 - gen.random(b.shape)  # in (0, 1]
        with np.errstate(over="ignore"):
            out[boosted] = gen.standard_gamma(b + 1.0) * u ** (1.0 / b)
    with np.errstate(over="ignore"):
        out = out.astype(alpha.dtype)
    return np.maximum(out, np.finfo(alpha.dtype).tiny)


@captured_whole
def standard_gamma(x, name=None):
    """Samples from Gamma(shape = x, scale = 1), elementwise, in x's (float) dtype; as in
    Paddle, no sample is below the dtype's smallest positive number, and x <= 0 is not
    refused (see `_gamma_samples`).

    Example:
        >>> import dygraph
        >>> bool((dygraph.standard_gamma(dygraph.ones([5])) > 0).all())
        True
    """
    x, alpha = creation._float_input(x, "standard_gamma")
    return _like(x, _gamma_samples(np.asarray(alpha), rng()))


@captured_whole
def binomial(count, prob, name=None):
    """Samples from Binomial(count, prob), elementwise with broadcasting, as int64.

    Example:
        >>> import dygraph
        >>> dygraph.binomial(dygraph.to_tensor([10, 20]), dygraph.to_tensor([0.0, 1.0])).numpy()
        array([ 0, 20])
    """
    count = as_tensor(count, "binomial")
    n, p = count.numpy(), _probability(prob, "binomial")
    if np.any(n < 0):
        raise op_error("binomial", "count must be non-negative")
    return _like(count, rng().binomial(n.astype(np.int64), p).astype(np.int64))


def _like_dtype(x, dtype):
    return _dt.convert_dtype(dtype).np_dtype if dtype is not None else x._data.dtype


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """Uniform [0, 1) values with input's shape (and dtype unless given).

    Example:
        >>> import dygraph
        >>> dygraph.rand_like(dygraph.zeros([2, 3])).shape
        [2, 3]
    """
    x = as_tensor(input, "rand_like")
    out = creation.rand(x._data.shape or [], dtype=_like_dtype(x, dtype))
    out.stop_gradient = not requires_grad
    return out


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """Standard normal values with x's shape (and dtype unless given).

    Example:
        >>> import dygraph
        >>> dygraph.randn_like(dygraph.zeros([4], dtype='float64')).dtype
        dygraph.float64
    """
    x = as_tensor(x, "randn_like")
    out = creation.randn(x._data.shape or [], dtype=_like_dtype(x, dtype))
    out.stop_gradient = not requires_grad
    return out


@captured_whole
def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Random integers in [low, high) (or [0, low) when high is None) with x's shape, in
    x's dtype unless given.

    Example:
        >>> import dygraph
        >>> v = dygraph.randint_like(dygraph.zeros([5]), 3)
        >>> v.dtype, bool((v < 3).all())
        (dygraph.float32, True)
    """
    x = as_tensor(x, "randint_like")
    if high is None:
        low, high = 0, low
    if high <= low:
        raise op_error("randint_like", f"high ({high}) must be greater than low ({low})")
    values = rng().integers(low, high, x._data.shape).astype(_like_dtype(x, dtype))
    return creation._wrap(values)


def manual_seed(seed):
    """Seed the global generator (the same as `dygraph.seed`); returns it.

    Example:
        >>> import dygraph
        >>> _ = dygraph.manual_seed(3); a = dygraph.rand([2]).numpy()
        >>> _ = dygraph.manual_seed(3); bool((a == dygraph.rand([2]).numpy()).all())
        True
    """
    return _random.seed(seed)


Tensor.multinomial = creation.multinomial
