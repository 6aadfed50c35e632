"""CUDA kernels compiled by CuPy on first use, by family; `registry` holds them by name.

Example:
    >>> from dygraph.kernels.cuda import registry
    >>> len(registry.KERNEL_SPECS) >= 10
    True
"""

from dygraph.kernels.cuda import (  # noqa: F401 - each family defines its kernels
    activations,
    batch_norm,
    cross_entropy_rows,
    flat_copies,
    gate_inputs,
    layer_norm,
    max_pool,
    optimizer_updates,
    precision,
    random_draws,
    recurrent,
    recurrent_sequences,
    softmax_rows,
)
