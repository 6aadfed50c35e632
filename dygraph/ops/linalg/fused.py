"""dygraph.linalg.fp8_fp8_half_gemm_fused: Paddle's fused float8 GEMM (a CUTLASS kernel of
its GPU builds, act(scale * x @ y + bias) in float16 or bfloat16 from float8_e4m3fn x, y).

DyGraph has no float8 dtype, so no input can reach the kernel: the function checks its
arguments and refuses every call, as Paddle's CPU build does (it registers no kernel and
raises RuntimeError); the error says to use matmul instead.

Example:
    >>> import dygraph
    >>> x = dygraph.ones([2, 2])
    >>> try:
    ...     dygraph.linalg.fp8_fp8_half_gemm_fused(x, x)
    ... except RuntimeError:
    ...     print("refused")
    refused
"""

from dygraph.framework.errors import UnsupportedDTypeError, describe, op_error
from dygraph.ops.common import as_tensor

__all__ = ["fp8_fp8_half_gemm_fused"]
NONDIFF = {"fp8_fp8_half_gemm_fused"}


def fp8_fp8_half_gemm_fused(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0,
                            output_dtype="float16", act="identity", name=None):
    """Refuse the call: the fused float8 GEMM needs float8_e4m3fn inputs, a dtype DyGraph
    does not have (an error that is TypeError and RuntimeError, Paddle's type where it has no
    kernel). A non-Tensor x or y is refused first, with a ValueError.

    Example:
        >>> import dygraph
        >>> try:
        ...     dygraph.linalg.fp8_fp8_half_gemm_fused("x", dygraph.ones([2, 2]))
        ... except ValueError:
        ...     print("not a Tensor")
        not a Tensor
    """
    op = "fp8_fp8_half_gemm_fused"
    x, y = as_tensor(x, op), as_tensor(y, op)
    raise op_error(op, f"needs float8_e4m3fn inputs (a GPU kernel), which DyGraph has no "
                   f"dtype for; got x {describe(x)} and y {describe(y)}; use matmul(x, y) "
                   "and cast the result instead",
                   UnsupportedDTypeError)
