"""The GPU kernel that copies up to eight arrays end to end into one flat array
(dygraph/kernels/cuda/flat_copies.py), checked without a GPU: its body compiled as host
C++ (g++) and run over the elements as CuPy runs it (`i` the element, raw arrays indexed
flat), against the arrays themselves and against the NumPy statement the CuPy stand-in
runs; and its wrapper's grouping by eight on the stand-in."""

import ctypes

import numpy as np
import pytest

from dygraph.kernels.cuda.references import KERNELS
from dygraph.kernels.cuda.registry import KERNEL_SPECS
from tests.kernels.elementwise_c import element_loop, host_library

C_TYPES = {"float32": "float", "float64": "double"}
COUNTS = {f"n{k}" for k in range(7)} | {"start"}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    text = "".join(element_loop(f"copy_into_flat_8_{dtype}", *KERNEL_SPECS["copy_into_flat_8"],
                                COUNTS, ctype) for dtype, ctype in C_TYPES.items())
    return host_library(tmp_path_factory, "flat_copies", text)


# Segment sizes: all eight slots, fewer with the rest empty (as the wrapper pads), empty
# ones between, one element each.
SEGMENTS = [(3, 7, 1, 12, 5, 2, 9, 4), (6, 0, 4, 0, 0, 0, 0, 0), (0, 5, 0, 1, 0, 0, 0, 0),
            (1,) * 8, (0,) * 7 + (10,)]


@pytest.mark.parametrize("dtype", list(C_TYPES))
@pytest.mark.parametrize("sizes", SEGMENTS)
def test_each_array_lands_in_its_range(library, dtype, sizes):
    rng = np.random.default_rng(sum(sizes))
    arrays = [rng.standard_normal(n).astype(dtype) for n in sizes]
    slots = [a if a.size else np.zeros(1, dtype) for a in arrays]  # a pointer to pass
    want = np.concatenate(arrays)
    start = 3  # where in y the range begins: the elements before it stay untouched
    got = np.full(start + want.size + 2, np.nan, dtype)
    getattr(library, f"copy_into_flat_8_{dtype}")(
        *(a.ctypes.data_as(ctypes.c_void_p) for a in slots),
        *(ctypes.c_longlong(n) for n in sizes[:7]), ctypes.c_longlong(start),
        got.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(want.size))
    np.testing.assert_array_equal(got[start:start + want.size], want)
    assert np.isnan(got[:start]).all() and np.isnan(got[start + want.size:]).all()
    statement = np.full(got.size, np.nan, dtype)
    KERNELS["dygraph_copy_into_flat_8"](*slots, *sizes[:7], start, statement, size=want.size)
    np.testing.assert_array_equal(statement[start:start + want.size], want)
    assert np.isnan(statement[:start]).all() and np.isnan(statement[start + want.size:]).all()


@pytest.mark.parametrize("count", [1, 6, 8, 11])
def test_the_wrapper_takes_eight_a_launch_in_c_order(count):
    """Arrays of mixed shapes and layouts (transposed, sliced) on the CuPy stand-in: a
    launch for each eight, and each array's values in C order in its place."""
    from dygraph.kernels.cuda import flat_copies
    from tools import cupy_standin

    cp = cupy_standin.module()
    rng = np.random.default_rng(count)
    hosts = []
    for k in range(count):
        a = rng.standard_normal((3, 4))
        hosts.append(a.T if k % 3 == 1 else a[:, ::2] if k % 3 == 2 else a[k % 2])
    with cupy_standin.installed():
        arrays = [cp.asarray(np.ascontiguousarray(h)) for h in hosts]
        arrays = [a.T if k % 3 == 1 else a for k, a in enumerate(arrays)]  # strided too
        hosts = [h.T if k % 3 == 1 else h for k, h in enumerate(hosts)]
        out = cp.empty(sum(a.size for a in arrays))
        before = cupy_standin.calls_by_name["copy_into_flat_8"]
        flat_copies.copy_into_flat(out, arrays)
        launches = cupy_standin.calls_by_name["copy_into_flat_8"] - before
        got = out.get()
    assert launches == -(-count // 8)
    np.testing.assert_array_equal(got, np.concatenate([h.ravel() for h in hosts]))
