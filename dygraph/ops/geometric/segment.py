"""Segment reductions: segment_sum, segment_mean, segment_max, segment_min
(paddle.geometric).

Rows of `data` that share a segment id are reduced into one output row; the ids must be
sorted and non-negative, and the output has max(id) + 1 rows (0 for segments without
rows). The row count depends on the ids' values, so each function is recorded whole in
static programs (its first dim free) and computes at each run. The reduction is the
SendRecv op without a gather, so the gradients are send_u_recv's.
"""

from dygraph.autograd.function import apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.framework.errors import op_error
from dygraph.ops.geometric.checks import features, index_tensor
from dygraph.ops.geometric.send_recv import SendRecv

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]


def _segment(data, segment_ids, reduce, op):
    data = features(data, op, "data")
    ids = index_tensor(segment_ids, op, "segment_ids")
    values = ids._data
    if values.shape[0] != data._data.shape[0]:
        raise op_error(op, f"segment_ids has {values.shape[0]} ids for data of shape "
                       f"{list(data._data.shape)}; expected one id per row of data")
    rows = 0
    if values.size:
        last = int(values[-1])
        if last < 0:
            raise op_error(op, f"segment ids must be >= 0, but the last id is {last}")
        if bool((values[1:] < values[:-1]).any()):
            at = int((values[1:] < values[:-1]).argmax())
            raise op_error(op, f"segment ids must be sorted, but segment_ids[{at}] = "
                           f"{int(values[at])} > segment_ids[{at + 1}] = "
                           f"{int(values[at + 1])}")
        if int(values[0]) < 0:
            raise op_error(op, f"segment ids must be >= 0, but the first id is "
                           f"{int(values[0])}", IndexError)
        rows = last + 1
    return apply(SendRecv(None, reduce, rows, False, op), data, ids)


@captured_whole(free_dims=(0,))
def segment_sum(data, segment_ids, name=None):
    """out[i] = the sum of the rows data[j] with segment_ids[j] == i.

    data: float16, float32, float64, int32 or int64; segment_ids: sorted, non-negative
    int32 or int64 ids, one per row of data. The output has segment_ids[-1] + 1 rows.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> data = dygraph.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> geometric.segment_sum(data, dygraph.to_tensor([0, 0, 1])).numpy()
        array([[4., 4., 4.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segment(data, segment_ids, "sum", "segment_sum")


@captured_whole(free_dims=(0,))
def segment_mean(data, segment_ids, name=None):
    """out[i] = the mean of the rows data[j] with segment_ids[j] == i (0 for an empty
    segment; an integer mean rounds toward zero). Arguments as segment_sum.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> data = dygraph.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> geometric.segment_mean(data, dygraph.to_tensor([0, 0, 1])).numpy()
        array([[2., 2., 2.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segment(data, segment_ids, "mean", "segment_mean")


@captured_whole(free_dims=(0,))
def segment_max(data, segment_ids, name=None):
    """out[i] = the elementwise maximum of the rows data[j] with segment_ids[j] == i (0 for
    an empty segment). The gradient goes to every row that holds the maximum. Arguments as
    segment_sum.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> data = dygraph.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> geometric.segment_max(data, dygraph.to_tensor([0, 0, 1])).numpy()
        array([[3., 2., 3.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segment(data, segment_ids, "max", "segment_max")


@captured_whole(free_dims=(0,))
def segment_min(data, segment_ids, name=None):
    """out[i] = the elementwise minimum of the rows data[j] with segment_ids[j] == i (0 for
    an empty segment). The gradient goes to every row that holds the minimum. Arguments as
    segment_sum.

    Example:
        >>> import dygraph
        >>> from dygraph import geometric
        >>> data = dygraph.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> geometric.segment_min(data, dygraph.to_tensor([0, 0, 1])).numpy()
        array([[1., 2., 1.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segment(data, segment_ids, "min", "segment_min")
