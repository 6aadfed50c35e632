"""The spec table: one entry per differentiable op, driving the generic op tests.

Each `spec_*.py` module here defines `SPECS`, a list of OpSpec. An entry names the public op
(as exported: 'tanh', 'nn.functional.relu', 'linalg.inv'), a callable on Tensors, a NumPy
reference on arrays, the inputs (shapes for random floats in `domain`, or fixed arrays) and
which checks apply. tests/test_op_specs.py runs forward vs reference, gradient vs float64
central differences and double backward over every entry, and fails when an exported
differentiable op has no entry.
"""

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass
class OpSpec:
    name: str                       # exported name the entry covers
    fn: Callable                    # (*Tensors) -> Tensor or tuple of Tensors
    ref: Callable                   # (*float64 arrays) -> array or tuple of arrays
    inputs: list                    # each: a shape tuple (random float64) or a fixed ndarray
    domain: tuple = (-1.0, 1.0)     # range of the random float inputs
    grad: bool = True               # check first derivatives
    double: bool = True             # check second derivatives
    grad_inputs: Any = None         # indices of inputs to differentiate (default: float ones)
    atol: float = 1e-6
    rtol: float = 1e-5
    id: str = ""                    # suffix that tells entries of one op apart

    def make_inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        arrays = []
        for spec in self.inputs:
            if isinstance(spec, np.ndarray):
                arrays.append(spec.copy())
            elif callable(spec):
                arrays.append(np.asarray(spec(rng)))
            else:
                low, high = self.domain
                arrays.append(rng.uniform(low, high, spec))
        return arrays


def all_specs():
    specs = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("spec_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            specs.extend(module.SPECS)
    return specs
