"""Inference latency: DyGraph eager, the inference predictor on DyGraph's Executor, the
predictor on onnxruntime, and PyTorch eager, in one run.

  lenet     -- vision.models.LeNet, 1x28x28
  resnet18  -- vision.models.resnet18(num_classes=10), 3x32x32

at batch 1 and batch 64, in eval mode without gradients. The model is saved once with
static.save_inference_model (free batch) and loaded by `inference.create_predictor`; the
PyTorch mirror carries the same weights (benchmarks/torch_mirrors.py), and all four outputs
are checked against eager before timing. Times are ms per call (handles set, run, output
copied): the median over repeats of the mean of `steps` calls, repeats taking turns with a
pause before each timed block. Ratios are against PyTorch eager.

Run: python benchmarks/inference.py [--models lenet,resnet18] [--batches 1,64]
     [--steps 20] [--repeats 5] [--threads 2]
"""

import os
import sys

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=20, repeats=5, unit="calls")
    p.add_argument("--models", default="lenet,resnet18")
    p.add_argument("--batches", default="1,64")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import tempfile  # noqa: E402 - after the thread settings above

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mirrors  # noqa: E402
from timing import interleaved_median_ms  # noqa: E402

_SHAPES = {"lenet": (1, 28, 28), "resnet18": (3, 32, 32)}


def build(name):
    import dygraph
    from dygraph.vision import models

    dygraph.seed(0)
    model = models.LeNet() if name == "lenet" else models.resnet18(num_classes=10)
    model.eval()
    return model


def save(model, name, directory):
    """save_inference_model of `model` with a free batch; returns the path prefix."""
    import dygraph
    from dygraph import static

    main, startup = static.Program(), static.Program()
    dygraph.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, *_SHAPES[name]])
            y = model(x)
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    prefix = os.path.join(directory, name)
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    return prefix


def contenders(name, model, prefix, x, threads):
    """{label: (call, output of one call)} for the four ways to run `model` on `x`."""
    import torch

    import dygraph
    from dygraph.inference import Config, create_predictor

    def eager():
        with dygraph.no_grad():
            return model(dygraph.to_tensor(x)).numpy()

    def predictor(onnxruntime):
        config = Config(prefix)
        config.disable_gpu()
        config.switch_ir_optim(True)
        config.set_cpu_math_library_num_threads(threads)
        if onnxruntime:
            config.enable_onnxruntime()
        p = create_predictor(config)
        handle = p.get_input_handle(p.get_input_names()[0])
        out = p.get_output_handle(p.get_output_names()[0])

        def call():
            handle.copy_from_cpu(x)
            p.run()
            return out.copy_to_cpu()

        return call

    torch.set_num_threads(threads)
    mirror = torch_mirrors.mirror(name, model).eval()
    xt = torch.from_numpy(x)

    def torch_eager():
        with torch.no_grad():
            return mirror(xt).numpy()

    fns = {"eager": eager, "executor": predictor(False), "onnxruntime": predictor(True),
           "torch": torch_eager}
    return {k: (fn, fn()) for k, fn in fns.items()}


def main():
    batches = [int(b) for b in ARGS.batches.split(",")]
    print(f"ms per inference call, median of {ARGS.repeats} x {ARGS.steps} calls, "
          f"{ARGS.threads} threads")
    head = ["eager", "executor", "onnxruntime", "torch"]
    print(f"{'model':9s} {'batch':>5s} " + " ".join(f"{h:>11s}" for h in head) + "   "
          + " ".join(f"{h + '/torch':>17s}" for h in head[:3]))
    directory = tempfile.mkdtemp()
    for name in ARGS.models.split(","):
        model = build(name)
        prefix = save(model, name, directory)
        for batch in batches:
            x = np.random.default_rng(batch).standard_normal(
                (batch, *_SHAPES[name])).astype(np.float32)
            runs = contenders(name, model, prefix, x, ARGS.threads)
            reference = runs["eager"][1]
            for label, (_, out) in runs.items():
                err = float(np.abs(out - reference).max())
                if err > 1e-3 * max(1.0, float(np.abs(reference).max())):
                    raise AssertionError(f"{name} batch {batch}: {label} differs from eager "
                                         f"by {err}")
            steps = ARGS.steps if batch == 1 else max(ARGS.steps // 4, 3)
            ms = interleaved_median_ms({k: fn for k, (fn, _) in runs.items()}, steps,
                                       ARGS.repeats)
            print(f"{name:9s} {batch:5d} " + " ".join(f"{ms[h]:11.3f}" for h in head)
                  + "   " + " ".join(f"{ms[h] / ms['torch']:17.2f}" for h in head[:3]),
                  flush=True)


if __name__ == "__main__":
    main()
