"""Every case of cases.py on DyGraph against Paddle 3.3's recorded results
(tests/data/distribution_refs.json, from tools/record_distribution_refs.py): values, dtypes
and shapes of every call, shapes and dtypes of random draws, and the exception types."""

import json
import pathlib
import warnings

import numpy as np
import pytest

import dygraph
import dygraph.distribution  # noqa: F401 - registers the subpackage on dygraph
from tests.distribution.cases import CASES, run_case

REFS = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                   "distribution_refs.json").read_text())["cases"]

# Calls where DyGraph deliberately differs from Paddle 3.3: (case id, call index) -> why.
_INT_POWER = "Paddle 3.3's pow refuses an int64 exponent Tensor (TypeError); DyGraph computes it"
DIFFERENCES = {("geometric", 6): _INT_POWER, ("geometric", 8): _INT_POWER,
               ("geometric", 10): _INT_POWER,
               ("geometric", 13): "Paddle 3.3 returns the KL of one Bernoulli trial; DyGraph "
                                  "the geometric one (test_kl.py checks it by exact sums)"}


def _compare(got, want, where):
    if "error" in want or "error" in got:
        assert got == want, where
        return
    if "items" in want:
        assert len(got["items"]) == len(want["items"]), where
        for g, w in zip(got["items"], want["items"]):
            _compare(g, w, where)
        return
    if "draw_shape" in want or "shape_value" in want or "float" in want:
        if "float" in want:
            np.testing.assert_allclose(got["float"], want["float"], rtol=1e-6, err_msg=where)
        else:
            assert got == want, where
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
    tol = dict(rtol=1e-9, atol=1e-12) if want["dtype"] in ("float64", "complex128") else dict(
        rtol=2e-5, atol=2e-6)
    for key in ("value", "re", "im"):
        if key in want:
            np.testing.assert_allclose(np.asarray(got[key], "float64"),
                                       np.asarray(want[key], "float64"), err_msg=where, **tol)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_matches_paddle(case):
    want = REFS[case["id"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dygraph.seed(0)
        got = run_case(case, dygraph)
    if "build_error" in want or "build_error" in got:
        assert got == want
        return
    for i, (call, g, w) in enumerate(zip(case["calls"], got["calls"], want["calls"])):
        if (case["id"], i) in DIFFERENCES:
            continue
        _compare(g, w, f"{case['id']} call {i}: {call}")
