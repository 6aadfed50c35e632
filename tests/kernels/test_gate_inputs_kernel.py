"""The GPU kernel that adds an LSTM's or GRU's biases to the input projection and scales
the gates for tanh (dygraph/kernels/cuda/gate_inputs.py), checked without a GPU: its body
compiled as host C++ (g++, no contraction, as CuPy compiles it with --fmad=false) and run
over the elements as CuPy runs it, on x @ W^T, against the CPU's array formula
x @ (s * W)^T + s * (b0 + b1) to the bit (the factors are powers of two), and against the
NumPy statement the CuPy stand-in runs."""

import ctypes

import numpy as np
import pytest

from dygraph.kernels.cuda.references import KERNELS
from dygraph.kernels.cuda.registry import KERNEL_SPECS
from dygraph.ops.rnn.arrays import gru_gate_scale, lstm_gate_scale
from tests.kernels.elementwise_c import element_loop, host_library

C_TYPES = {"float32": "float", "float64": "double"}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    text = "".join(element_loop(f"gate_inputs_{dtype}", *KERNEL_SPECS["gate_inputs"],
                                {"width", "split"}, ctype) for dtype, ctype in C_TYPES.items())
    return host_library(tmp_path_factory, "gate_inputs", text)


def _run(library, rows, b0, b1, scale, split):
    out = rows.copy()
    pointer = [a.ctypes.data_as(ctypes.c_void_p) for a in (out, b0, b1, scale, out)]
    getattr(library, f"gate_inputs_{rows.dtype}")(
        pointer[0], pointer[1], pointer[2], pointer[3], ctypes.c_longlong(rows.shape[1]),
        ctypes.c_longlong(split), pointer[4], ctypes.c_longlong(rows.size))
    return out


def _bits(a):
    return a.view(f"u{a.itemsize}")


def _case(dtype, gates, size, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((12, 7)).astype(dtype)
    w = rng.standard_normal((gates * size, 7)).astype(dtype)
    b0, b1 = (rng.standard_normal(gates * size).astype(dtype) for _ in range(2))
    b0[:3], b1[:3] = [-0.0, 0.0, -0.0], [-0.0, -0.0, 0.0]  # signed zeros keep their sign
    return x, w, b0, b1


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("biases", ["both", "input only"])
def test_lstm_gate_inputs_equal_the_array_formula_to_the_bit(library, dtype, biases):
    size = 5
    x, w, b0, b1 = _case(dtype, 4, size, 0)
    scale = lstm_gate_scale(np, size, dtype)
    want = x @ (w * scale[:, None]).T  # the CPU's LSTMLayer.forward
    want += (b0 + b1 if biases == "both" else b0) * scale
    second = b1 if biases == "both" else None
    split = 4 * size if second is not None else 0
    got = _run(library, x @ w.T, b0, b1 if second is not None else b0, scale, split)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    stand_in = x @ w.T
    KERNELS["dygraph_gate_inputs"](stand_in, b0, b1 if second is not None else b0, scale,
                                   4 * size, split, stand_in)
    np.testing.assert_array_equal(_bits(stand_in), _bits(want))


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("biases", ["both", "hidden only"])
def test_gru_gate_inputs_equal_the_array_formula_to_the_bit(library, dtype, biases):
    size = 6
    x, w, b_ih, b_hh = _case(dtype, 3, size, 1)
    if biases == "hidden only":
        b_ih = np.zeros(3 * size, dtype)  # what GRULayer.forward passes for a missing b_ih
    scale = gru_gate_scale(np, size, dtype)
    bias = b_ih.copy()  # the CPU's GRULayer.forward
    bias[:2 * size] += b_hh[:2 * size]
    want = x @ (w * scale[:, None]).T
    want += bias * scale
    got = _run(library, x @ w.T, b_ih, b_hh, scale, 2 * size)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    stand_in = x @ w.T
    KERNELS["dygraph_gate_inputs"](stand_in, b_ih, b_hh, scale, 3 * size, 2 * size, stand_in)
    np.testing.assert_array_equal(_bits(stand_in), _bits(want))
