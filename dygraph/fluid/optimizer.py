"""fluid.optimizer: the 1.x optimizers, the 2.x update rules with 1.x arguments.

1.x arguments: `learning_rate` (a float or a 1.x decay such as
`fluid.dygraph.PiecewiseDecay`, advanced once per `minimize`), `parameter_list=None`,
`regularization` (fluid.regularizer.L2Decay...) and `grad_clip`. The update itself is the
2.x optimizer's.

Without a parameter list an optimizer updates the trainable parameters the loss depends on,
as the 1.x tracer did: models create some parameters at their first call, after the
optimizer. They are found among all live Parameters
(`dygraph.framework.parameter.live_parameters()`) as those whose gradient changed since the
optimizer was made or last ran `minimize`, so other models still alive are left alone. (If
no gradient changed, backward ran before the optimizer was made: the parameters with a
nonzero gradient are updated.)

Example:
    >>> import numpy as np
    >>> import dygraph.fluid as fluid
    >>> with fluid.dygraph.guard():
    ...     fc = fluid.dygraph.FC('doc_opt_fc', 1, bias_attr=False,
    ...                           param_attr=fluid.initializer.ConstantInitializer(1.0))
    ...     sgd = fluid.optimizer.SGDOptimizer(learning_rate=0.5)
    ...     loss = fluid.layers.reduce_sum(fc(fluid.dygraph.to_variable(np.ones([1, 2], 'f4'))))
    ...     loss.backward()
    ...     _ = sgd.minimize(loss)
    ...     fc.weight.numpy().ravel()
    array([0.5, 0.5], dtype=float32)
"""

from dygraph import optimizer as _opt
from dygraph.fluid.dygraph.learning_rate_scheduler import LearningRateDecay
from dygraph.framework.parameter import Parameter, live_parameters, unique_name

__all__ = ["SGDOptimizer", "MomentumOptimizer", "AdamOptimizer", "AdamaxOptimizer",
           "AdagradOptimizer", "AdadeltaOptimizer", "RMSPropOptimizer", "SGD", "Momentum",
           "Adam", "Adamax", "Adagrad", "Adadelta"]

# Keys that mark a single optimizer's state (as opposed to {optimizer name: state}).
_STATE_MARKERS = ("LR_Scheduler", "master_weights")


def _by_name(param):
    return param.name



def _parameters_of(loss):
    """The trainable Parameters `loss.backward()` reached, sorted by name (a reproducible
    update order), or None when backward has not run on `loss`."""
    node = getattr(loss, "_node", None)
    reached = getattr(node, "reached_leaves", None) if node is not None else None
    if reached is None:
        return None
    params = [t() for t in reached]
    return sorted((p for p in params if isinstance(p, Parameter) and not p._sg),
                  key=_by_name)

class _Fluid:
    """The 1.x behaviour shared by the optimizers below (mixed in before the 2.x class)."""

    # {id(param): (grad tensor, its array, its version)} of every live parameter when the
    # optimizer was made, then after each minimize; only list-less optimizers keep it.
    _seen = None
    _minimized = False

    def _fluid_init(self, name):
        # 1.x optimizers were named after their class; the name keys saved state.
        self._name = name if name is not None else unique_name(type(self).__name__)

    def _remember_gradients(self, params):
        # Holding the tensors and arrays keeps their ids from being reused by new ones.
        self._seen = {id(p): (p._grad, p._grad._data, p._grad._version[0])
                      for p in params if p._grad is not None}

    def _changed(self, param):
        """Whether `param`'s gradient changed since the gradients were remembered."""
        grad = param._grad
        if grad is None:
            return False
        mark = self._seen.get(id(param))
        return (mark is None or mark[0] is not grad or mark[1] is not grad._data
                or mark[2] != grad._version[0])

    def _default_parameters(self):
        # Used when minimize() gets a loss that backward() did not run on.
        live = live_parameters()
        if self._seen is None:  # construction: the gradients that exist predate us
            self._remember_gradients(live)
            return []
        fresh = [p for p in live if not p._sg and self._changed(p)]
        if not fresh and not self._minimized:
            fresh = [p for p in live if not p._sg and p._grad is not None
                     and bool(p._grad._data.any())]
        # Sorted so that the update order (and a global-norm clip's sum) is reproducible.
        return sorted(fresh, key=_by_name)

    def _check_loaded_names(self, state):
        if not self._adopts_parameters:
            return super()._check_loaded_names(state)
        # A list-less optimizer may not have adopted its parameters yet (they are adopted
        # at minimize): the state must be for some live parameter.
        suffixes = tuple(f"_{name}_0" for name in self._accumulator_names)
        found = [key for key in state if isinstance(key, str) and key.endswith(suffixes)]
        if found and not any(self._state_key(p, name) in state for p in live_parameters()
                             for name in self._accumulator_names):
            raise ValueError(f"{type(self).__name__}.set_state_dict: the state holds "
                             f"accumulators for parameters that do not exist (e.g. "
                             f"{found[0]!r})")
        return None

    def get_lr(self):
        """The learning rate the next `minimize` uses, as a float (a 1.x decay is read
        without advancing it).

        Example:
            >>> import dygraph.fluid as fluid
            >>> opt = SGDOptimizer(fluid.dygraph.PiecewiseDecay([1], [0.1, 0.01], 0))
            >>> opt.current_step_lr(), opt.current_step_lr()
            (0.1, 0.1)
        """
        lr = self._learning_rate
        if isinstance(lr, LearningRateDecay):
            return lr.current_lr()
        return super().get_lr()

    current_step_lr = get_lr

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 grad_clip=None):
        """Update the parameters from the gradients `loss.backward()` computed; returns
        ([], [(param, grad), ...]). `parameter_list` limits the update to those parameters,
        `no_grad_set` (parameters or names) leaves some out, and `grad_clip` (1.6 style)
        clips this step's gradients before the optimizer's own clip, if any.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32), name='doc_min_w')
            >>> opt = SGDOptimizer(0.5, parameter_list=[w])
            >>> loss = (3 * w).sum(); loss.backward()
            >>> _, pairs = opt.minimize(loss); w.numpy()
            array([-0.5], dtype=float32)
        """
        from dygraph.static.program import Variable

        if isinstance(loss, Variable):  # a 1.x static program
            from dygraph.static.optimize import minimize_static

            return minimize_static(self, loss, parameter_list, no_grad_set)
        if parameter_list is not None:
            chosen = list(parameter_list)
        elif self._adopts_parameters:
            chosen = _parameters_of(loss)
            if chosen is None:  # `loss` has not been back-propagated
                chosen = self._default_parameters()
        else:
            chosen = self._parameter_list
        new = [p for p in chosen if id(p) not in self._group_of]
        if new:
            self._add_param_group({"params": new})
        skip = {item if isinstance(item, str) else id(item) for item in no_grad_set or ()}
        pairs = [(p, p._grad) for p in chosen
                 if not p._sg and p._grad is not None and id(p) not in skip
                 and p.name not in skip]
        if grad_clip is not None:
            pairs = grad_clip(pairs)
        self.apply_gradients(pairs)
        if self._adopts_parameters:
            self._remember_gradients(live_parameters())
            self._minimized = True
        lr = self._learning_rate
        if isinstance(lr, LearningRateDecay):
            lr.step_num += lr.step_size
        return [], pairs

    def load(self, stat_dict):
        """Restore state saved by `save_persistables(..., optimizers=...)` (a dict from
        optimizer names to states, as `load_persistables` returns it) or by
        `state_dict()`. A name map with a single entry is used whatever its name, so a
        checkpoint loads into a new optimizer object.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32), name='doc_load_w')
            >>> opt = MomentumOptimizer(0.1, momentum=0.9, parameter_list=[w])
            >>> opt.load({'momentum_0': {'doc_load_w_velocity_0': np.array([2.0], 'f4')}})
            >>> opt.state_dict()['doc_load_w_velocity_0'].numpy()
            array([2.], dtype=float32)
        """
        state = stat_dict
        named = bool(state) and all(isinstance(v, dict) for v in state.values()) and not any(
            key in state for key in _STATE_MARKERS)
        if named:
            if self._name in state:
                state = state[self._name]
            elif len(state) == 1:
                state = next(iter(state.values()))
            else:
                raise KeyError(f"{type(self).__name__}.load: no state for optimizer "
                               f"{self._name!r}; the checkpoint holds {sorted(state)}")
        self.set_state_dict(state)


class SGDOptimizer(_Fluid, _opt.SGD):
    """Plain gradient descent: param -= lr * grad.

    Example:
        >>> SGDOptimizer(learning_rate=0.1).get_lr()
        0.1
    """

    def __init__(self, learning_rate, parameter_list=None, regularization=None,
                 grad_clip=None, name=None):
        super().__init__(learning_rate, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip)
        self._fluid_init(name)


class MomentumOptimizer(_Fluid, _opt.Momentum):
    """Momentum: v = momentum * v + grad; param -= lr * v (Nesterov optional).

    Example:
        >>> MomentumOptimizer(0.1, momentum=0.9)._momentum
        0.9
    """

    def __init__(self, learning_rate, momentum, parameter_list=None, use_nesterov=False,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, momentum, parameters=parameter_list,
                         use_nesterov=use_nesterov, weight_decay=regularization,
                         grad_clip=grad_clip)
        self._fluid_init(name)


class AdamOptimizer(_Fluid, _opt.Adam):
    """Adam with Paddle's epsilon placement (see dygraph.optimizer.Adam).

    Example:
        >>> AdamOptimizer(learning_rate=0.001).get_lr()
        0.001
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 lazy_mode=False):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip,
                         lazy_mode=lazy_mode)
        self._fluid_init(name)


class AdamaxOptimizer(_Fluid, _opt.Adamax):
    """Adamax: Adam with the infinity norm in place of the second moment.

    Example:
        >>> AdamaxOptimizer(learning_rate=0.002).get_lr()
        0.002
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip)
        self._fluid_init(name)


class AdagradOptimizer(_Fluid, _opt.Adagrad):
    """Adagrad: the rate shrinks with the accumulated squared gradients.

    Example:
        >>> AdagradOptimizer(learning_rate=0.2).get_lr()
        0.2
    """

    def __init__(self, learning_rate, epsilon=1.0e-6, parameter_list=None,
                 regularization=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0):
        super().__init__(learning_rate, epsilon, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip,
                         initial_accumulator_value=initial_accumulator_value)
        self._fluid_init(name)


class AdadeltaOptimizer(_Fluid, _opt.Adadelta):
    """Adadelta: steps scaled by running averages of squared updates and gradients.

    Example:
        >>> AdadeltaOptimizer(learning_rate=1.0).get_lr()
        1.0
    """

    def __init__(self, learning_rate, epsilon=1.0e-6, rho=0.95, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, epsilon, rho, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip)
        self._fluid_init(name)


class RMSPropOptimizer(_Fluid, _opt.RMSProp):
    """RMSProp (optionally centered, with momentum).

    Example:
        >>> RMSPropOptimizer(learning_rate=0.01).get_lr()
        0.01
    """

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, rho, epsilon, momentum, centered,
                         parameters=parameter_list, weight_decay=regularization,
                         grad_clip=grad_clip)
        self._fluid_init(name)


SGD = SGDOptimizer
Momentum = MomentumOptimizer
Adam = AdamOptimizer
Adamax = AdamaxOptimizer
Adagrad = AdagradOptimizer
Adadelta = AdadeltaOptimizer
