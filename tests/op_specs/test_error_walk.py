"""Every op's errors name the op and point at the user's line; every wrong input has a
recorded outcome.

The spec table is walked with inputs of the wrong shape and of the wrong dtype
(tests/op_specs/error_walk_cases.py). Each case must do what tests/data/error_walk_expectations.json
records, which tools/record_error_walk.py wrote by running the same cases through Paddle:
raise an exception of the named type, whose message is one of the documented kinds, starts
with the op's name and ends with the caller's `file:line` (the test's, not a line inside
dygraph/); or compute a result of the recorded dtypes equal to the recorded reference. The
cases where DyGraph differs from Paddle carry a reason in the file. Creation ops get
negative sizes and indexing ops out-of-range indices, which must always be refused.
"""

import json
import os
import pathlib
import re

import pytest

import dygraph
from tests.op_specs import all_specs
from tests.op_specs.error_walk_cases import (
    VARIANTS,
    WRONG_DTYPES,
    case_inputs,
    case_key,
    digests_match,
    entry_label,
    matches,
    reference,
    results,
    tensors,
)

SPECS = all_specs()
EXPECTED = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                       "error_walk_expectations.json").read_text())
# Walking every op with bad inputs produces NaN and infinity warnings by design.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
KINDS = (ValueError, TypeError, IndexError, RuntimeError, MemoryError, NotImplementedError)
PACKAGE = re.escape(os.path.dirname(os.path.abspath(dygraph.__file__)) + os.sep)
# "op: what went wrong ... (called at file:line)" with the file outside dygraph/: the
# caller's line (here, the spec table's lambda or this file).
WELL_FORMED = re.compile(r"^[A-Za-z_][\w.]*: .*\(called at (?!" + PACKAGE + r")[^()]+:\d+\)",
                         re.DOTALL)


def _check(call):
    """Run `call`; if it raises, the error must be well formed. Returns the error."""
    try:
        call()
    except KINDS as exc:
        _assert_well_formed(exc)
        return exc
    return None


def _assert_well_formed(exc):
    assert isinstance(exc, KINDS), f"{type(exc).__name__} is not a documented kind: {exc}"
    assert WELL_FORMED.match(str(exc)), f"{type(exc).__name__}: {exc}"
    assert str(exc).count("(called at") == 1, f"wrapped twice: {exc}"


def _expected(spec, variant):
    """The recorded outcome of a case: (kind, argument), e.g. ('raise', 'TypeError') or
    ('numpy', 'float32')."""
    row = EXPECTED["cases"].get(entry_label(spec))
    entry = row[VARIANTS.index(variant)] if row else None
    assert entry is not None, (f"{case_key(spec.name, spec.id, variant)} has no recorded "
                               f"outcome: run tools/record_error_walk.py")
    kind, _, argument = entry.partition(" ! ")[0].partition(" ")
    return kind, argument


def _walk(spec, variant):
    """Run one case and check it does what the data file records."""
    kind, argument = _expected(spec, variant)

    def call():
        return spec.fn(*tensors(dygraph, case_inputs(spec, variant)))

    if kind == "raise":
        with pytest.raises(Exception) as caught:
            call()
        assert type(caught.value).__name__ == argument, caught.value
        _assert_well_formed(caught.value)
        return
    got = results(call())
    assert [a.dtype.name for a in got] == argument.split(","), [a.dtype for a in got]
    if kind == "pinned":
        key = case_key(spec.name, spec.id, variant)
        assert digests_match(got, EXPECTED["pinned"][key]), got
    else:
        assert matches(got, reference(kind, spec, variant, dygraph)), got


@pytest.mark.parametrize("spec", SPECS, ids=entry_label)
def test_wrong_shapes_fail_cleanly_or_compute_the_reference(spec):
    if case_inputs(spec, "shape") is None:
        pytest.skip("no float input with dims to change")
    _walk(spec, "shape")


@pytest.mark.parametrize("spec", SPECS, ids=entry_label)
@pytest.mark.parametrize("dtype", WRONG_DTYPES)
def test_wrong_dtypes_fail_cleanly_or_compute_the_reference(spec, dtype):
    _walk(spec, dtype)


def test_every_recorded_difference_has_a_reason():
    assert EXPECTED["variants"] == list(VARIANTS)
    for label, row in EXPECTED["cases"].items():
        for entry in filter(None, row):
            reason = entry.partition(" ! ")[2]
            assert not reason or reason in EXPECTED["reasons"], (label, entry)
            assert entry.split()[0] in ("raise", "numpy", "cast", "pinned"), (label, entry)


@pytest.mark.parametrize("make", [
    lambda: dygraph.zeros([-1, 3]), lambda: dygraph.ones([2, -3]),
    lambda: dygraph.full([-2], 1.0), lambda: dygraph.empty([-4]),
    lambda: dygraph.rand([-1]), lambda: dygraph.randn([3, -1]),
    lambda: dygraph.randint(0, 5, [-2]), lambda: dygraph.uniform([-3]),
    lambda: dygraph.zeros([2 ** 40, 2 ** 40]),
], ids=["zeros", "ones", "full", "empty", "rand", "randn", "randint", "uniform", "huge"])
def test_creation_ops_refuse_negative_or_impossible_sizes(make):
    assert _check(make) is not None


def _setitem(x, index, value):
    x[index] = value


@pytest.mark.parametrize("call", [
    lambda x: x[5],
    lambda x: x[:, 9],
    lambda x: x[dygraph.to_tensor([0, 7])],
    lambda x: _setitem(x, 5, 1.0),
    lambda x: _setitem(x, (0, 9), 1.0),
    lambda x: dygraph.gather(x, dygraph.to_tensor([0, 4])),
    lambda x: dygraph.index_select(x, dygraph.to_tensor([9]), axis=1),
    lambda x: dygraph.take_along_axis(x, dygraph.to_tensor([[0, 8]]), axis=1),
    lambda x: dygraph.nn.functional.one_hot(dygraph.to_tensor([3]), 2),
    lambda x: dygraph.nn.functional.embedding(dygraph.to_tensor([5]), x),
], ids=["getitem", "getitem-2d", "getitem-tensor", "setitem", "setitem-2d", "gather",
        "index_select", "take_along_axis", "one_hot", "embedding"])
def test_out_of_range_indices_are_refused(call):
    x = dygraph.ones([3, 4])
    assert _check(lambda: call(x)) is not None


def test_floating_point_warnings_name_the_op_at_the_callers_line():
    with pytest.warns(RuntimeWarning, match="log: invalid value encountered") as record:
        dygraph.log(dygraph.to_tensor([-1.0]))
    assert record[0].filename == __file__
    x = dygraph.to_tensor([1.0, float("inf")], stop_gradient=False)
    with pytest.warns(RuntimeWarning, match="softmax: invalid value") as record:
        dygraph.nn.functional.softmax(x)
    assert record[0].filename == __file__
