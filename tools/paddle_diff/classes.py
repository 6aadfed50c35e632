"""Cases for classes: layers, optimizers, learning-rate schedulers, samplers and datasets.

A class case is a recipe with data: ``kind`` names the recipe (``layer``, ``optimizer``,
``lr``, ``io``), ``name`` the class, ``kwargs`` its construction arguments (value specs, as
in ``execute``; ``{"fn": name}`` is one of the harness's own callables, ``FUNCTIONS``) and
``args`` the inputs. The answer is ``{"parts": {part: spec}}`` (or an exception): one spec
per thing looked at, such as ``out``, ``state`` (state_dict keys with their dtype and shape,
a ``{"keys": {key: meta}}`` spec) or ``step 2``. The recipes live in ``layers``,
``optimizers`` and ``datasets``; this module holds what they share.

Values that the case needs but only Paddle can give (the state of a layer, whose keys are
Paddle's) are written into the case when it is recorded, and read back on replay.
"""

import warnings

import numpy as np

from .execute import describe, error_answer, to_framework

CLASS_NAMESPACES = {"nn.Layer": "layer", "optimizer": "optimizer", "optimizer.lr": "lr",
                    "io": "io"}

# callables that construction arguments may name: {"fn": name}
FUNCTIONS = {"pow95": lambda epoch: 0.95 ** epoch, "const95": lambda epoch: 0.95}


def framework_value(spec, fw):
    """A framework value from a spec, with ``{"fn": name}`` for a harness callable.

    >>> import dygraph
    >>> framework_value({"fn": "pow95"}, dygraph)(1)
    0.95
    """
    if "fn" in spec:
        return FUNCTIONS[spec["fn"]]
    if "dict" in spec:
        return {k: framework_value(v, fw) for k, v in spec["dict"].items()}
    return to_framework(spec, fw)


def meta(value, fw):
    """What a state value is, in a few characters: ``float32[3, 4]`` or a type name.

    >>> import dygraph
    >>> meta(dygraph.ones([3, 4]), dygraph), meta(0.5, dygraph)
    ('float32[3, 4]', 'float')
    """
    if isinstance(value, fw.Tensor):
        return f"{np.asarray(value.numpy()).dtype}{list(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    return type(value).__name__


def keys_spec(state, fw, rename=None):
    """A ``keys`` spec of a state dict (nested dicts flattened with ``/``)."""
    out = {}

    def walk(prefix, mapping):
        for key, value in mapping.items():
            name = f"{prefix}{key}"
            if rename:
                name = rename(name)
            if isinstance(value, dict):
                walk(name + "/", value)
            else:
                out[name] = meta(value, fw)

    walk("", state)
    return {"keys": out}


def run(namespace, case, fw):
    """The answer of a class case in framework ``fw``."""
    from . import datasets, layers, optimizers

    recipe = {"layer": layers.run, "optimizer": optimizers.run_optimizer,
              "lr": optimizers.run_lr, "io": datasets.run}[case["kind"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return recipe(case, fw)
        except MissingClass:
            return {"missing": True}
        except Exception as exc:  # noqa: BLE001 - the exception type is the answer
            return error_answer(exc)


class MissingClass(Exception):
    """The framework has no class of this name."""


def find(module, name):
    """The class ``name`` of a framework module, or MissingClass."""
    value = getattr(module, name, None)
    if value is None:
        raise MissingClass(name)
    return value


def construct(cls, case, fw):
    """The instance of ``cls`` built from the case's construction arguments."""
    kwargs = {k: framework_value(v, fw) for k, v in case.get("kwargs", {}).items()}
    return cls(**kwargs)


def parts(**named):
    """An answer made of named parts, each described as a spec (``_`` reads as a space)."""
    return {"parts": {k.replace("_", " "): v for k, v in named.items()}}


__all__ = ["CLASS_NAMESPACES", "FUNCTIONS", "construct", "describe", "find", "keys_spec",
           "meta", "parts", "run"]
