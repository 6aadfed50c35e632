"""to_static never silently differs from eager because of Python state: globals, closure
variables and layer attributes it reads are guarded (a change traces again), and a trace
that changes Python state (a list argument, a counter, a random draw) runs eagerly instead,
with a warning naming it."""

import random
import re
import warnings

import numpy as np
import pytest

import dygraph

SCALE = 2.0
SEEN = []


def scaled(x):
    return x * SCALE


def test_a_changed_global_is_read_again():
    global SCALE
    fn = dygraph.jit.to_static(scaled)
    try:
        assert fn(dygraph.ones([2])).tolist() == [2.0, 2.0]
        SCALE = 5.0
        assert fn(dygraph.ones([2])).tolist() == [5.0, 5.0]
        assert len(fn.program_cache) == 2
        SCALE = 2.0
        assert fn(dygraph.ones([2])).tolist() == [2.0, 2.0]
        assert len(fn.program_cache) == 2  # the first program again, not a third trace
    finally:
        SCALE = 2.0


def test_closure_variables_and_layer_attributes_are_guarded():
    factor = 3.0

    def closure(x):
        return x * factor

    fn = dygraph.jit.to_static(closure)
    assert fn(dygraph.ones([1])).tolist() == [3.0]
    factor = 7.0  # noqa: F841 - read by closure through its cell
    assert fn(dygraph.ones([1])).tolist() == [7.0]

    class Scale(dygraph.nn.Layer):
        def __init__(self):
            super().__init__()
            self.k = 2.0

        def forward(self, x):
            return x * self.k

    layer = dygraph.jit.to_static(Scale())
    assert layer(dygraph.ones([1])).tolist() == [2.0]
    layer.k = 4.0
    assert layer(dygraph.ones([1])).tolist() == [4.0]


def appends(x, found):
    found.append(x)
    return x + len(found)


def draws(x):
    return x * random.random()


def draws_numpy(x):
    return x * float(np.random.rand())


def extends_global(x):
    SEEN.append(1)
    return x * len(SEEN)


@pytest.mark.parametrize("fn, args, what", [
    (appends, lambda: (dygraph.ones([1]), []), "argument 1 (a list)"),
    (draws, lambda: (dygraph.ones([1]),), "Python's random module"),
    (draws_numpy, lambda: (dygraph.ones([1]),), "NumPy's global random generator"),
    (extends_global, lambda: (dygraph.ones([1]),), "the global 'SEEN'"),
])
def test_side_effects_run_eagerly_and_say_so(fn, args, what):
    SEEN.clear()
    converted = dygraph.jit.to_static(fn)
    random.seed(0)
    np.random.seed(0)
    state = args()
    with pytest.warns(UserWarning, match="runs eagerly: it (draws from|changes).*"
                                         + re.escape(what)):
        got = [converted(*state).tolist() for _ in range(3)]
    SEEN.clear()
    random.seed(0)
    np.random.seed(0)
    state = args()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = [fn(*state).tolist() for _ in range(3)]
    assert got == want  # the trace's own draws and appends were undone or never counted

