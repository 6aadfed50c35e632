"""Guards on the Python state a to_static trace reads, and the side effects it makes.

A program records ops, not Python: a global, a closure variable or a layer attribute read
while tracing becomes a constant of the program, and a Python side effect (a counter
incremented, a list argument appended to, a draw from `random`) happens once, at the trace.
Without a check, later calls would silently differ from eager. So:

- Guards: the plain values (numbers, strings, bools, None and tuples of these) of the
  globals and closure variables the function's code names, and of its layer's attributes
  it names, are part of the program's cache key: when one changes, the function is traced
  again for the new value, as eager code would see it.
- Side effects: a trace that changes a guarded value or a mutable global it names (a list,
  a dict), appends to or changes a list, dict or set argument, or draws from Python's
  `random` or NumPy's global generator cannot be a program; the function then runs eagerly
  at every call, with a warning naming what changed.

Example:
    >>> import dygraph
    >>> scale = 2.0
    >>> def f(x):
    ...     return x * scale
    >>> g = dygraph.jit.to_static(f)
    >>> g(dygraph.ones([1])).tolist()
    [2.0]
    >>> scale = 3.0
    >>> g(dygraph.ones([1])).tolist()
    [3.0]
"""

import copy
import random
import types

import numpy as np

__all__ = ["Guards", "SideEffect"]

_PLAIN = (int, float, bool, str, bytes, complex, type(None))


class SideEffect(Exception):
    """A trace changed Python state (the message says which): it cannot be a program."""


def _plain(value, depth=0):
    if isinstance(value, _PLAIN):
        return True
    return isinstance(value, tuple) and depth < 3 and all(_plain(v, depth + 1) for v in value)


def _names(code):
    """Every name the code object (and the code nested in it) loads by name."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _content(value):
    """What a mutation of a list, dict or set would change: its items' identities."""
    if isinstance(value, dict):
        return ("dict", tuple((k, id(v)) for k, v in value.items()))
    if isinstance(value, (list, set)):
        return (type(value).__name__, tuple(sorted(map(id, value))) if isinstance(value, set)
                else tuple(map(id, value)))
    return None


class Guards:
    """The Python state one function's traces depend on (see the module docstring)."""

    def __init__(self, function, layer=None):
        code = getattr(function, "__code__", None)
        self.globals = getattr(function, "__globals__", {})
        names = _names(code) if code is not None else set()
        self.global_names = sorted(n for n in names if n in self.globals)
        self.cells = []
        if code is not None and getattr(function, "__closure__", None):
            self.cells = list(zip(code.co_freevars, function.__closure__))
        self.layer = layer
        internals = _layer_internals() if layer is not None else set()
        self.attr_names = sorted(n for n in names if layer is not None and n in vars(layer)
                                 and n not in internals)
        self.empty = not (self.global_names or self.cells or self.attr_names)

    def key(self):
        """The guarded plain values now: part of the program cache's key."""
        if self.empty:  # most layers: nothing but tensors and sublayers read
            return ()
        values = []
        for name in self.global_names:
            value = self.globals.get(name)
            if _plain(value):
                values.append((name, value))
        for name, cell in self.cells:
            try:
                value = cell.cell_contents
            except ValueError:  # an unset cell
                continue
            if _plain(value):
                values.append((name, value))
        if self.layer is not None:
            attrs = vars(self.layer)
            for name in self.attr_names:
                value = attrs.get(name)
                if _plain(value):
                    values.append(("self." + name, value))
        return tuple(values)

    def _mutables(self):
        """(what, content, the object, a shallow copy) of each list, dict or set global."""
        found = []
        for name in self.global_names:
            value = self.globals.get(name)
            content = _content(value)
            if content is not None:
                found.append((f"the global {name!r}", content, value, copy.copy(value)))
        return found

    def watch(self, args, kwargs):
        """A snapshot of what a trace must not change; `check` compares with it."""
        arguments = [(f"argument {i}", _content(a)) for i, a in enumerate(args)]
        arguments += [(f"argument {k!r}", _content(v)) for k, v in kwargs.items()]
        return (self.key(), self._mutables(), [a for a in arguments if a[1] is not None],
                random.getstate(), _numpy_state())

    def undo(self, before):
        """Put back the random generators and plain globals as `watch` saw them (what a
        trace changed would otherwise change twice, once more when the call runs eagerly)."""
        _restore(self, before)

    def check(self, before, args, kwargs):
        """Raise SideEffect naming what the trace changed since `watch` gave `before`."""
        key, mutables, arguments, py_random, np_random = before
        after = dict(self.key())
        for name, value in key:
            if after.get(name, value) != value:
                raise SideEffect(f"it changes {name} (from {value!r} to {after[name]!r})")
        now = {what: content for what, content, _, _ in self._mutables()}
        for what, content, _, _ in mutables:
            if now.get(what) != content:
                raise SideEffect(f"it changes {what}")
        current = {what: content for what, content in self.watch(args, kwargs)[2]}
        for what, content in arguments:
            if current.get(what) != content:
                raise SideEffect(f"it changes its {what} (a {content[0]})")
        if random.getstate() != py_random:
            raise SideEffect("it draws from Python's random module")
        if not _same_numpy_state(np_random, _numpy_state()):
            raise SideEffect("it draws from NumPy's global random generator")


def _layer_internals():
    """The attributes every Layer has (its sublayers, parameters, hooks): never guarded."""
    from dygraph.nn import Layer

    return set(vars(Layer()))


def _restore(guards, before):
    key, mutables, _, py_random, np_random = before
    random.setstate(py_random)
    np.random.set_state(np_random)
    for _, _, value, saved in mutables:
        if isinstance(value, list):
            value[:] = saved
        else:  # a dict or a set
            value.clear()
            value.update(saved)
    for name, value in key:
        if name in guards.globals and "." not in name:
            guards.globals[name] = value


def _numpy_state():
    state = np.random.get_state()
    return state[0], state[1].copy(), state[2], state[3], state[4]


def _same_numpy_state(a, b):
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:]
