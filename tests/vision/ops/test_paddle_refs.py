"""dygraph.vision.ops against Paddle 3.3's answers, recorded by tools/record_vision_ops_refs.py
into tests/data/vision_ops_*.json: outputs, gradients and exception types, case by case.

Tolerances: float32 outputs within 1e-5 of their scale (the kernels sum in another order),
float64 within 1e-12; integer outputs exactly.
"""

import builtins
import json
import pathlib

import numpy as np
import pytest

import dygraph
from dygraph.vision import ops

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"
FILES = sorted(DATA.glob("vision_ops_*.json"))


def _cases():
    for path in FILES:
        data = json.loads(path.read_text())
        for k, case in enumerate(data["cases"]):
            yield pytest.param(data["arrays"], case,
                               id=f"{path.stem[11:]}-{k}-{case['op']}-{case['id']}")


def _array(spec):
    return np.array(spec["data"], spec["dtype"]).reshape(spec["shape"])


def _decode(spec, arrays):
    spec = arrays[spec["array"]] if "array" in spec else spec
    return dygraph.to_tensor(_array(spec)) if "dtype" in spec else spec["value"]


def _flatten(result):
    """As the recorder: nested lists and tuples spread, None kept."""
    if isinstance(result, (tuple, list)):
        return [o for part in result for o in _flatten(part)]
    return [result]


def _close(got, want, what):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert list(got.shape) == list(want.shape), f"{what}: shape {got.shape} vs {want.shape}"
    if want.dtype.kind == "f":
        tol = 1e-12 if want.dtype == np.float64 else 1e-5
        scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("arrays, case", list(_cases()))
def test_matches_paddle(arrays, case):
    args = [_decode(a, arrays) for a in case["args"]]
    kwargs = {k: _decode(v, arrays) for k, v in case["kwargs"].items()}
    for i in case["grad"]:
        args[i].stop_gradient = False
    fn = getattr(ops, case["op"])
    if "raises" in case:
        with pytest.raises(getattr(builtins, case["raises"])):
            fn(*args, **kwargs)
        return
    outs = _flatten(fn(*args, **kwargs))
    assert len(outs) == len(case["outputs"])
    for i, (o, w) in enumerate(zip(outs, case["outputs"])):
        if "dtype" in w:
            _close(o, _array(w), f"output {i}")
        else:
            assert o is None and w["value"] is None, f"output {i}: {o!r} vs {w['value']!r}"
    outs = [o for o in outs if o is not None]
    if not case["grad"]:
        return
    total = 0
    for o in outs:
        if o.dtype in (dygraph.float32, dygraph.float64) and not o.stop_gradient:
            n = int(np.prod(o.shape))
            w = np.cos(np.arange(n)).reshape(o.shape).astype(o.numpy().dtype)
            total = total + (o * dygraph.to_tensor(w)).sum()
    grads = dygraph.grad(total, [args[i] for i in case["grad"]], allow_unused=True)
    for i, (g, w) in enumerate(zip(grads, case["grads"])):
        if w is None:
            assert g is None or not np.any(g.numpy()), f"gradient {i}: Paddle has none"
        else:
            _close(g, _array(w), f"gradient {i}")
