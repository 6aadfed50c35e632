"""Creation and random ops: zeros, ones, full, arange, linspace, eye, rand, randn, ...

Random ops draw from the global generator, so `dygraph.seed(n)` makes them reproducible.
New tensors go to the current device (`dygraph.set_device`).
"""

import functools
import inspect

import numpy as np

from dygraph.autograd.whole_call import captured_whole
from dygraph.framework import dtype as _dt
from dygraph.framework.errors import UnsupportedDTypeError, describe, op_error
from dygraph.framework.place import current_place
from dygraph.framework.random import rng
from dygraph.ops.common import as_tensor, shape_list
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "arange", "linspace", "eye", "rand", "randn", "randint", "uniform",
           "normal", "standard_normal", "randperm", "bernoulli", "multinomial", "assign"]
NONDIFF = set(__all__) - {"assign"}


def _allocating(fn):
    """Name the op in errors NumPy raises while building the result: negative sizes,
    impossible shapes (MemoryError or 'array is too big')."""
    op = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except MemoryError as exc:
            raise op_error(op, f"cannot allocate the result: {exc}", MemoryError) from None
        except ValueError as exc:
            if getattr(exc, "dygraph_op", None):  # already names the op and the line
                raise
            raise op_error(op, f"{exc} (arguments: {_brief(args, kwargs)})") from None

    return wrapper


def _grad_option(fn):
    """Add Paddle's keyword-only ``requires_grad`` (default False): True gives a leaf that
    requires a gradient (stop_gradient False)."""

    @functools.wraps(fn)
    def wrapper(*args, requires_grad=False, **kwargs):
        out = fn(*args, **kwargs)
        if requires_grad:
            out.stop_gradient = False
        return out

    signature = inspect.signature(fn)
    option = inspect.Parameter("requires_grad", inspect.Parameter.KEYWORD_ONLY, default=False)
    wrapper.__signature__ = signature.replace(
        parameters=[*signature.parameters.values(), option])
    return wrapper


def _brief(args, kwargs):
    parts = [repr(a) if not isinstance(a, Tensor) else describe(a) for a in args]
    parts += [f"{k}={v!r}" for k, v in kwargs.items()]
    return ", ".join(parts)[:200]


def _wrap(array, stop_gradient=True):
    place = current_place()
    if place.is_gpu_place():
        from dygraph.backend import to_place

        array = to_place(array, place)
    return _new_tensor(array, None, 0, stop_gradient)


def _drawn(kind, shape, dtype, a, b, host_draw):
    """A tensor of random values on the current place: drawn on a GPU
    (backend/device_random.py) where it is one and the dtype float32/float64, else
    host_draw(shape) from the global generator, in `dtype`."""
    from dygraph.backend import device_random

    values = device_random.draw(current_place(), kind, shape, dtype, a, b)
    if values is not None:
        return _new_tensor(values, None, 0, True)
    return _wrap(np.asarray(host_draw(shape)).astype(dtype))


def _filled(shape, value, dtype, host=None):
    """A tensor of `shape` and `dtype` holding `value` on the current place, made there: a
    GPU fills its own memory (no copy from the host, which would also keep a CUDA graph
    from holding the call). `host(shape, dtype)` makes the CPU's array when given."""
    place = current_place()
    if place.is_gpu_place():
        from dygraph.backend import require_cupy

        cp = require_cupy(place)
        with cp.cuda.Device(place.device_id):
            return _new_tensor(cp.full(shape, value, dtype), None, 0, True)
    array = host(shape, dtype) if host is not None else np.full(shape, value, dtype)
    return _new_tensor(array, None, 0, True)


def _float_dtype(dtype):
    return (_dt.convert_dtype(dtype) if dtype is not None else _dt.default_float()).np_dtype


def _random_dtype(dtype, op):
    """The dtype of a random draw (default float): Paddle has no integer or bool kernel
    for these (RuntimeError); UnsupportedDTypeError is that and a TypeError."""
    np_dtype = _float_dtype(dtype)
    if np_dtype.kind not in "fc":
        raise op_error(op, f"draws floating-point values; dtype {np_dtype.name} is not "
                       "supported", UnsupportedDTypeError)
    return np_dtype


def _float_input(x, op):
    """x as a tensor and its values as a host array, refused (UnsupportedDTypeError, a
    RuntimeError as Paddle's and a TypeError) unless floating-point: Paddle's kernels for
    the samplers with a tensor parameter are float-only."""
    x = as_tensor(x, op)
    if x._data.dtype.kind != "f":
        raise op_error(op, f"expects a floating-point tensor, got dtype "
                       f"{x._data.dtype.name}", UnsupportedDTypeError)
    return x, x.numpy()


def _dtype_or(dtype, fallback):
    return _dt.convert_dtype(dtype).np_dtype if dtype is not None else fallback


@_grad_option
@_allocating
@captured_whole(always="constant")
def zeros(shape, dtype=None, name=None):
    """A tensor of zeros (default float32).

    Example:
        >>> import dygraph
        >>> dygraph.zeros([2, 3]).shape
        [2, 3]
    """
    return _filled(shape_list(shape, "zeros"), 0, _float_dtype(dtype), np.zeros)


@_grad_option
@_allocating
@captured_whole(always="constant")
def ones(shape, dtype=None, name=None):
    """A tensor of ones (default float32).

    Example:
        >>> import dygraph
        >>> dygraph.ones([2]).numpy()
        array([1., 1.], dtype=float32)
    """
    return _filled(shape_list(shape, "ones"), 1, _float_dtype(dtype), np.ones)


@_grad_option
@_allocating
@captured_whole(always="constant")
def full(shape, fill_value, dtype=None, name=None):
    """A tensor filled with `fill_value` (dtype from the value when not given).

    Example:
        >>> import dygraph
        >>> dygraph.full([2], 7).numpy()
        array([7, 7])
    """
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = (_dt.default_float().np_dtype if isinstance(fill_value, float) else
                 np.bool_ if isinstance(fill_value, bool) else np.int64)
    else:
        dtype = _dt.convert_dtype(dtype).np_dtype
    return _filled(shape_list(shape, "full"), fill_value, dtype)


@_grad_option
@_allocating
@captured_whole(always="constant")
def empty(shape, dtype=None, name=None):
    """An uninitialised tensor (zeros here, so results never depend on stale memory).

    Example:
        >>> import dygraph
        >>> dygraph.empty([2]).shape
        [2]
    """
    return _filled(shape_list(shape, "empty"), 0, _float_dtype(dtype), np.zeros)


def _like(x, fill, dtype):
    x = as_tensor(x, "like")
    np_dtype = _dtype_or(dtype, x._data.dtype)
    return _filled(x._data.shape, fill, np_dtype)


def _check_fits(fill, np_dtype, op):
    """Refuse (ValueError, as Paddle does) a number an integer or bool dtype cannot hold."""
    if np_dtype.kind not in "iub" or not isinstance(fill, (int, float, np.number)) or \
            isinstance(fill, bool):
        return
    low, high = (0, 1) if np_dtype.kind == "b" else (np.iinfo(np_dtype).min,
                                                     np.iinfo(np_dtype).max)
    if not low <= fill <= high:
        raise op_error(op, f"fill_value {fill} is out of range for dtype {np_dtype.name} "
                       f"([{low}, {high}])")


@_grad_option
@_allocating
@captured_whole(always="constant")
def zeros_like(x, dtype=None, name=None):
    """Zeros with x's shape (and dtype unless given).

    Example:
        >>> import dygraph
        >>> dygraph.zeros_like(dygraph.ones([2])).numpy()
        array([0., 0.], dtype=float32)
    """
    return _like(x, 0, dtype)


@_grad_option
@_allocating
@captured_whole(always="constant")
def ones_like(x, dtype=None, name=None):
    """Ones with x's shape (and dtype unless given).

    Example:
        >>> import dygraph
        >>> dygraph.ones_like(dygraph.zeros([2])).numpy()
        array([1., 1.], dtype=float32)
    """
    return _like(x, 1, dtype)


@_grad_option
@_allocating
@captured_whole(always="constant")
def full_like(x, fill_value, dtype=None, name=None):
    """`fill_value` with x's shape (and dtype unless given).

    Example:
        >>> import dygraph
        >>> dygraph.full_like(dygraph.zeros([2]), 3.0).numpy()
        array([3., 3.], dtype=float32)
    """
    x = as_tensor(x, "full_like")
    _check_fits(fill_value, _dtype_or(dtype, x._data.dtype), "full_like")
    return _like(x, fill_value, dtype)


@_grad_option
@captured_whole(always="constant")
def empty_like(x, dtype=None, name=None):
    """Zeros with x's shape; see `empty`.

    Example:
        >>> import dygraph
        >>> dygraph.empty_like(dygraph.ones([2])).shape
        [2]
    """
    return _like(x, 0, dtype)


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


@_grad_option
@_allocating
@captured_whole(always="constant")
def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Evenly spaced values in [start, end); int64 for integer arguments, else float32.

    Example:
        >>> import dygraph
        >>> dygraph.arange(1, 3, dtype='float32').numpy()
        array([1., 2.], dtype=float32)
    """
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise op_error("arange", "step must not be 0")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        np_dtype = np.int64 if ints else _dt.default_float().np_dtype
    else:
        np_dtype = _dt.convert_dtype(dtype).np_dtype
    return _wrap(np.arange(start, end, step).astype(np_dtype))


@_grad_option
@_allocating
@captured_whole(always="constant")
def linspace(start, stop, num, dtype=None, name=None):
    """`num` evenly spaced values from start to stop inclusive.

    Example:
        >>> import dygraph
        >>> dygraph.linspace(0, 1, 3).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    values = np.linspace(_number(start), _number(stop), int(_number(num)))
    return _wrap(values.astype(_float_dtype(dtype)))


@_grad_option
@_allocating
@captured_whole(always="constant")
def eye(num_rows, num_columns=None, dtype=None, name=None):
    """Identity matrix of num_rows x num_columns.

    Example:
        >>> import dygraph
        >>> dygraph.eye(2).numpy()
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    return _wrap(np.eye(int(num_rows), None if num_columns is None else int(num_columns),
                        dtype=_float_dtype(dtype)))


@_grad_option
@_allocating
@captured_whole(always="per_run")
def rand(shape, dtype=None, name=None):
    """Uniform random values in [0, 1).

    Example:
        >>> import dygraph
        >>> dygraph.rand([2, 3]).shape
        [2, 3]
    """
    return _drawn("uniform", shape_list(shape, "rand"), _random_dtype(dtype, "rand"), 0.0, 1.0,
                  lambda size: rng().random(size))


@_grad_option
@_allocating
@captured_whole(always="per_run")
def randn(shape, dtype=None, name=None):
    """Standard normal random values.

    Example:
        >>> import dygraph
        >>> dygraph.randn([4, 2]).shape
        [4, 2]
    """
    return _drawn("normal", shape_list(shape, "randn"), _random_dtype(dtype, "randn"), 0.0,
                  1.0, lambda size: rng().standard_normal(size))


standard_normal = randn


@_allocating
@captured_whole(always="per_run")
def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """Random integers in [low, high) (or [0, low) when high is None).

    Example:
        >>> import dygraph
        >>> dygraph.randint(0, 10, [3]).dtype
        dygraph.int64
    """
    if high is None:
        low, high = 0, low
    if high <= low:
        raise op_error("randint", f"high ({high}) must be greater than low ({low})")
    values = rng().integers(low, high, shape_list(shape, "randint"))
    return _wrap(values.astype(_dtype_or(dtype, np.int64)))


@_grad_option
@_allocating
@captured_whole(always="per_run")
def uniform(shape, dtype=None, min=0.0, max=1.0, seed=0, name=None):  # noqa: A002
    """Uniform random values in [min, max) (Paddle 3.3's default range is [0, 1)).

    Example:
        >>> import dygraph
        >>> float(dygraph.uniform([100], min=2.0, max=3.0).min()) >= 2.0
        True
    """
    size, dtype = shape_list(shape, "uniform"), _random_dtype(dtype, "uniform")
    if seed:  # a generator of its own, on the host
        return _wrap(np.random.default_rng(seed).uniform(min, max, size).astype(dtype))
    return _drawn("uniform", size, dtype, min, max, lambda size: rng().uniform(min, max, size))


@_allocating
@captured_whole(always="per_run")
def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal random values; mean and std may be tensors (broadcast) or numbers.

    Example:
        >>> import dygraph
        >>> dygraph.normal(0.0, 1.0, [3]).shape
        [3]
    """
    mean_a = mean.numpy() if isinstance(mean, Tensor) else mean
    std_a = std.numpy() if isinstance(std, Tensor) else std
    if shape is None:
        shape = np.broadcast(np.asarray(mean_a), np.asarray(std_a)).shape
    else:
        shape = shape_list(shape, "normal")
    dtype = (mean.dtype if isinstance(mean, Tensor) else
             std.dtype if isinstance(std, Tensor) else None)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):  # broadcast parameters: host
        return _wrap(rng().normal(mean_a, std_a, shape).astype(_float_dtype(dtype)))
    return _drawn("normal", shape, _float_dtype(dtype), mean, std,
                  lambda size: rng().normal(mean, std, size))


@_grad_option
@_allocating
@captured_whole(always="per_run")
def randperm(n, dtype="int64", name=None):
    """A random permutation of 0..n-1.

    Example:
        >>> import dygraph
        >>> sorted(dygraph.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    return _wrap(rng().permutation(int(n)).astype(_dt.convert_dtype(dtype).np_dtype))


@captured_whole(always="per_run")
def bernoulli(x, p=None, name=None):
    """1 with probability x (elementwise), else 0; same dtype as x (a float one). A number
    `p` gives every element that probability instead.

    Example:
        >>> import dygraph
        >>> dygraph.bernoulli(dygraph.ones([3])).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    from dygraph.framework.errors import IndexValueError

    _, probs = _float_input(x, "bernoulli")
    if p is not None:
        probs = np.full(probs.shape, p, probs.dtype)
    bad = probs[(probs < 0) | (probs > 1)]
    if bad.size:  # Paddle: OutOfRange (IndexError)
        raise op_error("bernoulli", f"probabilities must be in [0, 1], got {bad.flat[0]}",
                       IndexValueError)
    return _wrap((rng().random(probs.shape) < probs).astype(probs.dtype))


@captured_whole(always="per_run")
def multinomial(x, num_samples=1, replacement=False, name=None):
    """Sample category indices from the rows of x (unnormalised probabilities).

    Example:
        >>> import dygraph
        >>> dygraph.multinomial(dygraph.to_tensor([0.0, 1.0]), 2, True).tolist()
        [1, 1]
    """
    probs = _float_input(x, "multinomial")[1].astype(np.float64)
    if (probs < 0).any():
        raise op_error("multinomial", "probabilities must be non-negative")
    rows = probs.reshape(-1, probs.shape[-1])
    out = []
    for row in rows:
        total = row.sum()
        if total <= 0:
            raise op_error("multinomial", "each row needs a positive total probability")
        if not replacement and num_samples > np.count_nonzero(row):
            raise op_error("multinomial", f"cannot draw {num_samples} distinct samples from "
                           f"{np.count_nonzero(row)} categories without replacement")
        out.append(rng().choice(row.shape[0], num_samples, replace=replacement, p=row / total))
    result = np.asarray(out, dtype=np.int64)
    return _wrap(result.reshape(probs.shape[:-1] + (num_samples,)))


def assign(x, output=None):
    """Copy x (Tensor, array or number) into a new tensor, or into `output` in place.

    Example:
        >>> import dygraph
        >>> dygraph.assign([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
    """
    from dygraph.ops.math.arithmetic import scale

    src = as_tensor(x, "assign")
    if output is None:
        return scale(src, 1.0) if isinstance(x, Tensor) else src
    output.set_value(src.numpy().astype(output._data.dtype))
    return output
