"""Generic op tests driven by the spec table in tests/op_specs."""

import importlib
import inspect

import numpy as np
import pytest

import dygraph
from dygraph.autograd import gradcheck, gradgradcheck
from tests.op_specs import all_specs

SPECS = all_specs()
FLOAT32_SPECS = [s for s in SPECS if s.float32]


def _ids(spec):
    return spec.name + (f"[{spec.id}]" if spec.id else "")


def _tensors(spec, arrays):
    diff = spec.grad_inputs
    out = []
    for i, a in enumerate(arrays):
        is_float = a.dtype.kind == "f"
        sg = not is_float or (diff is not None and i not in diff)
        out.append(dygraph.to_tensor(a, stop_gradient=sg))
    return out


def _as_list(result):
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_forward_matches_numpy(spec):
    arrays = spec.make_inputs()
    got = _as_list(spec.fn(*_tensors(spec, arrays)))
    want = _as_list(spec.ref(*[a.copy() for a in arrays]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=spec.rtol, atol=spec.atol)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad], ids=_ids)
def test_gradient_matches_finite_differences(spec):
    tensors = _tensors(spec, spec.make_inputs())
    assert gradcheck(spec.fn, tensors, eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad and s.double], ids=_ids)
def test_double_backward_matches_finite_differences(spec):
    tensors = _tensors(spec, spec.make_inputs(seed=1))
    assert gradgradcheck(spec.fn, tensors, eps=1e-6, atol=1e-5, rtol=1e-3)


# The float32 runs: every float input rounded to float32, the results compared with float64
# values on the same (upcast) inputs at the entry's family tolerance (tests/op_specs).

_SINGLE = {np.dtype(np.float64): np.dtype(np.float32),
           np.dtype(np.complex128): np.dtype(np.complex64)}


def _upcast(arrays):
    return [a.astype(np.float64) if a.dtype.kind == "f" else a.copy() for a in arrays]


def _assert_close32(got, want, tol, what):
    want = np.asarray(want)
    scale = np.abs(want).max(initial=0.0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def _call(spec, tensors):
    """The entry's outputs as a list, with the global generator seeded first: ops that draw
    (the random projections of svd_lowrank) then draw the same in every run."""
    dygraph.seed(0)
    return _as_list(spec.fn(*tensors))


def _check_float32_forward(spec):
    """Outputs of float32 inputs against the reference on the same values in float64; each
    output has the single-precision dtype of the reference's (float32 for float64)."""
    arrays = spec.make_inputs(dtype=np.float32)
    got = _call(spec, _tensors(spec, arrays))
    want = [np.asarray(w) for w in _as_list(spec.ref(*_upcast(arrays)))]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = g.numpy()
        assert g.dtype == _SINGLE.get(w.dtype, w.dtype), f"output {i}: {g.dtype}"
        _assert_close32(g, w, spec.float32_tolerance(), f"output {i}")


def _cotangents(tensors, seed):
    """Fixed float32-representable cotangents (complex ones for complex tensors)."""
    rng = np.random.default_rng(seed)
    weights = []
    for t in tensors:
        w = rng.standard_normal(t.shape).astype(np.float32)
        if t.is_complex():
            w = w + 1j * rng.standard_normal(t.shape).astype(np.float32)
        weights.append(dygraph.to_tensor(w, dtype=t.dtype))
    return weights


def _gradients(spec, arrays, order):
    """First (order 1) or second (order 2: the gradient of the first gradients' product with
    fixed cotangents) derivatives of the entry's differentiable outputs."""
    tensors = _tensors(spec, arrays)
    diff = [t for t in tensors if not t.stop_gradient]
    outs = [o for o in _call(spec, tensors) if not o.stop_gradient]
    grads = dygraph.grad(outs, diff, _cotangents(outs, 3), create_graph=order == 2,
                         allow_unused=True)
    if order == 1:
        return grads
    firsts = [g for g in grads if g is not None and not g.stop_gradient]
    if not firsts:
        return [None] * len(diff)
    return dygraph.grad(firsts, diff, _cotangents(firsts, 4), allow_unused=True)


def _check_float32_gradient(spec, order):
    """The float32 analytic first (order 1) or second (order 2) derivatives against the
    float64 analytic ones of the same op at the same inputs (which the finite-difference
    tests check)."""
    arrays = spec.make_inputs(dtype=np.float32)
    got = _gradients(spec, arrays, order)
    want = _gradients(spec, _upcast(arrays), order)
    kind = "gradient" if order == 1 else "second derivative"
    for i, (g, w) in enumerate(zip(got, want)):
        assert (g is None) == (w is None), f"{kind} {i}: None in one precision only"
        if g is None:
            continue
        g, w = g.numpy(), w.numpy()
        assert g.dtype == _SINGLE[w.dtype], f"{kind} {i}: {g.dtype}"
        _assert_close32(g, w, spec.float32_tolerance(order), f"{kind} {i}")


@pytest.mark.parametrize("spec", FLOAT32_SPECS, ids=_ids)
def test_float32_matches_float64(spec):
    """Forward, gradient and (where the entry has it) double backward in float32, as one
    test an entry: three would triple the per-test cost of pytest for no more coverage."""
    _check_float32_forward(spec)
    if spec.grad:
        _check_float32_gradient(spec, order=1)
    if spec.grad and spec.double:
        _check_float32_gradient(spec, order=2)


# The entries left out of the float32 runs; each states why in its float32_reason.
FLOAT32_OPT_OUT_IDS = {
    "nn.functional.gumbel_softmax", "nn.functional.gumbel_softmax[hard]",
    "nn.functional.binary_cross_entropy", "nn.functional.binary_cross_entropy_with_logits",
    "nn.functional.margin_ranking_loss", "nn.functional.sigmoid_focal_loss",
    "nn.functional.sigmoid_focal_loss[normalizer]",
}


def test_float32_opt_outs_are_listed_with_reasons():
    """An entry leaves the float32 runs only by being listed here and stating its reason."""
    assert {_ids(s) for s in SPECS if not s.float32} == FLOAT32_OPT_OUT_IDS
    assert all(s.float32_reason for s in SPECS if not s.float32)


def _differentiable_exports():
    """Exported differentiable names; a function exported twice (say `dygraph.one_hot` and
    `dygraph.nn.functional.one_hot`) is covered by the entry for its first name."""
    names, seen = set(), set()
    for family in dygraph.ops.FAMILIES:
        for n in family.__all__:
            seen.add(id(getattr(family, n)))
            if n not in family.NONDIFF:
                names.add(n)
    for prefix, module_name in (("nn.functional.", "dygraph.nn.functional"),
                                ("linalg.", "dygraph.linalg")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        nondiff = getattr(module, "NONDIFF", set())
        # a public name may wrap the op's function (the dtypes Paddle refuses): unwrap it
        names |= {prefix + n for n in module.__all__
                  if n not in nondiff and id(inspect.unwrap(getattr(module, n))) not in seen}
    return names


def test_every_differentiable_op_has_a_spec_entry():
    covered = {s.name for s in SPECS}
    missing = sorted(_differentiable_exports() - covered)
    assert not missing, f"ops without a spec entry: {missing}"


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad and s.double], ids=_ids)
def test_recorded_gradient_equals_plain_gradient(spec):
    """The Tensor form of each gradient formula (used under create_graph) must give the same
    values as the array form; double-backward checks alone would accept a formula that is
    wrong but consistent with itself."""
    tensors = _tensors(spec, spec.make_inputs(seed=2))
    diff = [t for t in tensors if not t.stop_gradient]
    outs = [o for o in _as_list(spec.fn(*tensors)) if not o.stop_gradient]
    rng = np.random.default_rng(3)
    weights = [dygraph.to_tensor(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
    plain = dygraph.grad(outs, diff, weights, retain_graph=True, allow_unused=True)
    recorded = dygraph.grad(outs, diff, weights, create_graph=True, allow_unused=True)
    for p, r in zip(plain, recorded):
        if p is None:
            assert r is None or np.allclose(r.numpy(), 0)
            continue
        np.testing.assert_allclose(r.numpy(), p.numpy(), rtol=1e-10, atol=1e-12)
