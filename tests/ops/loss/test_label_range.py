"""Class-index labels outside [0, classes) (and not ignore_index): cross_entropy and
nll_loss raise naming the op, the range and the first bad value, as an error that is both
Paddle 3.3.1's IndexError (cross_entropy's OutOfRange) and ValueError (nll_loss's
InvalidArgument); labels equal to ignore_index pass. On a GPU (the CuPy stand-in) the check
is one reduction, the largest label read as unsigned, and one read of it."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.framework.errors import IndexValueError
from tools import cupy_standin

BAD = [([0, 1, 2, 3], 3), ([0, -1, 1, 2], -1), ([2, 0, 7, -5], 7)]


def _losses(x, label, **kwargs):
    yield "cross_entropy", lambda: F.cross_entropy(x, label, **kwargs)
    yield "nll_loss", lambda: F.nll_loss(F.log_softmax(x), label, **kwargs)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("labels, first", BAD)
def test_a_label_outside_the_classes_raises_naming_it(dtype, labels, first):
    x = dygraph.to_tensor(np.random.default_rng(0).standard_normal((4, 3)).astype("float32"))
    label = dygraph.to_tensor(np.array(labels, dtype))
    for op, loss in _losses(x, label):
        with pytest.raises(IndexValueError, match=rf"{op}: label values must lie in \[0, 3\) "
                           rf"or equal ignore_index=-100; got {first} \(input shape \[4, 3\]"):
            loss()
    assert issubclass(IndexValueError, IndexError) and issubclass(IndexValueError, ValueError)


@pytest.mark.parametrize("ignore_index, labels", [(-100, [0, -100, 2, 1]), (1, [0, 1, 2, 1]),
                                                  (-1, [-1, 2, -1, 0])])
def test_labels_equal_to_ignore_index_pass(ignore_index, labels):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3)).astype("float32")
    label = np.array(labels)
    kept = label != ignore_index
    shifted = x - x.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    want = -log_p[np.arange(4)[kept], label[kept]].mean()
    for _, loss in _losses(dygraph.to_tensor(x), dygraph.to_tensor(label),
                           ignore_index=ignore_index):
        np.testing.assert_allclose(float(loss()), want, rtol=1e-6)


@pytest.mark.parametrize("labels, first", BAD)
def test_on_the_gpu_the_check_is_one_reduction_and_one_read(labels, first):
    rng = np.random.default_rng(2)
    x, good = rng.standard_normal((4, 3)).astype("float32"), np.array([0, 2, 1, 2])
    with cupy_standin.installed():
        dygraph.set_device("gpu:0")
        try:
            xt = dygraph.to_tensor(x)
            F.cross_entropy(xt, dygraph.to_tensor(good))  # built once
            reads, calls = cupy_standin.stats["host_reads"], dict(cupy_standin.calls_by_name)
            loss = F.cross_entropy(xt, dygraph.to_tensor(good))
            made = {k: v - calls.get(k, 0) for k, v in cupy_standin.calls_by_name.items()}
            assert cupy_standin.stats["host_reads"] - reads == 1
            assert made.get("max", 0) == 1 and made.get("min", 0) == 0
            with pytest.raises(IndexValueError, match=f"got {first} "):
                F.cross_entropy(xt, dygraph.to_tensor(np.array(labels)))
            value = float(loss)
        finally:
            dygraph.set_device("cpu")
    np.testing.assert_allclose(value, float(F.cross_entropy(dygraph.to_tensor(x),
                                                            dygraph.to_tensor(good))), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_narrow_signed_labels_with_more_classes_than_their_sign_bit(dtype):
    """int8 labels with 300 classes: a negative label read as unsigned (255) would be a
    class; the check takes the min and the max there."""
    classes = 300 if dtype == "int8" else 40000
    x = dygraph.to_tensor(np.random.default_rng(4).standard_normal((3, classes))
                          .astype("float32"))
    with pytest.raises(IndexValueError, match="got -1 "):
        F.cross_entropy(x, dygraph.to_tensor(np.array([1, -1, 5], dtype)))
    ignored = F.cross_entropy(x, dygraph.to_tensor(np.array([1, -100, 5], dtype)))
    wide = F.cross_entropy(x, dygraph.to_tensor(np.array([1, -100, 5], "int64")))
    np.testing.assert_allclose(float(ignored), float(wide), rtol=1e-6)
