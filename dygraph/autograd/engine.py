"""The backward engine: walks the recorded graph without recursion (dependency counts, as
Paddle's engine does), so a 10,000-op chain back-propagates; also `grad()` and hooks.

Gradients flow as raw arrays in plain backward, and as Tensors (recording a new graph) when
`create_graph=True`. Broadcasting is undone here, once, not in every op.
"""

import weakref

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.backward_math import math_for
from dygraph.backend import get_array_module, is_writeable
from dygraph.backend.workspace import POOLED_SIZE, workspace
from dygraph.framework.errors import AssertedValueError, op_error
from dygraph.tensor import deferred_grads
from dygraph.tensor.deferred_grads import PENDING
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["grad"]

_FREED = "freed"


def _sum_to(m, g, shape):
    """Sum a broadcast gradient back down to `shape`."""
    gshape = g.shape if not m.tensor_mode else tuple(g._data.shape)
    if tuple(gshape) == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    if axes:
        g = m.sum(g, axis=axes, keepdims=True)
    if lead:
        g = m.reshape(g, tuple(shape))
    elif tuple(g.shape if not m.tensor_mode else g._data.shape) != tuple(shape):
        g = m.reshape(g, tuple(shape))
    return g


def _fit(m, g, target):
    """Make gradient `g` match `target`'s shape and dtype."""
    data = target._data
    gdata = g._data if m.tensor_mode else g
    if gdata.shape != data.shape:
        g = _sum_to(m, g, data.shape)
        gdata = g._data if m.tensor_mode else g
    if gdata.dtype != data.dtype:
        if gdata.dtype.kind == "c" and data.dtype.kind != "c":
            g = m.real(g)  # a real input of a complex op: the real part (ops/complex.py)
        g = m.astype(g, data.dtype)
    return g


def _add(m, a, b):
    if a is None:
        return b
    return a + b


def _run_tensor_hooks(hooks, g, m):
    for hook in list(hooks.values()):
        gt = g if m.tensor_mode else _new_tensor(g, None, 0, True)
        result = hook(gt)
        if result is not None:
            g = result if m.tensor_mode else result._data
    return g


def _own_copy(g):
    """A copy of gradient array `g`; a big one in workspace memory, which returns to the
    pool when the gradient is cleared (a fresh weight-sized array every step costs its
    page faults again)."""
    if type(g) is not np.ndarray or g.size < POOLED_SIZE:
        return g.copy()
    out = workspace.output(np, g.shape, g.dtype)
    np.copyto(out, g)
    return out


def _accumulate_leaf(t, g, m):
    if t._hooks:
        g = _run_tensor_hooks(t._hooks, g, m)
    if m.tensor_mode:
        if t._grad is None:  # same graph, own buffer (see below)
            t._grad = _new_tensor(g._data.copy(), g._node, g._idx, g._sg)
        else:
            t._grad = t._grad + g
        return
    old = t._grad
    if old is None:
        # A buffer of its own: `g` may also be another leaf's gradient (add's backward
        # hands one array to both inputs), and later accumulation adds in place.
        t._grad = _new_tensor(_own_copy(g), None, 0, True)
    elif old._data.shape == g.shape:
        old._data += g
        old._version[0] += 1
    else:
        old._data = old._data + g


def _collect(roots, leaves=None, reach=None, leaf_edges=None):
    """Dependency count of every node reachable from `roots` (iterative DFS); the leaf
    tensors reached are put in `leaves` (a dict by id) when it is one. With `reach`, only
    nodes in that set are followed. `leaf_edges` (a dict) receives, for each hooked leaf,
    how many edges lead to it, so that its hooks can run as soon as the last one is done."""
    deps = {}
    stack = [n for n in roots if n is not None]
    seen = set(stack)
    while stack:
        node = stack.pop()
        edges = node.edges
        if edges is _FREED:
            raise RuntimeError(
                f"backward through {node.name} a second time: its saved values were freed by "
                "the first backward; call backward(retain_graph=True) the first time")
        for edge in edges:
            if edge is None:
                continue
            child = edge[0]
            if child is None:
                if leaves is not None:
                    leaves[id(edge[1])] = edge[1]
                if leaf_edges is not None and edge[1]._hooks:
                    leaf_edges[id(edge[1])] = leaf_edges.get(id(edge[1]), 0) + 1
                continue
            if reach is not None and child not in reach:
                continue
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps


def _relevant(root_nodes, capture):
    """For grad(): the nodes on a path to a requested input (`reach`) and those of them whose
    backward must run (`runs`: some input of theirs leads on to a requested input). Nodes
    below the requested inputs are neither run nor freed, so a later backward through them
    still works."""
    parents = {}
    targets = set()
    stack = list(root_nodes)
    seen = set(stack)
    while stack:
        node = stack.pop()
        if node.edges is _FREED:
            raise RuntimeError(
                f"backward through {node.name} a second time: its saved values were freed by "
                "the first backward; call backward(retain_graph=True) the first time")
        if any((node, i) in capture for i in range(node.n_outputs)):
            targets.add(node)
        for edge in node.edges:
            if edge is None:
                continue
            child = edge[0]
            if child is None:
                if ("leaf", id(edge[1])) in capture:
                    targets.add(("via", node))
                continue
            parents.setdefault(child, set()).add(node)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    reach, runs = set(), set()
    frontier = []
    for target in targets:
        if isinstance(target, tuple):  # the node feeds a requested leaf directly
            runs.add(target[1])
            target = target[1]
        if target not in reach:
            reach.add(target)
            frontier.append(target)
    while frontier:
        node = frontier.pop()
        for parent in parents.get(node, ()):
            runs.add(parent)
            if parent not in reach:
                reach.add(parent)
                frontier.append(parent)
    return reach, runs


def _execute(roots, root_grads, retain_graph, create_graph, capture=None,
             accumulate=True, stop=None, leaves=None):
    """Propagate `root_grads` from `roots` (tensors) down the graph.

    capture: {(node, idx) or ("leaf", id(tensor)): [grad]} -- gradients handed back by grad().
    accumulate: write leaf gradients into `.grad` (backward) or not (grad()).
    stop: nodes whose backward is not run (grad()'s no_grad_vars).
    leaves: a dict that receives the leaf tensors the graph reaches, by id.
    """
    m = None
    buffers = {}
    root_nodes = []
    hooked = {}  # leaves with hooks: their gradient is summed first, then hooked once
    # backward() runs a leaf's hooks as soon as its last gradient has arrived (DataParallel
    # starts communicating while the rest of backward runs); grad() runs them at the end.
    leaf_edges = {} if capture is None and accumulate else None
    for t, g in zip(roots, root_grads):
        if m is None:
            m = math_for(g, create_graph)
        if t._node is None:
            _deliver_leaf(t, g, m, capture, accumulate, hooked)
            continue
        buf = buffers.get(t._node)
        if buf is None:
            buf = buffers[t._node] = [None] * t._node.n_outputs
            root_nodes.append(t._node)
        buf[t._idx] = _add(m, buf[t._idx], g)
    if root_nodes:
        reach = runs = None
        if capture is not None:
            reach, runs = _relevant(root_nodes, capture)
            root_nodes = [n for n in root_nodes if n in reach]
        deps = _collect(root_nodes, leaves, reach, leaf_edges)
        with grad_mode.set_grad_enabled(create_graph):
            try:
                _propagate(root_nodes, buffers, deps, m, retain_graph, capture, accumulate,
                           stop, runs, hooked, leaf_edges)
            finally:
                deferred_grads.flush()
    for t, g in hooked.values():
        _accumulate_leaf(t, g, m)
    if accumulate and capture is None:
        _run_backward_callbacks()


_callbacks = []


def queue_callback(callback):
    """Call `callback()` once when the backward pass now running (or the next one) ends,
    after every leaf gradient has been accumulated (DataParallel waits for its gradient
    all-reduces there).

    Example:
        >>> import dygraph
        >>> x = dygraph.ones([2], dtype='float32'); x.stop_gradient = False
        >>> show = lambda: print(x.grad.numpy())
        >>> handle = x.register_hook(lambda g: queue_callback(show))
        >>> (x * 3).sum().backward()
        [3. 3.]
    """
    _callbacks.append(callback)


def _run_backward_callbacks():
    while _callbacks:
        _callbacks.pop(0)()


def _propagate(root_nodes, buffers, deps, m, retain_graph, capture, accumulate, stop, runs,
               hooked, leaf_edges=None):
    """The main loop of _execute: run each node once all gradients for it have arrived."""
    ready = [n for n in root_nodes if deps.get(n, 0) == 0]
    tensor_mode = m.tensor_mode
    special = capture is not None or stop is not None
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)
        gins = None
        ran = False
        if grads is not None:
            if special or node.hooks or node.retained:
                grads = _observe(node, grads, m, capture)
            if (stop is None or node not in stop) and (runs is None or node in runs):
                gins = node.backward(m, *grads)
                ran = True
        inputs = node.inputs
        i = 0
        for edge in node.edges:
            if edge is not None:
                g = gins[i] if gins is not None else None
                child = edge[0]
                if g is not None:
                    data = inputs[i]._data
                    gdata = g._data if tensor_mode else g
                    if gdata.shape != data.shape or gdata.dtype != data.dtype:
                        g = _fit(m, g, inputs[i])
                    if child is None:
                        leaf = edge[1]
                        old = leaf._grad_slot
                        # The common case inline (a leaf without hooks whose gradient is an
                        # array of its shape already): an in-place add, two calls saved;
                        # a copy over a gradient that clear_grad zeroed (Tensor._grad).
                        if (old is not None and not special and accumulate and not tensor_mode
                                and not leaf._hooks and not leaf._sg
                                and old._data.shape == g.shape):
                            if leaf._grad_stale:
                                if type(g) is np.ndarray:
                                    old._data[...] = g
                                else:  # a device array: copied with the others at the end
                                    deferred_grads.defer(old, g)
                                leaf._grad_stale = False
                            elif not (PENDING and deferred_grads.add_to_pending(old, g)):
                                old._data += g
                            old._version[0] += 1
                        else:
                            _deliver_leaf(leaf, g, m, capture, accumulate, hooked)
                    elif child in deps:
                        buf = buffers.get(child)
                        if buf is None:
                            buf = buffers[child] = [None] * child.n_outputs
                        idx = edge[1]
                        old = buf[idx]
                        buf[idx] = g if old is None else old + g
                if child is None and leaf_edges:
                    _leaf_edge_done(edge[1], leaf_edges, hooked, m)
                elif child is not None and child in deps:
                    left = deps[child] - 1
                    deps[child] = left
                    if left == 0:
                        ready.append(child)
            i += 1
        if not retain_graph and (ran or runs is None):
            # Freed (inline: once per node): the inputs and everything the op saved.
            node.edges = _FREED
            node.inputs = None
            node.__dict__.clear()


def _leaf_edge_done(t, leaf_edges, hooked, m):
    left = leaf_edges.get(id(t))
    if left is None:
        return
    if left > 1:
        leaf_edges[id(t)] = left - 1
        return
    del leaf_edges[id(t)]
    entry = hooked.pop(id(t), None)
    if entry is not None:
        _accumulate_leaf(entry[0], entry[1], m)


def _deliver_leaf(t, g, m, capture, accumulate, hooked):
    if capture is not None:
        slot = capture.get(("leaf", id(t)))
        if slot is not None:
            slot[0] = _add(m, slot[0], g)
            return
    if accumulate and not t._sg:
        if t._hooks:
            entry = hooked.get(id(t))
            if entry is None:
                hooked[id(t)] = [t, g]
            else:
                entry[1] = entry[1] + g
            return
        _accumulate_leaf(t, g, m)


def _observe(node, grads, m, capture):
    """Hooks, retained gradients and grad() captures for one node's output gradients."""
    if node.hooks or node.retained:
        all_hooks = node.hooks or {}
        retained = node.retained or {}
        for i in set(all_hooks) | set(retained):
            if grads[i] is not None:
                grads[i] = _hook_and_retain(all_hooks.get(i), retained.get(i), grads[i], m)
    if capture is not None:
        for i, g in enumerate(grads):
            slot = capture.get((node, i))
            if slot is not None and g is not None:
                slot[0] = _add(m, slot[0], g)
    return grads


def _hook_and_retain(hooks, entry, g, m):
    """Run one output's hooks; a retained `.grad` sees the gradient as it stands after the
    hooks registered before `retain_grads()` and before those registered after it, as
    Paddle's (which keeps retain_grads as one more hook in the same ordered list)."""
    if entry is None:
        return _run_tensor_hooks(hooks, g, m)
    ref, mark = entry
    if hooks:
        g = _run_tensor_hooks({k: h for k, h in hooks.items() if k <= mark}, g, m)
    t = ref()
    if t is not None:
        _store_retained(t, g, m)
    if hooks:
        g = _run_tensor_hooks({k: h for k, h in hooks.items() if k > mark}, g, m)
    return g


def _store_retained(t, g, m):
    value = g if m.tensor_mode else _new_tensor(np.array(g, copy=True), None, 0, True)
    if t._grad is None:
        t._grad = value.detach() if m.tensor_mode else value
    else:
        t._grad = _new_tensor(t._grad._data + (value._data if m.tensor_mode else value._data),
                              None, 0, True)


def _seed_grad(t, g, create_graph):
    if g is None:
        data = t._data
        seed = get_array_module(data).ones(data.shape, dtype=data.dtype)
        return _new_tensor(seed, None, 0, True) if create_graph else seed
    if not isinstance(g, Tensor):
        from dygraph.tensor.tensor import to_tensor

        g = to_tensor(g, dtype=t.dtype)
    if g._data.shape != t._data.shape:
        if g._data.size == 1 == t._data.size:
            # a [1]-shaped seed for a 0-D output (and the reverse): the same one number
            return g.reshape(t.shape) if create_graph else g._data.reshape(t._data.shape)
        raise op_error("backward", f"grad_tensor has shape {g.shape} but the tensor has shape "
                       f"{t.shape}")
    return g if create_graph else g._data


def run_backward(tensors, grad_tensors, retain_graph=False, create_graph=False):
    """Tensor.backward and autograd.backward: accumulate into the leaves' `.grad`."""
    roots, seeds = [], []
    for t, g in zip(tensors, grad_tensors):
        if t._sg:
            continue  # as Paddle: nothing it depends on needs a gradient, so a no-op
        roots.append(t)
        seeds.append(_seed_grad(t, g, create_graph))
    if not roots:
        return
    leaves = {}
    _execute(roots, seeds, retain_graph or create_graph, create_graph, leaves=leaves)
    # Which leaves each root depends on: the 1.x `minimize(loss)` without a parameter list
    # updates exactly the parameters its loss depends on (see dygraph.fluid.optimizer).
    reached = tuple(map(weakref.ref, leaves.values()))
    for t in roots:
        if t._node is not None:
            t._node.reached_leaves = reached


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated).

    With create_graph=True the results are differentiable again (higher-order gradients).

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([2.0], stop_gradient=False)
        >>> (g,) = dygraph.grad(x * x * x, x, create_graph=True)
        >>> (gg,) = dygraph.grad(g, x); gg.numpy()
        array([12.], dtype=float32)
    """
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    gouts = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    if len(gouts) != len(outs):
        raise op_error("grad", f"got {len(outs)} outputs but {len(gouts)} grad_outputs",
                       AssertedValueError)  # Paddle asserts the lengths match
    if retain_graph is None:
        retain_graph = create_graph
    capture = {}
    slots = []
    for t in ins:
        if not isinstance(t, Tensor):
            raise op_error("grad", f"inputs must be Tensors, got {type(t).__name__}", TypeError)
        key = ("leaf", id(t)) if t._node is None else (t._node, t._idx)
        slot = capture.setdefault(key, [None])
        slots.append(slot)
    stop = None
    if no_grad_vars is not None:
        stop = {t._node for t in _as_list(no_grad_vars) if t._node is not None}
        for t in _as_list(no_grad_vars):
            if t._node is None:
                capture.setdefault(("leaf", id(t)), [None])
    roots, seeds = [], []
    for t, g in zip(outs, gouts):
        if t._sg:
            continue
        roots.append(t)
        seeds.append(_seed_grad(t, g, create_graph))
    if roots:
        _execute(roots, seeds, retain_graph, create_graph, capture=capture,
                 accumulate=False, stop=stop)
    results = []
    handed_out = set()
    for i, (t, slot) in enumerate(zip(ins, slots)):
        g = slot[0]
        if g is None:
            if not allow_unused:
                raise op_error("grad", f"The {i}-th input (shape {t.shape}) does not appear "
                               "in the backward graph. Please check the input tensor or set "
                               "allow_unused=True to get None result.", ValueError)
            results.append(None)
        elif create_graph:
            if not isinstance(g, Tensor) or g._sg:
                # a constant gradient (no path back to a leaf): still stop_gradient=False,
                # as Paddle, in a buffer of its own (it may be the caller's grad_output)
                data = g._data if isinstance(g, Tensor) else g
                g = _new_tensor(data.copy(), None, 0, False)
            results.append(g)
        else:
            data = g._data if isinstance(g, Tensor) else g
            # Hand out writable arrays of their own: a gradient may be a broadcast view or
            # the very array another input received.
            if not is_writeable(data) or id(data) in handed_out:
                data = data.copy()
            handed_out.add(id(data))
            results.append(_new_tensor(data, None, 0, True))
    return results
