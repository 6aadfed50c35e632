"""CosineAnnealingWarmRestarts (SGDR with restarts) and LinearLR, with Paddle's formulas.
Import them from `dygraph.optimizer.lr`.

Example:
    >>> from dygraph.optimizer.lr import LinearLR
    >>> s = LinearLR(1.0, total_steps=2, start_factor=0.5)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(s()); s.step()
    >>> rates
    [0.5, 0.75, 1.0, 1.0]
"""

import math
import numbers

from dygraph.framework.errors import op_error
from dygraph.framework.step_calls import made_at_each_run
from dygraph.optimizer.lr.base import LRScheduler, _int, _real

__all__ = ["CosineAnnealingWarmRestarts", "LinearLR"]


def _no_float(value, what, owner):
    """Paddle 3.3 refuses a float T_0 or T_mult (even 2.0) with a ValueError, not a
    TypeError: the cycle lengths are whole epochs."""
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        raise op_error(owner, f"{what} must be a positive integer (whole epochs), got {value}")
    return value


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_i epochs, restarting at
    learning_rate when T_i is reached; T_i starts at T_0 and is multiplied by T_mult at
    each restart. `step(epoch)` jumps to the epoch's place in the cycle.

    Example:
        >>> s = CosineAnnealingWarmRestarts(1.0, T_0=2)
        >>> rates = []
        >>> for _ in range(4):
        ...     rates.append(round(s(), 3)); s.step()
        >>> rates
        [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1,  # noqa: N803
                 verbose=False):
        owner = "CosineAnnealingWarmRestarts"
        self.T_0 = _int(_no_float(T_0, "T_0", owner), "T_0", owner, 1)
        self.T_mult = _int(_no_float(T_mult, "T_mult", owner), "T_mult", owner, 1)
        self.eta_min = _real(eta_min, "eta_min", owner)
        self.T_i, self.T_cur = self.T_0, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    @made_at_each_run()
    def step(self, epoch=None):
        """Advance one epoch (restarting the cycle when it ends), or jump to `epoch`.

        Example:
            >>> s = CosineAnnealingWarmRestarts(1.0, T_0=4, T_mult=2)
            >>> s.step(5); s.T_cur, s.T_i
            (1, 8)
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise op_error("CosineAnnealingWarmRestarts.step",
                               f"epoch must be non-negative, got {epoch}")
            self._place(epoch)
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def _place(self, epoch):
        """Set T_cur and T_i for `epoch` epochs from the start."""
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_i, self.T_cur = self.T_0, epoch % self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * ((self.T_mult ** n - 1) // (self.T_mult - 1))
            self.T_i = self.T_0 * self.T_mult ** n

    def set_state_dict(self, state_dict):
        """Restore last_epoch and last_lr (Paddle's state) and the cycle they imply.

        Example:
            >>> s = CosineAnnealingWarmRestarts(1.0, T_0=2)
            >>> s.set_state_dict({'last_epoch': 3, 'last_lr': 0.5}); s.T_cur
            1
        """
        super().set_state_dict(state_dict)
        self._place(max(self.last_epoch, 0))

    set_dict = set_state_dict


class LinearLR(LRScheduler):
    """Scale learning_rate by a factor moving linearly from start_factor to end_factor over
    total_steps epochs, then hold it (computed recursively from the previous rate, as in
    Paddle).

    Example:
        >>> s = LinearLR(0.5, total_steps=4, start_factor=0.5, end_factor=1.0)
        >>> s.step(); s.step(); s()
        0.375
    """

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        owner = "LinearLR"
        self.start_factor = _real(start_factor, "start_factor", owner)
        self.end_factor = _real(end_factor, "end_factor", owner)
        if not 0 < self.start_factor <= 1:
            raise op_error(owner, f"start_factor must be in (0, 1], got {start_factor}")
        if not 0 <= self.end_factor <= 1:
            raise op_error(owner, f"end_factor must be in [0, 1], got {end_factor}")
        self.total_steps = _int(total_steps, "total_steps", owner, 1)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        change = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + change / (
            self.total_steps * self.start_factor + (self.last_epoch - 1) * change))
