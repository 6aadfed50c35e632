"""The compiled Adam update (dygraph.kernels.numba.adam) against the NumPy path of
dygraph.optimizer.adam, bit for bit over several steps: Adam and AdamW, float32 and
float64, a parameter big enough for the blocked NumPy update and small ones that go
through the multi-tensor (flat) update; AMSGrad stays on the NumPy path."""

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.optimizer import adam as adam_module
from tests.kernels.numba.helpers import numpy_path

pytest.importorskip("numba")
kernel = pytest.importorskip("dygraph.kernels.numba.adam")

SHAPES = [(1200, 1000), (3, 4), (7,), (5, 2)]  # 1.2M values: the blocked NumPy update


def _train(opt_class, dtype, steps=4, **options):
    rng = np.random.default_rng(0)
    params = [Parameter(rng.standard_normal(shape).astype(dtype), name=f"p{i}")
              for i, shape in enumerate(SHAPES)]
    opt = opt_class(learning_rate=0.01, parameters=params, **options)
    for step in range(steps):
        for p in params:
            p.grad = dygraph.to_tensor(
                np.sin(np.arange(p.size, dtype=dtype) + step).reshape(p.shape))
        opt.step()
        opt.clear_grad()
    moments = [a.numpy() for key, a in opt.state_dict().items() if "moment" in key]
    assert len(moments) >= 2 * len(params)
    return [p.numpy() for p in params], moments


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("opt_class, options", [
    (dygraph.optimizer.Adam, {}),
    (dygraph.optimizer.AdamW, {"weight_decay": 0.1}),
    (dygraph.optimizer.Adam, {"amsgrad": True}),
])
def test_parameters_and_moments_are_the_numpy_paths_bit_for_bit(dtype, opt_class, options):
    got = _train(opt_class, dtype, **options)
    want = numpy_path(_train, opt_class, dtype, **options)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_the_update_takes_the_compiled_pass_except_for_amsgrad():
    acc = {"moment1": np.zeros(4, np.float32), "moment2": np.zeros(4, np.float32)}
    data, grad = np.ones(4, np.float32), np.ones(4, np.float32)
    assert adam_module._compiled(data, grad, acc) is kernel
    assert adam_module._compiled(data, grad.astype(np.float64), acc) is None
    assert adam_module._compiled(data, grad, dict(acc, moment2_max=acc["moment2"])) is None
    assert adam_module._compiled(np.ones((4, 4)).T, np.ones((4, 4)),
                                 {"moment1": np.zeros((4, 4)),
                                  "moment2": np.zeros((4, 4))}) is None
