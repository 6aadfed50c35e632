"""`made_at_each_run`: the one mechanism for methods whose effect is on training state
outside any tensor result (zeroing gradients, an optimizer step, a scheduler step).

Eagerly such a method just runs. While jit.to_static traces a training step, a program
cannot record the effect as an op of tensors: the call is recorded instead, and the
program makes it at each run, at its place among the ops (dygraph.jit.train_step). Every
such method is decorated here, so the rule lives in one place, not in an `if` per method.

Example:
    >>> class Counter:
    ...     def __init__(self):
    ...         self.n = 0
    ...     @made_at_each_run()
    ...     def step(self, by=1):
    ...         self.n += by
    >>> c = Counter(); c.step(); c.step(by=2); c.n
    3
"""

import functools
import inspect

from dygraph.autograd.grad_mode import state as _state

__all__ = ["made_at_each_run"]


def made_at_each_run(drops=None):
    """Decorate a method (see the module docstring). `drops(self, *args)`, when given,
    names the parameters whose gradient the call removes (clear_grad(set_to_zero=False)),
    which the traced step then no longer holds."""

    def decorate(method):
        signature = inspect.signature(method)

        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            if _state.static_program is not None:
                from dygraph.jit.train_step import record_call

                bound = signature.bind(self, *args, **kwargs)
                bound.apply_defaults()
                call_args = tuple(bound.arguments.values())[1:]
                dropped = drops(self, *call_args) if drops is not None else ()
                if record_call(self, method.__name__, call_args, dropped):
                    return None  # made at each run of the traced step
            return method(self, *args, **kwargs)

        return wrapper

    return decorate
