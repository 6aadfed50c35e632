"""The top-level tolist against Paddle 3.3's answers (tests/data/utils_refs.json, written
by tools/record_utils_refs.py)."""

import json
import pathlib

import pytest

import dygraph

CASES = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                    / "utils_refs.json").read_text())["tolist"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dtype']}-{c['data']}")
def test_tolist_answers_as_paddle(case):
    if case.get("of_list"):
        with pytest.raises(AttributeError):
            dygraph.tolist(case["data"])
        return
    out = dygraph.tolist(dygraph.to_tensor(case["data"], dtype=case["dtype"]))
    assert out == case["returns"]
    # Python numbers of the recorded kinds (JSON keeps int, float and bool apart)
    assert [type(v) for v in _leaves(out)] == [type(v) for v in _leaves(case["returns"])]


def _leaves(value):
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_tolist_is_the_tensor_method():
    x = dygraph.to_tensor([[1.0, 2.0]])
    assert dygraph.tolist(x) == x.tolist() and type(dygraph.tolist(x)[0][0]) is float
