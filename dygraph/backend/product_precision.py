"""Tensor Cores for the matrix products of bfloat16 auto_cast ops on a GPU.

`auto_cast(dtype='bfloat16')` stores bfloat16 values in float32 arrays
(dygraph/amp/auto_cast.py): a low-precision op's inputs, outputs and gradients are rounded
to bfloat16, so every operand of its products, forward and backward, is a bfloat16 value.
For such operands two Tensor Core modes of float32 products change nothing but the order
of the float32 sums: cuBLAS's CUBLAS_COMPUTE_32F_FAST_16BF converts the inputs to
bfloat16 (exactly, here) and multiplies on bfloat16 Tensor Cores, and cuDNN's TF32 engines
round the inputs to TF32 (exactly too: bfloat16's 8 significant bits fit in TF32's 11),
both with float32 accumulation. Elsewhere float32 products stay float32 arithmetic
(no TF32, as PyTorch's and CuPy's defaults).

`bfloat16_operands()` marks the block, in this thread, where the operands are such
values; auto_cast runs a low-precision op's forward and backward inside it. In the block:

- CuPy's float32 products (`cupy.matmul`, `dot`, `tensordot`, two-operand `einsum`) go to
  cuBLAS on a handle of this thread's with the bfloat16 compute type
  (backend/capture_products.py, which makes a CUDA graph capture's products too). CuPy's
  own compute type setting would hold for every thread of the process;
- cuDNN's float32 convolutions may run TF32 engines (backend/cudnn/ keeps such graphs
  apart from the float32 ones).

Example:
    >>> with bfloat16_operands():
    ...     active()
    True
    >>> active()
    False
"""

import contextlib
import threading

__all__ = ["bfloat16_operands", "active", "for_bfloat16_operands"]

_LOCAL = threading.local()


def active():
    """Whether the products this thread is making have bfloat16 values for operands.

    Example:
        >>> active()
        False
    """
    return getattr(_LOCAL, "depth", 0) > 0


@contextlib.contextmanager
def bfloat16_operands():
    """Inside the block, this thread's products may use Tensor Core modes that are exact
    for bfloat16 operands (see the module docstring).

    Example:
        >>> with bfloat16_operands():
        ...     active()
        True
    """
    depth = getattr(_LOCAL, "depth", 0)
    _LOCAL.depth = depth + 1
    try:
        yield
    finally:
        _LOCAL.depth = depth


def for_bfloat16_operands(op):
    """Make op's forward and backward run inside bfloat16_operands() (auto_cast does this
    to a low-precision op whose operands it rounds to bfloat16); returns op. A copy of the
    op (programs run copies of their ops) gets methods of its own (Op.__copy__).

    Example:
        >>> import numpy as np
        >>> from dygraph.ops.math.arithmetic import Add
        >>> op = for_bfloat16_operands(Add())
        >>> op.forward(np, np.ones(1), np.ones(1))
        array([2.])
    """
    cls = type(op)
    forward, backward = cls.forward.__get__(op), cls.backward.__get__(op)
    op._bfloat16_operands = True

    def forward_with_tensor_cores(*args, **kwargs):
        with bfloat16_operands():
            return forward(*args, **kwargs)

    def backward_with_tensor_cores(*args, **kwargs):
        with bfloat16_operands():
            return backward(*args, **kwargs)

    op.forward, op.backward = forward_with_tensor_cores, backward_with_tensor_cores
    return op
