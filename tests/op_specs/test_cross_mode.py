"""One answer in every mode, for every op: each spec entry (tests/op_specs) runs eagerly and
as a static program through the Executor, through to_static, through jit.save + jit.load,
through ONNX + onnxruntime where a mapping exists and under auto_cast (bfloat16, O1) in a
static program, each on two different inputs (a baked build-time value cannot pass), and
its gradients in static programs and to_static equal eager's.

Tolerances: static, to_static and jit.load run the same kernels as eager on the same float64
inputs: the entry's own tolerance. ONNX runs onnxruntime's kernels in float32: 1e-4.
auto_cast in a program runs the same casts as eager auto_cast, on float32 data: 8 float32
eps (the Executor and eager may take kernels that round a sum differently; a missed cast
is a bfloat16 rounding, 2**-8, far above).
"""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.tensor.tensor import _new_tensor
from tests.op_specs import all_specs

SPECS = all_specs()
AMP_RTOL = 8 * float(np.finfo(np.float32).eps)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Spec entries whose op has no ONNX mapping (the export names them); docs/ONNX.md gives the
# count. A new mapping, or a new op without one, updates this file.
UNMAPPED_FILE = os.path.join(ROOT, "tests", "data", "onnx_unmapped_specs.txt")


def _ids(spec):
    return spec.name + (f"[{spec.id}]" if spec.id else "")


def _as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _inputs(spec):
    return spec.make_inputs(seed=0), spec.make_inputs(seed=1)


_SEEDS = {}


def _seed(spec):
    """Random entries (dropout) call dygraph.seed(n) inside their function, a Python side
    effect that a program does not repeat at run time: every mode seeds the generator with
    that n before each run instead (found by watching one eager call)."""
    key = id(spec)
    if key not in _SEEDS:
        seen, original = [], dygraph.seed

        def watching(n):
            seen.append(n)
            return original(n)
        dygraph.seed = watching
        try:
            spec.fn(*[dygraph.to_tensor(a) for a in spec.make_inputs()])
        finally:
            dygraph.seed = original
        _SEEDS[key] = seen[-1] if seen else 0
    dygraph.seed(_SEEDS[key])


def _eager(spec, arrays, grads=False):
    """Outputs (and, with grads, the gradients of _weighted(outputs)) as arrays. The arrays
    become the Tensors' data as they are, strides and all (to_tensor would copy a view)."""
    _seed(spec)
    tensors = [_new_tensor(a, None, 0, not (grads and _differentiable(spec, i, a)))
               for i, a in enumerate(arrays)]
    outs = _as_list(spec.fn(*tensors))
    if not grads:
        return [o.numpy() for o in outs]
    wanted = [t for i, t in enumerate(tensors) if not t.stop_gradient]
    got = dygraph.grad([_weighted(outs)], wanted, allow_unused=True)
    return [o.numpy() for o in outs], [None if g is None else g.numpy() for g in got]


def _differentiable(spec, i, array):
    if not spec.grad or array.dtype.kind != "f":
        return False
    return spec.grad_inputs is None or i in spec.grad_inputs


def _weighted(outs):
    """A scalar whose gradient depends on where each output value went."""
    total = 0
    for o in outs:
        if o.dtype in (dygraph.float32, dygraph.float64) and not o.stop_gradient:
            flat = o.reshape([-1])
            total = total + (flat * dygraph.cast(dygraph.arange(1, flat.shape[0] + 1),
                                                 flat.dtype)).sum()
    return total


def _close(got, want, spec, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        if w is None:
            continue
        np.testing.assert_allclose(np.asarray(g), w, rtol=spec.rtol, atol=spec.atol,
                                   err_msg=what)


def _program(spec, arrays, grads):
    dygraph.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data(f"x{i}", list(a.shape), a.dtype.name)
                  for i, a in enumerate(arrays)]
            wanted = []
            for i, (x, a) in enumerate(zip(xs, arrays)):
                if grads and _differentiable(spec, i, a):
                    x.stop_gradient = False
                    wanted.append(x)
            outs = _as_list(spec.fn(*xs))
            gradients = static.gradients([_weighted(outs)], wanted) if wanted else []
    finally:
        dygraph.disable_static()
    return main, outs, gradients


def _run(spec, main, arrays, fetch):
    _seed(spec)
    return static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                 fetch_list=fetch)


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_static_program_gives_eager_numbers_and_gradients(spec):
    a, b = _inputs(spec)
    main, outs, gradients = _program(spec, a, grads=spec.grad)
    for arrays in (a, b):
        got = _run(spec, main, arrays, outs + list(gradients))
        if spec.grad and gradients:
            want, want_grads = _eager(spec, arrays, grads=True)
            _close(got[len(outs):], [g for g in want_grads], spec, "static gradients")
        else:
            want = _eager(spec, arrays)
        _close(got[:len(outs)], want, spec, "static outputs")


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_to_static_gives_eager_numbers_and_gradients(spec):
    def run(*xs):
        return spec.fn(*xs)

    converted = dygraph.jit.to_static(run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for arrays in _inputs(spec):
            _seed(spec)
            tensors = [dygraph.to_tensor(x, stop_gradient=not _differentiable(spec, i, x))
                       for i, x in enumerate(arrays)]
            outs = _as_list(converted(*tensors))
            wanted = [t for t in tensors if not t.stop_gradient]
            if wanted:
                got_grads = dygraph.grad([_weighted(outs)], wanted, allow_unused=True)
                want, want_grads = _eager(spec, arrays, grads=True)
                _close([None if g is None else g.numpy() for g in got_grads], want_grads,
                       spec, "to_static gradients")
            else:
                want = _eager(spec, arrays)
            _close([o.numpy() for o in outs], want, spec, "to_static outputs")
    # Running eagerly instead of as a program would hide any difference.
    assert not [w for w in caught if "runs eagerly" in str(w.message)], caught[0].message


# jit.save writes the inference program (dropout off, batch norm on its running statistics,
# as Paddle's): entries that run those ops in training mode give other numbers by design.
TRAINING_MODE = ("nn.functional.dropout", "nn.functional.dropout1d", "nn.functional.dropout2d",
                 "nn.functional.dropout3d", "nn.functional.alpha_dropout",
                 "nn.functional.feature_alpha_dropout", "nn.functional.rrelu")


def _saved_as_trained(spec):
    return spec.name in TRAINING_MODE or (spec.name == "nn.functional.batch_norm"
                                          and "eval" not in spec.id)


@pytest.mark.parametrize("spec", [s for s in SPECS if not _saved_as_trained(s)], ids=_ids)
def test_jit_save_and_load_give_eager_numbers(spec, tmp_path):
    a, b = _inputs(spec)

    def run(*xs):
        return spec.fn(*xs)

    path = str(tmp_path / "op")
    specs = [static.InputSpec(list(x.shape), x.dtype.name, f"x{i}") for i, x in enumerate(a)]
    dygraph.jit.save(dygraph.jit.to_static(run, input_spec=specs), path)
    loaded = dygraph.jit.load(path)
    for arrays in (a, b):
        _seed(spec)
        got = _as_list(loaded(*[dygraph.to_tensor(x) for x in arrays]))
        _close([g.numpy() for g in got], _eager(spec, arrays), spec, "jit.load outputs")


def _float_specs():
    """Entries with float inputs and a float output, for the float32 and bfloat16 modes."""
    chosen = []
    for spec in SPECS:
        arrays = spec.make_inputs()
        if arrays and all(a.dtype.kind == "f" for a in arrays) and not spec.id.startswith(
                "complex"):
            chosen.append(spec)
    return chosen


FLOAT_SPECS = _float_specs()


@pytest.mark.parametrize("spec", FLOAT_SPECS, ids=_ids)
def test_auto_cast_in_a_program_gives_eager_auto_cast_numbers(spec):
    pytest.importorskip("ml_dtypes")
    a, b = (tuple(x.astype(np.float32) for x in arrays) for arrays in _inputs(spec))
    with dygraph.amp.auto_cast(level="O1", dtype="bfloat16"):
        main, outs, _ = _program(spec, a, grads=False)
    for arrays in (a, b):
        got = _run(spec, main, arrays, outs)
        with dygraph.amp.auto_cast(level="O1", dtype="bfloat16"):
            want = _eager(spec, arrays)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=AMP_RTOL, atol=AMP_RTOL)


def _onnx_result(spec, tmp_path):
    """'unmapped' when the export names an op without a mapping, else None after checking
    onnxruntime's outputs against eager's on both inputs (float32)."""
    ort = pytest.importorskip("onnxruntime")
    a, b = (tuple(x.astype(np.float32) for x in arrays) for arrays in _inputs(spec))

    class Fn(dygraph.nn.Layer):
        def forward(self, *xs):
            return spec.fn(*xs)

    path = str(tmp_path / "op")
    input_spec = [static.InputSpec(list(x.shape), "float32", f"x{i}") for i, x in enumerate(a)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dygraph.onnx.export(Fn(), path, input_spec)
    except NotImplementedError as exc:
        assert "no ONNX mapping" in str(exc) or "has no ONNX mapping" in str(exc), exc
        return "unmapped"
    except ValueError as exc:  # refused with the reason (dropout in training mode)
        assert "cannot be exported" in str(exc), exc
        return "unmapped"
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path + ".onnx", options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for arrays in (a, b):
        got = session.run(None, dict(zip(names, arrays)))
        want = _eager(spec, arrays)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg="onnxruntime")
    return None


# Found by this test and not fixed yet: exports that onnx's shape inference or the exporter
# reject. The test fails when one of them starts to work (remove it here) or another
# breaks.
ONNX_KNOWN_FAILURES = {
    "unstack": "Unbind's Gather outputs are declared with the unbound axis",
    "unstack[sq]": "Unbind's Gather outputs are declared with the unbound axis",
    "unbind": "Unbind's Gather outputs are declared with the unbound axis",
    "unbind[sq]": "Unbind's Gather outputs are declared with the unbound axis",
    "nn.functional.npair_loss": "a broadcast Add of the label matrix has the wrong rank",
    "nn.functional.embedding": "the exporter looks up the float32 ids input by a wrong name",
}


def test_onnx_gives_eager_numbers_where_a_mapping_exists(tmp_path):
    unmapped, failed = [], []
    for k, spec in enumerate(FLOAT_SPECS):
        try:
            if _onnx_result(spec, tmp_path / str(k)) == "unmapped":
                unmapped.append(_ids(spec))
        except Exception:  # noqa: BLE001 - compared with the known list below
            failed.append(_ids(spec))
    assert sorted(failed) == sorted(ONNX_KNOWN_FAILURES)
    with open(UNMAPPED_FILE) as f:
        recorded = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    assert sorted(unmapped) == sorted(recorded), (
        f"newly unmapped: {sorted(set(unmapped) - set(recorded))}; newly mapped: "
        f"{sorted(set(recorded) - set(unmapped))} (update {UNMAPPED_FILE} and docs/ONNX.md)")


def test_a_saved_sample_runs_in_a_fresh_process(tmp_path):
    """jit.save here, jit.load in another interpreter: nothing of this process (imported
    modules, registered functions) is needed to run the files."""
    sample = [s for s in SPECS if s.name in ("sort", "nn.functional.conv2d", "matmul",
                                              "nn.functional.softmax", "cumsum")]
    cases = []
    for k, spec in enumerate(sample):
        a, _ = _inputs(spec)

        def run(*xs, spec=spec):
            return spec.fn(*xs)

        path = str(tmp_path / f"op{k}")
        specs = [static.InputSpec(list(x.shape), x.dtype.name, f"x{i}")
                 for i, x in enumerate(a)]
        dygraph.jit.save(dygraph.jit.to_static(run, input_spec=specs), path)
        np.savez(path + ".npz", *a)
        np.savez(path + ".want.npz", *_eager(spec, a))
        cases.append(path)
    script = (
        "import sys, numpy as np, dygraph\n"
        "for path in sys.argv[1:]:\n"
        "    inputs = np.load(path + '.npz'); want = np.load(path + '.want.npz')\n"
        "    xs = [dygraph.to_tensor(inputs[f'arr_{i}']) for i in range(len(inputs.files))]\n"
        "    out = dygraph.jit.load(path)(*xs)\n"
        "    out = out if isinstance(out, (list, tuple)) else [out]\n"
        "    for i, o in enumerate(out):\n"
        "        np.testing.assert_allclose(o.numpy(), want[f'arr_{i}'], rtol=1e-6)\n"
        "print('ok', len(sys.argv) - 1)\n")
    run = subprocess.run([sys.executable, "-c", script, *cases], capture_output=True,
                         text=True, timeout=120, cwd=str(tmp_path))
    assert run.returncode == 0 and run.stdout.strip() == f"ok {len(cases)}", run.stderr
    assert len(cases) >= 4


@pytest.mark.parametrize("spec", [s for s in SPECS if s.grad and s.double], ids=_ids)
def test_static_gradients_of_gradients_equal_eager_double_backward(spec):
    """d/dx of sum(g * g), g the gradient of the weighted outputs: gradient ops in a program
    are differentiable as eager create_graph gradients are."""
    a, _ = _inputs(spec)
    if not any(_differentiable(spec, i, x) for i, x in enumerate(a)):
        pytest.skip("no differentiable input")
    dygraph.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data(f"x{i}", list(x.shape), x.dtype.name) for i, x in enumerate(a)]
            wanted = [v for i, (v, x) in enumerate(zip(xs, a)) if _differentiable(spec, i, x)]
            for v in wanted:
                v.stop_gradient = False
            first = static.gradients([_weighted(_as_list(spec.fn(*xs)))], wanted)
            penalty = sum((g * g).sum() for g in first if g is not None)
            try:
                second = static.gradients([penalty], wanted)
            except NotImplementedError as exc:  # refused, never a wrong number
                assert "is not supported in static programs yet" in str(exc)
                pytest.skip(str(exc)[:120])
    finally:
        dygraph.disable_static()
    got = _run(spec, main, a, [g for g in second if g is not None])
    _seed(spec)
    tensors = [dygraph.to_tensor(x, stop_gradient=not _differentiable(spec, i, x))
               for i, x in enumerate(a)]
    inputs = [t for t in tensors if not t.stop_gradient]
    grads = dygraph.grad([_weighted(_as_list(spec.fn(*tensors)))], inputs, create_graph=True,
                         allow_unused=True)
    total = sum((g * g).sum() for g in grads if g is not None)
    want = dygraph.grad([total], inputs, allow_unused=True)
    # (eager gives None where the second derivative is zero everywhere: relu, linear ops)
    want = [np.zeros_like(x.numpy()) if w is None else w.numpy()
            for w, x, s in zip(want, inputs, second) if s is not None]
    _close(got, want, spec, "static second-order gradients")


def _layouts(array):
    """The same values as contiguous, Fortran-ordered, negatively strided, sliced and (for
    a leading dimension of 1) broadcast arrays."""
    yield "contiguous", np.ascontiguousarray(array)
    if array.ndim >= 2:
        yield "fortran", np.asfortranarray(array)
    if array.ndim >= 1 and array.shape[-1] > 1:
        yield "reversed", np.ascontiguousarray(array[..., ::-1])[..., ::-1]
        gap = np.nan if array.dtype.kind in "fc" else 7  # what a read of the gaps would see
        padded = np.full(array.shape[:-1] + (2 * array.shape[-1],), gap, array.dtype)
        padded[..., ::2] = array
        yield "sliced", padded[..., ::2]
    if array.ndim >= 1 and array.shape[0] == 1:
        yield "broadcast", np.broadcast_to(array[:1], array.shape)


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_every_input_layout_gives_the_same_numbers(spec):
    """Kernel paths (BLAS, compiled kernels, views) see inputs of every layout: values and
    gradients equal the contiguous input's, whatever the strides."""
    arrays = spec.make_inputs()
    want, want_grads = _eager(spec, arrays, grads=True) if spec.grad else (
        _eager(spec, arrays), None)
    for k in range(len(arrays)):
        for name, variant in list(_layouts(arrays[k]))[1:]:
            trial = list(arrays)
            trial[k] = variant
            if spec.grad:
                got, got_grads = _eager(spec, trial, grads=True)
                _close(got_grads, want_grads, spec, f"gradients, input {k} {name}")
            else:
                got = _eager(spec, trial)
            _close(got, want, spec, f"outputs, input {k} {name}")
