"""Generic op tests driven by the spec table in tests/op_specs."""

import importlib

import numpy as np
import pytest

import dygraph
from dygraph.autograd import gradcheck, gradgradcheck
from tests.op_specs import all_specs

SPECS = all_specs()


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
        names |= {prefix + n for n in module.__all__
                  if n not in nondiff and id(getattr(module, n)) not in seen}
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
