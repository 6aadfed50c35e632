"""ClipGradByGlobalNorm and ClipGradByNorm on a GPU keep the norms on the device (no read
per gradient, none at all), and clip as the CPU does: the same gradients, clipped or not,
with a NaN norm leaving them unscaled (CuPy stand-in)."""

import numpy as np
import pytest

import dygraph
from tools import cupy_standin


def _clipped(grads, clip):
    params = [dygraph.to_tensor(np.zeros_like(g), stop_gradient=False) for g in grads]
    pairs = [(p, dygraph.to_tensor(g)) for p, g in zip(params, grads)]
    return [g.numpy() for _, g in clip(pairs)]


@pytest.mark.parametrize("kind", ["ClipGradByGlobalNorm", "ClipGradByNorm"])
@pytest.mark.parametrize("clip_norm", [0.5, 100.0])
@pytest.mark.parametrize("nan", [False, True])
def test_the_gpu_clip_equals_the_cpu_clip_without_waiting_for_the_gpu(kind, clip_norm, nan):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5,), (2, 2, 2))]
    if nan:
        grads[1][2] = np.nan
    expected = _clipped(grads, getattr(dygraph.nn, kind)(clip_norm))
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            reads = cupy_standin.stats["host_reads"]
            got = [dygraph.to_tensor(g) for g in grads]
            clipped = getattr(dygraph.nn, kind)(clip_norm)(
                [(dygraph.to_tensor(np.zeros_like(g), stop_gradient=False), t)
                 for g, t in zip(grads, got)])
            assert cupy_standin.stats["host_reads"] == reads
            got = [g.numpy() for _, g in clipped]
        finally:
            dygraph.set_device("cpu")
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)
