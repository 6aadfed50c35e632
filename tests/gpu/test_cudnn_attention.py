"""cuDNN's fused attention (dygraph/backend/cudnn/attention.py, through
dygraph/ops/nn/fused_attention.py) on the GPU: float16 scaled_dot_product_attention, forward
and backward, plain, causal and grouped-query, against a float64 reference; cuDNN must run
the graphs, not decline them (the failure message says why it did).

The bounds are of the values' scale: the output's 4e-3 is a few float16 roundings of the
probabilities, which FlashAttention rounds to float16 before their product with V; the
gradients' 1e-2 adds the backward's own products over up to 256 keys. Neither has been
measured on a GPU yet (no GPU was lent while this was written): a failure here first says
which bound to measure."""

import numpy as np
import pytest

import dygraph
from tests.gpu import requires_gpu
from tests.gpu.test_cudnn import _served, frontend  # noqa: F401 (a fixture)
from tests.standin.test_fused_attention_on_standin import CASES, _inputs, _reference, _run

pytestmark = requires_gpu


@pytest.mark.parametrize("seq_q, seq_k, heads, kv_heads, dim, causal",
                         CASES + [(128, 128, 8, 8, 64, True), (64, 256, 8, 2, 128, False)])
def test_float16_attention_runs_on_cudnn(frontend, seq_q, seq_k, heads, kv_heads,  # noqa: F811
                                         dim, causal):
    arrays = _inputs(seq_q, seq_k, heads, kv_heads, dim, np.float16)
    weights = np.random.default_rng(1).standard_normal((2, seq_q, heads, dim)).astype(
        np.float32)
    got, done = _served(lambda: _run(arrays, weights, is_causal=causal), "sdpa",
                        "sdpa_backward")
    assert done == {"sdpa": ["ran"], "sdpa_backward": ["ran"]}, done
    want = _reference(*arrays, weights, 1 / np.sqrt(dim), causal)
    for name, g, w in zip(("out", "dq", "dk", "dv"), got, want):
        assert g.dtype == np.float16
        scale = np.abs(w).max()
        err = np.abs(g.astype(np.float64) - w).max() / scale
        bound = 4e-3 if name == "out" else 1e-2
        assert err < bound, f"{name}: max error {err:.2e} of the values' scale {scale:.3g}"
    dygraph.device.cuda.synchronize()
