"""Record the PyTorch reference numbers of the models in tests/models/reference.py.

For each model: the DyGraph model is built and filled with `reference_weights` (a fixed
NumPy rule); a PyTorch mirror of the architecture (tools/torch_mirrors_vision.py and
torch_mirrors_zoo.py), written from Paddle's reference
implementations (benchmarks/torch_mirrors.py's for the benchmark's sequence models), takes
the same weights; PyTorch then computes in float64 the eval-mode logits and one training
step's loss and gradients on a fixed batch. tests/data/model_refs/<name>.npz keeps

    input, labels         the batch (float32 images or sequences, int64 labels)
    logits_<i>            the eval-mode outputs (GoogLeNet has three)
    loss                  the training step's loss
    grad_names            the trainable parameters (DyGraph's structured names)
    grad_sketch           [parameter, 4]: gradient_sketch of each parameter's gradient
    torch_float32_errors  PyTorch's own float32 errors (outputs, loss, gradients) on the
                          same problem, which the test's float32 tolerances scale with
    weights_sha256        digest of the weights the rule gave (checked by the test)
    step_mode, torch_version

and the script prints, per model, DyGraph's eager float64 errors against the recording
(the numbers behind the test's float64 tolerances) and PyTorch's float32 ones.

PyTorch's mirrors are independent of DyGraph's model code: they share only the parameter
names and shapes (the weights are copied by name: a Linear weight is [in, out] in DyGraph
and Paddle, [out, in] in PyTorch; batch norm's _mean/_variance are running_mean/_var), and
they follow Paddle's semantics where PyTorch's differ: Paddle's Hardsigmoid is
clip(x * 0.1666667 + 0.5, 0, 1) (not x / 6 + 1 / 2), and downscale_in_infer dropout
multiplies by 1 - p at inference (PyTorch's dropout is the identity there). Where
benchmarks/torch_mirrors.py mirrors the same model (ResNet-18, MobileNetV2, LeNet), the two
mirrors must agree to 1e-12; the test's copy of the benchmark's sequence models must build
benchmarks/models.py's state dict and outputs.

Run (PyTorch and DyGraph in one environment, e.g. /tmp/torch-venv with
`pip install torch==2.13.0 numpy` and `pip install -e . --no-deps`):

    python tools/record_model_refs.py [--models resnet18,lstm] [--check-only]

--check-only compares without writing (to see the errors of a changed DyGraph).
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the mirrors beside it

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402
from torch import nn  # noqa: E402
from torch_mirrors_vision import DownscaleDropout  # noqa: E402
from torch_mirrors_zoo import BENCHMARK_MIRRORS, CROSS_CHECKS, MIRRORS  # noqa: E402

import dygraph  # noqa: E402
from tests.models import reference as R  # noqa: E402


def _linear_weights(model):
    return {f"{path}.weight" for path, m in model.named_modules() if isinstance(m, nn.Linear)}


def _torch_key(dy_key):
    return dy_key.replace("._mean", ".running_mean").replace("._variance", ".running_var")


def load_own_mirror(model, weights):
    """Copy DyGraph-named weights into one of this file's mirrors (same names)."""
    linear = _linear_weights(model)
    target = model.state_dict()
    used = set()
    with torch.no_grad():
        for dy_key, value in weights.items():
            key = _torch_key(dy_key)
            if key not in target:
                raise KeyError(f"mirror has no {key} (DyGraph {dy_key})")
            value = value.T if key in linear else value
            if tuple(target[key].shape) != value.shape:
                raise ValueError(f"{key}: mirror {tuple(target[key].shape)}, DyGraph "
                                 f"{value.shape}")
            target[key].copy_(torch.from_numpy(np.ascontiguousarray(value)))
            used.add(key)
    left = {k for k in target if k not in used and not k.endswith("num_batches_tracked")}
    if left:
        raise KeyError(f"mirror entries without DyGraph weights: {sorted(left)}")


def own_grads(model):
    """{DyGraph name: gradient in DyGraph's layout} of one of this file's mirrors."""
    linear = _linear_weights(model)
    return {name: (p.grad.T if name in linear else p.grad).numpy()
            for name, p in model.named_parameters()}


def benchmark_grads(kind, model):
    """{DyGraph name: gradient} of a torch_mirrors sequence model (the inverse of
    torch_mirrors._renamed: LSTM/GRU weights per layer, packed attention projections)."""
    linear = _linear_weights(model)
    out = {}
    for name, p in model.named_parameters():
        g = p.grad.numpy()
        if name in linear:
            g = g.T
        if kind in ("lstm", "gru") and name.startswith("body."):
            param, _, layer = name[len("body."):].rpartition("_l")
            out[f"body.{layer}.cell.{param}"] = g
        elif name.endswith("self_attn.in_proj_weight"):
            pre = name[:-len("in_proj_weight")]
            for part, block in zip("qkv", np.split(g, 3)):
                out[f"{pre}{part}_proj.weight"] = block.T
        elif name.endswith("self_attn.in_proj_bias"):
            pre = name[:-len("in_proj_bias")]
            for part, block in zip("qkv", np.split(g, 3)):
                out[f"{pre}{part}_proj.bias"] = block
        else:
            out[name] = g
    return out


def torch_loss(logits, labels):
    return TF.cross_entropy(logits, labels)


def torch_reference(spec, dy_model, weights, x, labels, dtype=torch.float64):
    """(eval outputs, step loss, {DyGraph name: gradient}) from PyTorch in `dtype`."""
    import torch_mirrors

    if spec.name in BENCHMARK_MIRRORS:
        model = torch_mirrors.mirror(BENCHMARK_MIRRORS[spec.name], dy_model).to(dtype)
        grads_of = lambda m: benchmark_grads(spec.name, m)  # noqa: E731
    else:
        model = MIRRORS[spec.name]().to(dtype)
        load_own_mirror(model, weights)
        grads_of = own_grads
    if spec.zero_dropout:  # as R.build does to the DyGraph model
        for m in model.modules():
            if isinstance(m, (nn.Dropout, DownscaleDropout)):
                m.p = 0.0
    xt, yt = torch.from_numpy(x).to(dtype), torch.from_numpy(labels)
    model.eval()
    with torch.no_grad():
        outs = model(xt)
    outs = [o.numpy() for o in (outs if isinstance(outs, tuple) else (outs,))]
    if spec.name in CROSS_CHECKS and dtype == torch.float64:
        other = torch_mirrors.mirror(CROSS_CHECKS[spec.name], dy_model).double().eval()
        with torch.no_grad():
            again = other(xt).numpy()
        err = np.abs(again - outs[0]).max() / np.abs(outs[0]).max()
        assert err < 1e-12, f"{spec.name}: torch_mirrors and this mirror differ by {err}"
    model.train(spec.step_mode == "train")
    loss = R.loss_of(model(xt), yt, torch_loss)
    loss.backward()
    return outs, float(loss.detach()), grads_of(model)


def errors(names, run, outs, loss, sketch, floor):
    """[output, loss, gradient] errors of `run` (outs, loss, grads) against the float64
    reference, in the test's measures."""
    got = np.stack([R.gradient_sketch(n, run[2][n]) for n in names])
    return np.array([R.output_error(run[0], outs), abs(run[1] - loss) / abs(loss),
                     R.sketch_errors(got, sketch, floor).max()])


# ---------------------------------------------------------------------------------------
# DyGraph side (for the printed errors and the benchmark-model check)


def set_weights(dy_model, weights):
    dy_model.set_state_dict({k: v.astype(np.float64) for k, v in weights.items()})


def dygraph_eager(spec, dy_model, x, labels):
    dy_model.eval()
    with dygraph.no_grad():
        outs = dy_model(dygraph.to_tensor(x))
    outs = [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else (outs,))]
    if spec.step_mode == "train":
        dy_model.train()
    else:
        dy_model.eval()
    loss = R.dygraph_loss(dy_model(dygraph.to_tensor(x)), dygraph.to_tensor(labels))
    loss.backward()
    grads = {n: p.grad.numpy() for n, p in dy_model.named_parameters()
             if not p.stop_gradient}
    dy_model.clear_gradients()
    return outs, float(loss), grads


def check_benchmark_model(spec):
    """tests/models/reference.py's SequenceClassifier is benchmarks/models.py's model:
    the same state-dict names and shapes and, on the same weights, the same outputs."""
    import models as bench

    theirs = bench.build_dygraph(spec.name)
    ours = R.build(spec, "float32")
    shapes = R.state_shapes(ours)
    assert R.state_shapes(theirs) == shapes, spec.name
    weights = R.reference_weights(shapes)
    x = R.make_batch(spec)[0].astype(np.float32)
    outs = []
    for m in (theirs, ours):
        m.set_state_dict({k: v.astype(np.float32) for k, v in weights.items()})
        m.eval()
        outs.append(m(dygraph.to_tensor(x)).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def record(spec, write):
    t0 = time.time()
    if spec.name in BENCHMARK_MIRRORS:
        check_benchmark_model(spec)
    dy_model = R.build(spec, "float64")
    shapes = R.state_shapes(dy_model)
    weights = R.reference_weights(shapes)
    set_weights(dy_model, weights)
    x, labels = R.make_batch(spec)
    outs, loss, grads = torch_reference(spec, dy_model, weights, x, labels)
    names = R.trainable_names(dy_model)
    if sorted(names) != sorted(grads):
        raise KeyError(f"{spec.name}: gradient names differ: "
                       f"{sorted(set(names) ^ set(grads))}")
    sketch = np.stack([R.gradient_sketch(n, grads[n]) for n in names])
    # PyTorch's own float32 errors on the same problem: small batches through batch norm
    # in training make some steps ill-conditioned (a relu input that rounding moves
    # across zero changes a gradient by a finite amount), and the test's float32
    # tolerance grows with what a float32 reference makes.
    torch32 = errors(names, torch_reference(spec, dy_model, weights, x, labels,
                                            torch.float32),
                     outs, loss, sketch, R.FLOAT32_GRAD_FLOOR)
    result = {"input": x.astype(np.float32), "labels": labels, "loss": np.float64(loss),
              "grad_names": np.array(names), "grad_sketch": sketch,
              "torch_float32_errors": torch32,
              "weights_sha256": np.array(R.weights_digest(weights)),
              "step_mode": np.array(spec.step_mode),
              "torch_version": np.array(torch.__version__)}
    for i, o in enumerate(outs):
        result[f"logits_{i}"] = o
    # DyGraph eager float64 against the reference: what the test's tolerances rest on.
    set_weights(dy_model, weights)
    dy64 = errors(names, dygraph_eager(spec, dy_model, x, labels), outs, loss, sketch,
                  R.FLOAT64_GRAD_FLOOR)
    if write:
        os.makedirs(R.REFS_DIR, exist_ok=True)
        np.savez_compressed(R.ref_path(spec.name), **result)
    scale = max(np.abs(o).max() for o in outs)
    print(f"{spec.name:26s} {sum(np.prod(s) for s in shapes.values()):>10,.0f} params  "
          f"|logits| {scale:8.3g}  loss {loss:7.4f}  DyGraph float64 errors (out, loss, "
          f"grad) {' '.join(f'{e:.1e}' for e in dy64)}  PyTorch float32 "
          f"{' '.join(f'{e:.1e}' for e in torch32)}  ({time.time() - t0:.1f} s)",
          flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default=",".join(R.SPECS))
    p.add_argument("--check-only", action="store_true")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    for name in args.models.split(","):
        record(R.SPECS[name], not args.check_only)


if __name__ == "__main__":
    main()
