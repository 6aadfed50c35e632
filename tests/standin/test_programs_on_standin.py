"""Every spec entry through to_static on the CuPy stand-in's GPU (tools/cupy_standin/):
the GPU test of programs (tests/gpu/test_programs_on_gpu.py: a plain run, the CUDA graph
capture and a replay give eager's numbers, and eager's gradients) run where there is no
GPU, so that an op which mixes host arrays into device ones, reads a device value without
`.get()`, or computes a captured value the replay would not recompute fails in CI.

The entries whose program runs without CUDA graphs (an op that cannot be captured: cuSOLVER,
a data-dependent shape, a value read on the host) are listed in
tests/data/standin_uncapturable_specs.txt with the op named; an entry that starts or stops
falling back fails until the list is updated (`DYGRAPH_RECORD_UNCAPTURABLE=1` rewrites
it). SciPy's special functions on the GPU (cupyx.scipy.special) are the stand-in's SciPy
ones; without SciPy, the entries that need them are skipped."""

import os

import pytest

import dygraph
from tests.gpu import test_programs_on_gpu as on_gpu
from tests.op_specs import all_specs
from tests.op_specs.test_op_specs import _ids
from tools import cupy_standin


@pytest.fixture(scope="module")
def standin():
    with cupy_standin.installed():
        yield


@pytest.fixture
def standin_gpu(standin):
    dygraph.set_device("gpu:0")
    try:
        yield
    finally:
        dygraph.set_device("cpu")


RECORDED = os.path.join(os.path.dirname(__file__), "..", "data",
                        "standin_uncapturable_specs.txt")


def _recorded():
    with open(RECORDED) as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    return dict(line.split(": ", 1) for line in lines)


@pytest.mark.parametrize("spec", all_specs(), ids=_ids)
def test_to_static_on_the_standin_gpu_gives_eager_numbers(spec, standin_gpu, monkeypatch):
    fallbacks = []
    monkeypatch.setattr(on_gpu, "_note_fallbacks", lambda spec, caught: fallbacks.extend(
        str(w.message).split(" (")[0].split("op ")[-1].split(" cannot")[0]
        for w in caught if "CUDA graph" in str(w.message)))
    try:
        on_gpu.test_to_static_on_the_gpu_gives_eager_numbers(spec, None)
    except ImportError as exc:
        if "SciPy" not in str(exc):
            raise
        pytest.skip(f"needs SciPy (cupyx.scipy.special on the stand-in): {exc}")
    name, ops = _ids(spec), ", ".join(sorted(set(fallbacks)))
    if os.environ.get("DYGRAPH_RECORD_UNCAPTURABLE"):
        if ops:
            with open(RECORDED, "a") as f:
                f.write(f"{name}: {ops}\n")
        return
    recorded = _recorded().get(name)
    assert ops == (recorded or ""), (
        f"{name}: its program now {'falls back at ' + ops if ops else 'is captured'}; "
        f"recorded: {recorded or 'captured'} (update {RECORDED})")
