"""dygraph.backend.compiled, the gate every op asks before it runs a compiled kernel: which
arrays it refuses (other dtypes, mixed ones, empty ones: an empty batch runs the NumPy
path of every op that has a kernel), and the switches."""

import contextlib

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import compiled

pytest.importorskip("numba")


def test_the_gate_refuses_other_dtypes_mixed_ones_and_empty_arrays():
    depthwise2d = pytest.importorskip("dygraph.kernels.numba.depthwise2d")
    assert compiled.kernels("depthwise2d", np, np.ones(2, np.float16)) is None
    assert compiled.kernels("depthwise2d", np, np.ones(2, np.float32),
                            np.ones(2, np.float64)) is None
    assert compiled.kernels("depthwise2d", np, np.ones(2), np.ones((0, 2))) is None
    assert compiled.kernels("depthwise2d", np, np.ones(2, np.float64)) is depthwise2d


@pytest.mark.parametrize("layer", ["depthwise", "batch_norm", "pool", "relu"])
def test_an_empty_batch_runs_the_numpy_path(layer):
    x = dygraph.to_tensor(np.zeros((0, 4, 16, 16), np.float32), stop_gradient=False)
    # A batch norm of no values has 0 / 0 statistics, and says so.
    with (pytest.warns(RuntimeWarning, match="normalize") if layer == "batch_norm"
          else contextlib.nullcontext()):
        if layer == "depthwise":
            y = F.conv2d(x, dygraph.to_tensor(np.ones((4, 1, 3, 3), np.float32)), padding=1,
                         groups=4)
        elif layer == "batch_norm":
            y = dygraph.nn.BatchNorm2D(4)(x)
        elif layer == "pool":
            y = F.max_pool2d(x, 2)
        else:
            y = F.relu(x)
        y.sum().backward()
    assert x.grad.shape == [0, 4, 16, 16]


def test_the_switches_turn_the_kernels_off(monkeypatch):
    monkeypatch.setenv("DYGRAPH_COMPILED", "0")
    assert not compiled.enabled()
    monkeypatch.setenv("DYGRAPH_COMPILED", "1")
    assert compiled.enabled()
    compiled.set_enabled(False)
    try:
        assert compiled.kernels("depthwise2d", np, np.ones(2)) is None
    finally:
        compiled.set_enabled(None)
    assert compiled.enabled()


def test_a_numba_that_does_not_import_turns_the_kernels_off(monkeypatch):
    # Installed but broken (built for another NumPy, say): a warning, then the NumPy paths.
    import importlib

    real = importlib.import_module

    def broken(name, *args):
        if name.startswith("dygraph.kernels."):
            raise ImportError("Numba needs NumPy 2.4 or less")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", broken)
    monkeypatch.setitem(compiled._STATE, "installed", True)
    with pytest.warns(RuntimeWarning, match="Numba did not import"):
        assert compiled.kernels("masks", np, np.ones(2)) is None
    assert not compiled.enabled()
    x = dygraph.to_tensor(np.linspace(-1, 1, 5000).astype(np.float32), stop_gradient=False)
    F.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (x.numpy() > 0).astype(np.float32))
