"""paddle.audio.functional.get_window against Paddle 3.3's values: every window, periodic
and symmetric, lengths 1, 7 and 8, and the refusals."""

import numpy as np
import pytest

import dygraph
from dygraph.audio.functional import get_window

from .refs import REFS

CASES = REFS["windows"]["cases"]


def _window(spec):
    return tuple(spec) if isinstance(spec, list) else spec


@pytest.mark.parametrize("case", CASES,
                         ids=lambda c: f"{c['window']}-{c['length']}-{c['fftbins']}")
def test_window_values(case):
    dtype = case.get("dtype", "float64")
    out = get_window(_window(case["window"]), case["length"], fftbins=case["fftbins"],
                     dtype=dtype)
    assert out.dtype == getattr(dygraph, dtype)
    np.testing.assert_allclose(out.numpy(), case["value"], rtol=1e-6, atol=1e-12)


def test_refusals_are_paddles():
    calls = {"kaiser without beta": "kaiser", "unknown": "boxcarx", "a number": 3}
    for name, expected in REFS["windows"]["raises"].items():
        with pytest.raises(Exception) as info:  # noqa: B017 - the exact type is checked
            get_window(calls[name], 8)
        assert type(info.value).__name__ == expected
