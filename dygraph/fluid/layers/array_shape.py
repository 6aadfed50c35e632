"""fluid.layers for tensor arrays, counters, shapes and rearrangements in 1.x form (1.5's
create_array, array_write, array_read, array_length, tensor_array_to_tensor, increment,
autoincreased_step_counter, create_parameter, create_global_var, fill_constant_batch_size_like,
shape, rank, unstack, reverse, range, linspace, diag, eye, has_inf, has_nan, isfinite,
pad, pad2d, image_resize, resize_bilinear, resize_nearest, scatter, pixel_shuffle,
shuffle_channel, multiplex, clip_by_norm, Print).

Example:
    >>> import numpy as np, dygraph.fluid as fluid
    >>> fluid.layers.pad2d(np.ones([1, 1, 1, 1], np.float32), [1, 0, 0, 2]).shape
    [1, 1, 2, 3]
"""

import builtins

import numpy as np

import dygraph
from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.fluid.dygraph.base import to_variable
from dygraph.static.parameters import create_global_var, create_parameter
from dygraph.static.print_op import Print
from dygraph.static.program import Operator
from dygraph.static.tensor_array import array_length, array_read, array_write, create_array
from dygraph.tensor.tensor import Tensor

__all__ = ["create_array", "array_write", "array_read", "array_length",
           "tensor_array_to_tensor", "increment", "autoincreased_step_counter",
           "create_parameter", "create_global_var", "fill_constant_batch_size_like", "shape",
           "rank", "unstack", "reverse", "range", "linspace", "diag", "eye", "has_inf",
           "has_nan", "isfinite", "pad", "pad2d", "image_resize", "resize_bilinear",
           "resize_nearest", "scatter", "pixel_shuffle", "shuffle_channel", "multiplex",
           "clip_by_norm", "Print", "CounterStep"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):  # noqa: A002
    """(the array's elements joined along `axis` (stacked when use_stack), the size each
    contributed along it as int32).

    Example:
        >>> import numpy as np, dygraph, dygraph.fluid as fluid
        >>> arr = fluid.layers.create_array('float32', [dygraph.ones([2, 3]),
        ...                                             dygraph.ones([2, 3])])
        >>> out, sizes = fluid.layers.tensor_array_to_tensor(arr, axis=1)
        >>> out.shape, sizes.tolist()
        ([2, 6], [3, 3])
    """
    items = input if isinstance(input, list) else None
    if items is not None:  # eager: a Python list of tensors
        joined = dygraph.stack(items, axis) if use_stack else dygraph.concat(items, axis)
        sizes = [1 if use_stack else int(t.shape[axis]) for t in items]
        return joined, dygraph.to_tensor(np.array(sizes, np.int32))
    stacked = _var(input)  # a program's array: its elements stacked on axis 0
    element_ndim = stacked.ndim - 1
    axis = axis % (element_ndim + 1 if use_stack else element_ndim)
    moved = dygraph.moveaxis(stacked, 0, axis)
    if use_stack:
        joined = moved
        sizes = dygraph.full(dygraph.shape(stacked)[:1], 1, "int32")
    else:
        shape = [0 if k < axis else -1 for k in builtins.range(axis + 1)]
        joined = dygraph.reshape(moved, shape + [0] * (element_ndim - axis - 1))
        sizes = dygraph.full(dygraph.shape(stacked)[:1], 1, "int32") * \
            dygraph.shape(stacked)[axis + 1].astype("int32")
    return joined, sizes


def increment(x, value=1.0, in_place=True):
    """x + value, written into x when in_place (1.x's default).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.increment(np.array([1], np.int64), in_place=False).numpy()
        array([2])
    """
    x = _var(x)
    if in_place:
        return dygraph.increment(x, value)
    return x + dygraph.to_tensor(np.asarray(value).astype(x._data.dtype))


class CounterStep(Op):
    """The counter plus `step`, written back to its persistable variable."""

    attrs = ("step",)

    differentiable = False

    def __init__(self, step):
        self.step = step

    def forward(self, xp, counter):
        return counter + counter.dtype.type(self.step)

    def backward(self, m, g):
        raise NotImplementedError("a step counter has no gradient")


def autoincreased_step_counter(counter_name=None, begin=1, step=1):
    """A persistable int64 [1] counter that each run of the program moves by `step`; the
    first run reads `begin`. Static programs only.

    Example:
        >>> import dygraph, dygraph.fluid as fluid
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     step = fluid.layers.autoincreased_step_counter(begin=5)
        >>> dygraph.disable_static()
        >>> exe = static.Executor(); _ = exe.run(startup)
        >>> [exe.run(main, fetch_list=[step])[0].item() for _ in [1, 2, 3]]
        [5, 6, 7]
    """
    program = grad_mode.state.static_program
    if program is None:
        raise RuntimeError("autoincreased_step_counter: the counter belongs to a static "
                           "program (call dygraph.enable_static() first)")
    name = counter_name or "@STEP_COUNTER@"
    block = program.global_block()
    if name in block.vars:
        return block.vars[name]
    counter = create_global_var([1], begin - step, "int64", persistable=True, name=name)
    op = CounterStep(step)
    op.n_outputs = 1
    # first in the program, so that every op of a run reads the run's count
    block.ops.insert(0, Operator(op, [name], [name], role="optimize"))
    program._bump()
    counter.stop_gradient = True
    return counter


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0,  # noqa: A002
                                  output_dim_idx=0, force_cpu=False):
    """A tensor of `value` shaped `shape` with dimension output_dim_idx taken from
    input's dimension input_dim_idx (a free batch stays free).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.fill_constant_batch_size_like(np.ones([3, 2]), [-1, 4], 'float32',
        ...                                            1.0).shape
        [3, 4]
    """
    sizes = list(shape)
    sizes[output_dim_idx] = _var(input).shape[input_dim_idx]
    return dygraph.full(sizes, value, dtype)


def shape(input):  # noqa: A002
    """The shape of input as an int32 tensor, computed at run time.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.shape(np.ones([2, 3])).tolist()
        [2, 3]
    """
    return dygraph.shape(_var(input))


def rank(input):  # noqa: A002
    """The number of dimensions of input, as an int32 tensor of shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.rank(np.ones([2, 3])).tolist()
        [2]
    """
    return dygraph.full([1], _var(input).ndim, "int32")


def unstack(x, axis=0, num=None):
    """The slices of x along `axis`, as a list.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> len(fluid.layers.unstack(np.ones([3, 2])))
        3
    """
    return dygraph.unstack(_var(x), axis, num)


def reverse(x, axis):
    """x with the order along `axis` (an int or a list) reversed.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.reverse(np.array([1.0, 2.0]), 0).numpy().tolist()
        [2.0, 1.0]
    """
    return dygraph.flip(_var(x), axis if isinstance(axis, (list, tuple)) else [axis])


def range(start, end, step, dtype, name=None):  # noqa: A001
    """[start, end) in steps of `step`.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.range(0, 6, 2, 'int64').tolist()
        [0, 2, 4]
    """
    return dygraph.arange(start, end, step, dtype)


def linspace(start, stop, num, dtype="float32", name=None):
    """`num` evenly spaced values from start to stop.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.linspace(0, 1, 3).tolist()
        [0.0, 0.5, 1.0]
    """
    return dygraph.linspace(start, stop, num, dtype)


def diag(diagonal):
    """The square matrix with `diagonal` on its diagonal.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.diag(np.array([1.0, 2.0])).numpy().tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    return dygraph.diag(_var(diagonal))


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    """The identity matrix, repeated over `batch_shape` when given.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.eye(2, batch_shape=[3]).shape
        [3, 2, 2]
    """
    out = dygraph.eye(num_rows, num_columns, dtype)
    if batch_shape:
        out = dygraph.expand(out, list(batch_shape) + list(out.shape))
    return out


def has_inf(x):
    """Whether x holds an infinity, as a bool tensor of shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.has_inf(np.array([1.0, np.inf])).tolist()
        [True]
    """
    return dygraph.reshape(dygraph.any(dygraph.isinf(_var(x))), [1])


def has_nan(x):
    """Whether x holds a NaN, as a bool tensor of shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.has_nan(np.array([1.0])).tolist()
        [False]
    """
    return dygraph.reshape(dygraph.any(dygraph.isnan(_var(x))), [1])


def isfinite(x):
    """Whether every value of x is finite, as a bool tensor of shape [1].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.isfinite(np.array([1.0, np.nan])).tolist()
        [False]
    """
    return dygraph.reshape(dygraph.all(dygraph.isfinite(_var(x))), [1])


def pad(x, paddings, pad_value=0.0, name=None):
    """x padded with pad_value: `paddings` holds (before, after) for every dimension.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pad(np.ones([1, 2], np.float32), [0, 1, 1, 0]).shape
        [2, 3]
    """
    x = _var(x)
    if len(paddings) != 2 * x.ndim:
        raise ValueError(f"pad: paddings needs 2 values per dimension ({2 * x.ndim}), got "
                         f"{len(paddings)}")
    return dygraph.nn.functional.pad(x, list(paddings), mode="constant", value=pad_value)


def pad2d(input, paddings=(0, 0, 0, 0), mode="constant", pad_value=0.0,  # noqa: A002
          data_format="NCHW", name=None):
    """A 4-D input padded on its height and width: paddings = [top, bottom, left, right];
    mode 'constant', 'reflect' or 'edge'.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pad2d(np.ones([1, 1, 2, 2], np.float32), [1, 1, 0, 0],
        ...                    mode='edge').shape
        [1, 1, 4, 2]
    """
    modes = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}
    if mode not in modes:
        raise ValueError(f"pad2d: mode must be one of {sorted(modes)}, got {mode!r}")
    top, bottom, left, right = paddings
    return dygraph.nn.functional.pad(_var(input), [left, right, top, bottom],
                                     mode=modes[mode], value=pad_value,
                                     data_format=data_format)


def image_resize(input, out_shape=None, scale=None, name=None, resample="BILINEAR",  # noqa: A002
                 actual_shape=None, align_corners=True, align_mode=1, data_format="NCHW"):
    """input resized to `out_shape` (or by `scale`) with `resample` 'BILINEAR',
    'TRILINEAR' or 'NEAREST'; 1.x aligns corners by default.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.image_resize(np.ones([1, 1, 2, 2], np.float32), [4, 4]).shape
        [1, 1, 4, 4]
    """
    modes = {"BILINEAR": "bilinear", "TRILINEAR": "trilinear", "NEAREST": "nearest"}
    if resample not in modes:
        raise ValueError(f"image_resize: resample must be one of {sorted(modes)}, got "
                         f"{resample!r}")
    x = _var(input)
    size = actual_shape if actual_shape is not None else out_shape
    if modes[resample] == "nearest" and align_corners:
        return _nearest_aligned(x, size, scale, data_format)
    return dygraph.nn.functional.interpolate(x, size=size, scale_factor=scale,
                                             mode=modes[resample],
                                             align_corners=align_corners,
                                             align_mode=align_mode, data_format=data_format)


def _nearest_aligned(x, size, scale, data_format):
    """Nearest resizing with corners aligned: out index i reads round(i * (in - 1) /
    (out - 1)), as 1.x's resize_nearest."""
    axes = list(builtins.range(2, x.ndim)) if data_format.startswith("NC") else \
        list(builtins.range(1, x.ndim - 1))
    sizes = [int(x.shape[a]) for a in axes]
    if size is None:
        scales = scale if isinstance(scale, (list, tuple)) else [scale] * len(axes)
        size = [int(n * s) for n, s in zip(sizes, scales)]
    out = x
    for a, n_in, n_out in zip(axes, sizes, size):
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        index = np.floor(np.arange(n_out) * ratio + 0.5).astype(np.int64)
        out = dygraph.index_select(out, dygraph.to_tensor(index), axis=a)
    return out


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,  # noqa: A002
                    align_corners=True, align_mode=1, data_format="NCHW"):
    """Bilinear resizing (image_resize with resample 'BILINEAR').

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.resize_bilinear(np.ones([1, 1, 2, 2], np.float32), scale=2).shape
        [1, 1, 4, 4]
    """
    return image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape,
                        align_corners, align_mode, data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None,  # noqa: A002
                   align_corners=True, data_format="NCHW"):
    """Nearest resizing (image_resize with resample 'NEAREST').

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
        >>> fluid.layers.resize_nearest(x, [3, 3]).numpy()[0, 0].tolist()
        [[0.0, 1.0, 1.0], [2.0, 3.0, 3.0], [2.0, 3.0, 3.0]]
    """
    return image_resize(input, out_shape, scale, name, "NEAREST", actual_shape,
                        align_corners, 1, data_format)


def scatter(input, index, updates, name=None, overwrite=True):  # noqa: A002
    """input with the rows `index` replaced by (or, overwrite False, summed with) updates.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.scatter(np.zeros([3, 1], np.float32), np.array([1]),
        ...                      np.ones([1, 1], np.float32)).numpy().ravel().tolist()
        [0.0, 1.0, 0.0]
    """
    return dygraph.scatter(_var(input), _var(index), _var(updates), overwrite)


def pixel_shuffle(x, upscale_factor):
    """[N, C r^2, H, W] rearranged to [N, C, H r, W r].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.pixel_shuffle(np.ones([1, 4, 2, 2], np.float32), 2).shape
        [1, 1, 4, 4]
    """
    return dygraph.nn.functional.pixel_shuffle(_var(x), upscale_factor)


def shuffle_channel(x, group, name=None):
    """The channels interleaved across `group` groups.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1)
        >>> fluid.layers.shuffle_channel(x, 2).numpy().ravel().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    return dygraph.nn.functional.channel_shuffle(_var(x), group)


def multiplex(inputs, index):
    """Row i of the output is row i of inputs[index[i]].

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> a, b = np.zeros([2, 1], np.float32), np.ones([2, 1], np.float32)
        >>> fluid.layers.multiplex([a, b], np.array([[1], [0]], np.int32)).numpy().tolist()
        [[1.0], [0.0]]
    """
    return dygraph.multiplex([_var(t) for t in inputs], _var(index))


def clip_by_norm(x, max_norm, name=None):
    """x scaled down so that its L2 norm is at most max_norm.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.clip_by_norm(np.array([3.0, 4.0]), 1.0).numpy().round(4).tolist()
        [0.6, 0.8]
    """
    x = _var(x)
    norm = dygraph.sqrt(dygraph.sum(x * x))
    return x * (max_norm / dygraph.maximum(norm, dygraph.full_like(norm, max_norm)))
