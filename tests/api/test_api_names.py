"""The PaddlePaddle 3.3 public names DyGraph has (recorded in tests/data/api_names.json by
tools/api_names.py, which needs paddlepaddle) must all still be there: removing or renaming
one fails here. Paddle itself is not needed."""

import importlib
import json
import pathlib

import pytest

import dygraph

RECORD = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                     "api_names.json").read_text())


def _namespace(path):
    if path == "paddle":
        return dygraph
    if path == "Tensor":
        return dygraph.Tensor
    obj = dygraph
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(f"dygraph.{path}")
            break
    return obj


@pytest.mark.parametrize("path", sorted(RECORD))
def test_recorded_paddle_names_still_exist(path):
    if not RECORD[path]["have"]:
        pytest.skip(f"no Paddle name of {path} is recorded as present")
    namespace = _namespace(path)
    missing = [name for name in RECORD[path]["have"] if not hasattr(namespace, name)]
    assert not missing, f"{path}: names that were there are gone: {missing}"


def test_the_record_covers_every_namespace_counted():
    assert {"paddle", "Tensor", "nn", "nn.functional", "linalg", "static", "amp"} <= set(RECORD)
    have = sum(len(v["have"]) for v in RECORD.values())
    total = sum(v["paddle_count"] for v in RECORD.values())
    assert have <= total and have >= 800
