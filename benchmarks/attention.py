"""float16 scaled dot-product attention on a GPU, forward + backward: DyGraph's fused op on
cuDNN (dygraph/ops/nn/fused_attention.py), DyGraph's composition of matmul, softmax and
matmul (cuDNN off), and PyTorch's F.scaled_dot_product_attention (its fastest backend for
the shape, flash or cuDNN), side by side.

Each step runs F.scaled_dot_product_attention on fixed [batch, seq, heads, dim] float16
query, key and value (PyTorch's [batch, heads, seq, dim] views of the same layout) and
backward from a fixed output gradient, then synchronizes:
  s1024_d64        -- batch 8, seq 1024, 16 heads of 64
  s1024_d64_causal -- the same, causal
  s4096_d128_gqa   -- batch 2, seq 4096, 32 query heads and 8 key/value heads of 128, causal
The composition needs the [batch, heads, seq, seq] scores in memory (s4096: 2 GB each in
float16); it is skipped where --no-composition says so. Outputs are checked to agree before
timing (max difference over the output's scale). Times are ms per step: the median over
repeats of the mean of `steps` steps, repeats taking turns, with a pause before each timed
block; the ratio columns are to PyTorch.

Run: python benchmarks/attention.py [--cases s1024_d64] [--steps 10] [--repeats 3]
     [--device gpu|cpu] [--no-composition] [--out FILE]
(--device cpu runs small versions of the cases, to check the script without a GPU.)
"""

import os
import sys

from timing import parser  # this script's folder is on sys.path

# name: (batch, seq, heads, kv heads, head dim, causal)
CASES = {
    "s1024_d64": (8, 1024, 16, 16, 64, False),
    "s1024_d64_causal": (8, 1024, 16, 16, 64, True),
    "s4096_d128_gqa": (2, 4096, 32, 8, 128, True),
}


def _parse():
    p = parser(__doc__, steps=10, repeats=3)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--device", default="gpu", choices=("gpu", "cpu"))
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--no-composition", action="store_true")
    p.add_argument("--out", default=None)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def _arrays(batch, seq, heads, kv_heads, dim, small):
    if small:
        batch, seq, heads, kv_heads, dim = 1, 32, 2, max(1, 2 * kv_heads // heads), 8
    rng = np.random.default_rng(0)
    shapes = [(batch, seq, heads, dim), (batch, seq, kv_heads, dim), (batch, seq, kv_heads, dim),
              (batch, seq, heads, dim)]
    return [rng.standard_normal(s).astype(np.float16) for s in shapes]


def dygraph_step(arrays, causal, gpu, cudnn_on):
    import dygraph
    import dygraph.nn.functional as F
    from dygraph.backend import cudnn

    place = "gpu" if gpu else "cpu"
    q, k, v = (dygraph.to_tensor(a, place=place, stop_gradient=False) for a in arrays[:3])
    g = dygraph.to_tensor(arrays[3], place=place)
    sync = dygraph.device.cuda.synchronize if gpu else (lambda: None)

    def step():
        with cudnn.use_cudnn(cudnn_on):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            out.backward(g)
        for t in (q, k, v):
            t.clear_grad()
        sync()
        return out

    return step, step().numpy()


def torch_step(arrays, causal, gpu):
    import torch
    import torch.nn.functional as F

    device = "cuda" if gpu else "cpu"
    q, k, v = (torch.from_numpy(a).to(device).transpose(1, 2).requires_grad_()
               for a in arrays[:3])
    g = torch.from_numpy(arrays[3]).to(device).transpose(1, 2)
    group = q.shape[1] // k.shape[1]
    sync = torch.cuda.synchronize if gpu else (lambda: None)

    def step():
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                             enable_gqa=group > 1)
        out.backward(g)
        for t in (q, k, v):
            t.grad = None
        sync()
        return out

    return step, step().detach().transpose(1, 2).float().cpu().numpy()


def main():
    gpu = ARGS.device == "gpu"
    lines = [f"float16 attention forward + backward, ms per step, median of {ARGS.repeats}x"
             f"{ARGS.steps} interleaved steps ({ARGS.device})",
             f"{'case':18s} {'fused':>9s} {'composed':>9s} {'torch':>9s} {'fused/th':>9s} "
             f"{'comp/th':>9s}  max |fused - torch| / scale"]
    print("\n".join(lines))
    for name in ARGS.cases.split(","):
        *shape, causal = CASES[name]
        arrays = _arrays(*shape, small=not gpu)
        fused, out = dygraph_step(arrays, causal, gpu, True)
        fns = {"fused": fused}
        if not ARGS.no_composition:
            fns["composed"] = dygraph_step(arrays, causal, gpu, False)[0]
        fns["torch"], want = torch_step(arrays, causal, gpu)
        err = float(np.abs(out.astype(np.float32) - want).max() / np.abs(want).max())
        ms = interleaved_median_ms(fns, ARGS.steps, ARGS.repeats, ARGS.warmup)
        composed = ms.get("composed", float("nan"))
        line = (f"{name:18s} {ms['fused']:9.3f} {composed:9.3f} {ms['torch']:9.3f} "
                f"{ms['fused'] / ms['torch']:9.2f} {composed / ms['torch']:9.2f}  {err:.1e}")
        print(line)
        lines.append(line)
    if ARGS.out:
        with open(ARGS.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
