"""paddle.sparse on DyGraph against the results Paddle 3.3 recorded
(tools/record_sparse_refs.py -> tests/data/sparse_refs.json): outputs (layout, shape,
dtype, index arrays, values), the gradients of every float input, and the exceptions
Paddle raises for bad arguments.

Gradients are compared as dense arrays: Paddle's gradient of a sparse input is sometimes
dense (after to_sparse_coo of a CSR tensor) or holds only the entries that reached the
output (after slice); DyGraph's always has the input's structure (tests/sparse/
test_autograd.py checks that), with the same numbers.
"""

import builtins

import numpy as np
import pytest

import dygraph
from tests.sparse.refs import (
    REFS,
    as_record,
    assert_same,
    build,
    call,
    dense_of,
    gradients,
    label,
)

CASES = REFS["cases"]

# Where DyGraph answers otherwise on purpose (docs in dygraph/sparse), by case label: what
# DyGraph does instead is checked by the test named.
DIFFERENT = {
    # A COO sum over everything: Paddle's indices are [1] and values 0-D (an index array
    # of the wrong rank); DyGraph's are [[0]] and [total] (test_sum_of_everything).
    "sparse.sum(coo[4, 5])",
    # A dense tensor's nnz(): Paddle raises SystemError, DyGraph a TypeError naming the
    # layout that has it (test_dense_tensor_methods).
    "Tensor.nnz(dense[4, 5])",
    # is_coalesced of sorted, unrepeated indices made by sparse_coo_tensor: Paddle's flag
    # is only set by some ops, DyGraph looks at the indices (test_is_coalesced).
    "Tensor.is_coalesced(coo[4, 5])",
    "Tensor.is_coalesced(coo[2, 3, 4])",
}
# Functions whose input gets no gradient in Paddle 3.3; DyGraph's gets one
# (tests/sparse/test_autograd.py checks it against finite differences).
NO_PADDLE_GRADIENT = {"sparse.coalesce"}


def _exception(name):
    return getattr(builtins, name)


@pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")  # 0 / 0 of divide
@pytest.mark.parametrize("case", [c for c in CASES if label(c) not in DIFFERENT], ids=label)
def test_matches_paddle(case):
    if "raises" in case:
        with pytest.raises(_exception(case["raises"])):
            call(case, grads=False)
        return
    built, out = call(case, grads="grads" in case)
    if "result" in case:
        assert out == case["result"]
        return
    assert_same(as_record(out), case["out"], "output")
    if "grads" in case:
        got = gradients(built, out, case["weight"])
        assert len(got) == len(case["grads"])
        for i, (g, w) in enumerate(zip(got, case["grads"])):
            if w is None and case["fn"] in NO_PADDLE_GRADIENT:
                assert g is not None
                continue
            assert (g is None) == (w is None), f"gradient {i}: None in one only"
            if w is not None:
                np.testing.assert_allclose(dense_of(g), dense_of(w), rtol=2e-6, atol=2e-6,
                                           err_msg=f"gradient {i}")


def _case(name):
    return next(c for c in CASES if label(c) == name)


def test_the_differences_are_recorded_cases():
    assert all(_case(name) for name in DIFFERENT)


def test_sum_of_everything():
    case = _case("sparse.sum(coo[4, 5])")
    _, out = call(case, grads=False)
    assert out.shape == [1] and out.indices().tolist() == [[0]]
    np.testing.assert_allclose(out.values().numpy(), [case["out"]["values"]], rtol=1e-6)


def test_dense_tensor_methods():
    x = dygraph.ones([4, 5])
    for method in ("nnz", "indices", "values", "crows", "cols", "coalesce", "is_coalesced"):
        with pytest.raises(TypeError, match=f"only sparse .* tensors have {method}"):
            getattr(x, method)()
    assert not x.is_sparse() and x.sparse_dim() == 0 and x.dense_dim() == 2
    assert x.to_dense() is x


def test_is_coalesced():
    x = build(_case("Tensor.is_coalesced(coo[4, 5])")["args"][0], False)
    assert x.is_coalesced()
    y = dygraph.sparse.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], [2])
    assert not y.is_coalesced() and y.coalesce().is_coalesced()


def test_batch_norm_matches_paddle():
    ref = REFS["batch_norm"][0]
    points = [[0, 0, 0, 0, 1, 1], [0, 1, 1, 2, 0, 2], [1, 0, 2, 2, 1, 1], [2, 1, 0, 2, 0, 3]]
    x = dygraph.sparse.sparse_coo_tensor(points, np.asarray(ref["features"], "float32"),
                                         [2, 3, 3, 4, 2])
    x.stop_gradient = False
    bn = dygraph.sparse.nn.BatchNorm(2)
    out = bn(x)
    (out.values() * dygraph.to_tensor(np.asarray(ref["weight"], "float32"))).sum().backward()
    np.testing.assert_allclose(out.values().numpy(), ref["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._mean.numpy(), ref["mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), ref["variance"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.values().numpy(), ref["grad"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.weight.grad.numpy(), ref["grad_weight"], rtol=1e-5,
                               atol=1e-5)
    # Eval mode normalises with the running statistics (Paddle 3.3 keeps batch statistics
    # there: see tools/record_sparse_refs.py).
    bn.eval()
    features = np.asarray(ref["features"])
    want = (features - bn._mean.numpy()) / np.sqrt(bn._variance.numpy() + 1e-5)
    np.testing.assert_allclose(bn(x).values().numpy(), want, rtol=1e-5, atol=1e-6)


def test_recorded_with_paddle_3_3():
    assert REFS["paddle"].startswith("3.3") and len(CASES) > 150
    assert build(3, False) == 3 and assert_same
