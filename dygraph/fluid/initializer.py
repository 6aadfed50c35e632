"""fluid.initializer: the 1.x initializer names and arguments, mapped onto
`dygraph.nn.initializer`.

A nonzero `seed` draws the values from a generator of their own (as a 1.x op seed did);
seed 0 uses the global generator that `fluid.default_main_program().random_seed` seeds.

Example:
    >>> import dygraph
    >>> import dygraph.fluid as fluid
    >>> init = fluid.initializer.NormalInitializer(loc=0.0, scale=0.01, seed=7)
    >>> w = init(dygraph.zeros([1000]))
    >>> bool(abs(float(w.numpy().std()) - 0.01) < 0.002)
    True
"""

import contextlib

import numpy as np

from dygraph.framework import random as _random
from dygraph.nn import initializer as _init

__all__ = ["ConstantInitializer", "UniformInitializer", "NormalInitializer",
           "TruncatedNormalInitializer", "XavierInitializer", "MSRAInitializer",
           "BilinearInitializer", "NumpyArrayInitializer", "Constant", "Uniform", "Normal",
           "TruncatedNormal", "Xavier", "MSRA", "Bilinear"]


@contextlib.contextmanager
def _generator(seed):
    """Random draws inside come from default_rng(seed) when seed is nonzero."""
    if not seed:
        yield
        return
    gen = _random.default_generator
    saved = gen.rng
    gen.rng = np.random.default_rng(seed)
    try:
        yield
    finally:
        gen.rng = saved


class _OwnSeed:
    """Honour the 1.x `seed` argument around the 2.x initializer's draw."""

    _seed = 0

    def _values(self, shape, dtype):
        with _generator(self._seed):
            return self._draw(shape, dtype)

    def _draw(self, shape, dtype):
        return super()._values(shape, dtype)


class ConstantInitializer(_init.Constant):
    """Fill with `value`; `force_cpu` is accepted for 1.x code and changes nothing.

    Example:
        >>> import dygraph
        >>> ConstantInitializer(2.0)(dygraph.zeros([2])).numpy()
        array([2., 2.], dtype=float32)
    """

    def __init__(self, value=0.0, force_cpu=False):
        super().__init__(value)


class UniformInitializer(_OwnSeed, _init.Uniform):
    """Draw from U[low, high).

    Example:
        >>> import dygraph
        >>> w = UniformInitializer(-0.1, 0.1, seed=1)(dygraph.zeros([100])).numpy()
        >>> bool(w.min() >= -0.1 and w.max() < 0.1)
        True
    """

    def __init__(self, low=-1.0, high=1.0, seed=0):
        super().__init__(low, high)
        self._seed = int(seed)


class NormalInitializer(_OwnSeed, _init.Normal):
    """Draw from N(loc, scale**2).

    Example:
        >>> import dygraph
        >>> w = NormalInitializer(1.0, 0.0)(dygraph.zeros([2])).numpy()
        >>> w
        array([1., 1.], dtype=float32)
    """

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        super().__init__(mean=loc, std=scale)
        self._seed = int(seed)


class TruncatedNormalInitializer(_OwnSeed, _init.TruncatedNormal):
    """Draw from N(loc, scale**2) cut at two standard deviations, as 1.x did.

    Example:
        >>> import dygraph
        >>> w = TruncatedNormalInitializer(0.0, 1.0, seed=3)(dygraph.zeros([500])).numpy()
        >>> bool(abs(w).max() <= 2.0)
        True
    """

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        super().__init__(mean=loc, std=scale, a=loc - 2.0 * scale, b=loc + 2.0 * scale)
        self._seed = int(seed)


class XavierInitializer(_OwnSeed, _init.Initializer):
    """Glorot initialization: U[-sqrt(6 / (fan_in + fan_out)), +...] when `uniform`, else
    N(0, 2 / (fan_in + fan_out)); fans default to the parameter's (conv kernels include
    the receptive field).

    Example:
        >>> import dygraph
        >>> w = XavierInitializer(seed=5)(dygraph.zeros([30, 20])).numpy()
        >>> bool(abs(w).max() <= (6 / 50) ** 0.5)
        True
    """

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        kind = _init.XavierUniform if uniform else _init.XavierNormal
        self._impl = kind(fan_in=fan_in, fan_out=fan_out)
        self._uniform = bool(uniform)
        self._seed = int(seed)

    def _draw(self, shape, dtype):
        return self._impl._values(shape, dtype)


class MSRAInitializer(_OwnSeed, _init.Initializer):
    """He initialization for ReLU networks: U[-sqrt(6 / fan_in), +...] when `uniform`,
    else N(0, 2 / fan_in).

    Example:
        >>> import dygraph
        >>> w = MSRAInitializer(seed=5)(dygraph.zeros([24, 8])).numpy()
        >>> bool(abs(w).max() <= 0.5)
        True
    """

    def __init__(self, uniform=True, fan_in=None, seed=0):
        kind = _init.KaimingUniform if uniform else _init.KaimingNormal
        self._impl = kind(fan_in=fan_in)
        self._uniform = bool(uniform)
        self._seed = int(seed)

    def _draw(self, shape, dtype):
        return self._impl._values(shape, dtype)


class BilinearInitializer(_init.Bilinear):
    """Bilinear-upsampling kernels for a transposed convolution's weight.

    Example:
        >>> import dygraph
        >>> w = BilinearInitializer()(dygraph.zeros([1, 1, 4, 4])).numpy()
        >>> float(w[0, 0, 1, 1])
        0.5625
    """


class NumpyArrayInitializer(_init.Assign):
    """Copy a NumPy array (of the parameter's shape) into the parameter.

    Example:
        >>> import numpy as np, dygraph
        >>> NumpyArrayInitializer(np.array([1.0, 2.0]))(dygraph.zeros([2])).numpy()
        array([1., 2.], dtype=float32)
    """

    def __init__(self, value):
        super().__init__(np.asarray(value))


Constant = ConstantInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
MSRA = MSRAInitializer
Bilinear = BilinearInitializer
