"""The CuPy stand-in (tools/cupy_standin/) keeps the rules of CuPy that the GPU tests in
tests/standin rely on: if it let through what CuPy refuses, those tests could not fail."""

import numpy as np
import pytest

from tools import cupy_standin

cp = cupy_standin.module()


def _capture(body):
    stream = cp.cuda.Stream()
    stream.begin_capture()
    try:
        body()
    finally:
        graph = stream.end_capture()
    return graph


def test_device_and_host_arrays_do_not_mix_in_a_ufunc():
    with pytest.raises(TypeError, match="Unsupported type"):
        cp.ones(2) + np.ones(2)
    assert type(cp.ones(2) + np.float32(1)) is cupy_standin.ndarray  # scalars mix


@pytest.mark.parametrize("read", [float, bool, lambda a: a.get(), lambda a: a.item(),
                                  lambda a: cp.asnumpy(a)])
def test_reading_a_device_value_on_the_host_is_refused_while_capturing(read):
    a = cp.ones(())
    assert float(read(a)) == 1.0
    with pytest.raises(RuntimeError, match="D2H transfers are disallowed"):
        _capture(lambda: read(a))


@pytest.mark.parametrize("make", [lambda: cp.asarray(np.ones(2)), lambda: cp.asarray(0.5),
                                  lambda: cp.ones(2)[np.array([0, 1])]])
def test_a_copy_from_the_host_goes_through_the_pinned_allocator(make):
    refused = []

    def refuse(size):
        refused.append(size)
        raise RuntimeError("no copy from the host")

    cp.cuda.set_pinned_memory_allocator(refuse)
    try:
        with pytest.raises(RuntimeError, match="no copy from the host"):
            make()
    finally:
        cp.cuda.set_pinned_memory_allocator(None)
    assert refused and make() is not None


def test_products_through_the_operator_and_cusolver_are_refused_while_capturing():
    a = cp.eye(2)
    with pytest.raises(NotImplementedError, match="cuBLAS"):
        _capture(lambda: a @ a)
    with pytest.raises(NotImplementedError, match="cuBLAS"):
        _capture(lambda: a.dot(a))
    with pytest.raises(NotImplementedError, match="cuSOLVER"):
        _capture(lambda: cp.linalg.inv(a))
    _capture(lambda: cp.matmul(a, a))  # rerouted to cuBLAS by DyGraph's capture


@pytest.mark.parametrize("shape_from_values", [
    lambda a: cp.nonzero(a), lambda a: a[a > 0], lambda a: cp.unique(a),
    lambda a: cp.random.random(2)])
def test_data_dependent_shapes_and_random_draws_are_refused_while_capturing(
        shape_from_values):
    a = cp.arange(3.0)
    shape_from_values(a)
    with pytest.raises(RuntimeError):
        _capture(lambda: shape_from_values(a))


def test_a_graph_replays_its_calls_on_the_same_arrays():
    x = cp.zeros(3)
    out = {}

    def step():
        y = cp.exp(x)
        y += 1.0
        out["y"] = y

    graph = _capture(step)
    x[...] = cp.arange(3.0)
    graph.launch()
    np.testing.assert_allclose(out["y"].get(), np.exp(np.arange(3.0)) + 1.0)


def test_what_a_capture_wrote_is_undone_as_a_real_capture_runs_nothing():
    counter = cp.zeros(1)

    def advance():
        counter[...] += 5.0

    graph = _capture(advance)
    assert float(counter[0]) == 0.0  # captured, not run
    graph.launch()
    graph.launch()
    assert float(counter[0]) == 10.0


def test_calls_are_counted():
    before = cupy_standin.stats["calls"]
    a = cp.ones(4)
    (a * 2).sum()
    assert cupy_standin.stats["calls"] - before == 3


def test_integer_array_indices_wrap_around_as_cupys_do():
    a = cp.arange(4.0)
    index = cp.asarray(np.array([1, 5, -1]))
    np.testing.assert_array_equal(a[index].get(), [1.0, 1.0, 3.0])
    np.testing.assert_array_equal(cp.take(a, index).get(), [1.0, 1.0, 3.0])


@pytest.mark.parametrize("ufunc, dtype", [("add", np.int64), ("add", np.complex64),
                                          ("add", np.int8), ("maximum", np.int64),
                                          ("maximum", np.float16), ("minimum", np.bool_)])
def test_ufunc_at_takes_only_the_dtypes_of_cupys_scatter_kernels(ufunc, dtype):
    a = cp.zeros(3, dtype)
    with pytest.raises(TypeError, match="only supports"):
        getattr(cp, ufunc).at(a, cp.asarray(np.array([0, 0])), cp.ones(2, dtype))
    getattr(cp, ufunc).at(cp.zeros(3, np.float32), cp.asarray(np.array([0, 0])),
                          cp.ones(2, np.float32))
    with pytest.raises(NotImplementedError):
        cp.multiply.at(cp.ones(3, np.float32), cp.asarray(np.array([0])), cp.ones(1))


def test_a_capture_holds_the_kernels_and_not_the_views():
    """Views (reshape where the strides allow, transpose, a basic slice) and questions about
    arrays are made on the host: a CUDA graph holds the kernels alone, and a replay still
    reads through the views the kernels were given."""
    x = cp.arange(6.0)
    out = {}

    def body():
        grid = x.reshape(2, 3)                  # a view
        cp.may_share_memory(grid, x)            # no array made
        doubled = grid.T * 2.0                  # a view, then a kernel
        out["y"] = doubled[1:].reshape(-1)      # a view, then a copy (a kernel)

    graph = _capture(body)
    assert len(graph.records) == 2
    x[...] = cp.ones(6)
    before = cupy_standin.stats["graph_calls"]
    graph.launch()
    assert cupy_standin.stats["graph_calls"] - before == 2
    np.testing.assert_allclose(out["y"].get(), np.full(4, 2.0))
