"""Learning-rate schedulers (`dygraph.optimizer.lr`), with Paddle 2.x's classes and formulas.

A scheduler holds `last_epoch` (how many times `step()` ran; construction counts as the
first, so it starts at 0) and `last_lr` (the rate for that epoch). Pass it as an
optimizer's `learning_rate`; the optimizer reads `scheduler()` at every step, and the user
calls `scheduler.step()` once per epoch or per batch. Its `state_dict()` is saved inside
the optimizer's, under 'LR_Scheduler'.

The package is a facade: the base class is in base.py, the decay schedules in decay.py,
the restarts in restarts.py, and LinearWarmup, ReduceOnPlateau, OneCycleLR and CyclicLR in
warmup_plateau_cyclic.py; all are exported here.

Example:
    >>> from dygraph.optimizer.lr import StepDecay
    >>> sched = StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
    >>> rates = []
    >>> for epoch in range(4):
    ...     rates.append(sched())  # train one epoch at this rate, then step
    ...     sched.step()
    >>> rates
    [0.5, 0.5, 0.05, 0.05]
"""

from dygraph.optimizer.lr.base import LRScheduler
from dygraph.optimizer.lr.decay import (
    CosineAnnealingDecay,
    ExponentialDecay,
    InverseTimeDecay,
    LambdaDecay,
    MultiplicativeDecay,
    MultiStepDecay,
    NaturalExpDecay,
    NoamDecay,
    PiecewiseDecay,
    PolynomialDecay,
    StepDecay,
)
from dygraph.optimizer.lr.restarts import CosineAnnealingWarmRestarts, LinearLR
from dygraph.optimizer.lr.warmup_plateau_cyclic import (
    CyclicLR,
    LinearWarmup,
    OneCycleLR,
    ReduceOnPlateau,
)

__all__ = [
    "CosineAnnealingDecay",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LRScheduler",
    "LambdaDecay",
    "LinearLR",
    "LinearWarmup",
    "MultiStepDecay",
    "MultiplicativeDecay",
    "NaturalExpDecay",
    "NoamDecay",
    "OneCycleLR",
    "PiecewiseDecay",
    "PolynomialDecay",
    "ReduceOnPlateau",
    "StepDecay",
]
