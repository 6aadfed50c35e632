"""nn.functional ops raise Paddle 3.3's exception types (issue 28's parity replay): an input
with too few dims where Paddle raises IndexError is a RankIndexError (also a ValueError),
dropout1d's wrong rank a ShapeRuntimeError (also Paddle's RuntimeError)."""

import re

import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.framework.errors import RankIndexError, ShapeRuntimeError


@pytest.mark.parametrize("shape", [[], [4]])
def test_cosine_similarity_axis_beyond_the_dims(shape):
    pattern = rf"cosine_similarity: axis 1 .* {re.escape(str(shape))}"
    with pytest.raises(RankIndexError, match=pattern):
        F.cosine_similarity(dygraph.ones(shape), dygraph.ones(shape))
    with pytest.raises(RankIndexError, match="axis 2"):
        F.cosine_similarity(dygraph.ones([3, 4]), dygraph.ones([3, 4]), axis=2)


def test_embedding_weight_of_too_few_dims():
    ids = dygraph.to_tensor([1])
    for shape in ([], [4]):
        with pytest.raises(RankIndexError, match="embedding: weight must be 2-D"):
            F.embedding(ids, dygraph.ones(shape))
    with pytest.raises(ValueError, match="got shape \\[2, 3, 4\\]") as caught:
        F.embedding(ids, dygraph.ones([2, 3, 4]))
    assert not isinstance(caught.value, IndexError)


@pytest.mark.parametrize("shape", [[], [4], [2, 3, 4, 5]])
def test_dropout1d_wrong_rank_is_a_runtime_error_too(shape):
    with pytest.raises(ShapeRuntimeError, match="dropout1d: input must be 2-D or 3-D"):
        F.dropout1d(dygraph.ones(shape))
