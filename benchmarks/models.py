"""Training-step speed on real models: DyGraph side by side with PyTorch eager, in one run.

Five models by default, each a full training step (forward, loss, backward, Adam step,
clear grads):
  resnet18     -- vision.models.resnet18(num_classes=10), batch 16, 3x32x32
  mobilenetv2  -- vision.models.MobileNetV2(num_classes=10), batch 16, 3x32x32
  lstm         -- 2-layer LSTM (input 64, hidden 128) + linear head on the last step, B32 T32
  gru          -- 1-layer GRU (input 64, hidden 256) + linear head, B32 T48
  transformer  -- 2-layer TransformerEncoder (d_model 128, 4 heads, ff 512, no dropout)
                  + mean-pool + linear head, B16 T32
and, run only when --models names them, the transformer with GELU (exact, through erf)
instead of ReLU:
  transformer_gelu -- as transformer, activation "gelu"
and two compute-bound ones:
  resnet50_b64     -- vision.models.resnet50(num_classes=10), batch 64, 3x224x224
  transformer_big  -- 2-layer TransformerEncoder (d_model 1024, 16 heads, ff 4096, no
                      dropout) + mean-pool + linear head, B32 T512
Both frameworks start from the same weights (copied from DyGraph's state_dict into a PyTorch
mirror of the same architecture) and the same batch; the eval-mode losses of the two are
printed and must agree, which checks the mirror. Times are ms per step: the median over
repeats of the mean of `steps` steps, repeats taking turns between frameworks, with a pause
before each timed block (BLAS threads spin after their last call and slow whatever runs next
on a small machine). The last column is DyGraph / PyTorch, and the last row their geometric
mean; the last line repeats the geometric means per DyGraph mode.

--modes eager,to_static (any subset; default eager) times DyGraph's step in each mode: eager,
and the same step function (forward, cross_entropy, loss.backward(), opt.step(),
opt.clear_grad(), the model and optimizer closed over, the batch as its arguments) wrapped
whole in dygraph.jit.to_static. Each mode trains its own copy of the model (same initial
weights) with its own optimizer; the loss of the first training step of to_static must
equal eager's (both computed before timing), and a to_static step that traced no program
(it ran eagerly) is reported. Each mode's ratio to PyTorch eager gets a column.

--amp bfloat16|float16 runs the forward and loss under dygraph.amp.auto_cast(dtype=...,
level O1) inside the step function, and PyTorch's under torch.autocast(device, dtype); no
loss scaling on either side. The first-loss checks then allow a relative difference of
2e-2 (1e-4 without amp).

--batch N replaces every selected model's batch size (to check the compute-bound models'
mirrors on a CPU with a small batch). --out FILE also writes everything printed (stdout and
stderr) to FILE.

With --device gpu both run on the first CUDA GPU (DyGraph through CuPy) and every step ends
by waiting for the GPU.

Run: python benchmarks/models.py [--models resnet18,lstm] [--steps 5] [--repeats 5]
     [--threads 2] [--device cpu|gpu] [--torch-adam fused|foreach|for-loop]
     [--modes eager,to_static] [--amp none|bfloat16|float16] [--batch N] [--out FILE]
"""

import os
import sys

from timing import parser, set_threads  # this script's folder is on sys.path

MODES = ("eager", "to_static")
DEFAULT_MODELS = "resnet18,mobilenetv2,lstm,gru,transformer"
# Inputs per model: (batch, ...) of float32 features; labels are 10 classes.
SHAPES = {"resnet18": (16, 3, 32, 32), "mobilenetv2": (16, 3, 32, 32), "lstm": (32, 32, 64),
          "gru": (32, 48, 64), "transformer": (16, 32, 128), "transformer_gelu": (16, 32, 128),
          "resnet50_b64": (64, 3, 224, 224), "transformer_big": (32, 512, 1024)}


def _parse():
    p = parser(__doc__, steps=5, repeats=5)
    p.add_argument("--models", default=DEFAULT_MODELS,
                   help=f"comma-separated, of {', '.join(SHAPES)}")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--torch-adam", choices=("fused", "foreach", "for-loop"), default="fused",
                   help="PyTorch's Adam implementation (fused: its fastest documented one)")
    p.add_argument("--modes", default="eager",
                   help="DyGraph modes to time, comma-separated: eager, to_static")
    p.add_argument("--amp", choices=("none", "bfloat16", "float16"), default="none",
                   help="mixed precision (level O1) for the forward and loss of both")
    p.add_argument("--batch", type=int, default=None,
                   help="batch size of every model instead of its own")
    p.add_argument("--out", metavar="FILE", help="also write everything printed to FILE")
    args = p.parse_args()
    args.modes = tuple(m for m in args.modes.split(",") if m)
    if not args.modes or set(args.modes) - set(MODES) or len(set(args.modes)) < len(args.modes):
        p.error(f"--modes: a comma-separated subset of {', '.join(MODES)}, got {args.modes}")
    args.modes = tuple(m for m in MODES if m in args.modes)
    unknown = set(args.models.split(",")) - set(SHAPES)
    if unknown:
        p.error(f"--models: unknown {sorted(unknown)}; known: {', '.join(SHAPES)}")
    if args.batch is not None and args.batch < 1:
        p.error("--batch must be positive")
    return args


class _Tee:
    """A text stream that also writes to `copy` (--out)."""

    def __init__(self, stream, copy):
        self._stream, self._copy = stream, copy

    def write(self, text):
        self._copy.write(text)
        return self._stream.write(text)

    def flush(self):
        self._copy.flush()
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    if ARGS.out:
        _OUT = open(ARGS.out, "w", buffering=1)  # noqa: SIM115 - open until the process ends
        sys.stdout, sys.stderr = _Tee(sys.stdout, _OUT), _Tee(sys.stderr, _OUT)
    set_threads(ARGS.threads)

import math  # noqa: E402 - after the thread settings above

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mirrors  # noqa: E402
from timing import interleaved_median_ms  # noqa: E402


def make_batch(name, seed=0, batch=None):
    """(inputs, int64 labels) as NumPy arrays for model `name` (`batch` rows if given)."""
    rng = np.random.default_rng(seed)
    shape = SHAPES[name]
    if batch is not None:
        shape = (batch, *shape[1:])
    x = rng.standard_normal(shape).astype(np.float32)
    return x, rng.integers(0, 10, x.shape[0]).astype(np.int64)


def build_dygraph(name):
    """The DyGraph model for `name`."""
    import dygraph
    from dygraph import nn
    from dygraph.vision import models

    dygraph.seed(0)
    if name == "resnet18":
        return models.resnet18(num_classes=10)
    if name == "resnet50_b64":
        return models.resnet50(num_classes=10)
    if name == "mobilenetv2":
        return models.MobileNetV2(num_classes=10)
    transformer = torch_mirrors.TRANSFORMERS.get(name)

    class SequenceClassifier(nn.Layer):
        def __init__(self):
            super().__init__()
            width = 256 if name == "gru" else 128
            if name == "lstm":
                self.body = nn.LSTM(64, 128, num_layers=2)
            elif name == "gru":
                self.body = nn.GRU(64, 256)
            else:
                width, heads, ff, layers, activation = transformer
                layer = nn.TransformerEncoderLayer(width, heads, ff, dropout=0.0,
                                                   activation=activation)
                self.body = nn.TransformerEncoder(layer, layers)
            self.head = nn.Linear(width, 10)

        def forward(self, x):
            if transformer is not None:
                return self.head(self.body(x).mean(axis=1))
            out, _ = self.body(x)
            return self.head(out[:, -1])

    return SequenceClassifier()


def copy_dygraph(name, model):
    """A second DyGraph model for `name` with `model`'s weights and buffers (copied)."""
    other = build_dygraph(name)
    other.set_state_dict({k: np.array(v.numpy()) for k, v in model.state_dict().items()})
    return other


def dygraph_step(model, x, y, device="cpu", mode="eager", amp="none"):
    """(step, the eval-mode loss before training, train): step() is one timed training
    step, train() one training step that returns its loss; in mode 'to_static' the step
    function is converted by dygraph.jit.to_static, and train.static is that
    StaticFunction."""
    import dygraph

    sync = dygraph.device.cuda.synchronize if device == "gpu" else _nothing
    opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)
    loss_fn = dygraph.nn.functional.cross_entropy

    if amp == "none":
        def forward(xt, yt):
            return loss_fn(model(xt), yt)
    else:
        def forward(xt, yt):
            with dygraph.amp.auto_cast(dtype=amp, level="O1"):
                loss = loss_fn(model(xt), yt)
            return loss

    def train_step(xt, yt):
        loss = forward(xt, yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if mode == "to_static":
        # The whole step, auto_cast inside it: a to_static function called under auto_cast
        # runs eagerly.
        train_step = dygraph.jit.to_static(train_step)

    def step():
        train_step(xt, yt)
        sync()

    def train():
        return train_step(xt, yt)

    train.static = train_step if mode == "to_static" else None
    model.eval()
    with dygraph.no_grad():
        first = float(forward(xt, yt))
    model.train()
    return step, first, train


def torch_step(model, x, y, device="cpu", amp="none"):
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

    if amp == "none":
        def forward():
            return loss_fn(model(xt), yt)
    else:
        def forward():
            with torch.autocast(target, dtype=getattr(torch, amp)):
                return loss_fn(model(xt), yt)

    def step():
        loss = forward()
        loss.backward()
        opt.step()
        opt.zero_grad()
        sync()

    model.eval()
    with torch.no_grad():
        first = float(forward())
    model.train()
    return step, first


def _nothing():
    pass


def first_step_losses(name, trains, rel_tol):
    """{mode: loss of its first training step} for each DyGraph mode in `trains` (run
    before timing); exits unless to_static's equals eager's. Each starts from the same
    seed, so that dropout (MobileNetV2's) draws the same masks."""
    import dygraph

    losses = {}
    for mode, train in trains.items():
        dygraph.seed(0)
        losses[mode] = float(train())
    if "to_static" in losses:
        if len(trains["to_static"].static.program_cache) == 0:
            print(f"note: {name}: to_static traced no program, its step ran eagerly (see any "
                  "warning above)", flush=True)
        if not math.isclose(losses["to_static"], losses["eager"], rel_tol=rel_tol):
            raise SystemExit(
                f"{name}: the first training step's loss differs between to_static "
                f"({losses['to_static']}) and eager ({losses['eager']}), beyond rel "
                f"{rel_tol:g}: the to_static step does not compute the eager one")
    return losses


def _columns(modes):
    """(time labels, ratio labels) of the DyGraph modes; the single eager mode keeps the
    table's historical labels."""
    if modes == ("eager",):
        return ["dygraph"], ["dy/torch"]
    names = {"eager": ("dy eager", "eager/th"), "to_static": ("dy static", "static/th")}
    return [names[m][0] for m in modes], [names[m][1] for m in modes]


def main():
    import torch

    import dygraph

    torch.set_num_threads(ARGS.threads)
    names = ARGS.models.split(",")
    modes = ARGS.modes
    gpu = ARGS.device == "gpu"
    rel_tol = 1e-4 if ARGS.amp == "none" else 2e-2
    where = f"{ARGS.threads} threads" if not gpu else torch.cuda.get_device_name()
    print(f"ms per training step (Adam; PyTorch's {ARGS.torch_adam}), median of "
          f"{ARGS.repeats}x{ARGS.steps} interleaved steps, {where}")
    if ARGS.amp != "none" or ARGS.batch is not None:
        amp = "none" if ARGS.amp == "none" else f"{ARGS.amp} (O1)"
        print(f"mixed precision: {amp}, first-loss checks to rel {rel_tol:g}; batch: "
              f"{ARGS.batch or 'each model its own'}")
    time_cols, ratio_cols = _columns(modes)
    losses_title = "first losses" if "to_static" not in modes else (
        "first losses: eval dy / torch; train step 1 eager / to_static")
    width = max(12, *map(len, names))  # the model column
    print(f"{'model':{width}s} " + " ".join(f"{c:>9s}" for c in time_cols)
          + f" {'torch':>9s} " + " ".join(f"{c:>9s}" for c in ratio_cols)
          + f"   {losses_title}")
    ratios = {mode: [] for mode in modes}
    # to_static's first step is checked against eager's, on a copy of its own if eager is
    # not timed.
    built = ("eager", "to_static") if "to_static" in modes else modes
    for name in names:
        x, y = make_batch(name, batch=ARGS.batch)
        first_model = build_dygraph(name)
        dy_models = {built[0]: first_model}
        for mode in built[1:]:
            dy_models[mode] = copy_dygraph(name, first_model)
        th_model = torch_mirrors.mirror(name, first_model)
        if gpu:
            # Full float32 products on both sides: PyTorch's convolutions would otherwise
            # round their inputs to TF32, which CuPy's products do not.
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False
            dygraph.set_device("gpu")
            for model in dy_models.values():
                model.to("gpu")
        dy_fns, trains, dy_loss = {}, {}, None
        for mode in built:
            dy_fns[mode], loss, trains[mode] = dygraph_step(dy_models[mode], x, y,
                                                            ARGS.device, mode, ARGS.amp)
            dy_loss = loss if dy_loss is None else dy_loss
        th_fn, th_loss = torch_step(th_model, x, y, ARGS.device, ARGS.amp)
        if not math.isclose(dy_loss, th_loss, rel_tol=rel_tol):
            raise SystemExit(f"{name}: first losses differ ({dy_loss} vs {th_loss}, beyond "
                             f"rel {rel_tol:g}); the PyTorch mirror does not match the model")
        losses = f"{dy_loss:.5f} / {th_loss:.5f}"
        if "to_static" in modes:
            step_losses = first_step_losses(name, trains, rel_tol)
            losses += f"; {step_losses['eager']:.5f} / {step_losses['to_static']:.5f}"
        fns = {f"dygraph {mode}": dy_fns[mode] for mode in modes}
        ms = interleaved_median_ms({**fns, "torch": th_fn}, ARGS.steps, ARGS.repeats,
                                   ARGS.warmup)
        for mode in modes:
            ratios[mode].append(ms[f"dygraph {mode}"] / ms["torch"])
        row = ([f"{ms[f'dygraph {mode}']:9.2f}" for mode in modes] + [f"{ms['torch']:9.2f}"]
               + [f"{ratios[mode][-1]:9.2f}" for mode in modes])
        print(f"{name:{width}s} " + " ".join(row) + f"   {losses}", flush=True)
        del dy_fns, trains, dy_models, th_fn, th_model, first_model
    geo = {mode: math.exp(sum(math.log(r) for r in rs) / len(rs)) for mode, rs in ratios.items()}
    print(f"{'geo. mean':{width}s} " + " ".join(f"{'':9s}" for _ in range(len(modes) + 1)) + " "
          + " ".join(f"{geo[mode]:9.2f}" for mode in modes))
    summary = ", ".join(f"{mode} {geo[mode]:.2f}" if mode in geo else f"{mode} n/a"
                        for mode in MODES)
    versus = "GPU geomean vs PyTorch CUDA eager" if gpu else "CPU geomean vs PyTorch eager"
    print(f"{versus}: {summary}", flush=True)


if __name__ == "__main__":
    main()
