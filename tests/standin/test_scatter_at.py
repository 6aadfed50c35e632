"""backend/scatter_at.py on the CuPy stand-in, which refuses `ufunc.at` for the dtypes
CuPy's scatter kernels lack: every dtype gives NumPy's `ufunc.at` result, with repeated
indices, wrap-around of small integers and int64 values beyond 2**53 included; and the ops
built on it (scatter with repeats, put_along_axis, graph reductions on int64 features)
give the CPU's numbers on the GPU without a read on the host."""

import numpy as np
import pytest

import dygraph
from dygraph.backend.scatter_at import add_at, bincount, extreme_at
from tests.standin.conftest import no_host_copies
from tools import cupy_standin

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _values(dtype, n):
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        big = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        big[:3] = [info.max, info.max, info.min]  # wrap-around and the extremes
        return big
    values = rng.standard_normal(n).astype(dtype)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(n).astype(dtype)
    return values


INDEX = np.array([0, 0, 4, 1, 4, 4, 2, 0, 3, 1, 1, 4])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("reduce", ["add", "max", "min"])
def test_every_dtype_gives_numpys_ufunc_at(standin_gpu, dtype, reduce):
    if reduce != "add" and np.dtype(dtype).kind == "c":
        pytest.skip("complex numbers have no order")
    cp = standin_gpu
    start, values = _values(dtype, 5), _values(dtype, INDEX.size)[::-1].copy()
    want = start.copy()
    with np.errstate(over="ignore"):
        {"add": np.add, "max": np.maximum, "min": np.minimum}[reduce].at(want, INDEX, values)
    out = cp.asarray(start)
    index, device_values = cp.asarray(INDEX), cp.asarray(values)
    with no_host_copies(cp):
        if reduce == "add":
            add_at(cp, out, index, device_values)
        else:
            extreme_at(cp, reduce, out, index, device_values)
    got = out.get()
    assert got.dtype == want.dtype
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def test_bincount_reads_nothing_on_the_host(standin_gpu):
    cp = standin_gpu
    index = cp.asarray(np.array([3, 0, 3, 3]))
    reads = cupy_standin.stats["host_reads"]
    counts = bincount(cp, index, 6)
    assert cupy_standin.stats["host_reads"] == reads
    np.testing.assert_array_equal(counts.get(), [1, 0, 0, 3, 0, 0])
    assert counts.dtype == np.int64


def _int64_ops():
    x = dygraph.to_tensor(np.array([[1, 2], [3, 4], [5, 6]], np.int64) * (2 ** 40))
    index = dygraph.to_tensor(np.array([0, 2, 0, 1]))
    rows = dygraph.to_tensor(np.array([[7, 8]] * 4, np.int64) * (2 ** 41))
    src = dygraph.to_tensor(np.array([0, 1, 2, 0]))
    dst = dygraph.to_tensor(np.array([1, 1, 0, 2]))
    return [dygraph.scatter(x, index[:2], rows[:2]),
            # repeated rows: the last write wins, on the GPU too
            dygraph.scatter(x, dygraph.to_tensor(np.array([1, 2, 1])),
                            dygraph.to_tensor(np.array([[1, 2], [3, 4], [5, 6]], np.int64)),
                            overwrite=True),
            dygraph.put_along_axis(x, dygraph.to_tensor(np.array([[1, 1], [0, 0], [1, 0]])),
                                   dygraph.to_tensor(np.array([[1, 2], [3, 4], [5, 6]])), 1),
            dygraph.scatter(x, dygraph.to_tensor(np.array([1, 1])), rows[:2], overwrite=False),
            dygraph.put_along_axis(x, dygraph.to_tensor(np.array([[1, 0], [1, 1], [0, 0]])),
                                   dygraph.to_tensor(np.int64(9)), 1, "add"),
            dygraph.geometric.send_u_recv(x, src, dst, "max"),
            dygraph.geometric.send_u_recv(x, src, dst, "min"),
            dygraph.geometric.send_u_recv(x, src, dst, "mean")]


def test_int64_scatters_and_graph_reductions_match_the_cpu(standin_gpu):
    dygraph.set_device("cpu")
    want = [t.numpy() for t in _int64_ops()]
    dygraph.set_device("gpu:0")
    reads = cupy_standin.stats["host_reads"]
    got = _int64_ops()
    assert all(dygraph.backend.is_gpu_array(t._data) for t in got)
    index_reads = cupy_standin.stats["host_reads"] - reads
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
    # One read of (min, max) per index checked (3 scatters, 2 put_along_axis, 3 graph ops
    # with two indices each) and nothing else: no read of repeated positions or counts.
    assert index_reads == 11
