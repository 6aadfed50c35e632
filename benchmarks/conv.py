"""Single 2-D convolutions, forward + backward: DyGraph side by side with PyTorch eager.

Each step runs one convolution layer (with bias) forward on a fixed batch, then backward from
a fixed random output gradient (`out.backward(grad)`), which computes the input (data)
gradient, the filter gradient and the bias gradient; the gradients are cleared each step.
Batch 16, float32, NCHW, shapes that MobileNetV2 and ResNet-18 see at 32x32 input:
  depthwise3x3     -- 3x3 depthwise (groups 96), 96 channels, stride 1, pad 1, 16x16 map
  depthwise3x3_s2  -- the same with stride 2
  conv3x3_s2       -- 3x3, 64 -> 128 channels, stride 2, pad 1, 16x16 map
  conv3x3          -- 3x3, 64 -> 64 channels, stride 1, pad 1, 16x16 map
  conv1x1_512      -- 1x1, 512 -> 512 channels on a 1x1 map (ResNet's last stage)
ResNet-18's first stage at ImageNet's 224x224 input, batch 8:
  conv3x3_56       -- 3x3, 64 -> 64 channels, stride 1, pad 1, 56x56 map
  conv3x3_s2_56    -- 3x3, 64 -> 128 channels, stride 2, pad 1, 56x56 map
PyTorch's torch.nn.Conv2d gets the DyGraph layer's weight and bias (both lay the filter out
as [out, in/groups, kh, kw]); outputs and gradients are checked to agree before timing.
Times are ms per fwd+bwd: the median over repeats of the mean of `steps` steps, repeats
taking turns between frameworks, with a pause before each timed block. The last column is
DyGraph / PyTorch, and the last row their geometric mean.

Run: python benchmarks/conv.py [--cases conv3x3,conv1x1_512] [--steps 20] [--repeats 5]
     [--threads 2]
"""

import os
import sys

from timing import parser, set_threads  # this script's folder is on sys.path

# name: (in_channels, out_channels, kernel, stride, padding, groups, input [N, C, H, W])
CASES = {
    "depthwise3x3": (96, 96, 3, 1, 1, 96, (16, 96, 16, 16)),
    "depthwise3x3_s2": (96, 96, 3, 2, 1, 96, (16, 96, 16, 16)),
    "conv3x3_s2": (64, 128, 3, 2, 1, 1, (16, 64, 16, 16)),
    "conv3x3": (64, 64, 3, 1, 1, 1, (16, 64, 16, 16)),
    "conv1x1_512": (512, 512, 1, 1, 0, 1, (16, 512, 1, 1)),
    "conv3x3_56": (64, 64, 3, 1, 1, 1, (8, 64, 56, 56)),
    "conv3x3_s2_56": (64, 128, 3, 2, 1, 1, (8, 64, 56, 56)),
}


def _parse():
    p = parser(__doc__, steps=20, repeats=5)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--warmup", type=int, default=3)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import math  # noqa: E402 - after the thread settings above

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def build(name, seed=0):
    """(dygraph step, torch step, check) for case `name`: the steps run fwd+bwd once, the
    check compares outputs and gradients of the two."""
    import torch

    import dygraph

    cin, cout, k, stride, pad, groups, shape = CASES[name]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    dygraph.seed(seed)
    dy_layer = dygraph.nn.Conv2D(cin, cout, k, stride=stride, padding=pad, groups=groups)
    dy_layer.bias.set_value(rng.standard_normal(cout).astype(np.float32))
    dy_x = dygraph.to_tensor(x, stop_gradient=False)
    out_shape = dy_layer(dy_x).shape
    g = rng.standard_normal(out_shape).astype(np.float32)
    dy_g = dygraph.to_tensor(g)

    th_layer = torch.nn.Conv2d(cin, cout, k, stride=stride, padding=pad, groups=groups)
    with torch.no_grad():
        th_layer.weight.copy_(torch.from_numpy(dy_layer.weight.numpy()))
        th_layer.bias.copy_(torch.from_numpy(dy_layer.bias.numpy()))
    th_x = torch.from_numpy(x).requires_grad_(True)
    th_g = torch.from_numpy(g)

    def dy_step():
        dy_layer.clear_gradients(set_to_zero=False)
        dy_x.clear_grad(set_to_zero=False)  # as torch: .grad = None
        out = dy_layer(dy_x)
        out.backward(dy_g)
        return out

    def th_step():
        th_layer.zero_grad()  # set_to_none, its default
        th_x.grad = None
        out = th_layer(th_x)
        out.backward(th_g)
        return out

    def check():
        dy_out, th_out = dy_step(), th_step()
        pairs = [(dy_out, th_out), (dy_x.grad, th_x.grad),
                 (dy_layer.weight.grad, th_layer.weight.grad),
                 (dy_layer.bias.grad, th_layer.bias.grad)]
        for i, (a, b) in enumerate(pairs):
            a, b = a.numpy(), b.detach().numpy()
            # filter and bias grads sum over batch and map (4096 terms): float32 rounding
            # differs by ~1e-6 of their largest entry (~100), so scale atol for them
            atol = 1e-4 * (1.0 if i < 2 else max(1.0, float(np.abs(b).max())))
            what = ("output", "x grad", "weight grad", "bias grad")[i]
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=atol,
                                       err_msg=f"{name}: {what} differs from PyTorch")

    return dy_step, th_step, check


def main():
    import torch

    torch.set_num_threads(ARGS.threads)
    print(f"ms per conv fwd+bwd (data, filter, bias grads), median of {ARGS.repeats}x"
          f"{ARGS.steps} interleaved steps, {ARGS.threads} threads")
    print(f"{'case':16s} {'dygraph':>9s} {'torch':>9s} {'dy/torch':>9s}")
    ratios = []
    for name in ARGS.cases.split(","):
        dy_fn, th_fn, check = build(name)
        check()
        ms = interleaved_median_ms({"dygraph": dy_fn, "torch": th_fn}, ARGS.steps,
                                   ARGS.repeats, ARGS.warmup)
        ratio = ms["dygraph"] / ms["torch"]
        ratios.append(ratio)
        print(f"{name:16s} {ms['dygraph']:9.3f} {ms['torch']:9.3f} {ratio:9.2f}", flush=True)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"{'geo. mean':16s} {'':9s} {'':9s} {geo:9.2f}")


if __name__ == "__main__":
    main()
