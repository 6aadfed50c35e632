"""Builders of embedding tables (Paddle's paddle.static.nn.embedding and sparse_embedding):
a new [vocabulary, width] table (`embedding_<n>.w_0`, Xavier at the start) looked up by
integer ids.

`sparse_embedding` is Paddle's parameter-server table (rows created on first use on the
servers); a single process holds the whole table, so it is the embedding lookup of ids of
shape [..., 1] (the trailing 1 dropped, as Paddle's shape inference gives), with its own
parameter `sparse_embedding_<n>.w_0`.

Example:
    >>> import dygraph
    >>> embedding(dygraph.to_tensor([[1, 2]]), size=(5, 3)).shape
    [1, 2, 3]
"""

from dygraph.static.nn.layer_helper import LayerHelper

__all__ = ["embedding", "sparse_embedding"]


def _padding(padding_idx, rows):
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise ValueError(f"padding_idx={padding_idx} must be in [-{rows}, {rows})")
    return padding_idx % rows


def _table(layer_type, size, param_attr, dtype):
    if len(size) != 2:
        raise ValueError(f"{layer_type}: size is [vocabulary, width], got {list(size)}")
    return LayerHelper(layer_type).parameter([int(size[0]), int(size[1])], param_attr, dtype)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,  # noqa: A002
              param_attr=None, dtype="float32"):
    """Rows of a new [size[0], size[1]] table for the ids in `input` (output shape
    input.shape + [size[1]]); the row `padding_idx` (negative: counted from the end) reads
    as zeros and gets no gradient. `is_sparse` and `is_distributed` change nothing here.

    Example:
        >>> import dygraph
        >>> out = embedding(dygraph.to_tensor([0, 3]), size=(4, 2), padding_idx=-1)
        >>> out[1].tolist()
        [0.0, 0.0]
    """
    import dygraph.nn.functional as F

    if input._data.dtype.kind not in "iu":
        raise TypeError(f"embedding: ids must be integers, got {input._data.dtype.name}")
    table = _table("embedding", size, param_attr, dtype)
    return F.embedding(input, table, padding_idx=_padding(padding_idx, int(size[0])))


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,  # noqa: A002
                     table_class="MemorySparseTable", param_attr=None, dtype="float32",
                     slot=None):
    """The embedding lookup of ids shaped [..., 1] in one process (see the module
    docstring): output input.shape[:-1] + [size[1]].

    Example:
        >>> import dygraph
        >>> sparse_embedding(dygraph.to_tensor([[1], [2]]), size=(5, 3)).shape
        [2, 3]
    """
    import dygraph
    import dygraph.nn.functional as F

    if input.ndim < 1 or input.shape[-1] != 1:
        raise ValueError(f"sparse_embedding: the last dimension of the ids must be 1, got "
                         f"shape {list(input.shape)}")
    if table_class not in ("MemorySparseTable", "MemorySparseGeoTable"):
        raise ValueError(f"sparse_embedding: table_class must be 'MemorySparseTable' or "
                         f"'MemorySparseGeoTable', got {table_class!r}")
    table = _table("sparse_embedding", size, param_attr, dtype)
    ids = dygraph.squeeze(input, -1)
    return F.embedding(ids, table, padding_idx=_padding(padding_idx, int(size[0])))
