"""Adam, AdamW and Momentum on a GPU as one kernel per group (dygraph/optimizer/device_flat.py), on
the CuPy stand-in: the parameters, gradients and moments move into flat buffers, and the
steps equal the CPU's (the kernel's arithmetic is the per-parameter path's), through
clear_grad, a parameter left out of a step, gradient clipping, set_state_dict and a
learning-rate schedule."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from tools import cupy_standin


def _train(device, make_opt, steps=3, skip_at=None, clip=False):
    dygraph.seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    extra = nn.Linear(3, 3)  # used in every step but `skip_at`
    params = model.parameters() + extra.parameters()
    opt = make_opt(params, nn.ClipGradByGlobalNorm(0.5) if clip else None)
    rng = np.random.default_rng(1)
    x = dygraph.to_tensor(rng.standard_normal((5, 4)).astype(np.float32))
    for i in range(steps):
        out = model(x)
        if i != skip_at:
            out = extra(out)
        (out * out).mean().backward()
        opt.step()
        opt.clear_grad()
    return [p.numpy() for p in params], opt


_OPTIMIZERS = {
    "adam": lambda params, clip: dygraph.optimizer.Adam(
        dygraph.optimizer.lr.StepDecay(0.01, step_size=1, gamma=0.5), parameters=params,
        grad_clip=clip),
    "adamw": lambda params, clip: dygraph.optimizer.AdamW(
        0.01, parameters=params, weight_decay=0.1, grad_clip=clip,
        apply_decay_param_fun=lambda name: "bias" not in name),
    "momentum": lambda params, clip: dygraph.optimizer.Momentum(
        0.05, momentum=0.9, parameters=params, grad_clip=clip,
        weight_decay=dygraph.regularizer.L2Decay(0.01)),
    "nesterov": lambda params, clip: dygraph.optimizer.Momentum(
        0.05, momentum=0.9, parameters=params, grad_clip=clip, use_nesterov=True,
        rescale_grad=0.5),
}
_KERNEL = {"adam": "adam", "adamw": "adam", "momentum": "momentum", "nesterov": "momentum"}


@pytest.mark.parametrize("kind", list(_OPTIMIZERS))
@pytest.mark.parametrize("skip_at, clip", [(None, False), (1, False), (None, True)])
def test_the_one_kernel_step_equals_the_cpu_step(kind, skip_at, clip):
    expected, _ = _train("cpu", _OPTIMIZERS[kind], skip_at=skip_at, clip=clip)
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            before = cupy_standin.calls_by_name[_KERNEL[kind]]
            got, opt = _train("gpu", _OPTIMIZERS[kind], skip_at=skip_at, clip=clip)
            kernels = cupy_standin.calls_by_name[_KERNEL[kind]] - before
        finally:
            dygraph.set_device("cpu")
    assert kernels == 3  # one kernel per step for all six parameters
    flat = next(iter(opt._device_flat.values()))
    assert all(p._data.base is not None for p in flat.params)  # views of the flat buffer
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_state_dict_sees_the_flat_moments_and_a_loaded_state_is_taken():
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            got, opt = _train("gpu", _OPTIMIZERS["adam"], steps=2)
            state = opt.state_dict()
            key = next(k for k in state if k.endswith("moment1_0"))
            flat = next(iter(opt._device_flat.values()))
            assert float(abs(state[key].numpy()).sum()) > 0
            np.testing.assert_array_equal(state[key].numpy().ravel(),
                                          flat.acc["moment1"].get()[:state[key].size])
            state[key] = dygraph.full(state[key].shape, 5.0)
            opt.set_state_dict(state)
            for q in flat.params:
                q.grad = dygraph.zeros(q.shape)
            opt.step()  # the loaded arrays are taken into new flat buffers
            assert next(iter(opt._device_flat.values())) is not flat
            np.testing.assert_allclose(opt.state_dict()[key].numpy(), 4.5)  # beta1 * 5
        finally:
            dygraph.set_device("cpu")
