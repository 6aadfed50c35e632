"""The spec table on the GPU: every entry's forward against its NumPy reference, and its
gradients (and double-backward gradients) against the same op's on the CPU, whose gradients
tests/test_op_specs.py checks against finite differences."""

import numpy as np
import pytest

import dygraph
from tests.gpu import requires_gpu
from tests.op_specs import all_specs
from tests.test_op_specs import _as_list, _ids, _tensors

pytestmark = requires_gpu
SPECS = all_specs()
# Singular and eigen vectors are defined up to their signs, which cuSOLVER and LAPACK pick
# differently: their forwards are compared in absolute value (the gradient entries use
# functions of them that do not depend on the signs).
SIGN_FREE = {"linalg.svd", "linalg.eigh"}


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
    arrays = spec.make_inputs()
    got = _as_list(spec.fn(*_tensors(spec, arrays)))
    want = _as_list(spec.ref(*[a.copy() for a in arrays]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if spec.name in SIGN_FREE:
            g, w = abs(g), np.abs(w)
        _close(g, w, spec)


def _gradients(spec, place, create_graph):
    """Gradients of a fixed weighting of the outputs, and with create_graph the gradients
    of a weighting of those (the double backward), on `place`."""
    tensors = _on(place, spec, seed=1)
    diff = [t for t in tensors if not t.stop_gradient]
    dygraph.set_device(place)
    try:
        outs = [o for o in _as_list(spec.fn(*tensors)) if not o.stop_gradient]
        rng = np.random.default_rng(3)
        weights = [dygraph.to_tensor(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
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
    for got, want in zip(_gradients(spec, "gpu:0", False), _gradients(spec, "cpu", False)):
        assert (got is None) == (want is None)
        if got is not None:
            _close(got, want.numpy(), spec)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad and s.double], ids=_ids)
def test_double_backward_on_the_gpu_equals_the_cpu_one(spec):
    gpu, cpu = _gradients(spec, "gpu:0", True), _gradients(spec, "cpu", True)
    assert len(gpu) == len(cpu)
    for got, want in zip(gpu, cpu):
        assert (got is None) == (want is None)
        if got is not None:
            _close(got, want.numpy(), spec)
