"""The common layers of dygraph.nn: Linear, Bilinear, the dropouts, Embedding, Flatten and
Unflatten, Identity, the upsampling layers, padding, Unfold/Fold, CosineSimilarity.

Each is a thin Layer over its dygraph.nn.functional op, with Paddle's constructor
arguments, parameter names (`weight`, `bias`) and default initializers (XavierUniform for
weights, zeros for biases), and Paddle's repr text.
"""

from dygraph.autograd.grad_mode import no_grad
from dygraph.framework.dtype import get_default_dtype
from dygraph.nn import functional as F
from dygraph.nn.layer.layers import Layer
from dygraph.ops.manipulation.shape import flatten, reshape

__all__ = ["Identity", "Linear", "Bilinear", "Dropout", "Dropout2D", "Dropout3D",
           "AlphaDropout", "Embedding", "Flatten", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D", "Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "Unfold", "Fold",
           "CosineSimilarity", "FeatureAlphaDropout", "Unflatten"]


def _name_suffix(name):
    return f", name={name}" if name else ""


class Identity(Layer):
    """Returns its input unchanged; any constructor arguments are ignored.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Identity(54, unused='x')(dygraph.to_tensor([1.0])).numpy()
        array([1.], dtype=float32)
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return input


class Linear(Layer):
    """y = x @ weight + bias with weight [in_features, out_features] and bias
    [out_features]; bias_attr=False drops the bias.

    Example:
        >>> import dygraph
        >>> fc = dygraph.nn.Linear(2, 3)
        >>> fc(dygraph.ones([4, 2])).shape, fc
        ([4, 3], Linear(in_features=2, out_features=3, dtype=float32))
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__(dtype=get_default_dtype())
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        rows, cols = self.weight.shape
        return (f"in_features={rows}, out_features={cols}, dtype={self._dtype}"
                f"{_name_suffix(self.name)}")


class Bilinear(Layer):
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[0, o]; weight has shape
    [out_features, in1_features, in2_features], bias [1, out_features].

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.Bilinear(2, 3, 4)
        >>> layer(dygraph.ones([5, 2]), dygraph.ones([5, 3])).shape
        [5, 4]
    """

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__(dtype=get_default_dtype())
        self._in1_features, self._in2_features = in1_features, in2_features
        self._out_features, self._name = out_features, name
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}"
                f"{_name_suffix(self._name)}")


class Dropout(Layer):
    """F.dropout while training (self.training), the inference rule of `mode` after eval().

    Example:
        >>> import dygraph
        >>> drop = dygraph.nn.Dropout(0.5)
        >>> drop.eval()(dygraph.ones([2])).numpy(), drop
        (array([1., 1.], dtype=float32), Dropout(p=0.5, axis=None, mode=upscale_in_train))
    """

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p, self.axis, self.mode, self.name = p, axis, mode, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.dropout(input, self.p, self.axis, self.training, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_suffix(self.name)}"


class Dropout2D(Layer):
    """F.dropout2d (whole channels of a 4-D input) while training; the identity after eval().

    Example:
        >>> import dygraph
        >>> dygraph.nn.Dropout2D(0.2)
        Dropout2D(p=0.2, data_format=NCHW)
    """

    _fn = staticmethod(F.dropout2d)

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return self._fn(input, self.p, self.training, self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}{_name_suffix(self.name)}"


class Dropout3D(Dropout2D):
    """F.dropout3d (whole channels of a 5-D input) while training; the identity after eval().

    Example:
        >>> import dygraph
        >>> dygraph.nn.Dropout3D().eval()(dygraph.ones([1, 1, 1, 1, 2])).numpy().ravel()
        array([1., 1.], dtype=float32)
    """

    _fn = staticmethod(F.dropout3d)

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """F.alpha_dropout (for SELU networks) while training; the identity after eval().

    Example:
        >>> import dygraph
        >>> dygraph.nn.AlphaDropout(0.1)
        AlphaDropout(p=0.1)
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.alpha_dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}{_name_suffix(self.name)}"


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] table looked up by int ids. The padding_idx row
    starts at zero, always looks up as zeros and gets no gradient. max_norm, norm_type and
    scale_grad_by_freq are F.embedding's; _weight gives the initial table and _freeze makes
    it untrainable. `sparse` is accepted; gradients are dense.

    Example:
        >>> import dygraph
        >>> emb = dygraph.nn.Embedding(10, 3, padding_idx=0)
        >>> emb(dygraph.to_tensor([[0, 4]])).shape, emb
        ([1, 2, 3], Embedding(10, 3, padding_idx=0, sparse=False))
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None, weight_attr=None, name=None):
        if isinstance(max_norm, bool):
            # Paddle 2's positional order was (..., padding_idx, sparse, weight_attr).
            sparse, max_norm = max_norm, None
            if not isinstance(norm_type, (int, float)):
                weight_attr, norm_type = norm_type, 2.0
        super().__init__(dtype=dtype or get_default_dtype())
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise ValueError(f"Embedding: num_embeddings and embedding_dim must be > 0, got "
                             f"{num_embeddings} and {embedding_dim}")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx, self._sparse, self._name = padding_idx, sparse, name
        self._max_norm, self._norm_type = max_norm, norm_type
        self._scale_grad_by_freq = scale_grad_by_freq
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            dtype=self._dtype)
        if _weight is not None:
            self.weight.set_value(_weight)
        elif padding_idx is not None:
            with no_grad():
                self.weight[padding_idx % num_embeddings] = 0.0
        if _freeze:
            self.weight.stop_gradient = True
        if device is not None:
            self.to(device=device)

    def forward(self, x):
        return F.embedding(x, self.weight, self._padding_idx, self._max_norm, self._norm_type,
                           self._sparse, self._scale_grad_by_freq)

    def extra_repr(self):
        text = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            text += f", padding_idx={self._padding_idx}"
        if self._max_norm is not None:
            text += f", max_norm={self._max_norm}"
        return text + f", sparse={self._sparse}" + _name_suffix(self._name)


class Flatten(Layer):
    """Flatten dims start_axis..stop_axis into one.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Flatten()(dygraph.ones([2, 3, 4])).shape
        [2, 12]
    """

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return flatten(input, self.start_axis, self.stop_axis)


def _size_repr(layer):
    if layer.scale_factor is not None:
        return f"scale_factor={layer.scale_factor}"
    return f"size={layer.size}"


class Upsample(Layer):
    """F.interpolate as a layer (size or scale_factor, mode, align_corners, align_mode).

    Example:
        >>> import dygraph
        >>> up = dygraph.nn.Upsample(scale_factor=2, mode='bilinear')
        >>> up(dygraph.ones([1, 1, 2, 2])).shape
        [1, 1, 4, 4]
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format)

    def extra_repr(self):
        return (f"{_size_repr(self)}, mode={self.mode}, align_corners={self.align_corners}, "
                f"align_mode={self.align_mode}, data_format={self.data_format}"
                f"{_name_suffix(self.name)}")


class UpsamplingNearest2D(Layer):
    """Nearest-neighbour upsampling of a 4-D input (an int size means [size, size]).

    Example:
        >>> import dygraph
        >>> dygraph.nn.UpsamplingNearest2D(size=3)(dygraph.ones([1, 1, 2, 2])).shape
        [1, 1, 3, 3]
    """

    _mode, _align_corners = "nearest", False

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size = [size, size] if isinstance(size, int) else size
        self.scale_factor, self.data_format, self.name = scale_factor, data_format, name

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self._mode, self._align_corners,
                             0, self.data_format)

    def extra_repr(self):
        return f"{_size_repr(self)}, data_format={self.data_format}{_name_suffix(self.name)}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    """Bilinear upsampling of a 4-D input with aligned corners.

    Example:
        >>> import dygraph
        >>> up = dygraph.nn.UpsamplingBilinear2D(size=[3, 3])
        >>> up(dygraph.to_tensor([[[[0.0, 2.0], [4.0, 6.0]]]])).numpy()[0, 0, 1]
        array([2., 3., 4.], dtype=float32)
    """

    _mode, _align_corners = "bilinear", True


class Pad1D(Layer):
    """F.pad over the last spatial dim of a 3-D input: padding is an int or
    [left, right]; mode 'constant' (with value), 'reflect', 'replicate' or 'circular'.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Pad1D([1, 2])(dygraph.ones([1, 1, 2])).numpy()
        array([[[0., 1., 1., 0., 0.]]], dtype=float32)
    """

    _dims = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__()
        self._pad = [padding] * (2 * self._dims) if isinstance(padding, int) else padding
        self._mode, self._value, self._name = mode, value, name
        self._data_format = data_format

    def forward(self, x):
        return F.pad(x, self._pad, self._mode, self._value, self._data_format)

    def extra_repr(self):
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, "
                f"data_format={self._data_format}{_name_suffix(self._name)}")


class Pad2D(Pad1D):
    """F.pad over H and W of a 4-D input: padding is an int or [left, right, top, bottom].

    Example:
        >>> import dygraph
        >>> dygraph.nn.Pad2D(1, mode='replicate')(dygraph.ones([1, 1, 2, 2])).shape
        [1, 1, 4, 4]
    """

    _dims = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(Pad1D):
    """F.pad over D, H and W of a 5-D input: padding is an int or
    [left, right, top, bottom, front, back].

    Example:
        >>> import dygraph
        >>> dygraph.nn.Pad3D(1)(dygraph.ones([1, 1, 1, 1, 1])).shape
        [1, 1, 3, 3, 3]
    """

    _dims = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(Pad2D):
    """Zero padding of H and W: padding is an int or [left, right, top, bottom].

    Example:
        >>> import dygraph
        >>> dygraph.nn.ZeroPad2D([1, 0, 0, 0])(dygraph.ones([1, 1, 1, 1])).numpy()
        array([[[[0., 1.]]]], dtype=float32)
    """

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)


class Unfold(Layer):
    """F.unfold (im2col) as a layer; note Paddle's argument order (dilations before paddings
    and strides).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Unfold([2, 2])(dygraph.ones([1, 3, 4, 4])).shape
        [1, 12, 9]
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides, self.name = paddings, strides, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{_name_suffix(self.name)}")


class Fold(Unfold):
    """F.fold (col2im) as a layer.

    Example:
        >>> import dygraph
        >>> dygraph.nn.Fold([3, 3], 2)(dygraph.ones([1, 4, 4])).shape
        [1, 1, 3, 3]
    """

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides, name)
        self.output_sizes = output_sizes

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides,
                      self.paddings, self.dilations)


class CosineSimilarity(Layer):
    """F.cosine_similarity of two inputs along `axis`.

    Example:
        >>> import dygraph
        >>> cos = dygraph.nn.CosineSimilarity(axis=0)
        >>> cos(dygraph.to_tensor([1.0, 0.0]), dygraph.to_tensor([2.0, 0.0])).numpy()
        array(1., dtype=float32)
    """

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class FeatureAlphaDropout(Layer):
    """F.feature_alpha_dropout while training; the identity after eval().

    Example:
        >>> import dygraph
        >>> layer = dygraph.nn.FeatureAlphaDropout(0.5)
        >>> layer.eval()(dygraph.ones([1, 2])).numpy()
        array([[1., 1.]], dtype=float32)
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self._name = p, name

    def forward(self, x):
        return F.feature_alpha_dropout(x, self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}"


class Unflatten(Layer):
    """Split dim `axis` into `shape` (the inverse of Flatten).

    Example:
        >>> import dygraph
        >>> dygraph.nn.Unflatten(1, [2, 3])(dygraph.ones([4, 6, 5])).shape
        [4, 2, 3, 5]
    """

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self._name = axis, shape, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        dims = list(input.shape)
        axis = self.axis % len(dims)
        shape = [int(s) for s in (self.shape.tolist() if hasattr(self.shape, "tolist")
                                  else self.shape)]
        return reshape(input, dims[:axis] + shape + dims[axis + 1:])

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}"
