"""fluid.layers neural-network functions in 1.x form: activations, losses on
probabilities, accuracy, dropout, normalisation and friends.

The 1.x `cross_entropy` takes probabilities (the model ends in softmax) and int64 labels
shaped [N, 1]; the 2.x `nn.functional.cross_entropy` takes logits.
"""

import numpy as np

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.framework.random import rng
from dygraph.tensor.tensor import Tensor

__all__ = ["fc", "relu", "sigmoid", "tanh", "softmax", "leaky_relu", "log_softmax", "cross_entropy",
           "softmax_with_cross_entropy", "square_error_cost", "accuracy", "dropout",
           "l2_normalize", "one_hot", "apply_act"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def _F():
    from dygraph.nn import functional

    return functional


def relu(x, name=None):
    """max(x, 0).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.relu(np.array([-1.0, 2.0])).numpy()
        array([0., 2.])
    """
    return _F().relu(_var(x))


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.sigmoid(np.array([0.0])).numpy()
        array([0.5])
    """
    return _F().sigmoid(_var(x))


def tanh(x, name=None):
    """Hyperbolic tangent.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.tanh(np.array([0.0])).numpy()
        array([0.])
    """
    return dygraph.tanh(_var(x))


def softmax(input, use_cudnn=False, name=None, axis=-1):
    """Softmax along `axis`.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.softmax(np.zeros([1, 2])).numpy()
        array([[0.5, 0.5]])
    """
    return _F().softmax(_var(input), axis=axis)


def log_softmax(input, axis=-1, name=None):
    """Log of softmax along `axis`, computed stably.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.log_softmax(np.zeros([1, 2])).shape
        [1, 2]
    """
    return _F().log_softmax(_var(input), axis=axis)


def leaky_relu(x, alpha=0.02, name=None):
    """x if x > 0 else alpha * x (1.x default alpha 0.02).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.leaky_relu(np.array([-1.0])).numpy()
        array([-0.02])
    """
    return _F().leaky_relu(_var(x), negative_slope=alpha)


def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None,  # noqa: A002
       name=None):
    """1.x fluid.layers.fc: a fully connected layer made at the call (static.nn.fc, with
    1.x's names: param_attr, act).

    Example:
        >>> import numpy as np
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.fc(np.ones([2, 3], np.float32), size=4, act='relu').shape
        [2, 4]
    """
    from dygraph.static.nn.dense import fc as _fc

    inputs = [_var(t) for t in input] if isinstance(input, (list, tuple)) else _var(input)
    return _fc(inputs, size, num_flatten_dims, param_attr, bias_attr, act, name)


def apply_act(x, act):
    """Apply a 1.x activation given by name ('relu', 'softmax', ...) or None."""
    if act is None:
        return x
    if act == "softmax":
        return softmax(x)
    if act == "tanh":
        return dygraph.tanh(x)
    fn = getattr(_F(), act, None)
    if fn is None:
        raise ValueError(f"unknown activation {act!r}")
    return fn(x)


def _label(label):
    return label if isinstance(label, Tensor) else dygraph.to_tensor(label)


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """-log(input[label]) per row: `input` holds probabilities, `label` int64 [N, 1]
    (or a distribution when soft_label=True). Returns [N, 1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> p = np.array([[0.25, 0.75]], np.float32)
        >>> round(fluid.layers.cross_entropy(p, np.array([[1]])).item(), 4)
        0.2877
    """
    return _F().cross_entropy(_var(input), _label(label), ignore_index=ignore_index,
                              reduction="none", soft_label=soft_label, use_softmax=False)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Cross entropy of softmax(logits) against label, computed stably; [N, 1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> z = np.zeros([1, 2], np.float32)
        >>> round(float(fluid.layers.softmax_with_cross_entropy(z, np.array([[0]]))), 4)
        0.6931
    """
    return _F().softmax_with_cross_entropy(_var(logits), _label(label), soft_label=soft_label,
                                           ignore_index=ignore_index,
                                           return_softmax=return_softmax, axis=axis)


def square_error_cost(input, label):
    """(input - label) ** 2, elementwise.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.square_error_cost(np.array([3.0]), np.array([1.0])).numpy()
        array([4.])
    """
    diff = _var(input) - _var(label)
    return diff * diff


def accuracy(input, label, k=1, correct=None, total=None):
    """Fraction of rows whose label is among the top-k scores; float32 shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> s = np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)
        >>> fluid.layers.accuracy(s, np.array([[1], [1]])).numpy()
        array([0.5], dtype=float32)
    """
    from dygraph.metric import accuracy as _accuracy

    # 1.x gave shape [1]; paddle.metric.accuracy is 0-D since 2.5
    return _accuracy(_var(input), _label(label), k=k, correct=correct,
                     total=total).reshape([1])


def dropout(x, dropout_prob, is_test=False, seed=None, name=None,
            dropout_implementation="downgrade_in_infer"):
    """Zero each element with probability dropout_prob. 'downgrade_in_infer' (the 1.x
    default) keeps training values unscaled and multiplies by (1 - p) at test time;
    'upscale_in_train' divides by (1 - p) in training and is the identity at test time.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.dropout(np.ones([2], np.float32), 0.5, is_test=True).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    x = _var(x)
    p = float(dropout_prob)
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        return x * 1.0 if upscale else x * (1.0 - p)
    gen = np.random.default_rng(seed) if seed else rng()
    keep = (gen.random(x.shape) >= p).astype(x.numpy().dtype)
    if upscale:
        keep = keep / (1.0 - p) if p < 1.0 else keep * 0.0
    return x * dygraph.to_tensor(keep)


def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.l2_normalize(np.array([3.0, 4.0]), 0).numpy()
        array([0.6, 0.8])
    """
    x = _var(x)
    norm = dygraph.sqrt(dygraph.maximum((x * x).sum(axis=axis, keepdim=True), epsilon))
    return x / norm


def one_hot(input, depth, allow_out_of_range=False):
    """int labels shaped [..., 1] -> float32 one-hot [..., depth].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.one_hot(np.array([[1], [0]]), 2).numpy()
        array([[0., 1.],
               [1., 0.]], dtype=float32)
    """
    labels = (input.numpy() if isinstance(input, Tensor) else np.asarray(input)).astype(np.int64)
    if labels.shape and labels.shape[-1] == 1:
        labels = labels[..., 0]
    bad = (labels < 0) | (labels >= depth)
    if bad.any() and not allow_out_of_range:
        raise ValueError(f"one_hot: labels must be in [0, {depth}), got {labels[bad][:5]}")
    out = np.zeros(labels.shape + (depth,), np.float32)
    np.put_along_axis(out, np.where(bad, 0, labels)[..., None], np.where(bad, 0, 1)[..., None]
                      .astype(np.float32), axis=-1)
    return dygraph.to_tensor(out)
