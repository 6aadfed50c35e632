"""batch_norm as static programs record it: the running statistics are inputs of the op and,
in training, their updated values are outputs written back to the same persistable
variables, so every run of the program updates them and a program cloned for testing
(`training` off) normalizes with their current values.

The numbers are eager batch_norm's: the op runs the same Normalize op (its backward too)
and the same running-statistics update, out of place.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 2])
    ...     bn = dygraph.nn.BatchNorm1D(2)
    ...     y = bn(x)
    >>> dygraph.disable_static()
    >>> exe, scope = static.Executor(), static.Scope()
    >>> _ = exe.run(startup, scope=scope)
    >>> feed = {'x': np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)}
    >>> exe.run(main, feed=feed, fetch_list=[y], scope=scope)[0].round(3).tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    >>> scope.vars[bn._mean.name].tolist()
    [0.20000000298023224, 0.4000000059604645]
"""

import numpy as np

from dygraph.autograd.function import Op, apply
from dygraph.kernels.cuda import batch_norm as cuda_batch_norm
from dygraph.ops.normalization.normalize import Normalize

__all__ = ["RunningBatchNorm", "updated_statistics"]


def updated_statistics(norm, xp, running_mean, running_var, momentum, in_place):
    """The running statistics after Normalize op `norm`'s forward on batch statistics:
    running * momentum + (1 - momentum) * batch for the mean and the biased variance,
    written into the arrays `in_place`, else new ones; returns the pair. After cuDNN's
    float32 forward, one kernel (kernels/cuda/batch_norm.py: running_update).

    Example:
        >>> import numpy as np
        >>> norm = Normalize((0,), 1e-5, None, (1, 2))
        >>> _ = norm.forward(np, np.array([[1.0, 2.0], [3.0, 6.0]]))
        >>> updated_statistics(norm, np, np.zeros(2), np.ones(2), 0.9, in_place=False)[0]
        array([0.2, 0.4])
    """
    if norm.cudnn_stats is not None:
        mean, rstd, _ = norm.cudnn_stats
        if (norm.dtype == np.float32 and running_mean.dtype == np.float32
                and running_var.dtype == np.float32
                and running_mean.shape == running_var.shape == mean.shape):
            return cuda_batch_norm.running_update(
                running_mean, running_var, mean, rstd, momentum, norm.eps,
                out=(running_mean, running_var) if in_place else None)
        norm._statistics_from_cudnn(xp)
    out = []
    for running, batch in ((running_mean, norm.batch_mean), (running_var, norm.batch_var)):
        new = running if in_place else running * momentum
        if in_place:
            new *= momentum
        new += ((1.0 - momentum) * batch.reshape(running.shape)).astype(running.dtype)
        out.append(new)
    return tuple(out)


class RunningBatchNorm(Op):
    """Inputs x, running mean, running variance[, weight[, bias]]; outputs y and the
    running statistics after this batch (unchanged when `training` is off)."""

    attrs = ("axes", "eps", "momentum", "pshape", "training")

    def __init__(self, axes, eps, pshape, momentum, training):
        self.axes, self.eps, self.pshape = axes, eps, pshape
        self.momentum, self.training = momentum, training

    def forward(self, xp, x, mean, var, *affine):
        if self.training:
            norm = Normalize(self.axes, self.eps, None, self.pshape)
            y = norm.forward(xp, x, *affine)
            stats = updated_statistics(norm, xp, mean, var, self.momentum, in_place=False)
        else:
            dtype = x.dtype
            fixed_mean = mean.reshape(self.pshape).astype(dtype)
            rstd = 1.0 / (var.reshape(self.pshape).astype(dtype) + self.eps) ** 0.5
            norm = Normalize(self.axes, self.eps, None, self.pshape,
                             (fixed_mean, rstd.astype(dtype)))
            y = norm.forward(xp, x, *affine)
            stats = [mean, var]
        self.inner = norm
        return y, stats[0], stats[1]

    def backward(self, m, g, *unused):
        inner = self.inner
        # The inner op reads x, weight and bias where this op's inputs are.
        inner.inputs = (self.inputs[0],) + tuple(self.inputs[3:])
        inner.versions = tuple(t._version[0] for t in inner.inputs)
        inner.edges = (self.edges[0],) + tuple(self.edges[3:])
        grads = inner.backward(m, g)
        return (grads[0], None, None) + tuple(grads[1:])


def running_batch_norm(x, running_mean, running_var, w, b, axes, eps, pshape, momentum,
                       training):
    """Record batch_norm on program variable x; returns y. Persistable running statistics
    receive the op's updated values."""
    from dygraph.autograd.grad_mode import state
    from dygraph.static.block_op import lookup

    if w is None and b is not None:  # the op reads inputs by position
        from dygraph.ops.creation.constructors import ones_like

        w = ones_like(b)
    affine = [t for t in (w, b) if t is not None]
    y, _, _ = apply(RunningBatchNorm(axes, eps, pshape, momentum, training), x,
                    running_mean, running_var, *affine)
    block = state.static_program.current_block()
    operator = block.ops[-1]
    for k, name in ((1, operator.inputs[1]), (2, operator.inputs[2])):
        if lookup(block, name).persistable:
            operator.outputs[k] = name
    return y
