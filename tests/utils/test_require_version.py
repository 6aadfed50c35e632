"""require_version against Paddle 3.3's answers (tests/data/utils_refs.json, written by
tools/record_utils_refs.py): Paddle compared with its installed version, DyGraph with the
Paddle API version it implements, which is that same release."""

import json
import pathlib

import pytest

from dygraph.utils import require_version
from dygraph.utils.require_version import PADDLE_API

REFS = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                   / "utils_refs.json").read_text())


def test_the_recorded_paddle_is_the_api_version_dygraph_implements():
    assert REFS["paddle"] == ".".join(PADDLE_API[:3])


@pytest.mark.parametrize("case", REFS["require_version"], ids=lambda c: repr(c["args"]))
def test_require_version_answers_as_paddle(case):
    if "raises" not in case:
        assert require_version(*case["args"]) is None
        return
    with pytest.raises(Exception) as info:  # noqa: B017 - the exact type is checked below
        require_version(*case["args"])
    assert type(info.value).__name__ == case["raises"]
    if case["raises"] == "Exception":  # the VersionError text names both versions
        assert str(info.value) == case["message"]
