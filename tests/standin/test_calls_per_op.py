"""How many CuPy calls DyGraph's common ops make on the GPU path, counted on the CuPy
stand-in, at a size the CPU path takes from its workspace (backend/workspace.py): on CuPy an
op allocates its result itself (`workspace.result`), so no separate `empty` comes before
the op's own call; and the results equal the CPU's."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from tools import cupy_standin

N = 256  # 65,536 elements: above POOLED_SIZE

# (op on tensors a and b, the CuPy calls it makes by name)
CASES = {
    "add": (lambda a, b: a + b, {"add": 1}),
    "multiply": (lambda a, b: a * b, {"multiply": 1}),
    "relu": (lambda a, b: F.relu(a), {"maximum": 1}),
    "relu6": (lambda a, b: F.relu6(a), {"clip": 1}),
    "matmul": (lambda a, b: dygraph.matmul(a, b), {"matmul": 1}),
    "batched matmul": (lambda a, b: dygraph.matmul(a.reshape([4, 64, N]),
                                                   b.reshape([4, N, 64])),
                       {"matmul": 1, "reshape": 2, "copy": 2}),  # the reshapes copy
    "linear over 3 dims": (lambda a, b: F.linear(a.reshape([4, 64, N]), b),
                           {"matmul": 1, "reshape": 3, "copy": 1}),
    "linear": (lambda a, b: F.linear(a, b), {"matmul": 1}),
    "transpose": (lambda a, b: dygraph.transpose(a, [1, 0]),
                  {"transpose": 1, "ascontiguousarray": 1}),
    "reshape": (lambda a, b: dygraph.reshape(a, [-1]), {"reshape": 1, "copy": 1}),
    "reshape of a transpose": (
        lambda a, b: dygraph.reshape(dygraph.transpose(a, [1, 0]), [-1]),
        {"transpose": 1, "ascontiguousarray": 1, "reshape": 1, "copy": 1}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_big_op_makes_its_own_calls_only(name):
    op, calls = CASES[name]
    rng = np.random.default_rng(0)
    a_host, b_host = (rng.standard_normal((N, N)).astype(np.float32) for _ in range(2))
    want = op(dygraph.to_tensor(a_host), dygraph.to_tensor(b_host)).numpy()
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            a, b = dygraph.to_tensor(a_host), dygraph.to_tensor(b_host)
            before = dict(cupy_standin.calls_by_name)
            out = op(a, b)
            made = {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()
                    if v != before.get(k, 0)}
            got = out.numpy()
        finally:
            dygraph.set_device("cpu")
    assert made == calls
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
