"""The Executor: runs a Program on NumPy arrays, planned once per (program version, feed
names, fetch names); the plans of the most recently used combinations are cached.

Planning keeps only the ops a fetch or a persistable update needs, and notes after which
step each intermediate array is last read, so the run frees it there. A run is then a flat
loop of prepared calls on raw arrays: no Tensor objects and no autograd bookkeeping, which
is where static mode saves the per-op cost of eager execution.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 2])
    ...     y = x * 2.0 + 1.0
    >>> dygraph.disable_static()
    >>> exe = Executor()
    >>> exe.run(main, feed={'x': np.ones((3, 2), np.float32)}, fetch_list=[y])[0].tolist()
    [[3.0, 3.0], [3.0, 3.0], [3.0, 3.0]]
"""

import contextlib
import operator
import warnings
from collections import OrderedDict

import numpy as np

from dygraph.autograd.function import _FORWARD_ERRORS
from dygraph.framework.errors import op_error
from dygraph.static.program import (
    Program,
    ValueDependentError,
    Variable,
    default_main_program,
    is_stand_in,
)
from dygraph.static.rewrite import pool_before_relu
from dygraph.static.straight_line import straight_line

__all__ = ["Executor", "Scope", "global_scope", "scope_guard"]

# Plans an Executor keeps, least recently used dropped first. A training script cycles
# through a handful (startup, train step, evaluation clone, inference, each with its own
# feeds and fetches), which this holds many times over; the bound stops a process that
# loads program after program (a model server) from keeping every plan, and the ops and
# program it references, for ever. A dropped plan is rebuilt on its next run.
PLAN_CACHE_SIZE = 64


class _TensorView:
    """What scope.find_var(name).get_tensor() returns: the array, with Paddle's accessors."""

    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return self

    def __array__(self, dtype=None, copy=None):
        value = self._scope.vars[self._name]
        if dtype is not None:
            return value.astype(dtype, copy=bool(copy))
        return value.copy() if copy else value  # np.array(view) asks for a copy

    def set(self, value, place=None):
        self._scope.vars[self._name] = np.array(value, copy=True)

    def shape(self):
        return list(self._scope.vars[self._name].shape)


class Scope:
    """Name -> array store of the persistable values (parameters, optimizer state)."""

    def __init__(self):
        self.vars = {}

    def find_var(self, name):
        """A handle on variable `name`, or None."""
        return _TensorView(self, name) if name in self.vars else None

    def var(self, name):
        self.vars.setdefault(name, None)
        return _TensorView(self, name)


_scopes = [Scope()]


def global_scope():
    """The scope runs use by default.

    Example:
        >>> isinstance(global_scope(), Scope)
        True
    """
    return _scopes[-1]


@contextlib.contextmanager
def scope_guard(scope):
    """Use `scope` as the global scope inside the block."""
    _scopes.append(scope)
    try:
        yield
    finally:
        _scopes.pop()


def _runnable_effects(block, feed_names):
    """The "effect" ops (prints) whose inputs the feeds and persistable values can give."""
    if not any(o.role == "effect" for o in block.ops):
        return set()
    known = set(feed_names) | {n for n, v in block.vars.items() if v.persistable}
    effects = set()
    for o in block.ops:
        if all(n in known for n in o.inputs):
            known.update(o.outputs)
            if o.role == "effect":
                effects.add(o)
    return effects


class _Plan:
    """The prepared steps of one (program version, feeds, fetches)."""

    def __init__(self, program, feed_names, fetch_names):
        block = program.global_block()
        for name in fetch_names:
            if name not in block.vars:
                raise ValueError(f"Executor.run: fetch {name!r} is not a variable of the "
                                 "program")
        needed = set(fetch_names)
        chosen = []
        effects = _runnable_effects(block, feed_names)
        for o in reversed(block.ops):
            # Updates of persistable state (optimizer steps, initialisation) always run;
            # side effects (printing) whenever the feeds given can compute their inputs.
            if o.role in ("optimize", "init") or o in effects or set(o.outputs) & needed:
                chosen.append(o)
                needed |= set(o.inputs)
        chosen.reverse()
        self.ops = chosen
        self.feeds = {n: block.vars[n] for n in needed if n in block.vars and
                      getattr(block.vars[n], "is_feed", False)}
        missing = [n for n in self.feeds if n not in feed_names]
        if missing:
            raise ValueError(f"Executor.run: the program needs feed {missing[0]!r} "
                             f"(shape {list(self.feeds[missing[0]].static_shape)}), which "
                             f"the feed dict lacks (it has {sorted(feed_names)})")
        written = {n for o in chosen for n in o.outputs}
        self.persistable = {n for n in needed | written
                            if n in block.vars and block.vars[n].persistable}
        self.ops = pool_before_relu(self.ops, set(fetch_names) | self.persistable)
        # Free each intermediate after its last reader (fetched and persistable values stay).
        last = {}
        for i, o in enumerate(self.ops):
            for n in o.inputs:
                last[n] = i
        keep = set(fetch_names) | self.persistable
        self.free_after = [[n for n in set(o.inputs) if last.get(n) == i and n not in keep]
                           for i, o in enumerate(self.ops)]
        self.fetch_names = fetch_names
        self.run_steps = straight_line(self.ops, self.free_after, set(feed_names),
                                       fetch_names, self.persistable)
        self.checks = [(n, v._data.dtype, len(v.static_shape),
                        [(i, d) for i, d in enumerate(v.static_shape) if d != -1])
                       for n, v in self.feeds.items()]
        self.other_feeds = [n for n in feed_names if n not in self.feeds]

    def check_feed(self, name, value):
        var = self.feeds.get(name)
        array = np.asarray(value)
        if var is None:
            return array
        if array.dtype != var._data.dtype and array.dtype.kind == "f" == var._data.dtype.kind:
            # Another float precision converts, as in Paddle 1.x (the seeds' article feeds
            # float64 arrays to float32 variables); other kinds are refused.
            array = array.astype(var._data.dtype)
        if array.dtype != var._data.dtype:
            raise ValueError(f"Executor.run: feed {name!r} has dtype {array.dtype.name} but "
                             f"the variable was declared {var._data.dtype.name}")
        shape = var.static_shape
        if array.ndim != len(shape) or any(d != -1 and d != s for d, s in
                                            zip(shape, array.shape)):
            # Paddle warns and runs: the ops compute on the array given (a loop that
            # reads a row of a batch fed as one row); an op that cannot take it fails there.
            warnings.warn(f"Executor.run: feed {name!r} has shape {list(array.shape)} but "
                          f"the variable was declared {list(shape)} (-1: any size)",
                          UserWarning, stacklevel=4)
        return array

    def run(self, scope, feed):
        for name, dtype, ndim, fixed in self.checks:
            value = feed[name]
            # The common case (an array of the declared dtype and shape) costs no call.
            if (type(value) is not np.ndarray or value.dtype != dtype or value.ndim != ndim
                    or any(value.shape[i] != d for i, d in fixed)):
                feed[name] = self.check_feed(name, value)
        for name in self.other_feeds:
            feed[name] = np.asarray(feed[name])
        try:
            values = self.run_steps(scope.vars, feed)
        except KeyError as exc:
            op = self.ops[exc.static_step] if exc.static_step >= 0 else None
            raise RuntimeError(f"Executor.run: {op.type if op else 'the fetch'} needs "
                               f"{exc.args[0]!r}, which has no value (run the startup "
                               "program first?)") from None
        except _FORWARD_ERRORS as exc:
            if getattr(exc, "static_step", -1) < 0:
                raise
            op = self.ops[exc.static_step]
            arrays = [feed.get(n, scope.vars.get(n)) for n in op.inputs]
            raise op_error(op.type, f"{exc} (at run time; input shapes "
                           f"{[list(np.shape(a)) if a is not None else '?' for a in arrays]})",
                           type(exc)) from None
        return [np.array(v, copy=True) for v in values]


def _fetch_name(f):
    if not isinstance(f, Variable) and is_stand_in(getattr(f, "_data", None)):
        raise ValueDependentError(
            "Executor.run: a fetched Tensor was computed in Python from the build-time "
            "stand-in of a static Variable, not by ops of the program; it would hold the "
            "stand-in's values, not the run's (compute it with ops, or run the code eagerly)")
    return f.name if isinstance(f, Variable) or hasattr(f, "name") else str(f)


def _unwrap(program):
    """The Program a CompiledProgram carries (its build options change nothing)."""
    from dygraph.static.compiler import CompiledProgram

    if isinstance(program, CompiledProgram):
        return program._program
    raise TypeError(f"Executor.run: program must be a Program or a CompiledProgram, got "
                    f"{type(program).__name__}")


def _flat_fetches(fetch_list):
    """The fetch list as a flat tuple: a single Variable or name is a list of one, and the
    tuples and lists in it (a multi-output op's results, lstsq's four) are flattened, as
    Paddle does."""
    if fetch_list is None:
        return ()
    if not isinstance(fetch_list, (list, tuple)):
        return (fetch_list,)
    if not any(isinstance(f, (list, tuple)) for f in fetch_list):
        return tuple(fetch_list)
    flat = []
    for f in fetch_list:
        flat += _flat_fetches(f) if isinstance(f, (list, tuple)) else [f]
    return tuple(flat)


class Executor:
    """Runs programs (Paddle's Executor); `place` is accepted for compatibility (CPU)."""

    def __init__(self, place=None):
        self.place = place
        # {(id(program), version, feed names, fetch names): (program, plan)}, oldest use
        # first. The entry holds its program so that the id in its key cannot be reused
        # by another program while the entry lives.
        self._plans = OrderedDict()
        self._last = None  # (program, version, feed names, fetch list items, plan)

    def run(self, program=None, feed=None, fetch_list=None, return_numpy=True, scope=None,
            feed_var_name="feed", fetch_var_name="fetch", use_program_cache=True):
        """Run `program` (default main) with `feed` ({name: array}) and return the values
        of `fetch_list` (Variables or names, parameters included) as NumPy arrays."""
        program = program if program is not None else default_main_program()
        if not isinstance(program, Program):
            program = _unwrap(program)
        scope = scope if scope is not None else global_scope()
        feed = dict(feed or {})
        fetches = _flat_fetches(fetch_list)
        last = self._last
        # A training loop runs the same program with the same feeds and fetches each step:
        # that plan is found by identity, without building the key.
        if (last is not None and last[0] is program and last[1] == program._version and
                last[2] == feed.keys() and len(last[3]) == len(fetches) and
                all(map(operator.is_, last[3], fetches))):
            plan = last[4]
        else:
            fetch_names = tuple(f if type(f) is str else _fetch_name(f) for f in fetches)
            key = (id(program), program._version, tuple(sorted(feed)), fetch_names)
            entry = self._plans.get(key)
            if entry is None:
                entry = self._plans[key] = (program, _Plan(program, set(feed),
                                                           list(fetch_names)))
                if len(self._plans) > PLAN_CACHE_SIZE:
                    self._plans.popitem(last=False)
            else:
                self._plans.move_to_end(key)
            plan = entry[1]
            self._last = (program, program._version, frozenset(feed), fetches, plan)
        results = plan.run(scope, feed)
        if return_numpy:
            return results
        from dygraph.tensor.tensor import to_tensor

        return [to_tensor(r) for r in results]

    def close(self):
        """Release the cached plans."""
        self._plans.clear()
        self._last = None
