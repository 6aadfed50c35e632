"""DyGraph: an imperative deep-learning framework with PaddlePaddle's DyGraph API.

`import dygraph as paddle` gives the 2.x API; `import dygraph.fluid as fluid` the 1.x API.
Subpackages (nn, optimizer, io, vision, fluid, ...) load on first use, so importing the
package stays fast.

Example:
    >>> import dygraph as paddle
    >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> (x * x).sum().backward(); x.grad.numpy()
    array([2., 4.], dtype=float32)
"""

from dygraph import ops as _ops
from dygraph.autograd.engine import grad
from dygraph.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from dygraph.framework.dtype import (
    bfloat16,
    bool,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from dygraph.framework.dtype_info import *  # noqa: F401,F403 - float, finfo, pi, ...
from dygraph.framework.kernel_dtypes import guard_namespace as _guard_namespace
from dygraph.framework.place import (
    CPUPlace,
    CUDAPinnedPlace,
    CUDAPlace,
    get_device,
    is_compiled_with_cuda,
    set_device,
)
from dygraph.framework.random import (
    Generator,
    get_cuda_rng_state,
    get_rng_state,
    seed,
    set_cuda_rng_state,
    set_rng_state,
)
from dygraph.ops import *  # noqa: F401,F403 - the op library is the public API
from dygraph.ops.creation.interop import range, shape  # noqa: A004 - Paddle's names
from dygraph.tensor import plumbing as _tensor_plumbing  # noqa: F401 - Tensor methods
from dygraph.tensor.checks import *  # noqa: F401,F403 - clone, cast_, is_tensor, ...
from dygraph.tensor.printing import set_printoptions
from dygraph.tensor.tensor import Tensor, to_tensor
from dygraph.utils.lazy_attributes import lazy_attributes

_guard_namespace(globals(), "paddle")  # the dtypes Paddle refuses (dygraph.ops: unchecked)
__version__ = "0.1.0"
dtype = type(float32)
cfloat, cdouble = complex64, complex128  # Paddle's torch-style aliases
_SUBMODULES = {"nn", "optimizer", "io", "vision", "fluid", "metric", "linalg", "autograd",
               "utils", "dataset", "reader", "framework", "regularizer", "examples",
               "base", "device", "text", "hapi", "callbacks", "distributed",
               "amp", "static", "fft", "signal", "onnx", "inference", "jit", "distribution",
               "audio", "geometric", "sparse", "compat"}
# Names that live in a lazily loaded submodule but are also top-level in Paddle.
_LAZY_NAMES = {
    "ParamAttr": ("dygraph.nn.param_attr", "ParamAttr"),
    "create_parameter": ("dygraph.static.parameters", "create_parameter"),
    "inverse": ("dygraph.linalg", "inv"),
    "cholesky": ("dygraph.linalg", "cholesky"),
    "eigvalsh": ("dygraph.linalg", "eigvalsh"),
    "vecdot": ("dygraph.linalg", "vecdot"),
    "matrix_transpose": ("dygraph.linalg", "matrix_transpose"),
    "save": ("dygraph.io.checkpoint", "save"),
    "load": ("dygraph.io.checkpoint", "load"),
    "batch": ("dygraph.reader", "batch"),
    "set_flags": ("dygraph.framework.flags", "set_flags"),
    "get_flags": ("dygraph.framework.flags", "get_flags"),
    "Model": ("dygraph.hapi.model", "Model"),
    "summary": ("dygraph.hapi.summary", "summary"),
    "flops": ("dygraph.hapi.summary", "flops"),
    "DataParallel": ("dygraph.distributed.data_parallel", "DataParallel"),
    "enable_static": ("dygraph.static.capture", "enable_static"),
    "disable_static": ("dygraph.static.capture", "disable_static"),
    "in_dynamic_mode": ("dygraph.static.capture", "in_dynamic_mode"),
    # Paddle 3's top-level spellings of functional ops.
    **{n: ("dygraph.nn.functional", n) for n in ("conv1d", "conv2d", "conv3d", "group_norm",
                                                  "layer_norm", "adaptive_avg_pool1d")},
    "LazyGuard": ("dygraph.nn.lazy_init", "LazyGuard"),
    "enable_compat": ("dygraph.compat.proxy", "enable_torch_proxy"),
    "disable_compat": ("dygraph.compat.proxy", "disable_torch_proxy"),
    "autocast": ("dygraph.amp.auto_cast", "autocast"),
    "is_autocast_enabled": ("dygraph.amp.auto_cast", "is_autocast_enabled"),
    "get_autocast_dtype": ("dygraph.amp.auto_cast", "get_autocast_dtype"),
    "get_autocast_cpu_dtype": ("dygraph.amp", "get_autocast_cpu_dtype"),
    "get_autocast_gpu_dtype": ("dygraph.amp", "get_autocast_gpu_dtype"),
}
__getattr__ = lazy_attributes("dygraph", globals(), _SUBMODULES, _LAZY_NAMES)


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_NAMES))
