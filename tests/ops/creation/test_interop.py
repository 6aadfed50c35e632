"""Creation and shape queries (dygraph/ops/creation/interop.py): index triangles, logspace and
range, from_numpy's shared memory, DLPack, shape, numel, rank and Size, broadcast shapes, with
values Paddle 3.3 gives."""

import numpy as np
import pytest

import dygraph as D


def test_creation_and_queries():
    assert D.tril_indices(3, 3).numpy().tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert D.triu_indices(3, 2, 1).numpy().tolist() == [[0], [1]]
    assert D.logspace(0, 2, 3, base=2, dtype="int32").numpy().tolist() == [1, 2, 4]
    assert D.range(0, 3).numpy().tolist() == [0, 1, 2, 3]
    assert D.range(0.0, 1, 0.5).numpy().tolist() == [0, 0.5, 1]
    assert D.range(3).dtype == D.float32
    arr = np.zeros(2, dtype=np.float32)
    t = D.from_numpy(arr)
    arr[1] = 3.0
    assert t.numpy().tolist() == [0, 3]
    assert D.as_tensor([1, 2], dtype="float64").dtype == D.float64
    assert not D.asarray([1.0], requires_grad=True).stop_gradient
    back = D.from_dlpack(D.to_dlpack(D.arange(3)))
    assert back.numpy().tolist() == [0, 1, 2]
    assert D.from_dlpack(np.arange(2.0)).numpy().tolist() == [0, 1]
    x = D.ones([2, 3])
    assert D.shape(x).numpy().tolist() == [2, 3]
    assert D.numel(x).item() == 6 and D.numel(x).dtype == D.int64
    assert D.rank(x).item() == 2 and x.rank().dtype == D.int32
    assert D.Size([2, 3]) == [2, 3] and repr(D.Size([2])) == "Size([2])"
    assert D.broadcast_shape([2, 1], [3]) == [2, 3]
    with pytest.raises(ValueError, match="broadcast_shapes"):
        D.broadcast_shapes([2], [3])
