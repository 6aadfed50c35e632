"""InputSpec: the shape, dtype and name of a model input (Paddle's paddle.static.InputSpec).

Example:
    >>> spec = InputSpec([None, 784], 'float32', 'x')
    >>> spec
    InputSpec(shape=(-1, 784), dtype=float32, name=x)
"""

import numpy as np

from dygraph.framework import dtype as _dt

__all__ = ["InputSpec"]


class InputSpec:
    """Describes one input: `shape` with None or -1 for a free dimension, a dtype, a name."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if isinstance(shape, (int, np.integer)):
            shape = [shape]
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = _dt.convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing tensor.

        Example:
            >>> import dygraph
            >>> InputSpec.from_tensor(dygraph.ones([2, 3])).shape
            (2, 3)
        """
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a NumPy array.

        Example:
            >>> import numpy as np
            >>> InputSpec.from_numpy(np.ones((4,), np.int64)).dtype
            dygraph.int64
        """
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        """A copy with a leading batch dimension.

        Example:
            >>> InputSpec([3]).batch(8).shape
            (8, 3)
        """
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name)

    def unbatch(self):
        """A copy without the leading dimension.

        Example:
            >>> InputSpec([8, 3]).unbatch().shape
            (3,)
        """
        return InputSpec(self.shape[1:], self.dtype, self.name)

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name})"

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))
