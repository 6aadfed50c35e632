"""The NumPy statements of the CUDA kernels (dygraph/kernels/cuda/references.py), which
tests/gpu compares the kernels with and the CuPy stand-in runs; and the kernels' CUDA C,
compiled with nvcc where it is installed."""

import shutil
import subprocess

import numpy as np
import pytest

from dygraph.kernels.cuda import registry
from dygraph.kernels.cuda.references import KERNELS, philox4x32, philox_uniform
from tests.kernels.elementwise_c import c_parameters

# Known answers of Philox4x32-10 from its authors' Random123 test vectors.
_KNOWN = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
          ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2,
           (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
          ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
           (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


@pytest.mark.parametrize("counter, key, expected", _KNOWN)
def test_philox_gives_the_known_answers(counter, key, expected):
    words = philox4x32(*(np.uint64(c) for c in counter), *(np.uint64(k) for k in key))
    assert tuple(int(w) for w in words) == expected


def test_the_uniform_draws_are_the_first_words_top_bits():
    u = philox_uniform(0, np.zeros(1, np.uint64))
    assert u.dtype == np.float32 and u[0] == np.float32((0x6627E8D5 >> 8) / 2 ** 24)
    key = 0xA4093822 | (0x299F31D0 << 32)
    counters = np.array([5, 1 << 40], np.uint64)
    words = philox4x32(counters & np.uint64(0xFFFFFFFF), counters >> np.uint64(32),
                       np.zeros(2, np.uint64), np.zeros(2, np.uint64),
                       np.uint64(0xA4093822), np.uint64(0x299F31D0))[0]
    np.testing.assert_array_equal(philox_uniform(key, counters),
                                  (words >> np.uint64(8)).astype(np.float32) / 2 ** 24)


def test_dropout_mask_keeps_one_minus_p_and_follows_the_counter():
    state = np.array([123, 0], np.uint64)
    keep = np.empty((64, 1024), np.float32)
    KERNELS["dygraph_dropout_mask"](state, np.float32(0.3), np.float32(2.0), keep)
    assert set(np.unique(keep)) == {0.0, 2.0}
    rate = float((keep != 0).mean())
    assert abs(rate - 0.7) < 4 * np.sqrt(0.21 / keep.size)  # four standard errors
    later = np.empty(1024, np.float32)
    KERNELS["dygraph_dropout_mask"](np.array([123, 1024], np.uint64), np.float32(0.3),
                                    np.float32(2.0), later)
    np.testing.assert_array_equal(later, keep[1])  # element i draws counter base + i
    other = np.empty_like(keep)
    KERNELS["dygraph_dropout_mask"](np.array([124, 0], np.uint64), np.float32(0.3),
                                    np.float32(2.0), other)
    assert (other != keep).mean() > 0.3  # another key, other draws


def _harness(name, in_params, out_params, body):
    """The kernel's body in a CUDA function shaped as CuPy shapes an ElementwiseKernel:
    raw parameters as pointers, the others as references to element i."""
    params, bind = c_parameters(in_params, out_params)
    floats = ", ".join(p.replace("T*", "float*") for p in params)
    return (f"template <typename T> __global__ void {name}({', '.join(params)}, "
            f"long long size) {{\n"
            f"  for (ptrdiff_t i = blockIdx.x * blockDim.x + threadIdx.x; i < size; "
            f"i += blockDim.x * gridDim.x) {{\n  {' '.join(bind)}\n{body}\n  }}\n}}\n"
            f"template __global__ void {name}<float>({floats}, long long);\n")


def _kernels():
    return [(name, *spec) for name, spec in registry.KERNEL_SPECS.items()]


def test_every_kernel_has_a_reference():
    names = {f"dygraph_{name}" for name, *_ in _kernels()}
    names |= {f"dygraph_{name}_{dtype}" for name in registry.ROW_KERNEL_SPECS
              for dtype in registry.ROW_TYPES}
    assert len(names) == 20 + 10 * 2 and names == set(KERNELS)  # element-wise; rows by dtype


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_kernels_cuda_compiles(tmp_path):
    source = "#include <cstddef>\n" + "".join(_harness(*k) for k in _kernels())
    path = tmp_path / "kernels.cu"
    path.write_text(source)
    done = subprocess.run(["nvcc", "-ptx", "-arch=compute_90", str(path), "-o",
                           str(tmp_path / "kernels.ptx")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + source


def test_bfloat16_rounding_matches_ml_dtypes_to_the_bit():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from dygraph.kernels.cuda.references import round_bfloat16

    rng = np.random.default_rng(0)
    bits = np.concatenate([
        rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32),
        np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                  0x7F800001, 0xFFC12345, 0x00000001, 0x80000000, 0x00008000], np.uint32)])
    x = bits.view(np.float32)
    with np.errstate(invalid="ignore"):  # the NaNs among the patterns
        want = x.astype(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(round_bfloat16(x).view(np.uint32), want)
