"""Whole-plan rewrites: what a static plan can do because it sees the program at once.

`pool_before_relu`: max pooling and relu commute exactly (relu is monotonic, so the max of
the relus is the relu of the max, padding or not, and the winning tap is the same), so
`max_pool(relu(x))` runs as `relu(max_pool(x))`: the relu and its gradient then touch a
quarter of the values (for 2x2 pooling), and the value relu saves for its backward is
that much smaller. Eager mode cannot do this: it runs each op as the user calls it. The
two gradient ops swap in the same way. A plan rewrites only where the relu's result is
read by the pooling alone and is neither fetched nor persistable, so no value anyone can
see changes.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> import dygraph.nn.functional as F
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [None, 1, 4, 4])
    ...     y = F.max_pool2d(F.relu(x), 2)
    >>> dygraph.disable_static()
    >>> ops = pool_before_relu(main.global_block().ops, {y.name})
    >>> [o.type for o in ops]
    ['maxpool', 'relu']
"""

from dygraph.static.backward import GradOf
from dygraph.static.program import Operator

__all__ = ["pool_before_relu"]


def _single(grad_op):
    return (isinstance(grad_op.op, GradOf) and grad_op.op.single and
            list(grad_op.op.wanted) == [0] and len(grad_op.inputs) == 1 and
            len(grad_op.outputs) == 1)


def pool_before_relu(ops, kept):
    """`ops` (a plan's Operators) with every eligible relu -> max pool pair swapped,
    gradients included (see the module docstring); `kept`: names that must keep their
    values (fetches, persistables). The program's own Operators are not changed."""
    from dygraph.ops.activation.piecewise import Relu
    from dygraph.ops.pool.pooling import MaxPool

    ops = list(ops)
    readers = {}
    for o in ops:
        for n in o.inputs:
            readers[n] = readers.get(n, 0) + 1
    grad_at = {id(o.op.fwd): i for i, o in enumerate(ops) if isinstance(o.op, GradOf)}
    for i, relu in enumerate(ops):
        if type(relu.op) is not Relu or relu.outputs[0] in kept:
            continue
        mid = relu.outputs[0]
        if readers.get(mid) != 1:
            continue
        j = next(k for k in range(i + 1, len(ops)) if mid in ops[k].inputs)
        pool = ops[j]
        if type(pool.op) is not MaxPool or len(pool.outputs) != 1:
            continue
        gp, gr = grad_at.get(id(pool.op)), grad_at.get(id(relu.op))
        if (gp is None) != (gr is None):
            continue
        if gp is not None:
            pool_grad, relu_grad = ops[gp], ops[gr]
            g_mid = pool_grad.outputs[0]
            if not (_single(pool_grad) and _single(relu_grad) and gp < gr and
                    relu_grad.inputs == [g_mid] and readers.get(g_mid) == 1 and
                    g_mid not in kept):
                continue
            ops[gp] = Operator(relu_grad.op, pool_grad.inputs, [g_mid], relu_grad.role)
            ops[gr] = Operator(pool_grad.op, [g_mid], relu_grad.outputs, pool_grad.role)
            grad_at[id(relu.op)], grad_at[id(pool.op)] = gp, gr
        ops[i] = Operator(pool.op, relu.inputs, [mid], pool.role)
        ops[j] = Operator(relu.op, [mid], pool.outputs, relu.role)
    return ops
