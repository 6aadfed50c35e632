"""dygraph.fluid: the PaddlePaddle 1.x API (1.4-1.6 DyGraph), written on the 2.x API.

`import dygraph.fluid as fluid` runs code written for `import paddle.fluid as fluid`.

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     ret = fluid.layers.sums([fluid.dygraph.to_variable(np.ones([2, 2], np.float32))
    ...                              for _ in range(10)])
    ...     ret.numpy().tolist()
    [[10.0, 10.0], [10.0, 10.0]]
"""

from dygraph.fluid import core, framework, layers
from dygraph.fluid.framework import (
    Program,
    default_main_program,
    default_startup_program,
    in_dygraph_mode,
    program_guard,
)
from dygraph.framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace
from dygraph.tensor.tensor import Tensor as Variable
from dygraph.utils.lazy_attributes import lazy_attributes

_SUBMODULES = {"dygraph", "optimizer", "initializer", "param_attr", "regularizer", "clip",
               "io", "contrib", "unique_name", "backward", "compiler"}
_LAZY_NAMES = {
    "ParamAttr": ("dygraph.fluid.param_attr", "ParamAttr"),
    "PyLayer": ("dygraph.fluid.dygraph.pylayer", "PyLayer"),
    "Layer": ("dygraph.fluid.dygraph.layers", "Layer"),
    "Executor": ("dygraph.static.executor", "Executor"),
    "global_scope": ("dygraph.static.executor", "global_scope"),
    "Scope": ("dygraph.static.executor", "Scope"),
    "scope_guard": ("dygraph.static.executor", "scope_guard"),
    # Paddle 1.x has these at the top level too (fluid.save_dygraph), not only under
    # fluid.dygraph.
    "save_dygraph": ("dygraph.fluid.dygraph.checkpoint", "save_dygraph"),
    "load_dygraph": ("dygraph.fluid.dygraph.checkpoint", "load_dygraph"),
    "set_flags": ("dygraph.framework.flags", "set_flags"),
    # paddle.base's switches between the modes and its gradients
    "gradients": ("dygraph.static.backward", "gradients"),
    "enable_dygraph": ("dygraph.static.capture", "disable_static"),
    "disable_dygraph": ("dygraph.static.capture", "enable_static"),
    # the static-program names 1.x had at the top level
    "CompiledProgram": ("dygraph.static.compiler", "CompiledProgram"),
    "BuildStrategy": ("dygraph.static.compiler", "BuildStrategy"),
    "ExecutionStrategy": ("dygraph.static.compiler", "ExecutionStrategy"),
    "WeightNormParamAttr": ("dygraph.static.nn.weight_norm", "WeightNormParamAttr"),
    "cpu_places": ("dygraph.static.places", "cpu_places"),
    "cuda_places": ("dygraph.static.places", "cuda_places"),
    "name_scope": ("dygraph.static.places", "name_scope"),
    "device_guard": ("dygraph.static.places", "device_guard"),
    "data": ("dygraph.static.program", "data"),
    "embedding": ("dygraph.static.nn.embedding", "embedding"),
    "get_flags": ("dygraph.framework.flags", "get_flags"),
}


__getattr__ = lazy_attributes("dygraph.fluid", globals(), _SUBMODULES, _LAZY_NAMES)
