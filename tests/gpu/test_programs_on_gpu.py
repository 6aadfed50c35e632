"""Programs on the GPU: every spec entry through to_static on CUDAPlace(0) gives eager's
numbers on three calls (a plain run, the CUDA graph capture, a replay: dygraph/jit/
cuda_graph.py) and eager's gradients; whole training steps under to_static, replayed as
CUDA graphs, take the same steps as eager ones from the same weights.

With DYGRAPH_GPU_LOG set to a folder, the entries whose program runs without graphs (an op
that cannot be captured) are listed in uncapturable.txt there."""

import os
import warnings

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.backend import CAPTURE, capture_products
from dygraph.jit import cuda_graph
from tests.gpu import requires_gpu
from tests.op_specs import all_specs
from tests.op_specs.test_cross_mode import _differentiable, _seed, _weighted
from tests.op_specs.test_op_specs import _as_list, _ids

pytestmark = requires_gpu
# DYGRAPH_GPU_SPEC_STRIDE=n takes every n-th spec entry (a short run on a lent GPU).
SPECS = all_specs()[::int(os.environ.get("DYGRAPH_GPU_SPEC_STRIDE", "1"))]
LOG = os.environ.get("DYGRAPH_GPU_LOG")


def _close(got, want, spec, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        if w is None:
            continue
        assert "CUDAPlace" in str(g.place), f"{what}: the result is on {g.place}"
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=max(spec.rtol, 1e-6),
                                   atol=max(spec.atol, 1e-9), err_msg=what)


def _note_fallbacks(spec, caught):
    lines = [f"{_ids(spec)}: {w.message}\n" for w in caught if "CUDA graph" in str(w.message)]
    if lines and LOG:
        with open(os.path.join(LOG, "uncapturable.txt"), "a") as f:
            f.writelines(lines)


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_to_static_on_the_gpu_gives_eager_numbers(spec, on_gpu):
    def run(*xs):
        return spec.fn(*xs)

    converted = dygraph.jit.to_static(run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in (0, 1, 2):  # a plain run, the capture, a replay
            arrays = spec.make_inputs(seed=seed)
            _seed(spec)
            got = _as_list(converted(*[dygraph.to_tensor(a) for a in arrays]))
            _seed(spec)
            want = _as_list(spec.fn(*[dygraph.to_tensor(a) for a in arrays]))
            _close(got, want, spec, f"to_static outputs, call {seed + 1}")
        arrays = spec.make_inputs(seed=3)
        tensors = [dygraph.to_tensor(a, stop_gradient=not _differentiable(spec, i, a))
                   for i, a in enumerate(arrays)]
        wanted = [t for t in tensors if not t.stop_gradient]
        if wanted:
            _seed(spec)
            got = dygraph.grad([_weighted(_as_list(converted(*tensors)))], wanted,
                               allow_unused=True)
            _seed(spec)
            want = dygraph.grad([_weighted(_as_list(spec.fn(*tensors)))], wanted,
                                allow_unused=True)
            _close(got, want, spec, "to_static gradients")
    _note_fallbacks(spec, caught)
    assert not [w for w in caught if "runs eagerly" in str(w.message)], caught[0].message


class _ConvNet(nn.Layer):
    # The convolutions have no bias: batch norm takes every channel's mean away, so a bias
    # before it gets a gradient of rounding noise only, which Adam scales up to whole steps
    # (captured and eager products round differently, and such a bias drifted apart).
    def __init__(self, dropout=0.0):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2D(3, 8, 3, padding=1, bias_attr=False), nn.BatchNorm2D(8), nn.ReLU(),
            nn.MaxPool2D(2),
            nn.Conv2D(8, 16, 3, stride=2, padding=1, groups=2, bias_attr=False),
            nn.BatchNorm2D(16), nn.ReLU(), nn.AdaptiveAvgPool2D(1), nn.Flatten(),
            nn.Dropout(dropout), nn.Linear(16, 10))

    def forward(self, x):
        return self.body(x)


class _Encoder(nn.Layer):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "lstm":
            self.body = nn.LSTM(8, 16, num_layers=2)
        else:
            self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, 0.0), 2)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        if self.kind == "lstm":
            return self.head(self.body(x)[0][:, -1])
        return self.head(self.body(x).mean(axis=1))


def _model(kind):
    dygraph.seed(0)
    if kind == "convnet":
        return _ConvNet()
    if kind == "dropout":
        return _ConvNet(dropout=0.5)
    return _Encoder(kind)


def _batch(kind, k):
    rng = np.random.default_rng(k)
    shape = (4, 3, 8, 8) if kind in ("convnet", "dropout") else (4, 6, 8 if kind == "lstm"
                                                                   else 16)
    return (dygraph.to_tensor(rng.standard_normal(shape).astype(np.float32)),
            dygraph.to_tensor(rng.integers(0, 10, 4).astype(np.int64)))


def _optimizer(kind, model):
    if kind == "lstm":  # a schedule: the learning rate moves at every step
        lr = dygraph.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
        return dygraph.optimizer.Momentum(lr, momentum=0.9, parameters=model.parameters()), lr
    return dygraph.optimizer.Adam(1e-2, parameters=model.parameters()), None


def _step_fn(model, opt, sched):
    loss_fn = nn.functional.cross_entropy

    def step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
        return loss
    return step


@pytest.mark.parametrize("kind", ["convnet", "lstm", "transformer", "dropout"])
def test_training_steps_as_cuda_graphs_match_eager_steps(kind, on_gpu):
    eager_model, graph_model = _model(kind), _model(kind)
    eager_step = _step_fn(eager_model, *_optimizer(kind, eager_model))
    graph_step = dygraph.jit.to_static(_step_fn(graph_model, *_optimizer(kind, graph_model)))
    before = dict(cuda_graph.stats)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(6):
            x, y = _batch(kind, k)
            dygraph.seed(k)
            want = float(eager_step(x, y))
            dygraph.seed(k)
            got = float(graph_step(x, y))
            assert got == pytest.approx(want, rel=1e-5), f"step {k}"
    for (name, a), b in zip(eager_model.state_dict().items(), graph_model.state_dict().values()):
        if name.endswith("k_proj.bias"):
            # Softmax over the keys is the same for scores all shifted by q . b_k: that
            # bias's gradient is rounding noise only, which Adam scales up to whole steps.
            continue
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=2e-5, atol=1e-6, err_msg=name)
    replays = cuda_graph.stats["replays"] - before["replays"]
    fell_back = [str(w.message) for w in caught if "CUDA graph" in str(w.message)]
    # dropout's masks are drawn on the device (backend/device_random.py): captured too
    assert not fell_back and replays == 4, (fell_back, replays)


def test_a_step_after_set_state_dict_takes_the_new_state(on_gpu):
    """Weights set between calls (new arrays, or new values in the old ones) are what the
    next replayed step starts from."""
    model, reference = _model("convnet"), _model("convnet")
    step = dygraph.jit.to_static(_step_fn(
        model, dygraph.optimizer.SGD(0.1, parameters=model.parameters()), None))
    ref_step = _step_fn(
        reference, dygraph.optimizer.SGD(0.1, parameters=reference.parameters()), None)
    for k in range(3):
        step(*_batch("convnet", k))
        ref_step(*_batch("convnet", k + 3))
    model.set_state_dict(reference.state_dict())
    for k in range(6, 8):
        got = float(step(*_batch("convnet", k)))
        want = float(ref_step(*_batch("convnet", k)))
        assert got == pytest.approx(want, rel=1e-5), f"step {k}"


_LAYOUTS = [((3, 4), (4, 5), None), ((4, 3), (4, 5), "a.T"), ((3, 4), (5, 4), "b.T"),
            ((2, 3, 4), (4, 5), None), ((3, 4), (2, 4, 5), None), ((2, 1, 3, 4), (5, 4, 2), None),
            ((4,), (4, 5), None), ((3, 4), (4,), None), ((3, 8), (4, 5), "a[:, ::2]")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("a_shape, b_shape, view", _LAYOUTS)
def test_products_inside_a_capture_match_cupy(a_shape, b_shape, view, dtype):
    """The cuBLAS calls made while capturing (backend/capture_products.py), run outside a
    capture with the capture flag set, against CuPy's own products."""
    import cupy

    rng = np.random.default_rng(0)
    a = cupy.asarray(rng.standard_normal(a_shape).astype(dtype))
    b = cupy.asarray(rng.standard_normal(b_shape).astype(dtype))
    if view == "a.T":
        a = a.T
    elif view == "b.T":
        b = b.T
    elif view == "a[:, ::2]":
        a = a[:, ::2]
    want = cupy.matmul(a, b)
    want_dot = cupy.dot(a, b) if a.ndim <= 2 and b.ndim <= 2 else None
    want_einsum = cupy.einsum("...ij,...jk->...ik", a, b) if a.ndim == b.ndim >= 2 else None
    capture_products.prepare(cupy)
    CAPTURE.active = True
    try:
        got = cupy.matmul(a, b)
        got_dot = cupy.dot(a, b) if want_dot is not None else None
        got_einsum = (cupy.einsum("...ij,...jk->...ik", a, b) if want_einsum is not None
                      else None)
    finally:
        CAPTURE.active = False
    tol = 2e-3 if dtype == "float16" else 1e-6
    for g, w in ((got, want), (got_dot, want_dot), (got_einsum, want_einsum)):
        if w is not None:
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g.get().astype(np.float64), w.get().astype(np.float64),
                                       rtol=tol, atol=tol)
