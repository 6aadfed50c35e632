"""A plan's steps as one generated Python function of straight-line code.

Each intermediate value is a local variable of the function instead of an entry in a
dict, each op's bound forward is a default argument (a local too), and the frees are
`del` statements, so a run pays for the kernels and almost nothing between them: no loop,
no tuple unpacking of step records, no dict traffic. Names in the generated source are
only our own (`v3`, `f7`, `s7_0`) and string literals made with repr(), so no program
name becomes code.

Example:
    >>> import numpy as np
    >>> from dygraph.static.program import Operator
    >>> from dygraph.ops.unary.core import Exp
    >>> run = straight_line([Operator(Exp(), ["x"], ["y"])], [["x"]], {"x"}, ["y"], set())
    >>> run({}, {"x": np.zeros(2)})
    (array([1., 1.]),)
"""

import itertools

import numpy as np

from dygraph.autograd.backward_math import array_math
from dygraph.backend import plan_array_module
from dygraph.static.backward import GradOf

__all__ = ["straight_line"]


def _early_gathers(ops, kept, consts):
    """The gradients a fused parameter update can take as soon as they are made: those
    nothing else reads. {"grads": {name: its view's local}, "updates": {op index}}."""
    readers = {}
    for o in ops:
        for n in o.inputs:
            readers[n] = readers.get(n, 0) + 1
    made = {n for o in ops for n in o.outputs}
    grads, updates = {}, set()
    for i, o in enumerate(ops):
        if not getattr(o.op, "fused", False):
            continue
        n = o.op.n
        names = o.inputs[n:2 * n]
        if any(readers[g] != 1 or g in kept or g not in made for g in names):
            continue
        updates.add(i)
        for k, (g, view) in enumerate(zip(names, o.op.gradient_views())):
            consts[f"gv{i}_{k}"] = view
            grads[g] = f"gv{i}_{k}"
    return {"grads": grads, "updates": updates}


def _call_lines(i, o, args, outs, consts, body, hooked=False):
    """outs = op i's forward(xp, *args), keeping its output where its backward reads it.
    `hooked`: the call goes through hook(i, forward, args) instead."""
    consts[f"f{i}"] = o.op.forward
    if hooked:
        call = f"hook({i}, f{i}, ({''.join(a + ', ' for a in args)}))"
    else:
        call = f"f{i}(xp, {', '.join(args)})" if args else f"f{i}(xp)"
    if len(outs) == 1:
        body.append(f"    {outs[0]} = {call}")
    else:
        body.append(f"    {', '.join(outs)}, = {call}")
    if getattr(o.op, "save_output", False):
        consts[f"k{i}"] = o.op
        body.append(f"    k{i}.out_data = ({', '.join(outs)},)")


def _gradient_lines(i, grad_op, g, outs, consts):
    """A GradOf with one output gradient, inlined: the forward op's backward, each wanted
    gradient in its input's shape, then the forward op's saved values released."""
    fwd = grad_op.fwd
    consts.update({f"b{i}": fwd.backward, f"fit{i}": grad_op.fit, f"rel{i}": grad_op.release})
    lines = [f"    r = b{i}(m, {g})"]
    for j, (w, out) in enumerate(zip(grad_op.wanted, outs)):
        consts[f"x{i}_{j}"] = fwd.inputs[w]
        lines += [f"    {out} = r[{w}]",
                  f"    if {out} is None or {out}.shape != x{i}_{j}._data.shape:",
                  f"        {out} = fit{i}({out}, {w})"]
    return lines + ["    del r", f"    rel{i}()"]


def straight_line(ops, free_after, feed_names, fetch_names, persistable, hooked=False):
    """fn(scope_vars, feed) -> the tuple of the fetched values; once every op has run, the
    persistable values the ops wrote go into scope_vars.

    `free_after[i]`: the names whose last reader is op i. An exception raised inside gets
    `static_step` (the index of the failing op) set on it. `hooked`: the function takes a
    third argument, hook(i, forward, args), through which every op's forward is called
    (gradient ops too, not inlined): CUDA graph capture (dygraph.jit.cuda_graph) watches
    each op that way."""
    local = {}  # program name -> the local holding its latest value
    fresh = itertools.count()
    consts = {"np": np, "array_module": plan_array_module, "array_math": array_math}
    body = []
    gather = _early_gathers(ops, set(fetch_names) | set(persistable), consts)

    def value_of(name):
        if name not in local:
            local[name] = f"v{next(fresh)}"
            source = "feed" if name in feed_names else "svars"
            body.append(f"    {local[name]} = {source}[{name!r}]")
        return local[name]

    for i, (o, dead) in enumerate(zip(ops, free_after)):
        body.append(f"    step = {i}")
        ins = o.inputs
        if i in gather["updates"]:  # the gradients went to the flat buffer already
            ins = o.inputs[:o.op.n] + o.inputs[2 * o.op.n:]
        args = [value_of(n) for n in ins]
        slots = getattr(o.op, "inputs", None)
        if type(slots) is tuple:  # the op's backward reads this run's inputs here
            for j, (slot, arg) in enumerate(zip(slots, args)):
                consts[f"s{i}_{j}"] = slot
                body.append(f"    s{i}_{j}._data = {arg}")
        outs = []
        for n in o.outputs:
            local[n] = f"v{next(fresh)}"
            outs.append(local[n])
        if isinstance(o.op, GradOf) and o.op.single and not hooked:
            g = args[len(o.op.fwd.inputs)] if o.op.with_inputs else args[0]  # then g
            body.extend(_gradient_lines(i, o.op, g, outs, consts))
        else:
            _call_lines(i, o, args, outs, consts, body, hooked)
        for n in o.outputs:
            if n in gather["grads"]:  # straight into the update's flat gradient buffer
                body += [f"    {gather['grads'][n]}[...] = {local[n]}", f"    del {local[n]}"]
                del local[n]
        gone = [local[n] for n in dead if n in local]
        if gone:
            body.append(f"    del {', '.join(gone)}")
    stores = [f"    svars[{n!r}] = {local[n]}" for n in sorted(persistable) if n in local]
    fetched = "".join(f"{value_of(n)}, " for n in fetch_names)
    defaults = ", ".join(f"{k}={k}" for k in consts)
    # The array module (NumPy, or CuPy for a plan fed GPU arrays) and its gradient math
    # are looked up once per run.
    head = "svars, feed, hook, " if hooked else "svars, feed, "
    source = (f"def run({head}{defaults}):\n    step = -1\n"
              "    xp = array_module(feed, svars)\n    m = array_math(xp)\n"
              "    try:\n        pass\n" +
              "\n".join("    " + line for line in body) +
              "\n    except BaseException as exc:\n        exc.static_step = step\n"
              "        raise\n" + "".join(line + "\n" for line in stores) +
              f"    return ({fetched})\n")
    namespace = dict(consts)
    exec(compile(source, "<static plan>", "exec"), namespace)  # noqa: S102 - our own code
    namespace["run"].source = source
    return namespace["run"]
