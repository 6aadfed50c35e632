"""Static programs written as Paddle's tests write them give Paddle 3.3's results
(recorded by tools/record_static_refs.py into tests/data/static_*.json; the cases are
tests/static/programs_*.py)."""

import importlib
import json
import pathlib
import warnings

import numpy as np
import pytest

import dygraph
from tests.static.recorded import decode, encode, run_case

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
MODULES = ("programs_control_flow", "programs_branches_arrays", "programs_builders",
           "programs_static_api", "programs_metrics", "programs_fluid_layers")


def _cases():
    for module_name in MODULES:
        path = DATA / f"static_{module_name.removeprefix('programs_')}.json"
        if not path.exists():
            continue
        expected = json.loads(path.read_text())
        module = importlib.import_module(f"tests.static.{module_name}")
        assert sorted(expected) == sorted(module.CASES), f"{path.name} needs recording again"
        for name, fn in module.CASES.items():
            yield pytest.param(fn, expected[name], id=f"{module_name}.{name}")


def _compare(got, want, where):
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != Paddle's {want.dtype}"
        assert got.shape == want.shape, f"{where}: shape {got.shape} != Paddle's {want.shape}"
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    elif isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            _compare(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        got = list(got)
        assert len(got) == len(want), f"{where}: {len(got)} items, Paddle {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, f"{where}[{k}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6), where
    else:
        assert got == want, f"{where}: {got!r} != Paddle's {want!r}"


@pytest.mark.parametrize("fn, expected", list(_cases()))
def test_program_gives_paddles_results(fn, expected):
    dygraph.seed(2024)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = decode(encode(run_case(fn, dygraph)))  # the JSON round trip Paddle's took
    _compare(got, decode(expected), fn.__name__)
