"""Behaviour of the search and sort ops (dygraph/ops/search/sorting.py), checked against NumPy:
topk, sort and argsort, unique and nonzero, searchsorted, bincount and histogram."""

import numpy as np
import pytest

import dygraph as D

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 6))


def t(a, **kw):
    return D.to_tensor(a, **kw)


# -- topk / sort / argsort ---------------------------------------------------------------

def test_topk_prefers_lower_indices_among_ties():
    values, indices = D.topk(t([1.0, 3.0, 3.0, 2.0, 3.0]), k=2)
    assert values.tolist() == [3.0, 3.0]
    assert indices.tolist() == [1, 2]
    assert indices.dtype == D.int64
    _, smallest = D.topk(t([2, 1, 1, 5]), k=2, largest=False)
    assert smallest.tolist() == [1, 2]


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_numpy(axis, largest):
    values, indices = D.topk(t(X), k=3, axis=axis, largest=largest)
    order = np.argsort(-X if largest else X, axis=axis, kind="stable")
    want = np.take(order, np.arange(3), axis=axis)
    np.testing.assert_array_equal(indices.numpy(), want)
    np.testing.assert_allclose(values.numpy(), np.take_along_axis(X, want, axis))


@pytest.mark.parametrize("largest", [True, False])
def test_topk_on_long_lines_with_ties_matches_a_stable_sort(largest):
    data = RNG.integers(0, 20, (3, 600))  # long lines take the partition-based path
    values, indices = D.topk(t(data), k=25, largest=largest)
    if largest:
        flipped = np.flip(np.argsort(np.flip(data, 1), axis=1, kind="stable"), 1)
        want = (data.shape[1] - 1 - flipped)[:, :25]
    else:
        want = np.argsort(data, axis=1, kind="stable")[:, :25]
    np.testing.assert_array_equal(indices.numpy(), want)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(data, want, 1))
    _, unsorted = D.topk(t(data), k=25, largest=largest, sorted=False)
    np.testing.assert_array_equal(unsorted.numpy(), np.sort(want, axis=1))


def test_topk_unsorted_returns_the_same_set_and_k_as_tensor():
    values, indices = D.topk(t(X), k=t(3), sorted=False)
    ref = np.sort(np.argsort(-X, axis=1)[:, :3], axis=1)
    np.testing.assert_array_equal(np.sort(indices.numpy(), axis=1), ref)
    np.testing.assert_allclose(values.numpy(), np.take_along_axis(X, indices.numpy(), 1))


def test_topk_gradient_goes_to_the_picked_elements():
    x = t([[0.1, 0.9, 0.5], [0.7, 0.2, 0.3]], stop_gradient=False)
    values, _ = D.topk(x, k=2)
    (values * t([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]])


def test_topk_rejects_bad_k_naming_the_shape():
    with pytest.raises(ValueError, match=r"k=7.*\[4, 6\]"):
        D.topk(t(X), k=7)
    with pytest.raises(ValueError, match="k=0"):
        D.topk(t(X), k=0)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        D.topk(t(X), k=1, axis=2)


def test_zero_dim_inputs_sort_as_one_element():
    v, i = D.topk(t(2.5), k=1)
    assert v.shape == [] and i.shape == [] and float(v) == 2.5 and int(i) == 0
    assert D.sort(t(1.5)).shape == []
    assert D.argsort(t(1.5)).tolist() == 0


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_a_stable_numpy_sort(axis, descending):
    data = RNG.integers(0, 3, (5, 7))  # many ties: the order among them must be stable
    idx = D.argsort(t(data), axis=axis, descending=descending)
    if descending:
        flipped = np.flip(np.argsort(np.flip(data, axis), axis=axis, kind="stable"), axis)
        want = data.shape[axis] - 1 - flipped
    else:
        want = np.argsort(data, axis=axis, kind="stable")
    np.testing.assert_array_equal(idx.numpy(), want)
    assert idx.dtype == D.int64
    sorted_values = D.sort(t(data), axis=axis, descending=descending).numpy()
    np.testing.assert_array_equal(sorted_values, np.take_along_axis(data, want, axis))


def test_sort_of_unsigned_and_bool_descending():
    assert D.sort(t(np.array([3, 250, 7], np.uint8)), descending=True).tolist() == [250, 7, 3]
    with pytest.raises(RuntimeError, match="argsort: .*bool"):  # Paddle: no bool kernel
        D.argsort(t([False, True, False]), descending=True)


# -- unique / nonzero --------------------------------------------------------------------

def test_unique_matches_numpy_with_every_output():
    data = np.array([[2, 1, 2], [3, 1, 1]])
    out, index, inverse, counts = D.unique(t(data), return_index=True, return_inverse=True,
                                           return_counts=True)
    w_out, w_index, w_inverse, w_counts = np.unique(data, return_index=True,
                                                    return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), w_out)
    np.testing.assert_array_equal(index.numpy(), w_index)
    np.testing.assert_array_equal(inverse.numpy(), w_inverse.reshape(-1))
    np.testing.assert_array_equal(counts.numpy(), w_counts)
    assert inverse.shape == [6] and index.dtype == D.int64


def test_unique_along_an_axis_with_int32_indices():
    data = np.array([[1, 2], [0, 5], [1, 2]])
    out, inverse = D.unique(t(data), return_inverse=True, axis=0, dtype="int32")
    np.testing.assert_array_equal(out.numpy(), [[0, 5], [1, 2]])
    assert inverse.tolist() == [1, 0, 1] and inverse.dtype == D.int32
    with pytest.raises(TypeError, match="int32 or int64"):
        D.unique(t(data), dtype="float32")


def test_nonzero_as_matrix_and_as_tuple():
    data = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
    coords = D.nonzero(t(data))
    np.testing.assert_array_equal(coords.numpy(), np.argwhere(data))
    assert coords.dtype == D.int64
    rows, cols = D.nonzero(t(data), as_tuple=True)
    assert rows.shape == [3] and cols.shape == [3]  # Paddle 3.3's shape
    np.testing.assert_array_equal(cols.numpy(), np.nonzero(data)[1])


# -- searchsorted / bincount / histogram ----------------------------------------------------

@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_1d_and_batched(right):
    side = "right" if right else "left"
    seq = np.array([1.0, 2.0, 2.0, 4.0])
    vals = np.array([[2.0, 0.5], [4.0, 3.0]])
    out = D.searchsorted(t(seq), t(vals), right=right)
    np.testing.assert_array_equal(out.numpy(), np.searchsorted(seq, vals, side=side))
    batch = np.sort(RNG.integers(0, 6, (3, 5)), axis=1).astype(np.float64)
    queries = RNG.integers(0, 7, (3, 4)).astype(np.float64)
    got = D.searchsorted(t(batch), t(queries), right=right, out_int32=True)
    want = np.stack([np.searchsorted(b, q, side=side) for b, q in zip(batch, queries)])
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.dtype == D.int32


def test_searchsorted_rejects_mismatched_leading_dims():
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[3, 1\]"):
        D.searchsorted(t(np.zeros((2, 3))), t(np.zeros((3, 1))))


def test_bincount_counts_and_weights():
    data = np.array([0, 3, 3, 1])
    np.testing.assert_array_equal(D.bincount(t(data)).numpy(), np.bincount(data))
    out = D.bincount(t(data), minlength=6)
    assert out.shape == [6] and out.dtype == D.int64
    w = np.array([0.5, 1.0, 2.0, 0.25], np.float32)
    weighted = D.bincount(t(data), weights=t(w))
    np.testing.assert_allclose(weighted.numpy(), np.bincount(data, w))
    assert weighted.dtype == D.float32


def test_bincount_errors():
    with pytest.raises(ValueError, match="non-negative"):
        D.bincount(t([1, -2]))
    with pytest.raises(TypeError, match="integer"):
        D.bincount(t([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]"):
        D.bincount(t([1, 2]), weights=t([1.0, 2.0, 3.0]))


def test_histogram_matches_numpy():
    data = RNG.uniform(-2, 2, 50)
    got = D.histogram(t(data), bins=7, min=-1.5, max=1.7)
    want, _ = np.histogram(data, bins=7, range=(-1.5, 1.7))
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.dtype == D.int64
    full = D.histogram(t(data), bins=5)  # min = max = 0: the data's own range
    np.testing.assert_array_equal(full.numpy(), np.histogram(data, bins=5)[0])


def test_histogram_upper_edge_weights_and_density():
    assert D.histogram(t([1, 2, 1]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    w = np.array([1.0, 2.0, 0.5])
    got = D.histogram(t([0.1, 0.9, 0.4]), bins=2, min=0, max=1, weight=t(w))
    np.testing.assert_allclose(got.numpy(), [1.5, 2.0])
    assert got.dtype == D.float32
    dens = D.histogram(t([0.1, 0.9, 0.4]), bins=2, min=0, max=1, density=True)
    np.testing.assert_allclose(dens.numpy(), np.histogram([0.1, 0.9, 0.4], 2, (0, 1),
                                                          density=True)[0])


def test_histogram_errors():
    with pytest.raises(ValueError, match="bins"):
        D.histogram(t([1.0]), bins=0)
    with pytest.raises(ValueError, match="max must be >= min"):
        D.histogram(t([1.0]), min=2, max=1)
