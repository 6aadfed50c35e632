"""cuDNN for convolutions, batch norm and attention on CUDA GPUs, through NVIDIA's cuDNN
frontend.

CuPy has no cuDNN binding: this package reaches cuDNN through the Python package of NVIDIA's
cuDNN frontend (`pip install nvidia-cudnn-frontend`; the cuDNN library itself comes from
`nvidia-cudnn-cu12` or `nvidia-cudnn-cu13`), version 1.26: its compiled graph takes raw
pointers, where 1.27 on wrap it in a Python layer that imports torch for norms, and 1.29 on
require the CUTLASS DSL. Its graph API describes an operation on tensors
given by dims and strides; a graph is built once per (device, dtype, shapes, layout,
geometry), kept in a dict, and run on the device pointers of CuPy arrays:

    conv_forward      y = conv(x, w)
    conv_data         the data gradient of conv (also the transposed conv)
    conv_filter       the filter gradient of conv
    batch_norm        batch norm on batch statistics: y, the mean and 1 / sqrt(var + eps)
                      (batch_variance: var from the latter)
    batch_norm_grads  its gradient, from those statistics
    attention         fused scaled dot-product attention (float16 and bfloat16 data):
                      the output and each query row's log-sum-exp
    attention_grads   its gradients dq, dk, dv

Each returns None where cuDNN does not run the call, and the caller's CuPy path runs: cuDNN
switched off, the frontend or the library not installed (one warning says which package to
install), a dtype other than float32, float16 or bfloat16, or a graph that cuDNN declines
(that answer is kept too, with its reason: `declined()`).

Execution: on CuPy's current stream (each thread's handle per device follows it), with one
workspace per device and stream, a CuPy array grown when a graph needs more; running a built
graph neither synchronizes nor allocates outside CuPy, so a step can be captured into a CUDA
graph once its graphs are built (building one, on the first call of a shape, may synchronize).
Operands are made dense first, channels-first or channels-last like the main input (a copy
only for other layouts), and outputs take that layout.

Numbers: every graph computes in float32 (float16 and bfloat16 data too). Execution plans
whose engines carry these cuDNN numerical notes are deselected: TENSOR_CORE for float32 data
(that is TF32, which cuDNN's engines otherwise use for float32 on Ampere and later; PyTorch
filters the same note), except for the convolutions of bfloat16 auto_cast ops, whose
operands are bfloat16 values that TF32 holds exactly (backend/product_precision.py), and
for every dtype DOWN_CONVERT_INPUTS, REDUCED_PRECISION_REDUCTION, FFT and the Winograd
notes. So results match the CuPy paths to float32 rounding. Engines that
reduce with atomics are allowed (cuDNN's NONDETERMINISTIC note, PyTorch's default too): their
gradients may differ between runs in the last bits.

Switching off: DYGRAPH_CUDNN=0 in the environment (read at import), or `use_cudnn(False)`.
DYGRAPH_CUDNN_WINOGRAD=1 (read at import) lets the FFT and Winograd engines run, as
PyTorch's defaults do: faster for some geometries (3x3 convolutions), with rounding beyond
float32's summation order (the transforms' own).

Example:
    >>> with use_cudnn(False):
    ...     enabled()
    False
"""

from dygraph.backend.cudnn.attention import attention, attention_grads
from dygraph.backend.cudnn.convolution import conv_data, conv_filter, conv_forward
from dygraph.backend.cudnn.graphs import declined, enabled, plan_count, use_cudnn
from dygraph.backend.cudnn.normalization import batch_norm, batch_norm_grads, batch_variance

__all__ = ["enabled", "use_cudnn", "conv_forward", "conv_data", "conv_filter", "batch_norm",
           "batch_variance", "batch_norm_grads", "attention", "attention_grads", "plan_count",
           "declined"]
