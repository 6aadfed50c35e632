"""The GPU kernels that round float32 values to bfloat16 (dygraph/kernels/cuda/precision.py),
checked without a GPU: each body compiled as host C++ (g++) and run over its elements as
CuPy runs it (`i` the element, raw arrays indexed flat), then compared to the bit with
ml_dtypes' conversion, and with the NumPy statements the CuPy stand-in runs
(dygraph/kernels/cuda/references.py)."""

import ctypes

import numpy as np
import pytest

from dygraph.kernels.cuda.references import KERNELS
from dygraph.kernels.cuda.registry import KERNEL_SPECS
from tests.kernels.elementwise_c import element_loop, host_library

ml_dtypes = pytest.importorskip("ml_dtypes")

SCALARS = {"round_bfloat16": set(), "round_bfloat16_4": {"n0", "n1", "n2"}}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    # The CUDA intrinsics the bodies use, as bit casts on the host.
    text = ("#include <cstring>\n"
            "static unsigned int __float_as_uint(float f) { unsigned int u; "
            "std::memcpy(&u, &f, 4); return u; }\n"
            "static float __uint_as_float(unsigned int u) { float f; "
            "std::memcpy(&f, &u, 4); return f; }\n"
            + "".join(element_loop(name, *KERNEL_SPECS[name], SCALARS[name])
                      for name in SCALARS))
    return host_library(tmp_path_factory, "precision", text)


def _pointer(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _patterns(n, seed):
    """Random bit patterns (NaNs, infinities and subnormals among them) and the cases at
    the edges: ties to even each way, the largest finite values, signalling NaN."""
    rng = np.random.default_rng(seed)
    bits = np.concatenate([
        rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32),
        np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                  0x7F800001, 0xFFC12345, 0x00000001, 0x80000000, 0x00008000], np.uint32)])
    return bits.view(np.float32)


def _bfloat16_bits(x):
    with np.errstate(invalid="ignore"):  # the NaNs among the patterns
        return x.astype(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32)


def test_one_array_rounds_as_ml_dtypes(library):
    x = _patterns(5000, 0)
    y = np.empty_like(x)
    library.round_bfloat16(_pointer(x), _pointer(y), ctypes.c_longlong(x.size))
    np.testing.assert_array_equal(y.view(np.uint32), _bfloat16_bits(x))


# Segment sizes: unequal, one element, empty ones (between and at the end), as an op with
# two or three operands fills the four slots.
SEGMENTS = [(7, 1, 300, 33), (5000, 12, 1, 0), (64, 0, 9, 0), (1, 1, 1, 1), (0, 0, 0, 40)]


def _four(arrays, sizes):
    """Arrays for the four slots (a one-element stand-in where a slot is empty: a pointer to
    pass) and new outputs of their shapes."""
    arrays = [a if a.size else np.zeros(1, np.float32) for a in arrays]
    return arrays, [np.full(a.shape, np.nan, np.float32) for a in arrays]


@pytest.mark.parametrize("sizes", SEGMENTS)
def test_four_arrays_in_one_launch_round_each_in_its_place(library, sizes):
    sources = [np.roll(_patterns(n, seed), 11)[:n] for seed, n in enumerate(sizes)]  # edges first
    arrays, outs = _four(sources, sizes)
    library.round_bfloat16_4(*(_pointer(a) for a in arrays),
                             *(ctypes.c_longlong(n) for n in sizes[:3]),
                             *(_pointer(y) for y in outs), ctypes.c_longlong(sum(sizes)))
    for x, n, y in zip(sources, sizes, outs):
        np.testing.assert_array_equal(y[:n].view(np.uint32), _bfloat16_bits(x))
    arrays, outs = _four(sources, sizes)
    KERNELS["dygraph_round_bfloat16_4"](*arrays, *sizes[:3], *outs, size=sum(sizes))
    for x, n, y in zip(sources, sizes, outs):
        np.testing.assert_array_equal(y[:n].view(np.uint32), _bfloat16_bits(x))


def test_the_reference_reads_strided_arrays_in_c_order():
    """CuPy indexes a raw array by its shape and strides: element j is the j-th in C order,
    and the NumPy statement reads it so too."""
    x = _patterns(60, 1)[:60].reshape(6, 10)
    w, b = x.T, x[::2, 1]  # not contiguous
    outs = [np.empty(w.shape, np.float32), np.empty(b.shape, np.float32)]
    KERNELS["dygraph_round_bfloat16_4"](w, b, w, w, w.size, b.size, 0, *outs, outs[0], outs[0],
                                        size=w.size + b.size)
    np.testing.assert_array_equal(outs[0].view(np.uint32), _bfloat16_bits(w))
    np.testing.assert_array_equal(outs[1].view(np.uint32), _bfloat16_bits(b))
