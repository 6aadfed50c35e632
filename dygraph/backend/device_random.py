"""Random numbers drawn on the GPU from a counter whose position lives on the GPU.

Host draws copied to the device cost a copy per call, and a CUDA graph cannot hold a copy
from the host (it would replay the same numbers). So on a GPU dropout masks and float32/
float64 uniform and normal values (rand, randn, uniform, normal, their _like and in-place
forms, gumbel_softmax's and rrelu's draws) come from a counter-based generator
(Philox4x32-10, the kernels of dygraph/kernels/cuda/random_draws.py): element i of a draw
is a pure function of the key and the counter base + i. Each device keeps [key, counter]
in a small uint64 array; a draw reads it there and one more kernel advances the counter,
so a captured step draws new numbers at every replay, and eager and to_static steps share
one stream.

The key comes from the global generator: `dygraph.seed(n)` makes the GPU streams start
again from a key derived from n (so GPU runs are reproducible); unseeded, the key is drawn
from the global generator. The CPU keeps drawing on the host (NumPy's PCG64), so a GPU run
draws other values than a CPU run with the same seed (as Paddle's GPU generator does).

Example:
    >>> import numpy as np
    >>> key_for(2024) == key_for(2024), key_for(1) != key_for(2)
    (True, True)
"""

import numpy as np

from dygraph.framework.random import default_generator
from dygraph.kernels.cuda import random_draws as cuda_kernels

__all__ = ["keep_mask", "uniform", "normal", "draw", "draw_like", "key_for", "restart"]

_STATES = {}  # device id -> (the generator's seedings when keyed, [key, counter], counter)


def key_for(seed):
    """The 64-bit Philox key of a seed (NumPy's SeedSequence of it).

    Example:
        >>> isinstance(key_for(0), int)
        True
    """
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])


def _key():
    seed = default_generator.initial_seed()
    return key_for(seed) if seed is not None else default_generator.random()


def _state(xp):
    device = xp.cuda.runtime.getDevice()
    entry = _STATES.get(device)
    if entry is None:
        state = xp.asarray(np.array([_key(), 0], np.uint64))
        entry = _STATES[device] = (default_generator.seedings, state, state[1:])
    elif entry[0] != default_generator.seedings:  # seeded again (not through dygraph.seed)
        entry = _start_over(device, entry)
    return entry[1], entry[2]


def _start_over(device, entry):
    """The stream of `device` from the current seed, in the same array (graphs hold it)."""
    entry[1][...] = _device_values(entry[1], _key(), 0)
    entry = _STATES[device] = (default_generator.seedings,) + entry[1:]
    return entry


def restart():
    """Start every GPU stream that has drawn over from the global generator's seed now
    (`dygraph.seed` calls it), writing the new key into the same device array, which the
    captured graphs read.

    Example:
        >>> restart()
    """
    for device, entry in list(_STATES.items()):
        if entry[0] != default_generator.seedings:
            _start_over(device, entry)


def get_states():
    """The GPUs' streams that have drawn, as (device id, seedings, key, counter) tuples: a
    read from each device (so never while a CUDA graph is being captured).

    Example:
        >>> isinstance(get_states(), list)
        True
    """
    states = []
    for device, (seedings, state, _) in sorted(_STATES.items()):
        key, counter = (int(v) for v in _host(state))
        states.append((device, seedings, key, counter))
    return states


def set_states(states):
    """Put the GPUs' streams back where get_states() found them.

    Example:
        >>> set_states([])
    """
    for device, seedings, key, counter in states:
        entry = _STATES.get(device)
        if entry is None:
            continue
        entry[1][...] = _device_values(entry[1], key, counter)
        _STATES[device] = (seedings,) + entry[1:]


def _host(array):
    from dygraph.backend import as_numpy

    return as_numpy(array)


def _device_values(like, key, counter):
    from dygraph.backend import get_array_module

    return get_array_module(like).asarray(np.array([key, counter], np.uint64))


def _draw(xp, fill, shape, dtype, *params):
    """A new array of `xp` filled by the kernel `fill(state, *params, out)`, the counter
    advanced past it."""
    state, counter = _state(xp)
    out = xp.empty(shape, dtype)
    fill(state, *params, out)
    counter += out.size
    return out


def keep_mask(xp, shape, p, scale, dtype):
    """An array of `xp` (CuPy) of `shape` and `dtype` holding `scale` where a uniform draw
    on [0, 1) is at least p, else 0: a dropout mask in two kernels (the draw, the advance
    of the counter), no copy from the host.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> mask = keep_mask(cupy, (4, 256), 0.25, 1.0, np.float32)  # doctest: +SKIP
        >>> 0.65 < float(mask.mean()) < 0.85  # doctest: +SKIP
        True
    """
    return _draw(xp, cuda_kernels.dropout_mask, shape, dtype, p, scale)


def uniform(xp, shape, dtype, low=0.0, high=1.0):
    """Uniform values on [low, high) as a new float32 or float64 array of `xp` (CuPy).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> float(uniform(cupy, (1000,), np.float32, 2.0, 3.0).min()) >= 2.0  # doctest: +SKIP
        True
    """
    return _draw(xp, cuda_kernels.uniform_draw, shape, dtype, low, high)


def normal(xp, shape, dtype, mean=0.0, std=1.0):
    """Normal values N(mean, std) as a new float32 or float64 array of `xp` (CuPy).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> normal(cupy, (3,), np.float64).dtype  # doctest: +SKIP
        dtype('float64')
    """
    return _draw(xp, cuda_kernels.normal_draw, shape, dtype, mean, std)


_DRAWN = (np.dtype(np.float32), np.dtype(np.float64))


def draw(place, kind, shape, dtype, a, b):
    """`kind` ("uniform" on [a, b), or "normal" with mean a and deviation b) values of
    `shape` and `dtype` drawn on `place` when it is a GPU and the dtype float32 or float64;
    None otherwise (the host generator draws then).

    Example:
        >>> from dygraph.framework.place import CPUPlace
        >>> draw(CPUPlace(), "uniform", (2,), np.float32, 0.0, 1.0) is None
        True
    """
    if not place.is_gpu_place() or np.dtype(dtype) not in _DRAWN:
        return None
    from dygraph.backend import require_cupy

    cp = require_cupy(place)
    with cp.cuda.Device(place.device_id):
        return (uniform if kind == "uniform" else normal)(cp, tuple(shape), dtype, a, b)


def draw_like(array, kind, a, b):
    """draw() for the place, shape and dtype of `array` (a CuPy array; None for a NumPy
    one or another dtype).

    Example:
        >>> draw_like(np.zeros(2), "normal", 0.0, 1.0) is None
        True
    """
    from dygraph.backend import place_of

    return draw(place_of(array), kind, array.shape, array.dtype, a, b)
