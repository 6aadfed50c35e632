"""The 1.x learning-rate decays, given to an optimizer as `learning_rate`.

A decay holds `step_num` (starting at `begin`). `step()` is the learning rate at `step_num`
(subclasses define it); calling the decay returns that rate and advances `step_num` by
`step_size`, which the optimizer does once per `minimize`, as 1.x did. They are
`dygraph.optimizer.lr.LRScheduler`s, so the 2.x optimizers accept them too, and their state
(`step_num`) goes into the optimizer's state_dict under 'LR_Scheduler'.

Example:
    >>> import dygraph.fluid as fluid
    >>> decay = fluid.dygraph.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1], begin=0)
    >>> [decay() for _ in range(5)]
    [1.0, 1.0, 0.5, 0.5, 0.1]
"""

import math

import numpy as np

from dygraph.optimizer.lr.base import LRScheduler
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["LearningRateDecay", "PiecewiseDecay", "NaturalExpDecay", "ExponentialDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "NoamDecay"]


class LearningRateDecay(LRScheduler):
    """Base class: subclass it and define `step()`, the rate at `self.step_num` (a float,
    or a variable from `create_lr_var`).

    Example:
        >>> class Halving(LearningRateDecay):
        ...     def step(self):
        ...         return 0.5 ** self.step_num
        >>> decay = Halving()
        >>> decay(), decay(), decay.step_num
        (1.0, 0.5, 2)
    """

    _state_keys = ("step_num",)

    def __init__(self, begin=0, step=1, dtype="float32"):
        # LRScheduler.__init__ is not called: its epoch bookkeeping is the 2.x protocol,
        # and `step` here is the 1.x "rate at step_num", not "advance".
        self.step_num = begin
        self.step_size = step
        self.dtype = dtype
        self.verbose = False

    def __call__(self):
        lr = self.current_lr()
        self.step_num += self.step_size
        return lr

    def current_lr(self):
        """The rate at step_num as a float, without advancing.

        Example:
            >>> decay = PiecewiseDecay([1], [0.1, 0.01], begin=0)
            >>> decay.current_lr(), decay.current_lr()
            (0.1, 0.1)
        """
        lr = self.step()
        if isinstance(lr, Tensor):
            lr = lr.numpy()
        return float(np.asarray(lr).reshape(-1)[0])

    def create_lr_var(self, lr):
        """`lr` as a one-element variable, as 1.x decays returned it.

        Example:
            >>> LearningRateDecay().create_lr_var(0.5).shape
            [1]
        """
        return to_tensor(np.array([lr], dtype=self.dtype))

    def step(self):
        """The learning rate at `self.step_num`; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} does not define step()")


class PiecewiseDecay(LearningRateDecay):
    """values[i] while step_num < boundaries[i]; values[-1] after the last boundary.

    Example:
        >>> decay = PiecewiseDecay([3], [0.1, 0.01], begin=3)
        >>> decay.current_lr()
        0.01
    """

    def __init__(self, boundaries, values, begin, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: expected {len(boundaries) + 1} values for "
                             f"{len(boundaries)} boundaries, got {len(values)}")
        self.boundaries = list(boundaries)
        self.vars = [float(v) for v in values]

    def step(self):
        for boundary, value in zip(self.boundaries, self.vars):
            if self.step_num < boundary:
                return value
        return self.vars[-1]


class _StepsDecay(LearningRateDecay):
    """Shared arguments of the decays driven by step_num / decay_steps."""

    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = float(learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def _progress(self):
        ratio = self.step_num / self.decay_steps
        return math.floor(ratio) if self.staircase else ratio


class NaturalExpDecay(_StepsDecay):
    """learning_rate * exp(-decay_rate * step_num / decay_steps) (floored when staircase).

    Example:
        >>> round(NaturalExpDecay(1.0, 10, 0.5, begin=10).current_lr(), 4)
        0.6065
    """

    def step(self):
        return self.learning_rate * math.exp(-self.decay_rate * self._progress())


class ExponentialDecay(_StepsDecay):
    """learning_rate * decay_rate ** (step_num / decay_steps) (floored when staircase).

    Example:
        >>> ExponentialDecay(1.0, 10, 0.5, staircase=True, begin=15).current_lr()
        0.5
    """

    def step(self):
        return self.learning_rate * self.decay_rate ** self._progress()


class InverseTimeDecay(_StepsDecay):
    """learning_rate / (1 + decay_rate * step_num / decay_steps) (floored when staircase).

    Example:
        >>> InverseTimeDecay(1.0, 10, 1.0, begin=10).current_lr()
        0.5
    """

    def step(self):
        return self.learning_rate / (1.0 + self.decay_rate * self._progress())


class PolynomialDecay(LearningRateDecay):
    """(learning_rate - end) * (1 - t / decay_steps) ** power + end with t = min(step_num,
    decay_steps); with cycle, decay_steps grows to the next multiple past step_num.

    Example:
        >>> PolynomialDecay(1.0, 10, end_learning_rate=0.0, begin=5).current_lr()
        0.5
    """

    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, begin=0, step=1, dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = float(learning_rate)
        self.decay_steps = decay_steps
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)
        self.cycle = bool(cycle)

    def step(self):
        steps, decay_steps = self.step_num, self.decay_steps
        if self.cycle:
            decay_steps *= max(1, math.ceil(steps / self.decay_steps))
        else:
            steps = min(steps, decay_steps)
        span = self.learning_rate - self.end_learning_rate
        return span * (1.0 - steps / decay_steps) ** self.power + self.end_learning_rate


class CosineDecay(LearningRateDecay):
    """learning_rate * (cos(epoch * pi / epochs) + 1) / 2 with epoch = step_num //
    step_each_epoch.

    Example:
        >>> CosineDecay(1.0, step_each_epoch=10, epochs=2, begin=10).current_lr()
        0.5
    """

    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1,
                 dtype="float32"):
        super().__init__(begin, step, dtype)
        self.learning_rate = float(learning_rate)
        self.step_each_epoch = step_each_epoch
        self.epochs = epochs

    def step(self):
        epoch = math.floor(self.step_num / self.step_each_epoch)
        return self.learning_rate * 0.5 * (math.cos(epoch * math.pi / self.epochs) + 1.0)


class NoamDecay(LearningRateDecay):
    """The Transformer schedule: learning_rate * d_model ** -0.5 * min(step_num ** -0.5,
    step_num * warmup_steps ** -1.5); it starts at step 1.

    Example:
        >>> NoamDecay(d_model=4, warmup_steps=4, begin=4).current_lr()
        0.25
    """

    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype="float32",
                 learning_rate=1.0):
        super().__init__(begin, step, dtype)
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        self.learning_rate = float(learning_rate)

    def step(self):
        n = self.step_num
        ramp = min(n ** -0.5, self.warmup_steps ** -1.5 * n)
        return self.learning_rate * self.d_model ** -0.5 * ramp
