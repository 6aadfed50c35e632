"""fluid.dygraph: the 1.x imperative API (guard, to_variable, Layer and the 1.x layers,
checkpoints, data parallelism, learning-rate decays)."""

from dygraph.fluid.dygraph import base
from dygraph.fluid.dygraph.base import enabled, grad, guard, no_grad, to_variable
from dygraph.utils.lazy_attributes import lazy_attributes

# Names that live in modules of this package, loaded on first use.
_LAZY_NAMES = {
    "Layer": "layers", "FC": "nn", "Conv2D": "nn", "Pool2D": "nn", "BatchNorm": "nn",
    "Embedding": "nn", "LayerNorm": "nn", "GRUUnit": "nn", "Linear": "nn",
    "Conv2DTranspose": "nn", "Dropout": "nn", "Sequential": "container",
    "LayerList": "container", "ParameterList": "container",
    "save_persistables": "checkpoint", "load_persistables": "checkpoint",
    "save_dygraph": "checkpoint", "load_dygraph": "checkpoint",
    "PyLayer": "pylayer", "DataParallel": "parallel", "prepare_context": "parallel",
    "ParallelEnv": "parallel",
    "PiecewiseDecay": "learning_rate_scheduler", "ExponentialDecay": "learning_rate_scheduler",
    "NoamDecay": "learning_rate_scheduler", "CosineDecay": "learning_rate_scheduler",
    "NaturalExpDecay": "learning_rate_scheduler",
    "InverseTimeDecay": "learning_rate_scheduler",
    "PolynomialDecay": "learning_rate_scheduler",
    "declarative": "jit", "TracedLayer": "jit", "ProgramTranslator": "jit",
}
_SUBMODULES = {"layers", "nn", "container", "checkpoint", "pylayer", "parallel",
               "learning_rate_scheduler", "jit"}


__getattr__ = lazy_attributes(
    "dygraph.fluid.dygraph", globals(), _SUBMODULES,
    {name: (f"dygraph.fluid.dygraph.{module}", name) for name, module in _LAZY_NAMES.items()})
