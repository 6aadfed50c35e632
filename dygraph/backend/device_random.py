"""Random numbers drawn on the GPU from a counter whose position lives on the GPU.

Host draws copied to the device cost a copy per call, and a CUDA graph cannot hold a copy
from the host (it would replay the same numbers). So on a GPU the dropout masks come from
a counter-based generator (Philox4x32-10, the kernel `dropout_mask` in
dygraph/kernels/cuda/random_masks.py): element i of a draw is a pure function of the key
and the counter base + i. Each device keeps [key, counter] in a small uint64 array; a draw
reads it there and one more kernel advances the counter, so a captured step draws new
numbers at every replay, and eager and to_static steps share one stream.

The key comes from the global generator: `dygraph.seed(n)` makes the GPU streams start
again from a key derived from n (so GPU runs are reproducible); unseeded, the key is drawn
from the global generator. The CPU keeps drawing on the host (NumPy's PCG64), so a GPU run
drops other elements than a CPU run with the same seed.

Example:
    >>> import numpy as np
    >>> key_for(2024) == key_for(2024), key_for(1) != key_for(2)
    (True, True)
"""

import numpy as np

from dygraph.framework.random import default_generator
from dygraph.kernels.cuda import random_masks as cuda_kernels

__all__ = ["keep_mask", "key_for"]

_STATES = {}  # device id -> (the generator's seedings when keyed, [key, counter], counter)


def key_for(seed):
    """The 64-bit Philox key of a seed (NumPy's SeedSequence of it).

    Example:
        >>> isinstance(key_for(0), int)
        True
    """
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])


def _state(xp):
    device = xp.cuda.runtime.getDevice()
    entry = _STATES.get(device)
    if entry is not None and entry[0] == default_generator.seedings:
        return entry[1], entry[2]
    seed = default_generator.initial_seed()
    key = key_for(seed) if seed is not None else default_generator.random()
    values = np.array([key, 0], np.uint64)
    if entry is None:
        state = xp.asarray(values)
        entry = (default_generator.seedings, state, state[1:])
    else:  # seeded again: the same array (graphs hold it) starts over
        entry[1][...] = xp.asarray(values)
        entry = (default_generator.seedings, entry[1], entry[2])
    _STATES[device] = entry
    return entry[1], entry[2]


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
    state, counter = _state(xp)
    keep = xp.empty(shape, dtype)
    cuda_kernels.dropout_mask(state, p, scale, keep)
    counter += keep.size
    return keep
