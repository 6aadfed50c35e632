"""Adam and AdamW (Adam with decoupled weight decay).

Paddle's Adam puts epsilon inside the bias correction:
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
    lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)
    param -= lr_t * m / (sqrt(v) + epsilon * sqrt(1 - beta2**t))
The powers beta**t are the accumulators 'beta1_pow_acc'/'beta2_pow_acc' (shape [1], on the
host), multiplied by beta after each update.

Example:
    >>> import numpy as np
    >>> from dygraph.framework.parameter import Parameter
    >>> from dygraph.optimizer import Adam
    >>> w = Parameter(np.array([1.0, -1.0], np.float32), name="w")
    >>> opt = Adam(learning_rate=0.1, parameters=[w])
    >>> (w * w).sum().backward(); opt.step(); w.numpy().round(4)  # the first step moves by lr
    array([ 0.9, -0.9], dtype=float32)
"""

import math

import numpy as np

from dygraph.backend import compiled, get_array_module
from dygraph.backend.workspace import workspace
from dygraph.framework.errors import as_number, op_error
from dygraph.kernels.cuda import optimizer_updates as cuda_kernels
from dygraph.optimizer.foreach import ForeachMixin
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.state import _HOST

__all__ = ["Adam", "AdamW"]


class Adam(ForeachMixin, Optimizer):
    """Adam (Kingma & Ba) with Paddle's epsilon placement; `amsgrad` keeps the running
    maximum of v ('moment2_max') in the denominator.

    `lazy_mode` only changes how sparse (row-selected) gradients are applied in Paddle;
    gradients here are dense, for which both modes are the same update.
    Group options: 'beta1', 'beta2', 'epsilon'. Accumulators: 'moment1', 'moment2',
    'beta1_pow_acc', 'beta2_pow_acc' (+ 'moment2_max').

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([2.0], np.float32))
        >>> opt = Adam(0.01, parameters=[w])
        >>> (w * 3.0).sum().backward(); opt.step(); w.numpy()
        array([1.99], dtype=float32)
    """

    _accumulator_names = ("moment1", "moment2", "moment2_max", "beta1_pow_acc",
                          "beta2_pow_acc")
    _group_options = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None, *, parameter_list=None):
        self._check_betas(beta1, beta2, epsilon)
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lazy_mode = bool(lazy_mode)
        self._amsgrad = bool(amsgrad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list)
        self._multi_precision = bool(multi_precision)

    def _check_betas(self, beta1, beta2, epsilon):
        owner = type(self).__name__
        for what, value in (("beta1", beta1), ("beta2", beta2)):
            if not 0 <= as_number(value, what, owner) < 1:
                raise op_error(owner, f"{what} must be in [0, 1), got {float(value)}")
        if as_number(epsilon, "epsilon", owner) < 0:
            raise op_error(owner, f"epsilon must be >= 0, got {float(epsilon)}")

    def _accumulator_specs(self, param, group):
        specs = {"moment1": (0.0, "like"), "moment2": (0.0, "like")}
        if self._amsgrad:
            specs["moment2_max"] = (0.0, "like")
        specs["beta1_pow_acc"] = (float(group["beta1"]), _HOST)
        specs["beta2_pow_acc"] = (float(group["beta2"]), _HOST)
        return specs

    def _update(self, param, data, grad, lr, group, acc):
        _adam_update(data, grad, lr, float(group["beta1"]), float(group["beta2"]),
                     float(group["epsilon"]), acc)

    def _foreach_ready(self, group):
        return not self._amsgrad

    def _device_ready(self, group):
        return not self._amsgrad and not self._multi_precision

    def _device_update(self, flat, group, lr):
        """The step of a group in flat GPU buffers (optimizer/device_flat.py): one kernel."""
        acc = flat.acc
        cuda_kernels.adam_update(flat.param, flat.grad, acc["moment1"], acc["moment2"], lr,
                                 float(group["beta1"]), float(group["beta2"]),
                                 float(group["epsilon"]), float(acc["beta1_pow_acc"][0]),
                                 float(acc["beta2_pow_acc"][0]))
        acc["beta1_pow_acc"] *= float(group["beta1"])
        acc["beta2_pow_acc"] *= float(group["beta2"])

    def _foreach_update(self, flat, group, lr):
        beta1, beta2 = float(group["beta1"]), float(group["beta2"])
        epsilon, acc = float(group["epsilon"]), flat.acc
        kernel = _compiled(flat.step, flat.grad, acc)
        if kernel is not None:
            kernel.step(flat.step, flat.grad, acc["moment1"], acc["moment2"], lr, beta1,
                        beta2, epsilon, float(acc["beta1_pow_acc"][0]),
                        float(acc["beta2_pow_acc"][0]))
        else:
            _adam_step(flat.grad, lr, beta1, beta2, epsilon, acc, out=flat.step)
        flat.acc["beta1_pow_acc"] *= beta1
        flat.acc["beta2_pow_acc"] *= beta2


# A big parameter is updated this many elements at a time: the twelve passes of a step
# then run over blocks that stay in cache instead of streaming the whole parameter, its
# gradient and both moments from memory twelve times (figures:
# docs/PERFORMANCE.md#optimizer-updates).
_BLOCK = 1 << 16


def _compiled(data, grad, acc):
    """The compiled one-pass update (dygraph.kernels.numba.adam) when it takes these arrays: not
    AMSGrad, the moments of the parameter's dtype, all C-ordered."""
    if "moment2_max" in acc:
        return None
    arrays = (data, grad, acc["moment1"], acc["moment2"])
    kernel = compiled.kernels("adam", get_array_module(grad), *arrays)
    return kernel if kernel is not None and compiled.flat_alike(*arrays) else None


def _adam_update(data, grad, lr, beta1, beta2, epsilon, acc):
    """One Adam step on `data` in place: one compiled pass where Numba is installed (one
    fused kernel on the GPU), else with a single temporary array (workspace memory: a fresh
    one per parameter cost page faults every step); big parameters go by blocks."""
    xp = get_array_module(grad)
    kernel = _compiled(data, grad, acc)
    blocks = xp is np and data.size >= 16 * _BLOCK and all(
        a.flags.c_contiguous for a in (data, grad, acc["moment1"], acc["moment2"]))
    if kernel is not None:
        kernel.update(data, grad, acc["moment1"], acc["moment2"], lr, beta1, beta2, epsilon,
                      float(acc["beta1_pow_acc"][0]), float(acc["beta2_pow_acc"][0]))
    elif xp is not np and "moment2_max" not in acc and data.dtype.kind == "f" and all(
            a.dtype == data.dtype for a in (grad, acc["moment1"], acc["moment2"])):
        cuda_kernels.adam_update(data, grad, acc["moment1"], acc["moment2"], lr, beta1, beta2,
                                 epsilon, float(acc["beta1_pow_acc"][0]),
                                 float(acc["beta2_pow_acc"][0]))
    elif not blocks or "moment2_max" in acc:
        step = workspace.take(xp, grad.shape, grad.dtype)
        data -= _adam_step(grad, lr, beta1, beta2, epsilon, acc, out=step)
        workspace.give(step)
    else:
        flat = [a.reshape(-1) for a in (data, grad, acc["moment1"], acc["moment2"])]
        step = workspace.take(xp, (_BLOCK,), grad.dtype)
        for lo in range(0, data.size, _BLOCK):
            d, g, m, v = (a[lo:lo + _BLOCK] for a in flat)
            part = dict(acc, moment1=m, moment2=v)
            d -= _adam_step(g, lr, beta1, beta2, epsilon, part, out=step[:len(d)])
        workspace.give(step)
    acc["beta1_pow_acc"] *= beta1
    acc["beta2_pow_acc"] *= beta2


def _adam_step(grad, lr, beta1, beta2, epsilon, acc, out=None):
    """Update the moments in `acc` and return the step to subtract from the parameter
    (in `out` when given). The powers of beta are read, not advanced."""
    xp = get_array_module(grad)
    m, v = acc["moment1"], acc["moment2"]
    correction = math.sqrt(1.0 - float(acc["beta2_pow_acc"][0]))
    tmp = xp.multiply(grad, 1.0 - beta1, out=out)
    m *= beta1
    m += tmp
    xp.multiply(grad, grad, out=tmp)
    tmp *= 1.0 - beta2
    v *= beta2
    v += tmp
    v_max = acc.get("moment2_max")
    if v_max is not None:
        xp.maximum(v_max, v, out=v_max)
        v = v_max
    xp.sqrt(v, out=tmp)
    tmp += epsilon * correction
    xp.divide(m, tmp, out=tmp)
    tmp *= lr * correction / (1.0 - float(acc["beta1_pow_acc"][0]))
    return tmp


class AdamW(Adam):
    """Adam with decoupled weight decay: before the Adam step,
    param *= 1 - lr * weight_decay (lr includes lr_ratio(param) when given).

    `weight_decay` is the coefficient (default 0.01; a group may set its own), applied only
    to parameters for which `apply_decay_param_fun(param.name)` is true when that is given.
    A parameter's own regularizer (ParamAttr) is still added to its gradient.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([2.0], np.float32), name="w")
        >>> opt = AdamW(0.1, parameters=[w], weight_decay=0.5)
        >>> (w * 0.0).sum().backward(); opt.step(); w.numpy()  # zero grad: decay only
        array([1.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False,
                 name=None, *, parameter_list=None):
        for what, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun",
                                                  apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise op_error("AdamW", f"{what} must be callable, got {type(fn).__name__}",
                               TypeError)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                         grad_clip, lazy_mode, multi_precision, amsgrad, name,
                         parameter_list=parameter_list)

    def _weight_decay_option(self, weight_decay, owner):
        # AdamW's weight_decay is a plain coefficient, never a gradient regularizer.
        if weight_decay is None:
            return 0.0
        return as_number(weight_decay, "weight_decay", owner)

    def _update(self, param, data, grad, lr, group, acc):
        if self._lr_ratio is not None:
            lr *= float(self._lr_ratio(param))
        coeff = group["weight_decay"]
        if coeff and (self._apply_decay_param_fun is None
                      or self._apply_decay_param_fun(param.name)):
            data *= 1.0 - lr * coeff
        super()._update(param, data, grad, lr, group, acc)

    def _foreach_ready(self, group):
        return self._lr_ratio is None and super()._foreach_ready(group)

    def _device_ready(self, group):
        return self._lr_ratio is None and super()._device_ready(group)

    def _device_update(self, flat, group, lr):
        coeff = group["weight_decay"]
        if coeff:  # decoupled decay first, as _update does
            decays = self._apply_decay_param_fun
            if decays is None:
                flat.param *= 1.0 - lr * coeff
            else:
                for p, view in zip(flat.params, flat.param_views):
                    if decays(p.name):
                        view *= 1.0 - lr * coeff
        super()._device_update(flat, group, lr)

    def _foreach_update(self, flat, group, lr):
        super()._foreach_update(flat, group, lr)
        coeff = group["weight_decay"]
        if not coeff:
            return None
        factor = 1.0 - lr * coeff
        decays = self._apply_decay_param_fun
        return lambda param: factor if decays is None or decays(param.name) else None
