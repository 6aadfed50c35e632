"""Element-wise chains of to_static programs run as one kernel on a GPU
(dygraph/static/fuse_elementwise.py), checked on the CuPy stand-in: which ops fuse,
what the kernel writes, that training steps (plain, recorded for a later backward, and
replayed as CUDA graphs) give eager's numbers with the chain fused, and where a chain
runs op by op instead. The kernels' C is checked in tests/kernels/test_elementwise_chains.py;
here the stand-in runs each kernel as its NumPy statement."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.jit import cuda_graph
from dygraph.kernels.cuda import elementwise_chains
from dygraph.ops.activation.piecewise import Relu
from dygraph.ops.activation.smooth import Gelu
from dygraph.ops.math.arithmetic import Add, Multiply
from dygraph.ops.reduction.reduce import Sum
from dygraph.static import fuse_elementwise as fusion
from dygraph.static.program import Operator
from tools import cupy_standin


def _chain_ops():
    # s = x + b; r = relu(s); g = gelu(r); y = g * r; t = sum(y); u = y + x
    return [Operator(Add(), ["x", "b"], ["s"]), Operator(Relu(), ["s"], ["r"]),
            Operator(Gelu(False), ["r"], ["g"]), Operator(Multiply(), ["g", "r"], ["y"]),
            Operator(Sum(None, False, None), ["y"], ["t"]), Operator(Add(), ["y", "x"], ["u"])]


def test_a_chain_becomes_one_op_that_writes_what_is_read_and_kept():
    ops = fusion.fuse_elementwise(_chain_ops(), ["t", "u"])
    assert [o.type for o in ops] == ["fused(add, relu, gelu, multiply)", "sum", "add"]
    fused = ops[0]
    assert fused.inputs == ["x", "b"] and fused.outputs == ["y"]  # y: read by sum and add
    # relu keeps its output, gelu and multiply their inputs (r and g); the sum s is read
    # by relu alone, whose gradient needs only its output: not written.
    assert fused.op.returned == [3] and fused.op.kept == [1, 2]
    members = [(type(op).__name__, refs) for op, refs in fused.op.members]
    assert members == [("Add", [("in", 0), ("in", 1)]), ("Relu", [("val", 0)]),
                       ("Gelu", [("val", 1)]), ("Multiply", [("val", 2), ("val", 1)])]


def test_a_fetched_value_is_returned_and_lone_ops_stay():
    ops = fusion.fuse_elementwise(_chain_ops(), ["t", "u", "s"])
    assert ops[0].outputs == ["s", "y"]
    lone = [Operator(Relu(), ["x"], ["r"]), Operator(Sum(None, False, None), ["r"], ["t"]),
            Operator(Relu(), ["t"], ["q"])]
    assert [o.type for o in fusion.fuse_elementwise(lone, ["q"])] == ["relu", "sum", "relu"]
    # Consecutive ops that do not feed each other are two runs, not one chain.
    apart = [Operator(Relu(), ["x"], ["r"]), Operator(Relu(), ["z"], ["q"])]
    assert [o.type for o in fusion.fuse_elementwise(apart, ["r", "q"])] == ["relu", "relu"]


def _step(fn, x, params, static):
    f = dygraph.jit.to_static(fn) if static else fn
    outs = []
    for _ in range(3):
        loss = f(x)
        loss.backward()
        outs.append([float(loss)] + [p.grad.numpy().copy() for p in params])
        for p in params:
            p.clear_gradient()
    return outs, f


def _model():
    dygraph.seed(3)
    lin = dygraph.nn.Linear(6, 6)
    b = dygraph.create_parameter([6], "float32")
    scale = dygraph.create_parameter([1], "float32")

    def fn(x):
        h = F.relu(lin(x) + b)  # the sum is not kept: relu's gradient reads its output
        h = F.gelu(h) * h * scale  # gelu and the products keep their inputs
        h = dygraph.tanh(h) - F.sigmoid(h) / 3.0
        return (h * h).mean()

    return fn, [lin.weight, lin.bias, b, scale]


@pytest.mark.parametrize("record", [True, False])
def test_fused_steps_give_the_eager_numbers(standin_gpu, record, monkeypatch):
    """record: the call is recorded and backward runs later (the forward plan keeps the
    chain's saved values); else the whole step is one program (loss.backward inside)."""
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((5, 6)).astype(np.float32))
    fn, params = _model()
    eager, _ = _step(fn, x, params, static=False)
    if not record:
        opt = dygraph.optimizer.SGD(learning_rate=0.0, parameters=params)

        def whole(x):
            loss = fn(x)
            loss.backward()
            grads = [p.grad * 1.0 for p in params]
            opt.clear_grad()
            return loss, grads

        f = dygraph.jit.to_static(whole)
        got = [[float(loss)] + [g.numpy() for g in grads] for loss, grads in
               (f(x) for _ in range(3))]
    else:
        got, f = _step(fn, x, params, static=True)
    fused = [o for o in _device_ops(f, "all" if record else "plan")
             if o.type.startswith("fused")]
    assert fused and all(s.kernel is not None for o in fused
                         for s in o.op._signatures.values())
    for g, e in zip(got, eager):
        for a, b in zip(g, e):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _device_ops(static_function, saved="plan"):
    """The ops of the GPU plan that ran: "all" for calls recorded for a later backward,
    "plan" for the others (dygraph/static/fuse_elementwise.py)."""
    concrete = static_function._cache.last
    assert concrete is not None, f"ran eagerly: {static_function._fallback}"
    return concrete.compiled._forward_plan.on_device(saved).ops


def test_fusion_writes_less_and_calls_less(standin_gpu, monkeypatch):
    rng = np.random.default_rng(1)
    x = dygraph.to_tensor(rng.standard_normal((5, 6)).astype(np.float32))
    calls = {}
    for on in ("1", "0"):
        monkeypatch.setenv("DYGRAPH_FUSION", on)
        fn, params = _model()
        f = dygraph.jit.to_static(fn)
        f(x).backward()
        before = cupy_standin.stats["calls"]
        f(x).backward()
        calls[on] = cupy_standin.stats["calls"] - before
    # Eleven element-wise ops of the forward become one kernel (the backward is as it was).
    assert calls["1"] <= calls["0"] - 10


def test_a_chain_with_a_smaller_intermediate_runs_op_by_op(standin_gpu):
    x = dygraph.to_tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    b = dygraph.to_tensor(np.array([1.0, -2.0, 3.0], np.float32))

    def fn(x, b):
        return F.relu((b * 2.0) - x)  # b * 2 has b's shape, not the chain's

    f = dygraph.jit.to_static(fn)
    np.testing.assert_array_equal(f(x, b).numpy(), fn(x, b).numpy())
    fused, = [o for o in _device_ops(f) if o.type.startswith("fused")]
    assert [s.kernel for s in fused.op._signatures.values()] == [None]


def test_float16_and_complex_chains_run_op_by_op(standin_gpu):
    x = dygraph.to_tensor(np.linspace(-2, 2, 6).astype(np.float16))

    def fn(x):
        return F.relu(x * x - 1.0)

    f = dygraph.jit.to_static(fn)
    np.testing.assert_array_equal(f(x).numpy(), fn(x).numpy())
    fused, = [o for o in _device_ops(f) if o.type.startswith("fused")]
    assert [s.kernel for s in fused.op._signatures.values()] == [None]


def test_a_replayed_graph_runs_the_fused_kernel(standin_gpu):
    rng = np.random.default_rng(2)
    x = dygraph.to_tensor(rng.standard_normal((5, 6)).astype(np.float32))
    fn, params = _model()
    eager = []
    opt = dygraph.optimizer.Adam(learning_rate=1e-2, parameters=params)
    start = [p.numpy().copy() for p in params]

    def step(x):
        loss = fn(x)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    for _ in range(4):
        eager.append(float(step(x)))
    for p, value in zip(params, start):
        p.set_value(value)
    opt = dygraph.optimizer.Adam(learning_rate=1e-2, parameters=params)
    f = dygraph.jit.to_static(step)
    replays = cuda_graph.stats["replays"]
    got = [float(f(x)) for _ in range(4)]
    assert cuda_graph.stats["replays"] - replays == 2  # call 1 warms up, call 2 captures
    assert any(o.type.startswith("fused") for o in _device_ops(f))
    np.testing.assert_allclose(got, eager, rtol=1e-6)


def test_a_value_fused_away_cannot_be_read():
    kept = fusion.Unkept((2, 3), np.dtype(np.float32))
    assert kept.shape == (2, 3) and kept.ndim == 2
    with pytest.raises(RuntimeError, match="fused away"):
        np.asarray(kept)


def test_the_kernel_source_is_made_once_per_signature(standin_gpu):
    members = [(Add(), [("in", 0), ("in", 1)]), (Relu(), [("val", 0)])]
    k1 = elementwise_chains.chain_kernel(members, ["float32"] * 2, ["float32"] * 2, [1])
    k2 = elementwise_chains.chain_kernel([(Add(), [("in", 0), ("in", 1)]),
                                          (Relu(), [("val", 0)])],
                                         ["float32"] * 2, ["float32"] * 2, [1])
    k3 = elementwise_chains.chain_kernel(members, ["float64"] * 2, ["float64"] * 2, [1])
    assert k1 is k2 and k3 is not k1
    cp = standin_gpu
    out, = k1(cp.asarray(np.array([-1.0, 2.0], np.float32)), cp.asarray(np.float32(0.5)))
    np.testing.assert_array_equal(cp.asnumpy(out), [0.0, 2.5])


def test_inference_and_whole_steps_keep_only_what_their_plan_reads(standin_gpu):
    """A call recorded for a later backward keeps every saved value; a call without
    gradients (and a whole step, whose gradient ops are in its plan) only what its own
    ops read: here, in inference, the chain's result alone."""
    rng = np.random.default_rng(4)
    x = dygraph.to_tensor(rng.standard_normal((5, 6)).astype(np.float32))
    fn, params = _model()
    f = dygraph.jit.to_static(fn)
    with dygraph.no_grad():
        want = [float(fn(x)) for _ in range(3)]
        got = [float(f(x)) for _ in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    plan = f._cache.last.compiled._forward_plan
    lean = [o.op for o in plan.on_device("plan").ops if o.type.startswith("fused")]
    full = [o.op for o in plan.on_device("all").ops if o.type.startswith("fused")]
    # the chain: add, relu, gelu, *h, *scale, tanh, sigmoid, /3, subtract, h*h
    assert [op.kept for op in lean] == [[]]
    assert [op.kept for op in full] == [[1, 2, 3, 5, 6, 8]]
    # the inference runs took the lean plan, with its kernels
    assert all(s.kernel is not None for op in lean for s in op._signatures.values())
    assert all(op._signatures for op in lean) and not any(
        getattr(op, "_signatures", None) for op in full)
