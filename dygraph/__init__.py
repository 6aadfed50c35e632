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
from dygraph.framework.place import (
    CPUPlace,
    CUDAPinnedPlace,
    CUDAPlace,
    get_device,
    is_compiled_with_cuda,
    set_device,
)
from dygraph.framework.random import get_rng_state, seed, set_rng_state
from dygraph.ops import *  # noqa: F401,F403 - the op library is the public API
from dygraph.tensor import Tensor, to_tensor
from dygraph.tensor_repr import set_printoptions
from dygraph.utils.lazy import lazy_attributes

__version__ = "0.1.0"
dtype = type(float32)
_SUBMODULES = {"nn", "optimizer", "io", "vision", "fluid", "metric", "linalg", "autograd",
               "utils", "dataset", "reader", "framework", "regularizer", "examples",
               "base", "device", "text", "hapi", "callbacks", "distributed",
               "amp", "static", "jit"}
# Names that live in a lazily loaded submodule but are also top-level in Paddle.
_LAZY_NAMES = {
    "ParamAttr": ("dygraph.nn.param_attr", "ParamAttr"),
    "create_parameter": ("dygraph.nn.param_attr", "create_parameter"),
    "inverse": ("dygraph.linalg", "inv"),
    "cholesky": ("dygraph.linalg", "cholesky"),
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
}
__getattr__ = lazy_attributes("dygraph", globals(), _SUBMODULES, _LAZY_NAMES)


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_NAMES))
