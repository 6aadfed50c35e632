"""Behaviour of kthvalue, mode, msort, bucketize, argwhere, isin, unique_consecutive and the
histograms (dygraph/ops/search/order_and_membership.py) beyond the spec table: ties broken as
Paddle 3.3 breaks them, and values Paddle 3.3 gives."""

import numpy as np
import pytest

import dygraph as D


def _t(values, dtype=None, grad=False):
    return D.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def test_kthvalue_and_mode_ties_follow_paddle():
    x = _t([[3.0, 1, 2, 1, 3], [5, 5, 4, 4, 1]])
    v, i = D.kthvalue(x, 2)
    assert v.numpy().tolist() == [1, 4] and i.numpy().tolist() == [3, 2]
    v, i = D.kthvalue(x, 1, axis=0)
    assert i.numpy().tolist() == [0, 0, 0, 0, 1]
    v, i = D.mode(x)
    assert v.numpy().tolist() == [1, 4] and i.numpy().tolist() == [3, 3]
    v, i = D.mode(_t([2.0, 1, 1, 2, 3]))
    assert v.item() == 1 and i.item() == 2 and v.shape == []
    v, i = x.mode(axis=0, keepdim=True)
    assert v.shape == [1, 5]
    with pytest.raises(ValueError, match="kthvalue: k must be"):
        D.kthvalue(x, 6)
    # The gradient goes to the picked element.
    y = _t([3.0, 1.0, 2.0], grad=True)
    D.kthvalue(y, 2)[0].backward()
    assert y.grad.numpy().tolist() == [0, 0, 1]


def test_search_helpers():
    assert D.msort(_t([[3.0, 1], [1, 2]])).numpy().tolist() == [[1, 1], [3, 2]]
    seq = _t([1, 3, 5, 7])
    assert D.bucketize(_t([1, 5, 9]), seq).numpy().tolist() == [0, 2, 4]
    assert D.bucketize(_t([[1, 5]]), seq, right=True).numpy().tolist() == [[1, 3]]
    assert D.argwhere(_t([[0, 1], [2, 0]])).numpy().tolist() == [[0, 1], [1, 0]]
    for op in (D.argwhere, D.nonzero):  # Paddle refuses a 0-D input (ValueError)
        with pytest.raises(ValueError, match="nonzero: x must have at least 1 dim"):
            op(_t(1.0))
    assert D.isin(_t([1.0, 2.0]), _t([2.0]), invert=True).numpy().tolist() == [True, False]
    out, inv, counts = D.unique_consecutive(_t([1, 1, 2, 2, 3, 1, 1]), True, True)
    assert out.numpy().tolist() == [1, 2, 3, 1]
    assert inv.numpy().tolist() == [0, 0, 1, 1, 2, 3, 3]
    assert counts.numpy().tolist() == [2, 2, 1, 2]
    out, counts = D.unique_consecutive(_t([[1, 1], [1, 1], [2, 3]]), axis=0,
                                       return_counts=True)
    assert out.numpy().tolist() == [[1, 1], [2, 3]] and counts.numpy().tolist() == [2, 1]


def test_histograms():
    edges = D.histogram_bin_edges(_t([1.0, 2.0, 5.0], "float32"), bins=4)
    assert edges.numpy().tolist() == [1, 2, 3, 4, 5] and edges.dtype == D.float32
    assert D.histogram_bin_edges(_t([1.0, 2, 5]), 2, 0, 10).numpy().tolist() == [0, 5, 10]
    # as Paddle: float32 edges for any input, one point widened by 0.5 each way, and an
    # empty input without min and max has no range
    edges = D.histogram_bin_edges(_t(2.0, "float64"), bins=4)
    assert edges.dtype == D.float32 and edges.numpy().tolist() == [1.5, 1.75, 2, 2.25, 2.5]
    with pytest.raises(ValueError, match="empty input has no range"):
        D.histogram_bin_edges(D.ones([0, 4]))
    assert D.histogram_bin_edges(D.ones([0, 4]), 2, 0, 1).numpy().tolist() == [0, 0.5, 1]
    with pytest.raises(ValueError, match="histogramdd: an empty x"):
        D.histogramdd(D.ones([0, 2]))
    with pytest.raises(AssertionError, match="histogramdd: x must have shape \\[N, D\\]"):
        D.histogramdd(_t([1.0, 2.0]))
    hist, edges = D.histogramdd(_t([[0.0, 1], [1, 0], [2, 0]], "float32"), bins=2)
    assert hist.numpy().tolist() == [[0, 1], [2, 0]]
    assert [e.numpy().tolist() for e in edges] == [[0, 1, 2], [0, 0.5, 1]]
    hist, _ = D.histogramdd(_t([[0.0, 1], [1, 0], [2, 0]]), bins=[2, 3], ranges=[0, 2, 0, 3],
                            density=True, weights=_t([1.0, 2.0, 1.0]))
    np.testing.assert_allclose(hist.numpy(), [[0, 0.25, 0], [0.75, 0, 0]])


@pytest.mark.parametrize("axis", [0, 1])
def test_mode_matches_a_counting_reference(axis):
    data = np.random.default_rng(0).integers(0, 4, (5, 9))
    v, i = D.mode(_t(data), axis=axis)
    for line, value, index in zip(np.moveaxis(data, axis, 0).T, v.numpy(), i.numpy()):
        values, counts = np.unique(line, return_counts=True)
        want = values[np.argmax(counts)]  # np.unique sorts: the first maximum is smallest
        assert value == want and index == np.flatnonzero(line == want)[-1]
