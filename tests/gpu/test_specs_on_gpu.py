"""The spec table on the GPU: every entry's forward against its NumPy reference, and its
gradients (and double-backward gradients) against the same op's on the CPU, whose gradients
tests/op_specs/test_op_specs.py checks against finite differences."""

import numpy as np
import pytest

import dygraph
from tests.gpu import requires_gpu
from tests.op_specs import all_specs
from tests.op_specs.test_op_specs import _as_list, _ids, _tensors

pytestmark = requires_gpu
SPECS = all_specs()
# Singular and eigen vectors are defined up to their signs, which cuSOLVER and LAPACK pick
# differently: their forwards are compared in absolute value, and their gradients with the
# GPU's output weights flipped to match (see _flips).
SIGN_FREE = {"linalg.svd": {0: "columns", 2: "rows"}, "linalg.eigh": {1: "columns"}}
# Entries that draw random numbers: a GPU draws them on the device
# (dygraph/backend/device_random.py), other values than the host generator that their
# references and the CPU use. The draws are checked by test_fused_kernels.py (the kernels
# against their NumPy statements), the ops' use of them by tests/standin.
DRAWN = {"nn.functional.gumbel_softmax", "nn.functional.gumbel_softmax[hard]",
         "nn.functional.dropout", "nn.functional.dropout[axis-downscale]",
         "nn.functional.dropout1d", "nn.functional.dropout2d", "nn.functional.dropout3d",
         "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
         "nn.functional.rrelu"}


def _skip_drawn(spec):
    if _ids(spec) in DRAWN:
        pytest.skip("draws on the device: other values than the host generator's")


def _on(place, spec, seed):
    dygraph.set_device(place)
    try:
        return _tensors(spec, spec.make_inputs(seed=seed))
    finally:
        dygraph.set_device("cpu")


def _close(got, want, spec):
    assert "CUDAPlace" in str(got.place), f"the result is on {got.place}"
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=max(spec.rtol, 1e-7),
                               atol=max(spec.atol, 1e-9))


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_forward_on_the_gpu_matches_numpy(spec, on_gpu):
    _skip_drawn(spec)
    arrays = spec.make_inputs()
    got = _as_list(spec.fn(*_tensors(spec, arrays)))
    want = _as_list(spec.ref(*[a.copy() for a in arrays]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if spec.name in SIGN_FREE:
            g, w = abs(g), np.abs(w)
        _close(g, w, spec)


def _flips(spec):
    """{output index: +-1 per vector} that turns the GPU's singular or eigen vectors into
    the CPU's, for the SIGN_FREE ops (empty for the others). With the GPU's weights so
    flipped, the weighted sum is the same function on both devices."""
    if spec.name not in SIGN_FREE:
        return {}
    cpu, gpu = (_as_list(spec.fn(*_on(place, spec, seed=1))) for place in ("cpu", "gpu:0"))
    flips = {}
    for i, kind in SIGN_FREE[spec.name].items():
        c, g = cpu[i].numpy(), gpu[i].numpy()
        if kind == "rows":
            c, g = np.swapaxes(c, -1, -2), np.swapaxes(g, -1, -2)
        sign = np.sign((c * g).sum(axis=-2, keepdims=True))
        flips[i] = np.swapaxes(sign, -1, -2) if kind == "rows" else sign
    return flips


def _gradients(spec, place, create_graph, flips=None):
    """Gradients of a fixed weighting of the outputs (output i's weights times flips[i]),
    and with create_graph the gradients of a weighting of those (the double backward), on
    `place`."""
    tensors = _on(place, spec, seed=1)
    diff = [t for t in tensors if not t.stop_gradient]
    dygraph.set_device(place)
    try:
        outs = _as_list(spec.fn(*tensors))
        rng = np.random.default_rng(3)
        weights = []
        for i, o in enumerate(outs):
            if not o.stop_gradient:
                w = rng.standard_normal(o.shape) * (flips or {}).get(i, 1)
                weights.append(dygraph.to_tensor(w, dtype=o.dtype))
        outs = [o for o in outs if not o.stop_gradient]
        grads = dygraph.grad(outs, diff, weights, create_graph=create_graph,
                             allow_unused=True)
        if not create_graph:
            return grads
        used = [g for g in grads if g is not None and not g.stop_gradient]
        if not used:
            return grads
        second = [dygraph.to_tensor(rng.standard_normal(g.shape), dtype=g.dtype) for g in used]
        return list(grads) + list(dygraph.grad(used, diff, second, allow_unused=True))
    finally:
        dygraph.set_device("cpu")


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad], ids=_ids)
def test_gradient_on_the_gpu_equals_the_cpu_gradient(spec):
    _skip_drawn(spec)
    gpu = _gradients(spec, "gpu:0", False, _flips(spec))
    for got, want in zip(gpu, _gradients(spec, "cpu", False)):
        assert (got is None) == (want is None)
        if got is not None:
            _close(got, want.numpy(), spec)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad and s.double], ids=_ids)
def test_double_backward_on_the_gpu_equals_the_cpu_one(spec):
    _skip_drawn(spec)
    gpu, cpu = _gradients(spec, "gpu:0", True, _flips(spec)), _gradients(spec, "cpu", True)
    assert len(gpu) == len(cpu)
    for got, want in zip(gpu, cpu):
        assert (got is None) == (want is None)
        if got is not None:
            _close(got, want.numpy(), spec)
