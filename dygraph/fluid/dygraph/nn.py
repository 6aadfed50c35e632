"""fluid.dygraph's layer library (1.x): FC, Linear, Embedding, Dropout here; Conv2D,
Conv2DTranspose and Pool2D in nn_conv.py; BatchNorm and LayerNorm in nn_norm.py; GRUUnit in
nn_rnn.py. All are exported from this module, as in 1.x.

Layers that took a `name_scope` first in 1.5 also accept the 1.6 signature without it.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     fc = fluid.dygraph.FC('fc', size=3, act='softmax')
    ...     out = fc(fluid.dygraph.to_variable(np.ones([2, 4, 5], np.float32)))
    ...     out.shape, fc.weight.shape
    ([2, 3], [20, 3])
"""

import math

import dygraph
from dygraph.fluid.dygraph.layer_args import bind
from dygraph.fluid.dygraph.layers import Layer
from dygraph.fluid.dygraph.nn_conv import Conv2D, Conv2DTranspose, Pool2D
from dygraph.fluid.dygraph.nn_norm import BatchNorm, LayerNorm
from dygraph.fluid.dygraph.nn_rnn import GRUUnit
from dygraph.fluid.layers.nn import apply_act, dropout

__all__ = ["FC", "Linear", "Embedding", "Dropout", "Conv2D", "Conv2DTranspose", "Pool2D",
           "BatchNorm", "LayerNorm", "GRUUnit"]


def _fc_15(name_scope, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None,
           is_test=False, dtype="float32"):
    """FC's signature (1.4/1.5)."""


class FC(Layer):
    """Fully connected layer: act(flatten(x) @ W + b), with W created at the first call.

    `FC(name_scope, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None,
    is_test=False, dtype='float32')`. The input is flattened to 2-D at `num_flatten_dims`:
    W has shape [prod(x.shape[num_flatten_dims:]), size] and the output
    x.shape[:num_flatten_dims] + [size]. A list of inputs gets one weight each ('_w0',
    '_w1', ...) and their products are summed. W defaults to Xavier, b ('_b', shape [size])
    to 0; bias_attr=False leaves b out. `is_test` changes nothing (FC computes the same in
    training and inference).

    Example:
        >>> import dygraph
        >>> fc = FC('fc_doc', 4, num_flatten_dims=2)
        >>> fc(dygraph.ones([2, 3, 5])).shape, fc.weight.shape
        ([2, 3, 4], [5, 4])
    """

    def __init__(self, *args, **kwargs):
        a = bind((_fc_15, None), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        self._size = int(a["size"])
        self._num_flatten_dims = int(a["num_flatten_dims"])
        self._param_attr = a["param_attr"]
        self._bias_attr = a["bias_attr"]
        self._act = a["act"]
        self._weights = []
        self._b = None

    def _build_once(self, input):
        inputs = input if isinstance(input, (list, tuple)) else [input]
        attrs = self._param_attr
        if not isinstance(attrs, (list, tuple)):
            attrs = [attrs] * len(inputs)
        if len(attrs) != len(inputs):
            raise ValueError(f"FC: {len(inputs)} inputs but {len(attrs)} param_attrs")
        k = self._num_flatten_dims
        for i, (x, attr) in enumerate(zip(inputs, attrs)):
            if not 0 < k < x.ndim:
                raise ValueError(f"FC: num_flatten_dims={k} must be in [1, {x.ndim}) for an "
                                 f"input of shape {x.shape}")
            shape = [math.prod(x.shape[k:]), self._size]
            self._weights.append(self.add_parameter(
                f"_w{i}", self.create_parameter(attr, shape, self._dtype)))
        self._b = self.create_parameter(self._bias_attr, [self._size], self._dtype,
                                        is_bias=True)

    @property
    def weight(self):
        """The weight of the first input."""
        return self._weights[0] if self._weights else None

    @property
    def bias(self):
        """The bias, or None."""
        return self._b

    def forward(self, input):
        inputs = input if isinstance(input, (list, tuple)) else [input]
        k = self._num_flatten_dims
        out = None
        for x, w in zip(inputs, self._weights):
            # [0] * k keeps the leading dims whatever they are (a static batch is free).
            flat = x if x.ndim == k + 1 else dygraph.reshape(x, [0] * k + [-1])
            product = dygraph.matmul(flat, w)
            out = product if out is None else out + product
        if self._b is not None:
            out = out + self._b
        return apply_act(out, self._act)


class Linear(Layer):
    """act(x @ weight + bias) over the last axis (1.6): `Linear(input_dim, output_dim,
    param_attr=None, bias_attr=None, act=None, dtype='float32')`; weight [input_dim,
    output_dim] defaults to Xavier, bias [output_dim] to 0.

    Example:
        >>> import dygraph
        >>> Linear(4, 2)(dygraph.ones([3, 4])).shape
        [3, 2]
    """

    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None,
                 dtype="float32"):
        super().__init__(None, dtype)
        self._act = act
        self.weight = self.create_parameter(param_attr, [input_dim, output_dim], dtype)
        self.bias = self.create_parameter(bias_attr, [output_dim], dtype, is_bias=True)

    def forward(self, input):
        out = dygraph.matmul(input, self.weight)
        if self.bias is not None:
            out = out + self.bias
        return apply_act(out, self._act)


def _embedding_15(name_scope, size, is_sparse=False, is_distributed=False, padding_idx=None,
                  param_attr=None, dtype="float32"):
    """Embedding in 1.5 form."""


def _embedding_16(size, is_sparse=False, is_distributed=False, padding_idx=None,
                  param_attr=None, dtype="float32"):
    """Embedding in 1.6 form."""


class Embedding(Layer):
    """Look up rows of a [vocab, dim] table (`size`) by int64 ids.

    1.5 form `Embedding(name_scope, size, is_sparse=False, is_distributed=False,
    padding_idx=None, param_attr=None, dtype='float32')`: ids end in a dimension of 1,
    which the embedding replaces ([N, 1] -> [N, dim]). 1.6 form (no name_scope): the
    embedding is appended ([N, T] -> [N, T, dim]). Positions holding `padding_idx`
    (negative counts from the end of the vocabulary) give zeros and no gradient.
    `is_sparse` and `is_distributed` change nothing: gradients are dense and the table is
    local here.

    Example:
        >>> import numpy as np, dygraph
        >>> emb = Embedding('emb', size=[10, 4], padding_idx=0)
        >>> out = emb(dygraph.to_tensor(np.array([[3], [0]], np.int64)))
        >>> out.shape, float(abs(out.numpy()[1]).sum())
        ([2, 4], 0.0)
    """

    def __init__(self, *args, **kwargs):
        a = bind((_embedding_15, _embedding_16), args, kwargs)
        super().__init__(a["name_scope"], a["dtype"])
        self._replace_last = a["name_scope"] is not None
        vocab, dim = (int(n) for n in a["size"])
        padding_idx = a["padding_idx"]
        if padding_idx is not None:
            padding_idx = int(padding_idx)
            if not -vocab <= padding_idx < vocab:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is outside the "
                                 f"vocabulary of {vocab}")
            padding_idx %= vocab
        self._padding_idx = padding_idx
        self._size = [vocab, dim]
        self.weight = self.create_parameter(a["param_attr"], [vocab, dim], self._dtype)

    @property
    def _w(self):
        """The table (1.5 name)."""
        return self.weight

    def forward(self, input):
        ids = input if isinstance(input, dygraph.Tensor) else dygraph.to_tensor(input)
        shape = ids.shape
        if self._replace_last and len(shape) > 1 and shape[-1] == 1:
            shape = shape[:-1]
        flat = dygraph.reshape(ids, [-1])
        rows = dygraph.gather(self.weight, flat)
        if self._padding_idx is not None:
            keep = (flat != self._padding_idx).astype(rows.dtype)
            rows = rows * dygraph.unsqueeze(keep, -1)
        return dygraph.reshape(rows, shape + [self._size[1]])


class Dropout(Layer):
    """Dropout as a layer (1.6): active in train() mode, as at test time in eval() mode or
    with is_test=True. See fluid.layers.dropout for the two implementations.

    Example:
        >>> import dygraph
        >>> Dropout(p=0.5).eval()(dygraph.ones([2])).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, p=0.5, seed=None, dropout_implementation="downgrade_in_infer",
                 is_test=False):
        super().__init__()
        self._p = p
        self._seed = seed
        self._implementation = dropout_implementation
        self._is_test = is_test

    def forward(self, input):
        return dropout(input, self._p, is_test=self._is_test or not self.training,
                       seed=self._seed, dropout_implementation=self._implementation)
