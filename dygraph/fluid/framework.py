"""The parts of 1.x's program/framework namespace that dygraph code touches.

In 1.x, `fluid.default_main_program().random_seed = seed` seeded the run; here the program
objects forward that to `dygraph.seed`.
"""

from dygraph.autograd.grad_mode import state as _thread_state
from dygraph.framework import random as _random

__all__ = ["Program", "default_main_program", "default_startup_program", "in_dygraph_mode",
           "program_guard"]


class Program:
    """A 1.x Program handle; in dygraph mode only `random_seed` has an effect.

    Example:
        >>> default_main_program().random_seed = 90
    """

    def __init__(self):
        self._seed = 0

    @property
    def random_seed(self):
        return self._seed

    @random_seed.setter
    def random_seed(self, value):
        self._seed = int(value)
        _random.seed(self._seed)

    def global_block(self):
        return self


_main = Program()
_startup = Program()


def default_main_program():
    """The default main Program (its random_seed seeds every random op).

    Example:
        >>> isinstance(default_main_program().random_seed, int)
        True
    """
    return _main


def default_startup_program():
    """The default startup Program (its random_seed seeds every random op).

    Example:
        >>> isinstance(default_startup_program(), Program)
        True
    """
    return _startup


def in_dygraph_mode():
    """True inside `fluid.dygraph.guard()`.

    Example:
        >>> in_dygraph_mode()
        False
    """
    return _thread_state.retain_all_grads


class program_guard:  # noqa: N801 - 1.x name
    """Accepted for source compatibility; dygraph code runs eagerly either way."""

    def __init__(self, main_program=None, startup_program=None):
        self.main_program = main_program

    def __enter__(self):
        return self.main_program

    def __exit__(self, *exc):
        return False
