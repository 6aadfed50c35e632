"""dygraph.static: static graphs (Paddle's paddle.static): build a Program once, run it
many times with an Executor.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> dygraph.enable_static()
    >>> main, startup = Program(), Program()
    >>> with program_guard(main, startup):
    ...     x = data('x', [None, 3])
    ...     y = dygraph.nn.functional.relu(x).sum()
    >>> dygraph.disable_static()
    >>> Executor().run(main, feed={'x': -np.ones((2, 3), np.float32)}, fetch_list=[y])
    [array(0., dtype=float32)]
"""

from dygraph.framework.place import CPUPlace, CUDAPlace
from dygraph.static import nn
from dygraph.static.backward import append_backward, gradients
from dygraph.static.capture import disable_static, enable_static, in_dynamic_mode
from dygraph.static.compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from dygraph.static.ema import ExponentialMovingAverage
from dygraph.static.executor import Executor, Scope, global_scope, scope_guard
from dygraph.static.input_spec import InputSpec
from dygraph.static.io import load_inference_model, save_inference_model
from dygraph.static.metric import accuracy, auc, ctr_metric_bundle
from dygraph.static.nn.py_func import py_func
from dygraph.static.nn.weight_norm import WeightNormParamAttr
from dygraph.static.parameters import create_global_var, create_parameter
from dygraph.static.persist import load, load_program_state, save, set_program_state
from dygraph.static.places import cpu_places, cuda_places, device_guard, name_scope
from dygraph.static.print_op import Print
from dygraph.static.program import (
    Block,
    Operator,
    Program,
    Variable,
    data,
    default_main_program,
    default_startup_program,
    program_guard,
)
from dygraph.static.serialize import (
    deserialize_persistables,
    deserialize_program,
    load_from_file,
    normalize_program,
    save_to_file,
    serialize_persistables,
    serialize_program,
)

__all__ = ["Program", "Block", "Variable", "Operator", "program_guard", "data",
           "default_main_program", "default_startup_program", "Executor", "Scope",
           "global_scope", "scope_guard", "append_backward", "gradients", "InputSpec",
           "CPUPlace", "CUDAPlace", "enable_static", "disable_static", "in_dynamic_mode",
           "nn", "save_inference_model", "load_inference_model", "save", "load", "Print",
           "create_parameter", "create_global_var", "BuildStrategy", "CompiledProgram",
           "ExecutionStrategy", "ExponentialMovingAverage", "WeightNormParamAttr",
           "accuracy", "auc", "ctr_metric_bundle", "cpu_places", "cuda_places",
           "device_guard", "name_scope", "py_func", "serialize_program",
           "deserialize_program", "serialize_persistables", "deserialize_persistables",
           "save_to_file", "load_from_file", "normalize_program", "load_program_state",
           "set_program_state"]
