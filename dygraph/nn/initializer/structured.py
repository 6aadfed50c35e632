"""Initializers with a fixed structure: Orthogonal, Dirac (identity convolution), Bilinear.

Example:
    >>> import numpy as np, dygraph
    >>> from dygraph.nn.initializer import Orthogonal
    >>> w = Orthogonal()(dygraph.zeros([4, 4])).numpy()
    >>> bool(np.allclose(w @ w.T, np.eye(4), atol=1e-5))
    True
"""

import math

import numpy as np

from dygraph.framework.random import rng
from dygraph.nn.initializer.base import Initializer

__all__ = ["Orthogonal", "Dirac", "Bilinear"]


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, over the weight flattened to
    [shape[0], prod(shape[1:])]: rows are orthonormal when there are fewer rows than
    columns, columns otherwise.

    Example:
        >>> import numpy as np, dygraph
        >>> w = Orthogonal(gain=2.0)(dygraph.zeros([2, 5])).numpy()
        >>> bool(np.allclose(w @ w.T, 4 * np.eye(2), atol=1e-5))
        True
    """

    def __init__(self, gain=1.0, name=None):
        self._gain = float(gain)

    def _values(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: only tensors with 2 or more dimensions can be "
                             f"initialized, got shape {list(shape)}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        normal = rng().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(normal)
        # Fixing the signs by diag(r) makes Q uniformly distributed (Haar measure).
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self._gain * q).reshape(shape)


class Dirac(Initializer):
    """Identity convolution: with a [C_out, C_in, *kernel] weight, output channel i of each
    group copies input channel i through the kernel centre, so the convolution keeps its
    input (as far as channels allow).

    Example:
        >>> import dygraph
        >>> w = Dirac()(dygraph.zeros([2, 2, 3])).numpy()
        >>> w[:, :, 1].tolist(), float(w.sum())
        ([[1.0, 0.0], [0.0, 1.0]], 2.0)
    """

    def __init__(self, groups=1, name=None):
        if not isinstance(groups, int) or groups < 1:
            raise ValueError(f"Dirac: groups must be a positive int, got {groups!r}")
        self._groups = groups

    def _values(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: only 3-D, 4-D or 5-D conv weights can be initialized, "
                             f"got shape {list(shape)}")
        if shape[0] % self._groups != 0:
            raise ValueError(f"Dirac: out channels {shape[0]} are not divisible by groups "
                             f"{self._groups}")
        per_group = shape[0] // self._groups
        count = min(per_group, shape[1])
        channel = np.tile(np.arange(count), self._groups)
        out = np.repeat(np.arange(self._groups), count) * per_group + channel
        centres = tuple(k // 2 for k in shape[2:])
        values = np.zeros(shape, dtype)
        values[(out, channel, *centres)] = 1
        return values


class Bilinear(Initializer):
    """Bilinear upsampling kernel for a transposed conv weight [C_out, C_in, K, K]
    (the same K x K kernel in every channel pair).

    Example:
        >>> import dygraph
        >>> Bilinear()(dygraph.zeros([1, 1, 4, 4])).numpy()[0, 0, 0]
        array([0.0625, 0.1875, 0.1875, 0.0625], dtype=float32)
    """

    def __init__(self):
        pass

    def _values(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear: the weight must be 4-D with a square kernel, got "
                             f"shape {list(shape)}")
        size = shape[3]
        factor = math.ceil(size / 2.0)
        centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
        line = 1 - np.abs(np.arange(size) / factor - centre)
        return np.broadcast_to(np.outer(line, line), shape)
