"""The module paths that program files saved before the layout by concept name, and where
those modules live now: a file stores each op class, record type and whole-call function as
`module:qualname`, and a file written by an earlier DyGraph still loads.

Example:
    >>> current_path("dygraph.ops.math:Add")
    'dygraph.ops.math.arithmetic:Add'
    >>> current_path("dygraph.ops.math.arithmetic:Add")
    'dygraph.ops.math.arithmetic:Add'
"""

__all__ = ["FORMER_MODULES", "FORMER_CLASSES", "current_path"]

FORMER_MODULES = {
    "dygraph.amp.autocast": "dygraph.amp.auto_cast",
    "dygraph.linalg_solvers": "dygraph.ops.linalg.solvers",
    "dygraph.nn.functional.loss_rnnt": "dygraph.ops.loss.rnnt",
    "dygraph.nn.layer.rnn_kernels": "dygraph.ops.rnn.fused_gates",
    "dygraph.nn.layer.rnn_layer_op": "dygraph.ops.rnn.layer_op",
    "dygraph.nn.layer.rnn_sequence": "dygraph.ops.rnn.sequence",
    "dygraph.ops.activation": "dygraph.ops.activation.piecewise",
    "dygraph.ops.activation_smooth": "dygraph.ops.activation.smooth",
    "dygraph.ops.activation_softmax": "dygraph.ops.activation.softmax",
    "dygraph.ops.compare_extra": "dygraph.ops.compare",
    "dygraph.ops.conv": "dygraph.ops.conv.convolution",
    "dygraph.ops.creation": "dygraph.ops.creation.constructors",
    "dygraph.ops.cumulative": "dygraph.ops.reduction.cumulative",
    "dygraph.ops.einsum": "dygraph.ops.linalg.einsum",
    "dygraph.ops.elementwise_extra": "dygraph.ops.math.elementwise",
    "dygraph.ops.fft_ops": "dygraph.ops.fft.transforms",
    "dygraph.ops.im2col": "dygraph.ops.conv.im2col",
    "dygraph.ops.indexing": "dygraph.ops.manipulation.indexing",
    "dygraph.ops.linalg": "dygraph.ops.linalg.products",
    "dygraph.ops.linalg_decomp": "dygraph.ops.linalg.decompositions",
    "dygraph.ops.linalg_eig": "dygraph.ops.linalg.eig",
    "dygraph.ops.linalg_inverse": "dygraph.ops.linalg.inverse",
    "dygraph.ops.linalg_lu": "dygraph.ops.linalg.lu",
    "dygraph.ops.linalg_norm": "dygraph.ops.linalg.vector_norm",
    "dygraph.ops.loss_ce": "dygraph.ops.loss.cross_entropy",
    "dygraph.ops.loss_common": "dygraph.ops.loss.common",
    "dygraph.ops.loss_ctc": "dygraph.ops.loss.ctc",
    "dygraph.ops.loss_regression": "dygraph.ops.loss.regression",
    "dygraph.ops.manipulation": "dygraph.ops.manipulation.rearrange",
    "dygraph.ops.manipulation_diag": "dygraph.ops.manipulation.diag",
    "dygraph.ops.manipulation_index": "dygraph.ops.manipulation.gather",
    "dygraph.ops.manipulation_pad": "dygraph.ops.manipulation.pad",
    "dygraph.ops.manipulation_scatter": "dygraph.ops.manipulation.scatter",
    "dygraph.ops.manipulation_view": "dygraph.ops.manipulation.view",
    "dygraph.ops.math": "dygraph.ops.math.arithmetic",
    "dygraph.ops.math_extra": "dygraph.ops.math.composite",
    "dygraph.ops.nn_dropout": "dygraph.ops.nn.dropout",
    "dygraph.ops.nn_grid_sample": "dygraph.ops.nn.grid_sample",
    "dygraph.ops.nn_linear": "dygraph.ops.nn.linear",
    "dygraph.ops.nn_resample": "dygraph.ops.nn.resample",
    "dygraph.ops.nn_vision": "dygraph.ops.nn.vision",
    "dygraph.ops.norm": "dygraph.ops.normalization.norms",
    "dygraph.ops.norm_running": "dygraph.ops.normalization.running",
    "dygraph.ops.pool_kernels": "dygraph.ops.pool.windows",
    "dygraph.ops.pooling": "dygraph.ops.pool.pooling",
    "dygraph.ops.reduction": "dygraph.ops.reduction.reduce",
    "dygraph.ops.reduction_extra": "dygraph.ops.reduction.scans_and_nan",
    "dygraph.ops.scatter_extra": "dygraph.ops.manipulation.scatter_index",
    "dygraph.ops.search": "dygraph.ops.search.sorting",
    "dygraph.ops.search_extra": "dygraph.ops.search.order_and_membership",
    "dygraph.ops.shape": "dygraph.ops.manipulation.shape",
    "dygraph.ops.special": "dygraph.ops.unary.special",
    "dygraph.ops.statistic": "dygraph.ops.reduction.statistics",
    "dygraph.ops.tensor_methods": "dygraph.tensor.operators",
    "dygraph.ops.unary": "dygraph.ops.unary.core",
    "dygraph.ops.unary_explog": "dygraph.ops.unary.explog",
    "dygraph.ops.unary_special": "dygraph.ops.unary.erf",
    "dygraph.ops.unary_trig": "dygraph.ops.unary.trig",
    "dygraph.signal": "dygraph.ops.fft.stft",
    "dygraph.tensor_diagonal": "dygraph.tensor.diagonal",
    "dygraph.tensor_plumbing": "dygraph.tensor.plumbing",
}


# Op classes that moved out of a module that is still there: "module:qualname" (the module
# as FORMER_MODULES gives it today) -> where the class lives now.
FORMER_CLASSES = {
    **{f"dygraph.ops.math.arithmetic:{name}": f"dygraph.ops.math.extrema:{name}"
       for name in ("Maximum", "Minimum", "Fmax", "Fmin")},
    "dygraph.ops.normalization.norms:Normalize": "dygraph.ops.normalization.normalize:Normalize",
}


def current_path(path):
    """`path` ("module:qualname") with a former module name replaced by today's, and a
    moved class by its place today; any other string unchanged (the caller then finds it
    or refuses it).

    Example:
        >>> current_path("dygraph.ops.math:Maximum")
        'dygraph.ops.math.extrema:Maximum'
    """
    if not isinstance(path, str):
        return path
    module, sep, qualname = path.partition(":")
    path = FORMER_MODULES.get(module, module) + sep + qualname
    return FORMER_CLASSES.get(path, path)
