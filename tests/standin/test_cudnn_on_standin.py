"""DyGraph's cuDNN path (dygraph/backend/cudnn/ and the ops around it), run on the CuPy
stand-in with the stand-in of NVIDIA's cuDNN frontend (tools/cupy_standin/
cudnn_frontend.py): convolutions and batch norm in the layouts and geometries the ops
send to cuDNN give the CPU's numbers (gradients and running statistics included), make
the calls a GPU would make (one graph run per product, one kernel for the running
statistics), and are captured into CUDA graphs that replay the eager steps.

What cuDNN itself computes is not tested here (the stand-in's graphs compute in float64
NumPy): tests/gpu/test_cudnn.py compares real cuDNN with the CuPy paths on a GPU."""

import warnings

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import cudnn
from dygraph.jit import cuda_graph
from dygraph.vision import models
from tools import cupy_standin

# float32 sums of at most a few hundred terms in another order than the CPU's.
RTOL = 2e-5


def _run_both(fn, *arrays):
    """fn(*tensors) on the CPU and on the stand-in GPU with cuDNN: (cpu results, gpu
    results, the stand-in's calls by name during the GPU run)."""
    dygraph.set_device("cpu")
    want = fn(*arrays)
    dygraph.set_device("gpu:0")
    before = dict(cupy_standin.calls_by_name)
    got = fn(*arrays)
    made = {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()
            if v != before.get(k, 0)}
    return want, got, made


def _close(got, want, rtol=RTOL):
    for g, w in zip(got, want):
        scale = float(np.abs(w).max()) or 1.0
        np.testing.assert_allclose(g, w, rtol=0, atol=rtol * scale)


# (dims, input shape, weight shape, stride, padding, dilation, groups, data_format)
CONVS = [
    (2, (2, 4, 9, 9), (6, 4, 3, 3), 1, 1, 1, 1, "NCHW"),
    (2, (2, 4, 9, 8), (4, 2, 3, 3), 2, 1, 1, 2, "NCHW"),
    (2, (2, 6, 8, 8), (6, 1, 3, 3), 1, 1, 1, 6, "NCHW"),  # depthwise
    (2, (2, 3, 11, 10), (5, 3, 3, 2), (2, 1), (2, 0), 2, 1, "NCHW"),  # dilated, uneven
    (2, (2, 9, 8, 4), (5, 4, 3, 3), 1, 1, 1, 1, "NHWC"),
    (1, (2, 4, 12), (6, 2, 5), 2, 2, 1, 2, "NCL"),
    (3, (1, 2, 5, 6, 4), (3, 2, 3, 3, 1), 1, (1, 1, 0), 1, 1, "NCDHW"),
]


@pytest.mark.parametrize("case", CONVS, ids=lambda c: f"{c[0]}d-{c[7]}-{c[1]}-g{c[6]}")
def test_convolutions_give_the_cpu_numbers_in_one_call_each(standin_gpu_cudnn, case):
    d, xs, ws, stride, padding, dilation, groups, fmt = case
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]

    def run(x, w, b):
        t = [dygraph.to_tensor(a, stop_gradient=False) for a in (x, w, b)]
        y = conv(t[0], t[1], t[2], stride=stride, padding=padding, dilation=dilation,
                 groups=groups, data_format=fmt)
        g = dygraph.to_tensor(np.cos(np.arange(int(np.prod(y.shape)))).reshape(y.shape)
                              .astype(np.float32))
        (y * g).sum().backward()
        return [a.numpy() for a in (y, t[0].grad, t[1].grad, t[2].grad)]

    want, got, made = _run_both(run, x, w, b)
    _close(got, want)
    assert (made.get("cudnn conv_fprop"), made.get("cudnn conv_dgrad"),
            made.get("cudnn conv_wgrad")) == (1, 1, 1), made
    assert not cudnn.declined()


@pytest.mark.parametrize("fmt, shape", [("NCHW", (4, 3, 5, 6)), ("NHWC", (4, 5, 6, 3)),
                                        ("NCL", (4, 3, 7)), ("NC", (8, 3))])
def test_batch_norm_in_training_gives_the_cpu_numbers(standin_gpu_cudnn, fmt, shape):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)

    def run(x, w, b, g):
        mean, var = dygraph.to_tensor([0.5, -1.0, 2.0]), dygraph.to_tensor([1.0, 2.0, 0.5])
        t = [dygraph.to_tensor(a, stop_gradient=False) for a in (x, w, b)]
        y = F.batch_norm(t[0], mean, var, t[1], t[2], training=True, momentum=0.8,
                         data_format=fmt)
        (y * dygraph.to_tensor(g)).sum().backward()
        return [a.numpy() for a in (y, t[0].grad, t[1].grad, t[2].grad, mean, var)]

    want, got, made = _run_both(run, x, w, b, g)
    _close(got, want)
    # cuDNN forward and backward, and one kernel for both running statistics.
    assert (made.get("cudnn batchnorm"), made.get("cudnn batchnorm_backward"),
            made.get("batch_norm_running")) == (1, 1, 1), made


def test_a_batch_norm_layer_makes_three_launches_a_step(standin_gpu_cudnn):
    bn = dygraph.nn.BatchNorm2D(8)
    x = dygraph.randn([4, 8, 6, 6])
    x.stop_gradient = False
    bn(x).sum().backward()  # the graphs are built
    before = dict(cupy_standin.calls_by_name)
    y = bn(x)
    y.backward(dygraph.ones_like(y))
    made = {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()
            if v != before.get(k, 0)}
    views_and_allocations = {"empty", "reshape", "view", "empty_like", "transpose"}
    launches = {k: v for k, v in made.items() if k not in views_and_allocations}
    assert launches.pop("cudnn batchnorm") == 1 and launches.pop("batch_norm_running") == 1
    assert launches.pop("cudnn batchnorm_backward") == 1
    # What is left: the test's ones_like, and the gradients of x, the weight and the bias
    # added to those of the first pass.
    assert launches == {"full": 1, "add": 3}, launches


def test_cudnn_declining_a_backward_falls_back_to_the_array_formula(standin_gpu_cudnn,
                                                                    monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)

    def run(x, w):
        t = [dygraph.to_tensor(a, stop_gradient=False) for a in (x, w)]
        y = F.batch_norm(t[0], dygraph.zeros([3]), dygraph.ones([3]), t[1], training=True)
        (y * y * y).sum().backward()
        return [a.numpy() for a in (y, t[0].grad, t[1].grad)]

    dygraph.set_device("cpu")
    want = run(x, w)
    dygraph.set_device("gpu:0")
    monkeypatch.setattr(cudnn, "batch_norm_grads", lambda *args: None)
    _close(run(x, w), want, rtol=1e-4)


@pytest.mark.parametrize("name", ["resnet18", "mobilenetv2"])
def test_to_static_steps_with_cudnn_are_captured_and_replay_the_eager_losses(
        standin_gpu_cudnn, name):
    build = {"resnet18": lambda: models.resnet18(num_classes=10),
             "mobilenetv2": lambda: models.MobileNetV2(num_classes=10)}[name]
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
    y = dygraph.to_tensor(rng.integers(0, 10, 2).astype(np.int64))

    def losses(static):
        dygraph.seed(0)
        model = build()
        opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())

        def step(x, y):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        if static:
            step = dygraph.jit.to_static(step)
        out = [float(step(x, y)) for _ in range(4)]
        return out, [m.numpy() for m in model.state_dict().values()]

    eager, eager_state = losses(False)
    replays = cuda_graph.stats["replays"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a fallback warns: fail on it
        graphed, graphed_state = losses(True)
    assert cuda_graph.stats["replays"] - replays == 2  # warm-up, capture, two replays
    np.testing.assert_allclose(graphed, eager, rtol=1e-6)
    for a, b in zip(graphed_state, eager_state):  # running statistics included
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("setting, allowed", [(None, False), ("1", True), ("0", False)])
def test_winograd_and_fft_engines_run_only_when_asked(setting, allowed):
    """DYGRAPH_CUDNN_WINOGRAD=1 (read at import) stops deselecting the FFT and Winograd
    engines; down-converted inputs and reduced-precision reductions stay off."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "DYGRAPH_CUDNN_WINOGRAD"}
    if setting is not None:
        env["DYGRAPH_CUDNN_WINOGRAD"] = setting
    code = ("from dygraph.backend import cudnn; "
            "print(sorted(cudnn.graphs._NOTES_OFF))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert ("WINOGRAD" not in out) is allowed and ("'FFT'" not in out) is allowed
    assert "DOWN_CONVERT_INPUTS" in out and "REDUCED_PRECISION_REDUCTION" in out
