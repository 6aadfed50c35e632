"""A to_static training step replayed as CUDA graphs on a GPU.

On a GPU a small step is bound by kernel launches: each CuPy call costs microseconds of
host time, a step makes hundreds. A CUDA graph records the step's kernels once (stream
capture) and launches them all with one call. `GraphedPlan` wraps a plan (dygraph.jit.plan):

- the first call with a new signature (the shapes and dtypes of the call's arrays) runs
  the plan as usual (warm-up: kernels compile, optimizer state is made);
- the second captures it: every op's kernels go into a graph instead of running, except
  the ops that must run on the host at each call (`Op.capturable` False: the optimizer
  calls and gradient accumulation of a training step, which read the learning rate and
  step count on the host), which end one graph and start the next. The graphs are
  launched as they are made, so that call computes its step too;
- later calls copy the call's arrays into the graphs' input buffers and launch the graphs,
  running the host ops between them.

An op that turns out not to be capturable (it reads a value on the host, or copies one
from the host: a host copy would be frozen into the graph) is found while capturing: that
call still computes its step (the op runs on the host between graphs), and the step runs
without graphs from then on, with a warning naming the op.

Everything a graph touches stays where the capture put it: the graphs' memory comes from a
pool of their own (nothing else can reuse it), parameters and other state must keep their
arrays (a new array behind a parameter, as `set_state_dict` may give, makes the next call
capture again), and outputs are handed out as copies.

Turn graphs off with DYGRAPH_CUDA_GRAPHS=0 in the environment.

Example (a GPU is needed to capture; elsewhere the plan runs as it is):
    >>> import numpy as np
    >>> from dygraph.jit.plan import Plan
    >>> from dygraph.static.program import Operator
    >>> from dygraph.ops.unary.core import Exp
    >>> plan = Plan([Operator(Exp(), ["x"], ["y"])], {"x"}, ["y"])
    >>> graphed = GraphedPlan(plan, ["x"])
    >>> graphed({"x": np.zeros(2)})[0]
    array([1., 1.])
"""

import os
import warnings

from dygraph.backend import CAPTURE, capture_products, plan_array_module
from dygraph.framework.random import default_generator
from dygraph.static.backward import GradOf

__all__ = ["GraphedPlan", "enabled", "stats"]

# Counts over the process, for tests and benchmarks: graphs captured, calls replayed, and
# signatures whose step runs without graphs.
stats = {"captures": 0, "replays": 0, "plain": 0}


def enabled():
    """Whether to_static steps on a GPU run as CUDA graphs (DYGRAPH_CUDA_GRAPHS, default on).

    Example:
        >>> enabled() in (True, False)
        True
    """
    return os.environ.get("DYGRAPH_CUDA_GRAPHS", "1") != "0"


def _kept():
    """A gradient op's release while capturing: nothing yet (see _Capture.release)."""


class CaptureRefused(RuntimeError):
    """Raised inside a capture by what must not be frozen into a graph (a host copy)."""


def _refuse_pinned(size):
    raise CaptureRefused("a copy from the host (its value would be frozen into the graph)")


class _Capture:
    """The hook of one capturing run: segments of captured ops, the host ops between."""

    def __init__(self, cp, ops, pool):
        self.cp, self.ops, self.pool = cp, ops, pool
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.sequence = []  # ("graph", graph) and ("host", forward, args, outs)
        self.segment = []  # (forward, args, outs) of the ops in the graph being captured
        self.capturing = False
        self.uncapturable = {}  # op index -> why
        self.checks = []  # (device flag, error maker) to look at after each run
        self.released = []  # gradient ops whose release waits for the end

    def release(self):
        """Free what the gradient ops kept for a capture that might be made again."""
        for op in self.released:
            del op.release
            op.release()
        self.released = []

    # -- the capture state ---------------------------------------------------------------
    def _begin(self):
        cp = self.cp
        capture_products.prepare(cp)
        self._allocator = cp.cuda.using_allocator(self.pool.malloc)
        self._allocator.__enter__()
        self.stream.__enter__()
        cp.cuda.set_pinned_memory_allocator(_refuse_pinned)
        self.stream.begin_capture()
        self.capturing = CAPTURE.active = True
        CAPTURE.checks = self.checks
        self._checks_from = len(self.checks)
        self.segment = []

    def _end(self):
        """End the capture in progress; the graph, or None when it was broken."""
        cp = self.cp
        self.capturing = CAPTURE.active = False
        try:
            graph = self.stream.end_capture()
        except Exception:  # noqa: BLE001 - an invalidated capture has no graph
            graph = None
        finally:
            cp.cuda.set_pinned_memory_allocator(cp.get_default_pinned_memory_pool().malloc)
            self.stream.__exit__()
            self._allocator.__exit__(None, None, None)
        return graph

    def _launch(self, graph):
        graph.launch(stream=self.cp.cuda.get_current_stream())
        self.sequence.append(("graph", graph))

    def start(self):
        self._begin()

    def finish(self):
        graph = self._end()
        if graph is None:
            raise RuntimeError("CUDA graph capture failed at the end of a to_static step")
        self._launch(graph)

    # -- the hook ---------------------------------------------------------------------------
    def __call__(self, i, forward, args):
        op = self.ops[i].op
        if type(op) is GradOf and "release" not in op.__dict__:
            # A gradient op frees its forward op's saved values when done; while
            # capturing, a dropped graph may have to capture it again, so that waits.
            op.release = _kept
            self.released.append(op)
        if not getattr(op, "capturable", True):
            self._close_segment()
            return self._on_host(forward, args)
        drawn = default_generator.get_state()
        try:
            out = forward(self.cp, *args)
        except Exception as exc:  # noqa: BLE001 - any failure while capturing: on the host
            # The op runs again on the host: the random numbers it drew are drawn again.
            default_generator.set_state(drawn)
            self.uncapturable[i] = f"{type(exc).__name__}: {exc}"
            segment = self.segment
            self._end()  # a broken capture, or one holding part of op i: dropped
            self._redo(segment)
            return self._on_host(forward, args)
        self.segment.append((forward, args, out))
        return out

    def _close_segment(self):
        """End the graph in progress and launch it, so its outputs hold this run's values."""
        segment = self.segment
        graph = self._end()
        if graph is None:  # an op broke the capture without raising
            self._redo(segment)
        else:
            self._launch(graph)

    def _redo(self, segment):
        """Capture the ops of `segment` again (their first capture was dropped), writing
        into the outputs later ops already read, and launch the graph."""
        del self.checks[self._checks_from:]  # their flags belong to the dropped capture
        self._begin()
        for forward, args, outs in segment:
            _copy_into(outs, forward(self.cp, *args))
        graph = self._end()
        if graph is None:
            raise RuntimeError("CUDA graph capture failed twice on the same ops")
        self._launch(graph)

    def _on_host(self, forward, args):
        """An op that runs now, outside the graphs, and again at each replay; then the
        next graph starts."""
        out = forward(self.cp, *args)
        self.sequence.append(("host", forward, args, out))
        self._begin()
        return out


def _copy_into(recorded, new):
    """Write the arrays of `new` into the arrays `recorded` (an op's outputs as first
    returned, which later ops read), where they are other memory."""
    if type(recorded) is tuple:
        for r, n in zip(recorded, new):
            _copy_into(r, n)
        return
    if hasattr(recorded, "data") and hasattr(new, "data") and recorded is not new:
        try:
            same = recorded.data.ptr == new.data.ptr and recorded.strides == new.strides
        except AttributeError:  # NumPy values (tokens, host results): nothing on the device
            return
        if not same:
            recorded[...] = new


def _run_checks(checks):
    """The ops' checks of values they could not read while captured (labels in range):
    one wait for the GPU, where there are any."""
    for flag, error in checks:
        if bool(flag):
            raise error()


class _Replay:
    """What a capture left: the sequence to replay, the input buffers, the outputs and
    the checks to make after each run."""

    def __init__(self, sequence, inputs, persist, outs, pool, checks):
        self.sequence, self.inputs, self.persist = sequence, inputs, persist
        self.outs, self.pool, self.checks = outs, pool, checks

    def __call__(self, cp, env):
        for name, buffer in self.inputs.items():
            buffer[...] = env[name]
        stream = cp.cuda.get_current_stream()
        for item in self.sequence:
            if item[0] == "graph":
                item[1].launch(stream=stream)
            else:
                _, forward, args, recorded = item
                _copy_into(recorded, forward(cp, *args))
        _run_checks(self.checks)
        return self.outs


class GraphedPlan:
    """`plan` (dygraph.jit.plan.Plan) run as CUDA graphs when fed GPU arrays, for runs
    whose saved values no backward outside the plan reads (inference, a whole training
    step; a recorded call runs its plan itself); `call_names` are the feeds that change
    from call to call (copied into the graphs' buffers); the other feeds (parameters,
    buffers) must keep their arrays. Device outputs come back as copies (the graphs write
    the same buffers at every call)."""

    def __init__(self, plan, call_names):
        self.plan = plan
        self.call_names = list(call_names)
        self._replays = {}  # signature -> _Replay, or None where plain runs stay
        self._captures = {}  # signature -> how many captures were made
        self.replays = 0  # calls served by graphs (for tests and benchmarks)

    def __call__(self, env):
        cp = plan_array_module(env, {})
        if cp.__name__ != "cupy":
            return self.plan(env)
        # No backward outside the plan reads what its ops save (inference, or a training
        # step whose gradient ops are in the plan), so fused chains write only what the
        # plan's own ops read (dygraph/static/fuse_elementwise.py).
        plan = self.plan.for_gpu(saved="plan")
        if not enabled():
            return plan(env)
        key = tuple((env[n].shape, env[n].dtype.str) if isinstance(env[n], cp.ndarray)
                    else None for n in self.call_names)
        if key not in self._replays:  # the first call: a warm-up, run as usual
            self._replays[key] = None if None in key else False
            return plan(env)
        replay = self._replays[key]
        if replay is None:
            return plan(env)
        if replay and all(env[n] is a for n, a in replay.persist.items()):
            self.replays += 1
            stats["replays"] += 1
            return _copies(cp, replay(cp, env))
        made = self._captures[key] = self._captures.get(key, 0) + 1
        if made > _MAX_CAPTURES:
            warnings.warn("to_static on the GPU: the arrays behind parameters or buffers "
                          "change at every call, so the step runs without CUDA graphs",
                          RuntimeWarning, stacklevel=3)
            self._replays[key] = None
            stats["plain"] += 1
            return plan(env)
        stats["captures"] += 1
        return _copies(cp, self._capture(cp, plan, env, key))

    def _capture(self, cp, plan, env, key):
        pool = cp.cuda.MemoryPool()
        with cp.cuda.using_allocator(pool.malloc):
            inputs = {n: cp.empty_like(env[n]) for n in self.call_names}
        for name, buffer in inputs.items():
            buffer[...] = env[name]
        feed = dict(env)
        feed.update(inputs)
        persist = {n: a for n, a in env.items() if n not in inputs}
        hook = _Capture(cp, plan.ops, pool)
        hook.start()
        try:
            outs = plan.run_hooked(feed, hook)
            hook.finish()
        except BaseException:
            if hook.capturing:
                hook._end()
            self._replays[key] = None
            raise
        finally:
            hook.release()
        _run_checks(hook.checks)
        if hook.uncapturable:
            # This call ran right (the op ran on the host, between graphs), but a replay
            # would not: later graphs read what the op kept for its gradient at this
            # call's addresses. So the step runs as a plan from now on.
            i, why = next(iter(hook.uncapturable.items()))
            warnings.warn(f"to_static on the GPU: op {plan.ops[i].type!r} cannot be "
                          f"captured in a CUDA graph ({why}), so the step runs without CUDA "
                          "graphs", RuntimeWarning, stacklevel=3)
            self._replays[key] = None
            stats["plain"] += 1
        else:
            self._replays[key] = _Replay(hook.sequence, inputs, persist, outs, pool,
                                         hook.checks)
        return outs


# Captures of one signature before graphs are given up for it: a parameter given a new
# array (set_state_dict) captures again, but state that moves at every call would capture
# at every call.
_MAX_CAPTURES = 3


def _copies(cp, outs):
    return tuple(o.copy() if isinstance(o, cp.ndarray) else o for o in outs)
