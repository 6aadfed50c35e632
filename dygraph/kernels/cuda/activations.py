"""Activation gradients as one GPU kernel: the mask and the product of a piecewise-linear
activation's backward (two to four CuPy calls on arrays) in one pass
(dygraph/ops/activation/piecewise.py).

The mask multiplies, as the array formula does (a masked-out NaN gradient stays NaN).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["relu_grad"][1]
    'T dx'
"""

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["relu_grad", "relu6_grad"]

define("relu_grad", "T g, T y", "T dx", "dx = g * (T)(y > (T)0);")
define("relu6_grad", "T g, T x", "T dx", "dx = g * (T)((x > (T)0) & (x < (T)6));")


def relu_grad(g, y):
    """g * (y > 0) for CuPy arrays of one shape (y: relu's output), one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> relu_grad(cupy.ones(2), cupy.array([0.0, 2.0]))  # doctest: +SKIP
        array([0., 1.])
    """
    return kernel("relu_grad")(g, y)


def relu6_grad(g, x):
    """g * (0 < x < 6) for CuPy arrays of one shape (x: relu6's input), one kernel.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> relu6_grad(cupy.ones(3), cupy.array([-1.0, 2.0, 7.0]))  # doctest: +SKIP
        array([0., 1., 0.])
    """
    return kernel("relu6_grad")(g, x)
