"""The NCE builder (Paddle's paddle.static.nn.nce): one call makes the class weights and
biases as parameters, named as Paddle names them (`nce_<n>.w_0` [num_total_classes, dim],
`nce_<n>.b_0` [num_total_classes, 1]), and applies noise-contrastive estimation
(dygraph/ops/loss/nce.py), in a static program or eagerly. Paddle 3.3's default static mode
refuses it (its op takes old-IR variables only); this is Paddle 2.x's layer.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 8])
    ...     label = static.data('label', [None, 1], 'int64')
    ...     cost = nce(x, label, num_total_classes=20, num_neg_samples=5)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> feed = {'x': np.ones((4, 8), np.float32), 'label': np.array([[0], [3], [7], [19]])}
    >>> exe.run(main, feed=feed, fetch_list=[cost])[0].shape
    (4, 1)
"""

from dygraph.framework.errors import op_error
from dygraph.ops.loss.nce import nce_loss
from dygraph.static.nn.layer_helper import LayerHelper

__all__ = ["nce"]


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None,  # noqa: A002
        bias_attr=None, num_neg_samples=None, name=None, sampler="uniform", custom_dist=None,
        seed=0, is_sparse=False):
    """The noise-contrastive estimation cost [batch, 1] of `input` [batch, dim] against the
    int64 classes `label` [batch, num_true_class], out of `num_total_classes`: each sample's
    true classes against `num_neg_samples` (default 10) negatives drawn by `sampler`
    ('uniform', 'log_uniform', or 'custom_dist' with the probabilities `custom_dist`, one
    per class), weighted by `sample_weight` [batch, 1] (default 1). The weight (Xavier at the
    start) and the bias (zeros; bias_attr=False: none) are new parameters. `seed` other than
    0 draws the same negatives at every run; 0 draws from the global generator
    (dygraph.seed). `is_sparse` is accepted; gradients are dense.

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([2, 4])
        >>> nce(x, dygraph.to_tensor([[1], [3]]), num_total_classes=6).shape
        [2, 1]
    """
    if input.ndim != 2:
        raise op_error("nce", f"input must be [batch, dim], got shape {list(input.shape)}")
    dim = int(input.shape[1])
    if dim == -1:
        raise op_error("nce", f"the dim of input {list(input.shape)} must have a size")
    if isinstance(num_total_classes, bool) or int(num_total_classes) != num_total_classes \
            or num_total_classes < 1:
        raise op_error("nce", f"num_total_classes must be a positive int, got "
                       f"{num_total_classes!r}")
    num_total_classes = int(num_total_classes)
    num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
    helper = LayerHelper("nce", name)
    dtype = input._data.dtype
    w = helper.parameter([num_total_classes, dim], param_attr, dtype)
    b = helper.parameter([num_total_classes, 1], bias_attr, dtype, is_bias=True)
    if custom_dist is not None:  # plain numbers: a saved program keeps the arguments
        custom_dist = [float(p) for p in custom_dist]
    return nce_loss(input, label, w, b, sample_weight, num_neg_samples=num_neg_samples,
                    sampler=sampler, custom_dist=custom_dist, seed=seed)
