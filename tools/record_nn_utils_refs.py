"""Record Paddle 3.3's results for paddle.nn.utils into tests/data/nn_utils_refs.json.

tests/nn/utils/ replays these cases on DyGraph without Paddle. Every case starts from fixed
weights and gradients (no random draws), so the numbers are Paddle's own. Run it with a
Python that has paddlepaddle (DyGraph is not needed):

    /tmp/paddle-venv/bin/python tools/record_nn_utils_refs.py
"""

import json
import pathlib
import warnings

import numpy as np
import paddle
from paddle.nn import utils

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "nn_utils_refs.json"


def arr(shape, seed):
    """Deterministic test values, the same formula the tests use."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.7 + seed) * 1.5).reshape(shape).astype("float32")


def listed(t):
    return np.asarray(t).tolist()


def layer_for(kind):
    if kind == "linear":
        layer = paddle.nn.Linear(3, 4)
        x = arr([2, 3], 5)
    elif kind == "conv2d":
        layer = paddle.nn.Conv2D(2, 3, 2)
        x = arr([1, 2, 3, 3], 5)
    else:
        layer = paddle.nn.Conv2DTranspose(2, 3, 2)
        x = arr([1, 2, 3, 3], 5)
    layer.weight.set_value(arr(layer.weight.shape, 1))
    layer.bias.set_value(arr(layer.bias.shape, 2))
    return layer, paddle.to_tensor(x)


def weight_norm_cases():
    cases = []
    for kind, dim in [("linear", 0), ("linear", 1), ("linear", None), ("linear", -1),
                      ("conv2d", 0), ("conv2d", 1), ("conv2d", 2), ("conv2d", -2),
                      ("convt", 3)]:
        layer, x = layer_for(kind)
        utils.weight_norm(layer, dim=dim)
        y = layer(x)
        (y * y).sum().backward()
        cases.append(dict(kind=kind, dim=dim, g=listed(layer.weight_g.numpy()),
                          weight=listed(layer.weight.numpy()), y=listed(y.numpy()),
                          grad_g=listed(layer.weight_g.grad.numpy()),
                          grad_v=listed(layer.weight_v.grad.numpy()),
                          params=[n for n, _ in layer.named_parameters()]))
    return cases


def spectral_norm_cases():
    cases = []
    for kind, dim, iters in [("linear", None, 1), ("conv2d", None, 2), ("convt", None, 1),
                             ("linear", 0, 3), ("conv2d", 2, 1)]:
        layer, x = layer_for(kind)
        utils.spectral_norm(layer, n_power_iterations=iters, dim=dim)
        layer.weight_u.set_value(arr(layer.weight_u.shape, 3))
        layer.weight_v.set_value(arr(layer.weight_v.shape, 4))
        y_train = layer(x)
        u1, v1 = layer.weight_u.numpy(), layer.weight_v.numpy()
        (y_train * y_train).sum().backward()
        layer.eval()
        y_eval = layer(x)
        cases.append(dict(kind=kind, dim=dim, iters=iters, u=listed(u1), v=listed(v1),
                          y_train=listed(y_train.numpy()), y_eval=listed(y_eval.numpy()),
                          grad=listed(layer.weight_orig.grad.numpy()),
                          state=sorted(layer.state_dict())))
    return cases


def clip_cases():
    cases = []
    for norm_type in [2.0, 1.0, 0.0, float("inf")]:
        for max_norm in [0.5, 100.0]:
            params = [paddle.to_tensor(arr([2, 3], 1), stop_gradient=False),
                      paddle.to_tensor(arr([4], 2), stop_gradient=False)]
            (params[0] ** 3).sum().backward()
            (params[1] * 2.0).sum().backward()
            total = utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
            cases.append(dict(norm_type=str(norm_type), max_norm=max_norm,
                              total=float(total), grads=[listed(p.grad) for p in params]))
    params = [paddle.to_tensor(arr([2, 3], 1), stop_gradient=False)]
    (params[0] ** 3).sum().backward()
    utils.clip_grad_value_(params, 0.75)
    return cases, listed(params[0].grad)


def main():
    clip, clip_value = clip_cases()
    refs = dict(paddle=paddle.__version__, weight_norm=weight_norm_cases(),
                spectral_norm=spectral_norm_cases(), clip_grad_norm=clip,
                clip_grad_value=clip_value)
    OUT.write_text(json.dumps(refs, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
