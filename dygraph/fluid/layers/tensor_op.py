"""fluid.layers tensor creation and manipulation in 1.x form."""

import numpy as np

import dygraph
from dygraph.fluid.dygraph.base import to_variable
from dygraph.framework.random import rng
from dygraph.tensor.tensor import Tensor

__all__ = ["fill_constant", "cast", "concat", "split", "reshape", "transpose", "argmax",
           "argmin", "topk", "expand", "stack", "unsqueeze", "squeeze", "slice", "gather",
           "where", "uniform_random", "gaussian_random", "assign", "zeros", "ones",
           "zeros_like", "ones_like", "flatten", "argsort"]


def _var(x):
    return x if isinstance(x, Tensor) else to_variable(x)


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of `shape` filled with `value`.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.fill_constant([2], 'int64', 3).numpy()
        array([3, 3])
    """
    result = dygraph.full(shape, value, dtype)
    if out is not None:
        out.set_value(result)
        return out
    return result


def zeros(shape, dtype, force_cpu=False, name=None):
    """Zeros of `shape` and `dtype`.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.zeros([2], 'float32').shape
        [2]
    """
    return dygraph.zeros(shape, dtype)


def ones(shape, dtype, force_cpu=False, name=None):
    """Ones of `shape` and `dtype`.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.ones([2], 'float32').shape
        [2]
    """
    return dygraph.ones(shape, dtype)


def zeros_like(x, out=None):
    """Zeros shaped like x."""
    return dygraph.zeros_like(_var(x))


def ones_like(x, out=None):
    """Ones shaped like x."""
    return dygraph.ones_like(_var(x))


def cast(x, dtype):
    """Convert to `dtype`.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.cast(np.array([1.7]), 'int32').numpy()
        array([1], dtype=int32)
    """
    return dygraph.cast(_var(x), dtype)


def concat(input, axis=0, name=None):
    """Join a list of variables along `axis`.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.concat([np.ones([1, 2]), np.ones([1, 2])]).shape
        [2, 2]
    """
    return dygraph.concat([_var(v) for v in input], axis=axis)


def split(input, num_or_sections, dim=-1, name=None):
    """Split along `dim` into equal parts or the given section sizes.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> [p.shape for p in fluid.layers.split(np.ones([2, 4]), 2)]
        [[2, 2], [2, 2]]
    """
    return dygraph.split(_var(input), num_or_sections, axis=dim)


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    """New shape (0 keeps a dim, -1 is inferred).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.reshape(np.ones([2, 3]), [-1]).shape
        [6]
    """
    out = dygraph.reshape(_var(x), actual_shape.tolist() if actual_shape is not None else shape)
    if act is not None:
        from dygraph.fluid.layers.nn import apply_act

        out = apply_act(out, act)
    return out


def transpose(x, perm, name=None):
    """Permute dims.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.transpose(np.ones([2, 3]), [1, 0]).shape
        [3, 2]
    """
    return dygraph.transpose(_var(x), perm)


def flatten(x, axis=1, name=None):
    """Flatten to 2-D: dims before `axis` and from `axis` on.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.flatten(np.ones([2, 3, 4]), 2).shape
        [6, 4]
    """
    x = _var(x)
    lead = int(np.prod(x.shape[:axis])) if axis else 1
    return dygraph.reshape(x, [lead, -1])


def argmax(x, axis=0):
    """Index of the largest value along `axis` (1.x default axis 0).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.argmax(np.array([[1, 5], [7, 2]]), 1).numpy()
        array([1, 0])
    """
    return dygraph.argmax(_var(x), axis=axis)


def argmin(x, axis=0):
    """Index of the smallest value along `axis`."""
    return dygraph.argmin(_var(x), axis=axis)


def argsort(input, axis=-1, descending=False, name=None):
    """(sorted values, indices) along `axis`, as 1.x returned them."""
    x = _var(input)
    return dygraph.sort(x, axis, descending), dygraph.argsort(x, axis, descending)


def topk(input, k, name=None):
    """(values, indices) of the k largest entries along the last axis.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.topk(np.array([[1.0, 3.0, 2.0]]), 2)[1].numpy()
        array([[1, 2]])
    """
    return dygraph.topk(_var(input), k)


def expand(x, expand_times, name=None):
    """Tile x `expand_times[i]` times along dim i (1.x expand is tiling).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.expand(np.ones([1, 2]), [3, 1]).shape
        [3, 2]
    """
    return dygraph.tile(_var(x), expand_times)


def stack(x, axis=0):
    """Stack a list of equal-shaped variables along a new axis.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.stack([np.ones([2]), np.ones([2])]).shape
        [2, 2]
    """
    return dygraph.stack([_var(v) for v in x], axis=axis)


def unsqueeze(input, axes, name=None):
    """Insert size-1 dims at `axes`."""
    return dygraph.unsqueeze(_var(input), axes)


def squeeze(input, axes, name=None):
    """Remove the size-1 dims listed in `axes`."""
    return dygraph.squeeze(_var(input), axes)


def slice(input, axes, starts, ends):  # noqa: A001 - 1.x name
    """input[starts:ends] along each of `axes`.

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.slice(np.arange(6).reshape(2, 3), [1], [1], [3]).shape
        [2, 2]
    """
    return dygraph.slice(_var(input), axes, starts, ends)


def gather(input, index, overwrite=True):
    """Rows of `input` at `index` (along axis 0).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.gather(np.arange(6).reshape(3, 2), np.array([2, 0])).numpy()
        array([[4, 5],
               [0, 1]])
    """
    index = index if isinstance(index, Tensor) else dygraph.to_tensor(index)
    return dygraph.gather(_var(input), index)


def where(condition):
    """Coordinates of the True entries, int64 shaped [N, ndim] (the 1.x `where`).

    Example:
        >>> import numpy as np, dygraph.fluid as fluid
        >>> fluid.layers.where(np.array([False, True])).numpy()
        array([[1]])
    """
    cond = condition if isinstance(condition, Tensor) else dygraph.to_tensor(condition)
    return dygraph.to_tensor(np.argwhere(cond.numpy()).astype(np.int64))


def uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0):  # noqa: A002
    """Uniform random values in [min, max).

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.uniform_random([2, 3]).shape
        [2, 3]
    """
    return dygraph.uniform(shape, dtype, min, max, seed)


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32"):
    """Normal random values.

    Example:
        >>> import dygraph.fluid as fluid
        >>> fluid.layers.gaussian_random([2]).shape
        [2]
    """
    gen = np.random.default_rng(seed) if seed else rng()
    return dygraph.to_tensor(gen.normal(mean, std, shape).astype(dtype))


def assign(input, output=None):
    """Copy input (array or variable) into a new variable or into `output`."""
    return dygraph.assign(input, output)
