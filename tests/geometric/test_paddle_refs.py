"""paddle.geometric against Paddle 3.3's recorded results: values, dtypes, shapes, the
gradients of sum(out * weight), and the exception types of bad calls.

Where DyGraph refuses a dtype it raises TypeError: Paddle's refusals of those cases are
artefacts of its kernel tables (RuntimeError "kernel not registered", ValueError
"Unsupported index type"); DIFFERENT_ERRORS lists them.
"""

import numpy as np
import pytest

import dygraph
from tests.geometric.refs import REFS, call, label

# (function, Paddle's exception type, argument, its dtype) -> DyGraph's exception type, for
# dtypes DyGraph refuses with TypeError: float segment ids (Paddle: ValueError, unsupported
# index type) and float node ids in reindex_graph (Paddle: RuntimeError, no kernel).
DIFFERENT_ERRORS = {(f"segment_{r}", "ValueError", 1, "float32"): "TypeError"
                    for r in ("sum", "mean", "max", "min")}
DIFFERENT_ERRORS[("reindex_graph", "RuntimeError", 0, "float32")] = "TypeError"

DETERMINISTIC = [c for section in ("message_passing", "message_passing_errors", "segment",
                                   "reindex") for c in REFS[section]]


def _ids(cases):
    return [f"{i}-{label(c)}" for i, c in enumerate(cases)]


def _expected_error(case):
    for (fn, paddle_type, position, dtype), ours in DIFFERENT_ERRORS.items():
        if (case["fn"], case["raises"], case["args"][position]["dtype"]) == (fn, paddle_type,
                                                                            dtype):
            return ours
    return case["raises"]


def _check_outputs(outs, case, exact_values=True):
    assert len(outs) == len(case["out"])
    for o, ref in zip(outs, case["out"]):
        got = o.numpy()
        assert got.dtype.name == ref["dtype"]
        assert list(got.shape) == ref["shape"]
        if exact_values:
            want = np.asarray(ref["values"], dtype=ref["dtype"])
            if got.dtype.kind == "f":
                tol = 1e-3 if got.dtype == np.float16 else 1e-5
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", DETERMINISTIC, ids=_ids(DETERMINISTIC))
def test_matches_paddle(case):
    if "raises" in case:
        with pytest.raises(Exception) as caught:
            call(case)
        assert type(caught.value).__name__ == _expected_error(case), caught.value
        assert str(caught.value).startswith(case["fn"] + ":"), caught.value
        return
    args, outs = call(case)
    _check_outputs(outs, case)
    if "grads" in case:
        wanted = [a for a in args if isinstance(a, dygraph.Tensor) and not a.stop_gradient]
        weight = dygraph.to_tensor(np.asarray(case["weight"], dtype=outs[0].numpy().dtype))
        grads = dygraph.grad((outs[0] * weight).sum(), wanted, allow_unused=True)
        assert len(grads) == len(case["grads"])
        for g, want in zip(grads, case["grads"]):
            assert (g is None) == (want is None)
            if g is not None:
                np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-5)


SAMPLING = REFS["sampling"]


@pytest.mark.parametrize("case", SAMPLING, ids=_ids(SAMPLING))
def test_sampling_matches_paddle_where_the_draw_does_not_matter(case):
    """Dtypes, shapes and counts always; the neighbours themselves where every neighbour is
    kept (sample_size at least the degree) or none is, and otherwise that each is a distinct
    neighbour of its node (with its own edge id); exception types."""
    if "raises" in case:
        with pytest.raises(Exception) as caught:
            call(case)
        assert type(caught.value).__name__ == case["raises"], caught.value
        return
    _, outs = call(case)
    row = np.ravel(case["args"][0]["tensor"])
    colptr = np.ravel(case["args"][1]["tensor"])
    nodes = np.ravel(case["args"][-1]["tensor"]).astype(np.int64)
    degrees = colptr[nodes + 1] - colptr[nodes]
    size = case["kwargs"]["sample_size"]
    _check_outputs(outs, case, exact_values=bool((degrees <= size).all()) or size == 0)
    counts = outs[1].numpy()
    np.testing.assert_array_equal(counts, np.minimum(degrees, size))
    starts = np.concatenate([[0], np.cumsum(counts)])
    for i, node in enumerate(nodes):
        picked = outs[0].numpy()[starts[i]:starts[i + 1]]
        edges = np.arange(colptr[node], colptr[node + 1])
        assert set(picked) <= set(row[edges])
        if len(outs) == 3:  # edge ids: distinct edges of this node, holding the neighbours
            chosen = outs[2].numpy()[starts[i]:starts[i + 1]] - 100
            assert len(set(chosen)) == len(chosen) and set(chosen) <= set(edges)
            np.testing.assert_array_equal(row[chosen], picked)
