"""The input gates of an LSTM or GRU layer on the GPU: the input projection's rows plus the
biases, scaled for tanh, in one kernel after the product.

The array formula (dygraph/ops/rnn/layer_op.py) scales the weight before the product and
the summed biases after it, then adds: x @ (s * W)^T + s * (b0 + b1), four launches besides
the product (the weight's scale, the biases' sum, their scale, the add). The factors s are
0.5 and 1 (sigmoid(x) = (1 + tanh(x / 2)) / 2), powers of two, and a power of two scales
every product, sum and rounding exactly (below the normal range aside). So
(x @ W^T + (b0 + b1)) * s, added in the formula's order, is the same bits in one launch.
float32 and float64 take it; float16, whose normal range ends far sooner, keeps the formula.

A GRU's hidden bias joins the input bias only in its r and z blocks (the n block adds it
inside the reset product): `split` is the columns that add b1 (every column for an LSTM, 0
where there is no second bias).

Example:
    >>> from dygraph.kernels.cuda.registry import KERNEL_SPECS
    >>> KERNEL_SPECS["gate_inputs"][1]
    'T y'
"""

import numpy as np

from dygraph.kernels.cuda.registry import define, kernel

__all__ = ["gate_inputs"]

# Column j of rows [N, width] (C-ordered): (g + (b0[j] + b1[j] if j < split else b0[j])) * s[j].
define("gate_inputs", "T g, raw T b0, raw T b1, raw T s, int64 width, int64 split", "T y", """
const long long j = i % width;
const T b = j < split ? b0[j] + b1[j] : b0[j];
y = (g + b) * s[j];
""")


def gate_inputs(rows, b0, b1, scale, split):
    """rows [N, G] (a C-ordered CuPy array, the input projection without the scale) becomes,
    in place, (rows + bias) * scale: the bias b0 [G], plus b1 [G] in the first `split`
    columns (b1 None: none).

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> rows = cupy.ones((2, 4), cupy.float32)  # doctest: +SKIP
        >>> half = cupy.full(4, 0.5, cupy.float32)  # doctest: +SKIP
        >>> gate_inputs(rows, half, None, half, 0)[0]  # doctest: +SKIP
        array([0.75, 0.75, 0.75, 0.75], dtype=float32)
    """
    width = rows.shape[1]
    kernel("gate_inputs")(rows, b0, b0 if b1 is None else b1, scale, np.int64(width),
                          np.int64(0 if b1 is None else split), rows)
    return rows
