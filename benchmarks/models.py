"""Training-step speed on real models: DyGraph side by side with PyTorch eager, in one run.

Five models, each a full training step (forward, loss, backward, Adam step, clear grads):
  resnet18     -- vision.models.resnet18(num_classes=10), batch 16, 3x32x32
  mobilenetv2  -- vision.models.MobileNetV2(num_classes=10), batch 16, 3x32x32
  lstm         -- 2-layer LSTM (input 64, hidden 128) + linear head on the last step, B32 T32
  gru          -- 1-layer GRU (input 64, hidden 256) + linear head, B32 T48
  transformer  -- 2-layer TransformerEncoder (d_model 128, 4 heads, ff 512, no dropout)
                  + mean-pool + linear head, B16 T32
Both frameworks start from the same weights (copied from DyGraph's state_dict into a PyTorch
mirror of the same architecture) and the same batch; the eval-mode losses of the two are
printed and must agree, which checks the mirror. Times are ms per step: the median over
repeats of the mean of `steps` steps, repeats taking turns between frameworks, with a pause
before each timed block (BLAS threads spin after their last call and slow whatever runs next
on a small machine). The last column is DyGraph / PyTorch, and the last row their geometric
mean.

With --device gpu both run on the first CUDA GPU (DyGraph through CuPy) and every step ends
by waiting for the GPU.

Run: python benchmarks/models.py [--models resnet18,lstm] [--steps 5] [--repeats 5]
     [--threads 2] [--device cpu|gpu] [--torch-adam fused|foreach|for-loop]
"""

import os
import sys

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=5, repeats=5)
    p.add_argument("--models", default="resnet18,mobilenetv2,lstm,gru,transformer")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--torch-adam", choices=("fused", "foreach", "for-loop"), default="fused",
                   help="PyTorch's Adam implementation (fused: its fastest documented one)")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import math  # noqa: E402 - after the thread settings above

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mirrors  # noqa: E402
from timing import interleaved_median_ms  # noqa: E402


def make_batch(name, seed=0):
    """(inputs, int64 labels) as NumPy arrays for model `name`."""
    rng = np.random.default_rng(seed)
    if name in ("resnet18", "mobilenetv2"):
        x = rng.standard_normal((16, 3, 32, 32)).astype(np.float32)
    elif name == "lstm":
        x = rng.standard_normal((32, 32, 64)).astype(np.float32)
    elif name == "gru":
        x = rng.standard_normal((32, 48, 64)).astype(np.float32)
    else:
        x = rng.standard_normal((16, 32, 128)).astype(np.float32)
    return x, rng.integers(0, 10, x.shape[0]).astype(np.int64)


def build_dygraph(name):
    """The DyGraph model for `name`."""
    import dygraph
    from dygraph import nn
    from dygraph.vision import models

    dygraph.seed(0)
    if name == "resnet18":
        return models.resnet18(num_classes=10)
    if name == "mobilenetv2":
        return models.MobileNetV2(num_classes=10)

    class SequenceClassifier(nn.Layer):
        def __init__(self):
            super().__init__()
            if name == "lstm":
                self.body = nn.LSTM(64, 128, num_layers=2)
            elif name == "gru":
                self.body = nn.GRU(64, 256)
            else:
                layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)
                self.body = nn.TransformerEncoder(layer, 2)
            self.head = nn.Linear(256 if name == "gru" else 128, 10)

        def forward(self, x):
            if name == "transformer":
                return self.head(self.body(x).mean(axis=1))
            out, _ = self.body(x)
            return self.head(out[:, -1])

    return SequenceClassifier()


def dygraph_step(model, x, y, device="cpu"):
    import dygraph

    sync = dygraph.device.cuda.synchronize if device == "gpu" else _nothing
    opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)
    loss_fn = dygraph.nn.functional.cross_entropy

    def step():
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        sync()

    model.eval()
    with dygraph.no_grad():
        first = float(loss_fn(model(xt), yt))
    model.train()
    return step, first


def torch_step(model, x, y, device="cpu"):
    import torch

    target = "cuda" if device == "gpu" else "cpu"
    sync = torch.cuda.synchronize if device == "gpu" else _nothing
    model.to(target)
    # PyTorch's fastest documented Adam: the fused kernel (one pass over all parameters,
    # as DyGraph's compiled update), not the default for-loop.
    style = {"fused": {"fused": True}, "foreach": {"foreach": True},
             "for-loop": {"foreach": False}}[ARGS.torch_adam]
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, **style)
    xt, yt = torch.from_numpy(x).to(target), torch.from_numpy(y).to(target)
    loss_fn = torch.nn.functional.cross_entropy

    def step():
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        opt.zero_grad()
        sync()

    model.eval()
    with torch.no_grad():
        first = float(loss_fn(model(xt), yt))
    model.train()
    return step, first


def _nothing():
    pass


def main():
    import torch

    import dygraph

    torch.set_num_threads(ARGS.threads)
    names = ARGS.models.split(",")
    where = f"{ARGS.threads} threads" if ARGS.device == "cpu" else torch.cuda.get_device_name()
    print(f"ms per training step (Adam; PyTorch's {ARGS.torch_adam}), median of "
          f"{ARGS.repeats}x{ARGS.steps} interleaved steps, {where}")
    print(f"{'model':12s} {'dygraph':>9s} {'torch':>9s} {'dy/torch':>9s}   first losses")
    ratios = []
    for name in names:
        x, y = make_batch(name)
        dy_model = build_dygraph(name)
        th_model = torch_mirrors.mirror(name, dy_model)
        if ARGS.device == "gpu":
            # Full float32 products on both sides: PyTorch's convolutions would otherwise
            # round their inputs to TF32, which CuPy's products do not.
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False
            dygraph.set_device("gpu")
            dy_model.to("gpu")
        dy_fn, dy_loss = dygraph_step(dy_model, x, y, ARGS.device)
        th_fn, th_loss = torch_step(th_model, x, y, ARGS.device)
        if not math.isclose(dy_loss, th_loss, rel_tol=1e-4):
            raise SystemExit(f"{name}: first losses differ ({dy_loss} vs {th_loss}); the "
                             "PyTorch mirror does not match the model")
        ms = interleaved_median_ms({"dygraph": dy_fn, "torch": th_fn}, ARGS.steps,
                                   ARGS.repeats, ARGS.warmup)
        ratio = ms["dygraph"] / ms["torch"]
        ratios.append(ratio)
        print(f"{name:12s} {ms['dygraph']:9.2f} {ms['torch']:9.2f} {ratio:9.2f}   "
              f"{dy_loss:.5f} / {th_loss:.5f}", flush=True)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"{'geo. mean':12s} {'':9s} {'':9s} {geo:9.2f}")


if __name__ == "__main__":
    main()
