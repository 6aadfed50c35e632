"""Segment reductions beyond the recorded cases: empty data, static programs (the row count
read from the ids at each run) and the checks of the ids."""

import numpy as np
import pytest

import dygraph
import dygraph.geometric as G
from dygraph import static

REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _reference(data, ids, reduce):
    rows = int(ids[-1]) + 1 if len(ids) else 0
    out = np.zeros((rows,) + data.shape[1:], data.dtype)
    for r in range(rows):
        if (ids == r).any():
            out[r] = REDUCTIONS[reduce](data[ids == r], axis=0)
    return out


@pytest.mark.parametrize("reduce", list(REDUCTIONS))
def test_empty_data_gives_no_rows(reduce):
    """Paddle 3.3 crashes here; no ids means no segments."""
    out = getattr(G, f"segment_{reduce}")(dygraph.zeros([0, 3]),
                                          dygraph.to_tensor(np.zeros(0, np.int64)))
    assert out.shape == [0, 3]


@pytest.mark.parametrize("reduce", list(REDUCTIONS))
def test_static_program_reads_the_row_count_at_each_run(reduce):
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            data = static.data("data", [None, 2], "float64")
            ids = static.data("ids", [None], "int64")
            data.stop_gradient = False
            out = getattr(G, f"segment_{reduce}")(data, ids)
            (grad,) = static.gradients([(out * out).sum()], [data])
    finally:
        dygraph.disable_static()
    assert out.shape[0] == -1
    rng = np.random.default_rng(0)
    for ids_value in (np.array([0, 0, 1, 3, 3]), np.array([0, 2, 2, 2, 5, 5, 7])):
        values = rng.standard_normal((len(ids_value), 2))
        got, got_grad = static.Executor().run(main, feed={"data": values, "ids": ids_value},
                                              fetch_list=[out, grad])
        np.testing.assert_allclose(got, _reference(values, ids_value, reduce))
        eager_data = dygraph.to_tensor(values, stop_gradient=False)
        eager = getattr(G, f"segment_{reduce}")(eager_data, dygraph.to_tensor(ids_value))
        (eager * eager).sum().backward()
        np.testing.assert_allclose(got_grad, eager_data.grad.numpy())


@pytest.mark.parametrize("ids, kind, words", [
    ([1, 0, 1, 1], ValueError, "sorted"),
    ([0, 0, 1, -1], ValueError, "last id is -1"),
    ([-2, 0, 1, 1], IndexError, "first id is -2"),
    ([0, 1, 1], ValueError, "one id per row"),
])
def test_bad_ids_are_refused(ids, kind, words):
    with pytest.raises(kind, match=words):
        G.segment_mean(dygraph.ones([4, 2]), dygraph.to_tensor(ids))


def test_gradients_reach_every_row_of_a_segment():
    data = dygraph.to_tensor([[1.0], [4.0], [4.0], [2.0]], stop_gradient=False)
    ids = dygraph.to_tensor([0, 0, 0, 1])
    (G.segment_max(data, ids).sum() + G.segment_mean(data, ids).sum() * 3).backward()
    # The maximum 4 is tied: each tied row gets the whole gradient, as in Paddle.
    np.testing.assert_allclose(data.grad.numpy().ravel(), [1.0, 2.0, 2.0, 4.0])
