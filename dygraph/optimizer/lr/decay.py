"""The decay schedules of `dygraph.optimizer.lr`: Noam, piecewise, natural-exponential,
inverse-time, polynomial, exponential, multi-step, step, lambda, multiplicative and cosine
annealing, each with Paddle 2.x's formula.

Example:
    >>> from dygraph.optimizer.lr.decay import StepDecay
    >>> sched = StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
    >>> rates = []
    >>> for epoch in range(4):
    ...     rates.append(sched())  # train one epoch at this rate, then step
    ...     sched.step()
    >>> rates
    [0.5, 0.5, 0.05, 0.05]
"""

import math

from dygraph.framework.errors import op_error
from dygraph.optimizer.lr.base import LRScheduler, _asserted, _below_one, _int, _real

__all__ = [
    "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay", "PolynomialDecay",
    "ExponentialDecay", "MultiStepDecay", "StepDecay", "LambdaDecay", "MultiplicativeDecay",
    "CosineAnnealingDecay",
]


class NoamDecay(LRScheduler):
    """lr = learning_rate * d_model**-0.5 * min(epoch**-0.5, warmup_steps**-1.5 * epoch)
    (epoch 0 uses 1 for the first term).

    Example:
        >>> s = NoamDecay(d_model=4, warmup_steps=2); s.step(); round(s(), 6)
        0.176777
    """

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model = _real(d_model, "d_model", "NoamDecay")
        self.warmup_steps = _real(warmup_steps, "warmup_steps", "NoamDecay")
        if self.d_model <= 0 or self.warmup_steps <= 0:
            raise op_error("NoamDecay", f"d_model and warmup_steps must be positive, got "
                           f"{self.d_model} and {self.warmup_steps}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; the last value after the last boundary.

    Example:
        >>> s = PiecewiseDecay(boundaries=[2], values=[1.0, 0.5])
        >>> rates = []
        >>> for _ in range(3):
        ...     rates.append(s()); s.step()
        >>> rates
        [1.0, 1.0, 0.5]
    """

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        self.boundaries = list(boundaries)
        if not self.boundaries:
            raise op_error("PiecewiseDecay", "boundaries cannot be empty")
        self.values = [_real(v, "values", "PiecewiseDecay") for v in values]
        if len(self.values) != len(self.boundaries) + 1:
            raise op_error("PiecewiseDecay", f"values needs one entry more than boundaries, "
                           f"got {len(self.values)} values for {len(self.boundaries)} "
                           f"boundaries")
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """lr = learning_rate * exp(-gamma * epoch).

    Example:
        >>> s = NaturalExpDecay(1.0, gamma=0.5); s.step(); round(s(), 6)
        0.606531
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _real(gamma, "gamma", "NaturalExpDecay")
        _asserted(self.gamma > 0, "NaturalExpDecay", f"gamma must be > 0 so that the "
                  f"learning rate decays, got {self.gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr = learning_rate / (1 + gamma * epoch).

    Example:
        >>> s = InverseTimeDecay(1.0, gamma=0.5); s.step(); s()
        0.6666666666666666
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _real(gamma, "gamma", "InverseTimeDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """lr = (learning_rate - end_lr) * (1 - epoch / decay_steps)**power + end_lr, with the
    epoch capped at decay_steps, or, with `cycle=True`, decay_steps stretched to the next
    multiple that covers the epoch.

    Example:
        >>> s = PolynomialDecay(1.0, decay_steps=4, end_lr=0.0); s.step(); s()
        0.75
    """

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps = _int(decay_steps, "decay_steps", "PolynomialDecay", 1)
        self.end_lr = _real(end_lr, "end_lr", "PolynomialDecay")
        self.power = _real(power, "power", "PolynomialDecay")
        _asserted(self.power > 0, "PolynomialDecay", f"power must be > 0 so that the "
                  f"learning rate decays, got {self.power}")
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        steps = self.decay_steps
        if self.cycle:
            steps *= max(1, math.ceil(epoch / steps))
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / steps) ** self.power + self.end_lr


class ExponentialDecay(LRScheduler):
    """lr = learning_rate * gamma**epoch.

    Example:
        >>> s = ExponentialDecay(1.0, gamma=0.5); s.step(); s.step(); s()
        0.25
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _real(gamma, "gamma", "ExponentialDecay")
        _asserted(0 < self.gamma < 1, "ExponentialDecay", f"gamma must be in (0, 1) so that "
                  f"the learning rate decays, got {self.gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """lr = learning_rate * gamma**(number of milestones <= epoch).

    Example:
        >>> s = MultiStepDecay(1.0, milestones=[1, 3], gamma=0.5)
        >>> rates = []
        >>> for _ in range(4):
        ...     rates.append(s()); s.step()
        >>> rates
        [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (list, tuple)):
            raise op_error("MultiStepDecay", f"milestones must be a list or tuple, got "
                           f"{type(milestones).__name__}", TypeError)
        if any(b <= a for a, b in zip(milestones, milestones[1:])):
            raise op_error("MultiStepDecay", f"milestones must increase, got "
                           f"{list(milestones)}")
        self.milestones = list(milestones)
        self.gamma = _below_one(gamma, "MultiStepDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """lr = learning_rate * gamma**(epoch // step_size).

    Example:
        >>> s = StepDecay(1.0, step_size=2, gamma=0.5); s.step(2); s()
        0.5
    """

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = _int(step_size, "step_size", "StepDecay", 1)
        self.gamma = _below_one(gamma, "StepDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(epoch).

    Example:
        >>> s = LambdaDecay(1.0, lr_lambda=lambda e: 0.9 ** e); s.step(); s()
        0.9
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise op_error("LambdaDecay", f"lr_lambda must be callable, got "
                           f"{type(lr_lambda).__name__}", TypeError)
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(1) * ... * lr_lambda(epoch).

    Example:
        >>> s = MultiplicativeDecay(1.0, lr_lambda=lambda e: 0.5); s.step(); s.step(); s()
        0.25
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise op_error("MultiplicativeDecay", f"lr_lambda must be callable, got "
                           f"{type(lr_lambda).__name__}", TypeError)
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr *= self.lr_lambda(epoch)
        return lr


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from learning_rate down to eta_min over T_max epochs (SGDR without
    restarts), computed recursively from the previous rate like Paddle; `step(epoch)` uses
    the closed form eta_min + (lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2.

    Example:
        >>> s = CosineAnnealingDecay(1.0, T_max=2); s.step(); round(s(), 6)
        0.5
    """

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):  # noqa: N803
        self.T_max = _int(T_max, "T_max", "CosineAnnealingDecay", 1)
        self.eta_min = _real(eta_min, "eta_min", "CosineAnnealingDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, t_max = self.last_epoch, self.T_max
        if epoch == 0:
            return self.base_lr
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (
                1 - math.cos(math.pi / t_max)) / 2
        return (1 + math.cos(math.pi * epoch / t_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / t_max)) * (
            self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
