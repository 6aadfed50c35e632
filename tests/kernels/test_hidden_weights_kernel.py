"""The GPU kernel that lays out an LSTM's or GRU's hidden weight for the sequence kernels
(recurrent_sequences.hidden_weights), checked without a GPU: its body compiled as host C++
(g++, as CuPy compiles it) and run over the elements as CuPy runs it, against the array
formulas it replaces (ops/rnn/arrays.py: the LSTM's scaled W^T, the GRU's per-gate W^T with
its r and z blocks halved) to the bit, and against the NumPy statement the CuPy stand-in
runs."""

import ctypes

import numpy as np
import pytest

from dygraph.kernels.cuda.references import KERNELS
from dygraph.kernels.cuda.registry import KERNEL_SPECS
from dygraph.ops.rnn.arrays import lstm_gate_scale
from tests.kernels.elementwise_c import element_loop, host_library

C_TYPES = {"float32": "float", "float64": "double"}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    text = "".join(element_loop(f"hidden_weights_{dtype}", *KERNEL_SPECS["hidden_weights"],
                                {"width", "gates", "per_gate"}, ctype)
                   for dtype, ctype in C_TYPES.items())
    return host_library(tmp_path_factory, "hidden_weights", text)


def _bits(a):
    return a.view(f"u{a.itemsize}")


def _weight(dtype, gates, size):
    rng = np.random.default_rng(gates * size)
    w = rng.standard_normal((gates * size, size)).astype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    w.flat[:4] = [-0.0, tiny, -3 * tiny, np.inf]  # signs, subnormals halved, infinities
    return w


def _run(library, w, per_gate, shape):
    out = np.full(shape, np.nan, w.dtype)
    size = w.shape[1]
    getattr(library, f"hidden_weights_{w.dtype}")(
        w.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(size),
        ctypes.c_longlong(w.shape[0] // size), ctypes.c_bool(per_gate),
        out.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(out.size))
    return out


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("size", [1, 5])
def test_the_lstm_layout_is_the_array_formula_to_the_bit(library, dtype, size):
    w = _weight(dtype, 4, size)
    want = np.ascontiguousarray((w * lstm_gate_scale(np, size, dtype)[:, None]).T)
    got = _run(library, w, False, want.shape)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    stand_in = np.empty_like(want)
    KERNELS["dygraph_hidden_weights"](w, size, 4, False, stand_in)
    np.testing.assert_array_equal(_bits(stand_in), _bits(want))


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("size", [1, 5])
def test_the_gru_layout_is_the_array_formula_to_the_bit(library, dtype, size):
    w = _weight(dtype, 3, size)
    want = np.ascontiguousarray(w.reshape(3, size, size).transpose(0, 2, 1))
    want[:2] *= 0.5
    got = _run(library, w, True, want.shape)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    stand_in = np.empty_like(want)
    KERNELS["dygraph_hidden_weights"](w, size, 3, True, stand_in)
    np.testing.assert_array_equal(_bits(stand_in), _bits(want))
