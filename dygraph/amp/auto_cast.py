"""`auto_cast`: mixed precision inside a `with` block, decided per op in `apply`.

Level O1: ops on the white list (matrix products, convolutions) compute in the low
precision; ops on the black list (exp, log, softmax, losses, reductions, ...) compute in
float32; the others compute in their inputs' dtype, float32 when the inputs are mixed.
Level O2: every op but the black-listed ones computes in the low precision. The lists
follow Paddle's (paddle/amp/amp_lists.py), mapped to DyGraph's op names, and can be
extended with `custom_white_list` / `custom_black_list` (Paddle's op names or ours).

float16 is NumPy's. bfloat16 is stored as float32, as `dygraph.bfloat16` always is (NumPy
has no bfloat16 type): the inputs and outputs of low-precision ops, and their gradients,
are rounded to bfloat16 (round to nearest even, through `ml_dtypes`), so the values are
exactly those of bfloat16 compute with float32 accumulation, forward and backward, as
Paddle's and PyTorch's bfloat16 autocast give them. On the CPU this is about correctness,
not speed; on a GPU those products run on Tensor Cores.

Example:
    >>> import dygraph
    >>> x = dygraph.ones([2, 2])
    >>> with auto_cast(dtype='float16'):
    ...     y = dygraph.matmul(x, x)
    >>> y.dtype
    dygraph.float16
"""

import contextlib

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op, apply

__all__ = ["auto_cast", "amp_guard", "is_autocast_enabled", "get_autocast_dtype",
           "active_settings", "settings_applied", "WHITE_LIST", "BLACK_LIST", "autocast"]

# Paddle's float16/bfloat16 O1 white list, in DyGraph's op names (linear is matmul + add).
WHITE_LIST = frozenset({"matmul", "linear", "conv", "einsum", "dot"})
# Paddle's black list: numerically sensitive ops stay in float32.
BLACK_LIST = frozenset({
    "exp", "expm1", "log", "log10", "log2", "log1p", "logsoftmax", "softmax",
    "softmaxcrossentropy", "labelinputcrossentropy", "classloss", "nllloss",
    "binarycrossentropy", "mean", "sum", "prod", "cumsum", "cumprod", "pow", "reciprocal",
    "rsqrt", "square", "tan", "acos",
    "asin", "atanh", "cosh", "sinh", "erfinv", "softplus", "tanhshrink", "pnorm", "var",
    "std", "logsumexp", "normalize",
})
# Paddle names that differ from ours. batch, layer, group and instance norm all run the one
# op `Normalize`, so each of their Paddle names selects it.
_ALIASES = {"matmul_v2": "matmul", "mul": "matmul", "conv2d": "conv", "linear_v2": "linear",
            "reduce_sum": "sum", "reduce_mean": "mean", "reduce_prod": "prod",
            "log_softmax": "logsoftmax", "softmax_with_cross_entropy": "softmaxcrossentropy",
            "cross_entropy": "softmaxcrossentropy", "nll_loss": "nllloss",
            "layer_norm": "normalize", "group_norm": "normalize", "batch_norm": "normalize",
            "instance_norm": "normalize"}
_FLOATS = ("float32", "float64")


def _op_names(names):
    return {_ALIASES.get(str(n).lower(), str(n).lower().replace("_", "")) for n in names or ()}


class _Config:
    """The active auto_cast settings of one thread (read by apply through `cast_inputs`)."""

    def __init__(self, level, dtype, white, black):
        self.level, self.dtype = level, dtype
        self.white, self.black = white, black
        self.low = np.dtype(np.float16) if dtype == "float16" else None

    def target(self, name):
        """'low', 'float32' or None (leave the inputs as they are) for op `name`."""
        if name in self.black:
            return "float32"
        if name in self.white or self.level == "O2":
            return "low"
        return None


def _bf16_round(xp, arrays):
    """The arrays rounded to bfloat16 values (kept in their dtype), as a list."""
    if xp is not np and all(a.dtype == np.float32 for a in arrays):
        from dygraph.kernels.cuda import precision

        return precision.round_bfloat16_all(arrays)  # the GPU: one kernel for all
    import ml_dtypes

    return [a.astype(ml_dtypes.bfloat16).astype(a.dtype) for a in arrays]


class RoundToBFloat16(Op):
    """Round float32 values to the nearest bfloat16 (kept in float32): an output for each
    input, all of an op's operands in one kernel on a GPU. The gradients are rounded too: a
    bfloat16 value's gradient is a bfloat16 value, as Paddle's and PyTorch's bfloat16 ops
    take and give them, so a low-precision op's backward products also run on bfloat16
    values (on a GPU, on Tensor Cores: dygraph/backend/product_precision.py)."""

    def forward(self, xp, *arrays):
        rounded = _bf16_round(xp, arrays)
        return rounded[0] if len(rounded) == 1 else tuple(rounded)

    def backward(self, m, *grads):
        wanted = [i for i, (g, edge) in enumerate(zip(grads, self.edges))
                  if g is not None and edge is not None]
        out = [None] * len(grads)
        if wanted:
            present = [grads[i] for i in wanted]
            if m.tensor_mode:
                rounded = apply(RoundToBFloat16(), *present)
                rounded = rounded if type(rounded) is tuple else (rounded,)
            else:
                rounded = _bf16_round(m.xp, present)
            for i, r in zip(wanted, rounded):
                out[i] = r
        return tuple(out)


def _rounded(tensors):
    """The float32 tensors among `tensors` rounded to bfloat16 values by one op, the others
    as they are. A rounded tensor whose source takes no gradient takes none either (the op
    records one node for all, so its output would otherwise ask for one: a product's
    gradient for a batch of data, computed for nothing)."""
    at = [i for i, t in enumerate(tensors) if t._data.dtype == np.float32]
    if not at:
        return tuple(tensors)
    rounded = apply(RoundToBFloat16(), *(tensors[i] for i in at))
    out = list(tensors)
    for i, r in zip(at, rounded if type(rounded) is tuple else (rounded,)):
        out[i] = r.detach() if tensors[i]._sg and not r._sg else r
    return tuple(out)


def _cast(t, dtype):
    from dygraph.ops.common import cast

    return cast(t, dtype)


def cast_inputs(config, op, inputs):
    """The inputs of `op` as auto_cast wants them (called by apply while auto_cast is on)."""
    name = type(op).__name__.lower()
    target = config.target(name)
    floats = [t._data.dtype for t in inputs if t._data.dtype.kind == "f"]
    if not floats:
        return inputs, False
    if target is None:  # gray op: mixed float inputs compute in the widest
        if len(set(floats)) == 1:
            return inputs, False
        widest = max(floats, key=lambda d: d.itemsize)
        return tuple(_cast(t, widest) if t._data.dtype.kind == "f" and t._data.dtype != widest
                     else t for t in inputs), False
    if target == "float32" or config.low is None:
        inputs = tuple(_cast(t, np.float32) if t._data.dtype == np.float16 else t
                       for t in inputs)
        if target == "low":  # bfloat16: computed in float32 on rounded values
            return _rounded(inputs), True
        return inputs, False
    return tuple(_cast(t, config.low) if t._data.dtype == np.float32 else t
                 for t in inputs), False


def round_outputs(result):
    """bfloat16 outputs of a low-precision op: rounded as the hardware would store them."""
    from dygraph.tensor.tensor import Tensor

    if isinstance(result, Tensor):
        return _rounded((result,))[0]
    return tuple(round_outputs(r) for r in result)


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """Run the ops inside the block in mixed precision (see the module docstring).

    `level` 'O1' or 'O2' ('O0' turns it off), `dtype` 'float16' or 'bfloat16' (bfloat16
    needs `pip install ml_dtypes`).
    """
    if level not in ("O0", "O1", "O2", "OD"):
        raise ValueError(f"auto_cast: level must be 'O0', 'O1', 'O2' or 'OD', got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    if dtype == "bfloat16" and enable and level != "O0":
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            raise ImportError("auto_cast(dtype='bfloat16') needs the ml_dtypes package: "
                              "pip install ml_dtypes (or pip install "
                              "'dygraph-framework[bfloat16]')") from None
    white = (WHITE_LIST | _op_names(custom_white_list)) - _op_names(custom_black_list)
    black = (BLACK_LIST | _op_names(custom_black_list)) - _op_names(custom_white_list)
    if level == "OD":  # Paddle's 'default' level: only the white list goes low
        level, black = "O1", black
    from dygraph.autograd import interpreters
    from dygraph.autograd.function import _apply_mixed_precision

    state = grad_mode.state
    previous = state.amp, interpreters.snapshot()
    state.amp = _Config(level, dtype, white, black) if enable and level != "O0" else None
    if state.amp is not None:
        interpreters.push(_apply_mixed_precision, interpreters.TRANSFORM)
    else:
        interpreters.remove(_apply_mixed_precision)
    try:
        yield
    finally:
        state.amp = previous[0]
        interpreters.restore(previous[1])


amp_guard = auto_cast


def active_settings():
    """The active auto_cast settings as plain data (level, dtype, white list, black list),
    or None: what a program records for a function it runs whole at each run.

    Example:
        >>> with auto_cast(dtype='bfloat16'):
        ...     active_settings()[:2]
        ('O1', 'bfloat16')
    """
    config = grad_mode.state.amp
    if config is None:
        return None
    return (config.level, config.dtype, tuple(sorted(config.white)),
            tuple(sorted(config.black)))


@contextlib.contextmanager
def settings_applied(settings):
    """Inside the block, auto_cast as `settings` (from active_settings) describe it, and
    nothing else: the ops run eagerly, even where a program is being built around them (a
    whole-call op's function runs eagerly at each run and while capture probes it)."""
    from dygraph.autograd import interpreters
    from dygraph.autograd.function import _apply_mixed_precision

    state = grad_mode.state
    previous = state.amp, interpreters.snapshot()
    level, dtype, white, black = settings
    state.amp = _Config(level, dtype, frozenset(white), frozenset(black))
    interpreters.restore(((interpreters.TRANSFORM, _apply_mixed_precision),))
    try:
        yield
    finally:
        state.amp = previous[0]
        interpreters.restore(previous[1])


def is_autocast_enabled(device_type=None):
    """True inside an enabled auto_cast block (in this thread). `device_type` is accepted
    and ignored, as in Paddle: every device shares one AMP state.

    Example:
        >>> is_autocast_enabled()
        False
    """
    return grad_mode.state.amp is not None


def get_autocast_dtype(device_type=None):
    """The low-precision dtype of the active auto_cast block ('float16' outside one);
    `device_type` is accepted and ignored, as in Paddle.

    Example:
        >>> get_autocast_dtype()
        'float16'
    """
    config = grad_mode.state.amp
    return config.dtype if config is not None else "float16"


def autocast(device_type=None, dtype="float16", enabled=True, cache_enabled=True):
    """auto_cast(enable=enabled, dtype=dtype) at level O1; the device type does not change
    what is computed (every device runs the same ops), and there is no cast cache."""
    name = getattr(dtype, "name", dtype)
    return auto_cast(enable=enabled, dtype=name)
