"""The schedulers with more moving parts: LinearWarmup, ReduceOnPlateau, OneCycleLR and
CyclicLR. Import them from `dygraph.optimizer.lr`.

Example:
    >>> from dygraph.optimizer.lr import LinearWarmup
    >>> s = LinearWarmup(learning_rate=0.5, warmup_steps=2, start_lr=0.0, end_lr=0.5)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(s()); s.step()
    >>> rates
    [0.0, 0.25, 0.5, 0.5]
"""

import math
import numbers

from dygraph.framework.errors import op_error
from dygraph.optimizer.lr.base import LRScheduler, _asserted, _float, _int, _nonnegative, _real

__all__ = ["LinearWarmup", "ReduceOnPlateau", "OneCycleLR", "CyclicLR"]


class LinearWarmup(LRScheduler):
    """Rise linearly from start_lr to end_lr over warmup_steps epochs, then follow
    `learning_rate` (a float or another scheduler, stepped from its epoch 0).

    Example:
        >>> from dygraph.optimizer.lr import StepDecay
        >>> s = LinearWarmup(StepDecay(0.5, step_size=1, gamma=0.5), 1, 0.0, 0.5)
        >>> s.step(); s.step(); s()
        0.25
    """

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, LRScheduler):
            learning_rate = _real(learning_rate, "learning_rate", "LinearWarmup")
        self.learning_rate = learning_rate
        self.warmup_steps = _int(warmup_steps, "warmup_steps", "LinearWarmup", 1)
        self.start_lr = _real(start_lr, "start_lr", "LinearWarmup")
        self.end_lr = _real(end_lr, "end_lr", "LinearWarmup")
        _asserted(self.end_lr > self.start_lr, "LinearWarmup", f"end_lr {self.end_lr} must be "
                  f"greater than start_lr {self.start_lr}")
        super().__init__(self.start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps + \
                self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    set_dict = set_state_dict

    def _nested_keys(self):
        return ("LinearWarmup_LR",)


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by `factor` when the metric passed to `step(metrics)` has not
    improved (by `threshold`, relative or absolute) for more than `patience` epochs, then
    wait `cooldown` epochs; never below `min_lr`, and changes smaller than `epsilon` are
    skipped.

    Example:
        >>> s = ReduceOnPlateau(1.0, patience=1, factor=0.5)
        >>> for loss in [3.0, 3.0, 3.0]:
        ...     s.step(loss)
        >>> s()
        0.5
    """

    _state_keys = ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr")

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        owner = "ReduceOnPlateau"
        mode = str(mode).lower()
        if mode not in ("min", "max"):
            raise op_error(owner, f"mode must be 'min' or 'max', got {mode!r}")
        threshold_mode = str(threshold_mode).lower()
        if threshold_mode not in ("rel", "abs"):
            raise op_error(owner, f"threshold_mode must be 'rel' or 'abs', got "
                           f"{threshold_mode!r}")
        self.factor = _real(factor, "factor", owner)
        if self.factor >= 1.0:
            raise op_error(owner, f"factor must be < 1.0 (new_lr = lr * factor), got "
                           f"{self.factor}")
        self.mode = mode
        self.threshold_mode = threshold_mode
        self.patience = _int(patience, "patience", owner, 0)
        self.threshold = _real(threshold, "threshold", owner)
        self.cooldown = _int(cooldown, "cooldown", owner, 0)
        self.min_lr = _real(min_lr, "min_lr", owner)
        self.epsilon = _real(epsilon, "epsilon", owner)
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        # No initial step: the first step needs a metric.
        self.base_lr = _real(learning_rate, "learning_rate", owner)
        self.last_lr = self.base_lr
        self.last_epoch = 0
        self.verbose = verbose

    def step(self, metrics, epoch=None):
        """Record this epoch's metric (a number or a one-element Tensor/array).

        Example:
            >>> s = ReduceOnPlateau(1.0, patience=0); s.step(1.0); s.step(2.0); s()
            0.1
        """
        self.last_epoch = self.last_epoch + 1 if epoch is None else _int(
            epoch, "epoch", "ReduceOnPlateau")
        current = self._metric_value(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                          f"{self.last_lr}.")

    @staticmethod
    def _metric_value(metrics):
        if isinstance(metrics, bool):
            raise op_error("ReduceOnPlateau.step", "metrics must be a number, got bool",
                           TypeError)
        if isinstance(metrics, numbers.Real):
            return float(metrics)
        size = getattr(metrics, "size", None)
        if size is None or not hasattr(metrics, "item"):
            raise op_error("ReduceOnPlateau.step", f"metrics must be a number or a "
                           f"one-element Tensor, got {type(metrics).__name__}", TypeError)
        if size != 1:
            raise op_error("ReduceOnPlateau.step", f"metrics must have one element, got "
                           f"shape {list(metrics.shape)}")
        return float(metrics.item())

    def _is_better(self, current, best):
        # Paddle's relative margin is best * threshold, sign included.
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        if self.mode == "min":
            return current < best - margin
        return current > best + margin


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from max_learning_rate / divide_factor up to
    max_learning_rate over the first phase_pct of total_steps, then down to
    end_learning_rate (with `three_phase`, back to the initial rate first), annealed by
    cosine or linearly.

    Example:
        >>> s = OneCycleLR(max_learning_rate=1.0, total_steps=5, divide_factor=10.0,
        ...                end_learning_rate=0.0, phase_pct=0.4, anneal_strategy='linear')
        >>> rates = []
        >>> for _ in range(5):
        ...     rates.append(round(s(), 4)); s.step()
        >>> rates
        [0.1, 1.0, 0.6667, 0.3333, 0.0]
    """

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy="cos",
                 three_phase=False, last_epoch=-1, verbose=False):
        owner = "OneCycleLR"
        max_lr = _nonnegative(max_learning_rate, "max_learning_rate", owner)
        self.total_steps = _int(total_steps, "total_steps", owner, 1)
        divide_factor = _real(divide_factor, "divide_factor", owner)
        end_lr = _nonnegative(end_learning_rate, "end_learning_rate", owner)
        phase_pct = _float(phase_pct, "phase_pct", owner)
        if not 0.0 <= phase_pct <= 1.0:
            raise op_error(owner, f"phase_pct must be in [0, 1], got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise op_error(owner, f"anneal_strategy must be 'cos' or 'linear', got "
                           f"{anneal_strategy!r}")
        initial_lr = max_lr / divide_factor
        last = self.total_steps - 1.0
        if three_phase:
            if phase_pct >= 0.5:
                raise op_error(owner, f"phase_pct must be < 0.5 with three_phase, got "
                               f"{phase_pct}")
            up = phase_pct * self.total_steps - 1.0
            self._ends = [up, 2.0 * phase_pct * self.total_steps - 2.0, last]
            self._lrs = [initial_lr, max_lr, initial_lr, end_lr]
        else:
            self._ends = [phase_pct * self.total_steps - 1.0, last]
            self._lrs = [initial_lr, max_lr, end_lr]
        self._starts = [0.0] + self._ends[:-1]
        self._anneal = self._cos if anneal_strategy == "cos" else self._linear
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise op_error("OneCycleLR", f"stepped {step} times, more than total_steps "
                           f"({self.total_steps})")
        n = len(self._ends)
        for i, (start, end) in enumerate(zip(self._starts, self._ends)):
            if step <= end or i == n - 1:
                size = end - start
                pct = (step - start) / size if size > 0 else 1.0
                return self._anneal(self._lrs[i], self._lrs[i + 1], pct)
        raise AssertionError("unreachable: the last phase takes every later step")


class CyclicLR(LRScheduler):
    """Cycle between base_learning_rate and max_learning_rate: up over step_size_up
    steps, down over step_size_down (default: the same); the amplitude is scaled per
    cycle ('triangular': 1, 'triangular2': halved each cycle) or per iteration
    ('exp_range': exp_gamma**iteration), or by a custom `scale_fn`.

    Example:
        >>> s = CyclicLR(0.1, 0.5, step_size_up=2)
        >>> rates = []
        >>> for _ in range(5):
        ...     rates.append(round(s(), 4)); s.step()
        >>> rates
        [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up,
                 step_size_down=None, mode="triangular", exp_gamma=1.0, scale_fn=None,
                 scale_mode="cycle", last_epoch=-1, verbose=False):
        owner = "CyclicLR"
        base_lr = _real(base_learning_rate, "base_learning_rate", owner)
        self.max_lr = _nonnegative(max_learning_rate, "max_learning_rate", owner)
        up = _int(step_size_up, "step_size_up", owner, 1)
        down = up if step_size_down is None else _int(step_size_down, "step_size_down",
                                                      owner, 1)
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.amplitude = self.max_lr - base_lr
        self.mode = mode
        self.exp_gamma = _float(exp_gamma, "exp_gamma", owner)
        if scale_mode not in ("cycle", "iterations"):
            raise op_error(owner, f"scale_mode must be 'cycle' or 'iterations', got "
                           f"{scale_mode!r}")
        if scale_fn is None:
            if mode == "triangular":
                self.scale_fn, self.scale_mode = self._triangular, "cycle"
            elif mode == "triangular2":
                self.scale_fn, self.scale_mode = self._triangular2, "cycle"
            elif mode == "exp_range":
                self.scale_fn, self.scale_mode = self._exp_range, "iterations"
            else:
                raise op_error(owner, f"mode must be 'triangular', 'triangular2' or "
                               f"'exp_range', got {mode!r}")
        else:
            if not callable(scale_fn):
                raise op_error(owner, f"scale_fn must be callable, got "
                               f"{type(scale_fn).__name__}", TypeError)
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_lr, last_epoch, verbose)

    @staticmethod
    def _triangular(x):
        return 1.0

    @staticmethod
    def _triangular2(x):
        return 1 / (2.0 ** (x - 1))

    def _exp_range(self, x):
        return self.exp_gamma ** x

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)
