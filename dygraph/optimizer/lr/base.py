"""LRScheduler, the base class of the learning-rate schedulers, and their argument checks.

The schedulers themselves are in `dygraph.optimizer.lr`, which re-exports this class.

Example:
    >>> from dygraph.optimizer.lr.base import LRScheduler
    >>> class Halving(LRScheduler):
    ...     def get_lr(self):
    ...         return self.base_lr * 0.5 ** self.last_epoch
    >>> s = Halving(1.0); s.step(); s()
    0.5
"""

import numbers
import warnings

from dygraph.framework.errors import AssertedValueError, check_learning_rate, op_error
from dygraph.framework.step_calls import made_at_each_run

__all__ = ["LRScheduler"]


def _real(value, what, owner):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise op_error(owner, f"{what} must be a float, got {type(value).__name__}", TypeError)
    return float(value)


def _int(value, what, owner, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise op_error(owner, f"{what} must be an int, got {type(value).__name__}", TypeError)
    if minimum is not None and value < minimum:
        # Paddle asserts most of these counts: an AssertionError that is also a ValueError
        raise op_error(owner, f"{what} must be >= {minimum}, got {value}", AssertedValueError)
    return int(value)


def _float(value, what, owner):
    """A float proper, as Paddle requires of some arguments (an int is a TypeError)."""
    if not isinstance(value, float):
        raise op_error(owner, f"{what} must be a float, got {type(value).__name__}", TypeError)
    return value


def _nonnegative(value, what, owner):
    value = _real(value, what, owner)
    if value < 0:
        raise op_error(owner, f"{what} must be >= 0, got {value}")
    return value


def _asserted(ok, owner, message):
    """An argument check that Paddle makes with `assert`."""
    if not ok:
        raise op_error(owner, message, AssertedValueError)


def _below_one(gamma, owner):
    gamma = _real(gamma, "gamma", owner)
    if gamma >= 1.0:
        raise op_error(owner, f"gamma must be < 1.0 (new_lr = lr * gamma), got {gamma}")
    return gamma


class LRScheduler:
    """Base class: subclasses write `get_lr()` from `self.base_lr` and `self.last_epoch`.

    `step(epoch=None)` advances one epoch (or jumps to `epoch`) and recomputes `last_lr`;
    calling the scheduler returns `last_lr`.

    Example:
        >>> class Halving(LRScheduler):
        ...     def get_lr(self):
        ...         return self.base_lr * 0.5 ** self.last_epoch
        >>> s = Halving(1.0); s.step(); s.step(); s()
        0.25
    """

    # Attributes saved by state_dict (subclasses add theirs).
    _state_keys = ("last_epoch", "last_lr")

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        owner = type(self).__name__
        self.base_lr = check_learning_rate(_real(learning_rate, "learning_rate", owner), owner)
        self.last_lr = self.base_lr
        self.last_epoch = _int(last_epoch, "last_epoch", type(self).__name__)
        self.verbose = verbose
        self.step()

    def __call__(self):
        return self.last_lr

    @made_at_each_run()
    def step(self, epoch=None):
        """Advance to the next epoch, or to `epoch`, and update `last_lr`.

        Example:
            >>> from dygraph.optimizer.lr import ExponentialDecay
            >>> s = ExponentialDecay(1.0, gamma=0.5); s.step(3); s()
            0.125
        """
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = _int(epoch, "epoch", type(self).__name__)
            closed_form = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self):
        """The learning rate for `self.last_epoch`; subclasses define it."""
        raise NotImplementedError

    def state_keys(self):
        """Names of the attributes that state_dict saves.

        Example:
            >>> from dygraph.optimizer.lr import StepDecay
            >>> StepDecay(0.1, step_size=2).state_keys()
            ['last_epoch', 'last_lr']
        """
        return list(self._state_keys)

    def state_dict(self):
        """The scheduler's state as a dict of plain Python values.

        Example:
            >>> from dygraph.optimizer.lr import StepDecay
            >>> s = StepDecay(0.1, step_size=2); s.step()
            >>> s.state_dict()
            {'last_epoch': 1, 'last_lr': 0.1}
        """
        state = {}
        for key in self._state_keys:
            value = getattr(self, key)
            if hasattr(value, "item") and not isinstance(value, numbers.Number):
                value = value.item()  # a one-element Tensor or array from a user metric
            state[key] = value
        return state

    def set_state_dict(self, state_dict):
        """Restore what state_dict() returned.

        Example:
            >>> from dygraph.optimizer.lr import StepDecay
            >>> s = StepDecay(0.1, step_size=2)
            >>> s.set_state_dict({'last_epoch': 4, 'last_lr': 0.001}); s()
            0.001
        """
        for key in self._state_keys:
            if key not in state_dict:
                raise op_error(f"{type(self).__name__}.set_state_dict", f"the state has no "
                               f"{key!r}; it holds {sorted(state_dict)}", KeyError)
            value = state_dict[key]
            if hasattr(value, "item") and not isinstance(value, numbers.Number):
                value = value.item()  # saved as a Tensor or a 0-d array
            setattr(self, key, value)
        extra = set(state_dict) - set(self._state_keys) - set(self._nested_keys())
        if extra:
            warnings.warn(f"{type(self).__name__}.set_state_dict: unused entries "
                          f"{sorted(extra)}; was the state saved from another scheduler?",
                          stacklevel=2)

    def _nested_keys(self):
        return ()

    set_dict = set_state_dict  # the 1.x name
