"""The models checked against recorded PyTorch numbers, and the rules both sides share.

tools/record_model_refs.py (run where PyTorch is installed) builds each model here, fills
it with `reference_weights`, runs a PyTorch mirror of the architecture on the same weights
and input in float64, and writes tests/data/model_refs/<name>.npz. The test
(tests/models/test_reference_outputs.py) needs neither PyTorch nor Paddle: it rebuilds the
model from this module, regenerates the weights and compares DyGraph's numbers with the
recording.

Weights are not stored: the zoo's full-width models hold up to 24M parameters (190 MB in
float64). They come from a fixed NumPy rule instead (`reference_weights`: a legacy
RandomState per tensor, seeded from the tensor's name, whose stream NumPy keeps stable
across versions), independent of DyGraph's initialisers and random generator; the recording
holds a SHA-256 of them, so a changed rule cannot pass silently. The rule gives
non-trivial values everywhere: batch-norm scales, shifts and running statistics included
(fresh running statistics of mean 0 and variance 1 would hide a mix-up of the two). Every
value, and every input, is a float32 number, so float32 runs get exactly the weights and
input the float64 reference had.

Gradients are not stored either (as large as the weights): the recording holds for each
parameter a sketch, `gradient_sketch`: its 2-norm and its dot products with three fixed
pseudo-random probe vectors. A gradient that differs from the reference by a vector d
moves each dot product by a N(0, |d|^2) amount, so an error of relative size 1e-3 escapes
all three probes with a probability below 1e-15 at the tolerances used (1e-8 of the norm).
"""

import dataclasses
import hashlib
import os
import zlib
from collections.abc import Callable

import numpy as np

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.vision import models

REFS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "data", "model_refs")
NUM_CLASSES = 10
WEIGHT_SEED = 20240601
# Probe vectors of the gradient sketch: windows of one fixed table whose length, a prime,
# shares no factor with any tensor's dimensions.
_PROBE_PERIOD = 1_048_583
_PROBE_SEED = 7
_PROBES = 3
# Gradient norms below this fraction of a model's largest are compared as if that large
# (sketch_errors): rounding noise of the dtype must not count as an error.
FLOAT64_GRAD_FLOOR = 1e-6
FLOAT32_GRAD_FLOOR = 1e-3


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One recorded model: how to build it in DyGraph, its input and its training step.

    `step_mode` is the mode of the recorded training step: "train" (batch statistics;
    models with dropout get p = 0 throughout, `zero_dropout`, so the step is
    deterministic) or "eval" (dropout-only models: dropout in its inference form, which is
    deterministic and keeps Paddle's downscale_in_infer scaling under test).
    """

    name: str
    build: Callable[[], nn.Layer]
    input_shape: tuple
    step_mode: str = "train"
    zero_dropout: bool = False
    outputs: int = 1
    about: str = ""


def _reduced_vgg11_bn():
    # vgg11 with batch norm, its features and 7x7 adaptive pool as in the zoo; the
    # classifier keeps its structure (linear, relu, dropout, linear, relu, dropout,
    # linear) with hidden width 32 instead of 4096 (the full one is 124M parameters).
    net = models.vgg11(batch_norm=True, num_classes=0)
    net.num_classes = NUM_CLASSES
    net.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 32), nn.ReLU(), nn.Dropout(),
                                   nn.Linear(32, 32), nn.ReLU(), nn.Dropout(),
                                   nn.Linear(32, NUM_CLASSES))
    return net


def _reduced_alexnet():
    # AlexNet's convolutions and forward as in the zoo; the head keeps its layers
    # (_drop1, _fc6, _drop2, _fc7, _fc8, downscale_in_infer dropout) with a 256x2x2 input
    # (96x96 images) and hidden width 64 instead of 9216 -> 4096 -> 4096.
    net = models.AlexNet(num_classes=0)
    net.num_classes = NUM_CLASSES
    net._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
    net._fc6 = nn.Linear(256 * 2 * 2, 64)
    net._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
    net._fc7 = nn.Linear(64, 64)
    net._fc8 = nn.Linear(64, NUM_CLASSES)
    return net


def _reduced_googlenet():
    # GoogLeNet as in the zoo, main head included; on 93x93 images (the smallest its
    # auxiliary pools take) the auxiliary heads see a 128x1x1 map instead of 128x3x3, so
    # their first linear is 128 -> 1024.
    net = models.GoogLeNet(num_classes=NUM_CLASSES)
    net._fc_o1 = nn.Linear(128, 1024)
    net._fc_o2 = nn.Linear(128, 1024)
    return net


class SequenceClassifier(nn.Layer):
    """benchmarks/models.py's LSTM, GRU and Transformer models (same layers and names; the
    recording script checks that it builds the same state dict and outputs)."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "lstm":
            self.body = nn.LSTM(64, 128, num_layers=2)
        elif kind == "gru":
            self.body = nn.GRU(64, 256)
        else:
            layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)
            self.body = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(256 if kind == "gru" else 128, 10)

    def forward(self, x):
        if self.kind == "transformer":
            return self.head(self.body(x).mean(axis=1))
        out, _ = self.body(x)
        return self.head(out[:, -1])


# Inputs: the smallest (or close) that each model takes and whose last training-mode batch
# norms still see 2x2 maps: over fewer values per channel (1x1 maps, two images) the
# normalisation is so ill-conditioned that float64 results agree only to 1e-4 (measured on
# ResNet-50 at 32x32). Full widths throughout (the zoo's constructors fix them), except
# where a classifier's input follows the image size (AlexNet, VGG, GoogLeNet's auxiliary
# heads, see above); 10 classes.
SPECS = {spec.name: spec for spec in [
    ModelSpec("lenet", lambda: models.LeNet(num_classes=NUM_CLASSES), (2, 1, 28, 28)),
    ModelSpec("mnistnet", lambda: models.MNISTNet(), (2, 1, 28, 28)),
    ModelSpec("resnet18", lambda: models.resnet18(num_classes=NUM_CLASSES), (2, 3, 33, 33),
              about="also benchmarks/models.py's resnet18"),
    ModelSpec("resnet50", lambda: models.resnet50(num_classes=NUM_CLASSES), (1, 3, 33, 33)),
    ModelSpec("mobilenet_v1",
              lambda: models.mobilenet_v1(scale=0.25, num_classes=NUM_CLASSES),
              (2, 3, 33, 33)),
    ModelSpec("mobilenet_v2", lambda: models.MobileNetV2(num_classes=NUM_CLASSES),
              (2, 3, 33, 33), zero_dropout=True,
              about="also benchmarks/models.py's mobilenetv2"),
    ModelSpec("mobilenet_v3_small",
              lambda: models.mobilenet_v3_small(scale=0.5, num_classes=NUM_CLASSES),
              (2, 3, 33, 33), zero_dropout=True),
    ModelSpec("mobilenet_v3_large",
              lambda: models.mobilenet_v3_large(scale=0.5, num_classes=NUM_CLASSES),
              (2, 3, 33, 33), zero_dropout=True),
    ModelSpec("vgg11_bn", _reduced_vgg11_bn, (1, 3, 32, 32), zero_dropout=True,
              about="classifier hidden width 32"),
    ModelSpec("alexnet", _reduced_alexnet, (2, 3, 96, 96), step_mode="eval",
              about="head widths 1024 -> 64 -> 64 -> 10"),
    ModelSpec("squeezenet1_0", lambda: models.squeezenet1_0(num_classes=NUM_CLASSES),
              (2, 3, 64, 64), step_mode="eval"),
    ModelSpec("squeezenet1_1", lambda: models.squeezenet1_1(num_classes=NUM_CLASSES),
              (2, 3, 64, 64), step_mode="eval"),
    ModelSpec("shufflenet_v2_x0_25",
              lambda: models.shufflenet_v2_x0_25(num_classes=NUM_CLASSES), (2, 3, 33, 33)),
    ModelSpec("shufflenet_v2_x0_25_swish",
              lambda: models.ShuffleNetV2(0.25, act="swish", num_classes=NUM_CLASSES),
              (2, 3, 33, 33)),
    ModelSpec("densenet121", lambda: models.densenet121(num_classes=NUM_CLASSES),
              (1, 3, 61, 61)),
    ModelSpec("googlenet", _reduced_googlenet, (1, 3, 93, 93), step_mode="eval", outputs=3,
              about="auxiliary heads' first linear 128 -> 1024"),
    ModelSpec("inception_v3", lambda: models.inception_v3(num_classes=NUM_CLASSES),
              (1, 3, 107, 107), zero_dropout=True,
              about="107x107: the smallest input whose last blocks see 2x2 maps"),
    ModelSpec("lstm", lambda: SequenceClassifier("lstm"), (4, 8, 64),
              about="benchmarks/models.py's lstm on a shorter batch"),
    ModelSpec("gru", lambda: SequenceClassifier("gru"), (4, 8, 64),
              about="benchmarks/models.py's gru on a shorter batch"),
    ModelSpec("transformer", lambda: SequenceClassifier("transformer"), (2, 8, 128),
              about="benchmarks/models.py's transformer on a shorter batch"),
]}


def build(spec, dtype="float64"):
    """The DyGraph model of `spec` with parameters in `dtype` (zero_dropout applied), its
    initialisers not run (LazyGuard): set its weights before use."""
    previous = dygraph.get_default_dtype()
    dygraph.set_default_dtype(dtype)
    try:
        with dygraph.LazyGuard():
            model = spec.build()
    finally:
        dygraph.set_default_dtype(previous)
    # Recurrent cells make float32 parameters whatever the default dtype (as Layer's
    # dtype argument defaults to float32 in Paddle): cast what is left.
    model.astype(dtype)
    if spec.zero_dropout:
        for layer in model.sublayers():
            if isinstance(layer, nn.Dropout):
                layer.p = 0.0
    return model


def _rng(name, seed):
    return np.random.RandomState(zlib.crc32(f"{seed}:{name}".encode()))


def _uniform(name, seed, shape, low, high):
    values = _rng(name, seed).uniform(low, high, shape)
    return values.astype(np.float32).astype(np.float64)  # float32-representable


def reference_weights(state_shapes, seed=WEIGHT_SEED):
    """Float64 values for a state dict given as {name: shape} (Paddle's layouts), by a rule
    on names and shapes only:

    batch norm (a `_mean` sibling): scale U(0.5, 1.5), shift U(-0.3, 0.3), running mean
    U(-0.3, 0.3), running variance U(0.5, 1.5); recurrent cells (weight_ih, ...):
    U(+-1/sqrt(hidden)); convolution weights [out, in/groups, kh, kw]: He uniform on the
    fan-in; linear weights [in, out]: U(+-sqrt(3/in)) (unit output variance); layer-norm
    scales U(0.5, 1.5); every other bias U(-0.2, 0.2).

    Example:
        >>> w = reference_weights({'fc.weight': (4, 2), 'fc.bias': (2,)})
        >>> bool(np.abs(w['fc.weight']).max() <= 3 ** 0.5 / 2), w['fc.bias'].shape
        (True, (2,))
    """
    out = {}
    for name, shape in state_shapes.items():
        shape = tuple(int(d) for d in shape)
        prefix, _, leaf = name.rpartition(".")
        head = prefix + "." if prefix else ""
        if leaf == "_mean":
            out[name] = _uniform(name, seed, shape, -0.3, 0.3)
        elif leaf == "_variance":
            out[name] = _uniform(name, seed, shape, 0.5, 1.5)
        elif head + "_mean" in state_shapes:
            low, high = (0.5, 1.5) if leaf == "weight" else (-0.3, 0.3)
            out[name] = _uniform(name, seed, shape, low, high)
        elif leaf in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            bound = 1.0 / np.sqrt(state_shapes[head + "weight_hh"][1])
            out[name] = _uniform(name, seed, shape, -bound, bound)
        elif leaf == "weight" and len(shape) == 4:
            bound = np.sqrt(6.0 / np.prod(shape[1:]))
            out[name] = _uniform(name, seed, shape, -bound, bound)
        elif leaf == "weight" and len(shape) == 2:
            bound = np.sqrt(3.0 / shape[0])
            out[name] = _uniform(name, seed, shape, -bound, bound)
        elif leaf == "weight" and len(shape) == 1:
            out[name] = _uniform(name, seed, shape, 0.5, 1.5)
        elif leaf == "bias":
            out[name] = _uniform(name, seed, shape, -0.2, 0.2)
        else:
            raise ValueError(f"reference_weights: no rule for {name} {shape}")
    return out


def weights_digest(weights):
    """SHA-256 of the weights (names, shapes and float64 bytes, in name order).

    Example:
        >>> len(weights_digest({'b': np.zeros(2)}))
        64
    """
    h = hashlib.sha256()
    for name in sorted(weights):
        value = np.ascontiguousarray(weights[name], np.float64)
        h.update(f"{name}{value.shape}".encode())
        h.update(value.tobytes())
    return h.hexdigest()


def make_batch(spec, seed=0):
    """(input, int64 labels) of `spec`: standard normal values rounded to float32 (kept
    as float64) and labels in [0, 10)."""
    rng = np.random.RandomState(zlib.crc32(f"{seed}:{spec.name}:input".encode()))
    x = rng.standard_normal(spec.input_shape).astype(np.float32).astype(np.float64)
    return x, rng.randint(0, NUM_CLASSES, spec.input_shape[0]).astype(np.int64)


_TABLE = None


def _probe_table():
    global _TABLE
    if _TABLE is None:
        _TABLE = np.random.RandomState(_PROBE_SEED).standard_normal(_PROBE_PERIOD)
    return _TABLE


def gradient_sketch(name, grad):
    """[2-norm, probe_1 . g, probe_2 . g, probe_3 . g] of a gradient (float64). Probe k is
    the table of _PROBE_PERIOD standard normal values read cyclically from an offset given
    by the name; the gradient is folded onto one period (summed period by period), so
    each dot product reads each value once.

    Example:
        >>> s = gradient_sketch('w', np.ones((3, 2)))
        >>> s.shape, float(s[0]) == 6 ** 0.5
        ((4,), True)
    """
    g = np.asarray(grad).reshape(-1).astype(np.float64, copy=False)
    table, period = _probe_table(), _PROBE_PERIOD
    folded = g
    if g.size > period:
        full = g.size // period * period
        folded = g[:full].reshape(-1, period).sum(axis=0)
        folded[:g.size - full] += g[full:]
    out = [float(np.sqrt(np.dot(g, g)))]
    for k in range(_PROBES):
        offset = zlib.crc32(f"{name}:{k}".encode()) % period
        head = min(folded.size, period - offset)
        value = np.dot(folded[:head], table[offset:offset + head])
        if folded.size > head:
            value += np.dot(folded[head:], table[:folded.size - head])
        out.append(float(value))
    return np.array(out)


def sketch_errors(got, want, floor):
    """Per parameter: the largest difference of two gradient sketches relative to the
    reference gradient's norm, floored at `floor` x the model's largest gradient norm
    (gradients that are zero in exact arithmetic, such as a batch-norm shift whose
    output feeds another batch norm in training, hold rounding noise only).

    Example:
        >>> want = np.array([[2.0, 1.0, 0.5, -1.0], [1e-9, 0.0, 0.0, 0.0]])
        >>> sketch_errors(want + 1e-3, want, 1e-6).round(6).tolist()
        [0.0005, 500.0]
    """
    denom = np.maximum(want[:, 0], floor * want[:, 0].max())
    return np.abs(np.asarray(got) - want).max(axis=1) / denom


def output_error(outs, want):
    """max |got - want| / max |want| over the outputs (lists of arrays).

    Example:
        >>> round(output_error([np.array([1.0, 2.1])], [np.array([1.0, 2.0])]), 6)
        0.05
    """
    assert len(outs) == len(want), (len(outs), len(want))
    err = 0.0
    for got, w in zip(outs, want):
        got = np.asarray(got, np.float64)
        assert got.shape == w.shape, (got.shape, w.shape)
        err = max(err, float(np.abs(got - w).max() / np.abs(w).max()))
    return err


def loss_of(outputs, labels, xp_loss):
    """The recorded training loss: cross-entropy of the logits (GoogLeNet: main head plus
    0.3 x each auxiliary head, as in its paper); `xp_loss(logits, labels)` is the
    framework's mean cross-entropy."""
    if isinstance(outputs, (list, tuple)):
        main, aux1, aux2 = outputs
        return (xp_loss(main, labels) + 0.3 * xp_loss(aux1, labels)
                + 0.3 * xp_loss(aux2, labels))
    return xp_loss(outputs, labels)


def dygraph_loss(outputs, labels):
    """loss_of with DyGraph's cross-entropy."""
    return loss_of(outputs, labels, F.cross_entropy)


def trainable_names(model):
    """Structured names of the parameters that get gradients, in state-dict order."""
    return [name for name, p in model.named_parameters() if not p.stop_gradient]


def state_shapes(model):
    """{state-dict name: shape} of a DyGraph model, each tensor under its last name only
    (a recurrent layer's flat 'weight_ih_l0' is its cell's '0.cell.weight_ih', which the
    weight rule and the recordings name)."""
    state = model.state_dict()
    last = {id(t): name for name, t in state.items()}
    return {name: tuple(t.shape) for name, t in state.items() if last[id(t)] == name}


def ref_path(name):
    return os.path.join(REFS_DIR, f"{name}.npz")
