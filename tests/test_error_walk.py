"""Every op's errors name the op and point at the user's line.

The spec table is walked with inputs of the wrong shape and of the wrong dtype; an op may
accept such inputs (broadcasting, integer promotion), but when it refuses them the error
must be one of the documented kinds, start with the op's name and end with the caller's
`file:line` (the test's, not a line inside dygraph/). Creation ops get negative sizes and
indexing ops out-of-range indices, which must always be refused.
"""

import os
import re

import numpy as np
import pytest

import dygraph
from tests.op_specs import all_specs

SPECS = all_specs()
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
        assert WELL_FORMED.match(str(exc)), f"{type(exc).__name__}: {exc}"
        assert str(exc).count("(called at") == 1, f"wrapped twice: {exc}"
        return exc
    return None


def _tensors(arrays, dtype=None):
    out = []
    for a in arrays:
        a = np.asarray(a)
        if dtype is not None and a.dtype.kind == "f":
            a = a.astype(dtype)
        elif a.dtype == np.float64:
            a = a.astype(np.float32)
        out.append(dygraph.to_tensor(a))
    return out


def _misshaped(arrays):
    """The first float input with an extra leading and a changed trailing dim."""
    out = list(arrays)
    for i, a in enumerate(out):
        if np.asarray(a).dtype.kind == "f" and np.ndim(a) >= 1:
            a = np.asarray(a)
            out[i] = np.zeros((3,) + a.shape[:-1] + (a.shape[-1] + 5,), a.dtype)
            return out
    return None


def _id(spec):
    return spec.name + (f"[{spec.id}]" if spec.id else "")


@pytest.mark.parametrize("spec", SPECS, ids=_id)
def test_wrong_shapes_fail_cleanly(spec):
    arrays = _misshaped(spec.make_inputs())
    if arrays is None:
        pytest.skip("no float input with dims to change")
    _check(lambda: spec.fn(*_tensors(arrays)))


@pytest.mark.parametrize("spec", SPECS, ids=_id)
@pytest.mark.parametrize("dtype", ["bool", "int64", "complex64"])
def test_wrong_dtypes_fail_cleanly(spec, dtype):
    _check(lambda: spec.fn(*_tensors(spec.make_inputs(), dtype)))


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
