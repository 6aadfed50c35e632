"""Random functions inside to_static draw again at every call, as in eager mode: a program
that froze the draws of its trace would return the same "random" values forever (it did
for alpha_dropout, feature_alpha_dropout, rrelu, gumbel_softmax, randint_like,
log_normal, poisson's relatives and the in-place fills). After the same seed a call gives
eager's draws."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F


def alpha_dropout(x):
    return F.alpha_dropout(x, 0.5, training=True)


def feature_alpha_dropout(x):
    return F.feature_alpha_dropout(x.reshape([2, 4, 2]), 0.5, training=True)


def rrelu(x):
    return F.rrelu(x - 1.0, training=True)


def gumbel_softmax(x):
    return F.gumbel_softmax(x)


def randint_like(x):
    return dygraph.randint_like(x, 0, 1000)


def log_normal(x):
    return x + dygraph.log_normal(shape=[4, 4])


def standard_gamma(x):
    return dygraph.standard_gamma(x + 1.0)


def binomial(x):
    return dygraph.binomial(dygraph.full([4, 4], 50, "int64"), x).astype("float32")


def normal_(x):
    return (x * 1.0).normal_()


def uniform_(x):
    return (x * 1.0).uniform_()


def exponential_(x):
    return (x * 1.0).exponential_()


def bernoulli_(x):
    return (x * 1.0).bernoulli_(0.5)


def cauchy_(x):
    return (x * 1.0).cauchy_()


def geometric_(x):
    return (x * 1.0).geometric_(0.5)


def log_normal_(x):
    return (x * 1.0).log_normal_()


_DRAWS = [alpha_dropout, feature_alpha_dropout, rrelu, gumbel_softmax, randint_like,
          log_normal, standard_gamma, binomial, normal_, uniform_, exponential_, bernoulli_,
          cauchy_, geometric_, log_normal_]


@pytest.mark.parametrize("fn", _DRAWS, ids=lambda fn: fn.__name__)
def test_a_program_draws_at_every_call_as_eager_does(fn):
    x = dygraph.full([4, 4], 0.5)
    dygraph.seed(11)
    eager = [fn(x).numpy() for _ in range(2)]
    static = dygraph.jit.to_static(fn)
    dygraph.seed(11)
    got = [static(x).numpy() for _ in range(2)]
    assert not np.array_equal(got[0], got[1])
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(g, e)
