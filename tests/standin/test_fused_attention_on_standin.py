"""scaled_dot_product_attention as one fused op (dygraph/ops/nn/fused_attention.py): float16
on a GPU runs cuDNN's fused forward and backward (here the CuPy stand-in's cuDNN frontend,
tools/cupy_standin/cudnn_frontend.py, which computes in float64), checked against a float64
NumPy reference written here; the op's array formula (where cuDNN declines a shape, and on
the CPU) against the composition of ops it replaces, to float64 rounding, with create_graph
too; and the cases that keep the composition."""

import warnings

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import cudnn
from dygraph.ops.nn import fused_attention
from tools import cupy_standin


def _reference(q, k, v, g, scale, causal):
    """(out, dq, dk, dv) in float64 of [batch, seq, heads, dim] arrays."""
    q, k, v, g = (np.asarray(a, np.float64).transpose(0, 2, 1, 3) for a in (q, k, v, g))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if causal:
        s = np.where(np.tri(s.shape[2], s.shape[3], dtype=bool), s, -np.inf)
    p = np.exp(s - s.max(axis=3, keepdims=True))
    p /= p.sum(axis=3, keepdims=True)
    dp = g @ v.transpose(0, 1, 3, 2)
    ds = p * (dp - (dp * p).sum(axis=3, keepdims=True)) * scale

    def back(a, heads):
        b, _, s_, d = a.shape
        return a.reshape(b, heads, -1, s_, d).sum(axis=2).transpose(0, 2, 1, 3)

    heads = q.shape[1] // group
    return ((p @ v).transpose(0, 2, 1, 3), (ds @ k).transpose(0, 2, 1, 3),
            back(ds.transpose(0, 1, 3, 2) @ q, heads), back(p.transpose(0, 1, 3, 2) @ g, heads))


def _inputs(seq_q, seq_k, heads, kv_heads, dim, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((2, s, h, d)).astype(dtype) for s, h, d in
            ((seq_q, heads, dim), (seq_k, kv_heads, dim), (seq_k, kv_heads, dim))]


def _run(arrays, weights, **kwargs):
    q, k, v = (dygraph.to_tensor(a, stop_gradient=False) for a in arrays)
    out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    (out.astype("float32") * dygraph.to_tensor(weights)).sum().backward()
    return [out.numpy()] + [t.grad.numpy() for t in (q, k, v)]


@pytest.fixture
def standin_gpu():
    with cupy_standin.installed(cudnn=True):
        dygraph.set_device("gpu:0")
        try:
            yield
        finally:
            dygraph.set_device("cpu")


CASES = [  # seq_q, seq_k, heads, kv heads, head dim, causal
    (5, 7, 4, 4, 16, False), (6, 6, 4, 2, 8, True), (3, 9, 2, 1, 8, True)]


@pytest.mark.parametrize("seq_q, seq_k, heads, kv_heads, dim, causal", CASES)
def test_float16_on_the_gpu_runs_cudnns_fused_kernels(standin_gpu, seq_q, seq_k, heads,
                                                       kv_heads, dim, causal):
    arrays = _inputs(seq_q, seq_k, heads, kv_heads, dim, np.float16)
    weights = np.random.default_rng(1).standard_normal((2, seq_q, heads, dim)).astype(
        np.float32)
    before = dict(cupy_standin.calls_by_name)
    got = _run(arrays, weights, is_causal=causal)
    made = {n: c - before.get(n, 0) for n, c in cupy_standin.calls_by_name.items()}
    assert made.get("cudnn sdpa") == 1 and made.get("cudnn sdpa_backward") == 1
    want = _reference(*arrays, weights, 1 / np.sqrt(dim), causal)
    for g, w in zip(got, want):
        assert g.dtype == np.float16
        # float16 inputs and outputs: within a few of its roundings of the values' scale
        np.testing.assert_allclose(g, w, rtol=4e-3, atol=4e-3 * np.abs(w).max())


def test_a_head_dim_cudnn_declines_runs_the_array_formula(standin_gpu):
    arrays = _inputs(4, 4, 2, 2, 12, np.float16)  # cuDNN's head dims are multiples of 8
    weights = np.ones((2, 4, 2, 12), np.float32)
    before = dict(cupy_standin.calls_by_name)
    got = _run(arrays, weights, is_causal=True)
    made = {n: c - before.get(n, 0) for n, c in cupy_standin.calls_by_name.items()}
    assert not any(name.startswith("cudnn sdpa") and n for name, n in made.items())
    assert any(key[0] == "sdpa" for key in cudnn.declined())
    for g, w in zip(got, _reference(*arrays, weights, 1 / np.sqrt(12), True)):
        np.testing.assert_allclose(g, w, rtol=4e-3, atol=4e-3 * np.abs(w).max())


@pytest.mark.parametrize("kwargs, dtype", [
    ({"attn_mask": np.ones((4, 4), bool)}, np.float16),
    ({"dropout_p": 0.5}, np.float16),
    ({}, np.float32)])
def test_masks_dropout_and_float32_keep_the_composition(standin_gpu, kwargs, dtype):
    q, k, v = (dygraph.to_tensor(a) for a in _inputs(4, 4, 2, 2, 8, dtype))
    if "attn_mask" in kwargs:
        kwargs = {"attn_mask": dygraph.to_tensor(kwargs["attn_mask"])}
    assert not fused_attention.takes(q, k, v, kwargs.get("attn_mask"),
                                     kwargs.get("dropout_p", 0.0), True)
    before = cupy_standin.calls_by_name["cudnn sdpa"]
    F.scaled_dot_product_attention(q, k, v, **kwargs)
    assert cupy_standin.calls_by_name["cudnn sdpa"] == before


def test_a_recorded_program_holds_the_composition(standin_gpu):
    q, k, v = (dygraph.to_tensor(a) for a in _inputs(4, 4, 2, 2, 8, np.float16))

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q, k, v)

    static = dygraph.jit.to_static(attend)
    eager = attend(q, k, v).numpy()
    before = cupy_standin.calls_by_name["cudnn sdpa"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not run eagerly
        got = static(q, k, v).numpy()
    assert cupy_standin.calls_by_name["cudnn sdpa"] == before
    np.testing.assert_allclose(got.astype(np.float32), eager.astype(np.float32), rtol=5e-3,
                               atol=5e-3)


@pytest.mark.parametrize("causal, kv_heads", [(False, 4), (True, 2)])
def test_the_op_equals_the_composition_with_create_graph(causal, kv_heads):
    """On the CPU in float64: output, gradients and the gradients' own gradients of the op
    (its array formula; its Tensor formula under create_graph) against the composition."""
    arrays = _inputs(5, 5 if causal else 7, 4, kv_heads, 8, np.float64)
    weights = dygraph.to_tensor(np.random.default_rng(2).standard_normal((2, 5, 4, 8)))
    results = []
    for run in ("op", "composition"):
        q, k, v = (dygraph.to_tensor(a, stop_gradient=False) for a in arrays)
        out = (fused_attention.fused_attention(q, k, v, 0.3, causal) if run == "op" else
               F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.3))
        loss = (out * weights).sum()
        plain = dygraph.grad([loss], [q, k, v], retain_graph=True)
        grads = dygraph.grad([loss], [q, k, v], create_graph=True)
        second = dygraph.grad([sum((g * g).sum() for g in grads)], [q, k, v])
        results.append([out, *plain, *grads, *second])
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


def test_a_broadcast_output_gradient_is_made_dense_for_cudnn(standin_gpu):
    """out.sum()'s gradient reaches the op broadcast (zero strides), which cuDNN's graph
    cannot describe: a C-ordered copy goes instead."""
    arrays = _inputs(4, 4, 2, 2, 8, np.float16)
    q, k, v = (dygraph.to_tensor(a, stop_gradient=False) for a in arrays)
    before = cupy_standin.calls_by_name["cudnn sdpa_backward"]
    F.scaled_dot_product_attention(q, k, v).sum().backward()
    assert cupy_standin.calls_by_name["cudnn sdpa_backward"] == before + 1
    want = _reference(*arrays, np.ones((2, 4, 2, 8)), 1 / np.sqrt(8), False)
    for g, w in zip((q.grad.numpy(), k.grad.numpy(), v.grad.numpy()), want[1:]):
        np.testing.assert_allclose(g, w, rtol=4e-3, atol=4e-3 * np.abs(w).max())


@pytest.mark.parametrize("training", [True, False])
def test_multi_head_attention_in_float16_takes_the_fused_op(standin_gpu, training):
    """A float16 MultiHeadAttention on a GPU: one cuDNN attention each way, no transposed
    copies, and the float32 layer's output and gradients on the CPU to float16's rounding."""
    dygraph.seed(0)
    mha = dygraph.nn.MultiHeadAttention(32, 4)
    mha.train() if training else mha.eval()
    state = {k: v.numpy() for k, v in mha.state_dict().items()}
    x = np.random.default_rng(3).standard_normal((2, 6, 32)).astype(np.float32)
    results = []
    for place in ("gpu:0", "cpu"):
        dygraph.set_device(place)
        layer = dygraph.nn.MultiHeadAttention(32, 4)
        layer.set_state_dict({k: dygraph.to_tensor(v) for k, v in state.items()})
        dtype = "float16" if place != "cpu" else "float32"
        layer.to(dtype=dtype)
        xt = dygraph.to_tensor(x.astype(dtype), stop_gradient=False)
        before = dict(cupy_standin.calls_by_name)
        out = layer(xt)
        (out.astype("float32") ** 2).sum().backward()
        made = {n: c - before.get(n, 0) for n, c in cupy_standin.calls_by_name.items()}
        if place != "cpu":
            assert made.get("cudnn sdpa") == 1 and made.get("cudnn sdpa_backward") == 1
            assert made.get("ascontiguousarray", 0) == 0  # no heads-first copies
        results.append([out.numpy(), xt.grad.numpy(), layer.q_proj.weight.grad.numpy()])
    for g, w in zip(*results):
        np.testing.assert_allclose(g.astype(np.float32), w, rtol=2e-2,
                                   atol=2e-2 * np.abs(w).max())


def test_multi_head_attention_under_float16_auto_cast_takes_the_fused_op(standin_gpu):
    """A float32 layer under auto_cast(dtype='float16'): its projections are float16, so
    the attention is the fused op, and the output is the float32 layer's on the CPU to
    float16's rounding."""
    dygraph.seed(1)
    mha = dygraph.nn.MultiHeadAttention(32, 4)
    mha.eval()
    x = dygraph.to_tensor(np.random.default_rng(5).standard_normal((2, 6, 32))
                          .astype(np.float32))
    before = cupy_standin.calls_by_name["cudnn sdpa"]
    with dygraph.amp.auto_cast(dtype="float16"):
        out = mha(x)
    assert cupy_standin.calls_by_name["cudnn sdpa"] == before + 1
    state = {k: v.numpy() for k, v in mha.state_dict().items()}
    dygraph.set_device("cpu")
    cpu = dygraph.nn.MultiHeadAttention(32, 4)
    cpu.set_state_dict({k: dygraph.to_tensor(v) for k, v in state.items()})
    want = cpu(dygraph.to_tensor(x.numpy())).numpy()
    np.testing.assert_allclose(out.numpy().astype(np.float32), want, rtol=2e-2,
                               atol=2e-2 * np.abs(want).max())
