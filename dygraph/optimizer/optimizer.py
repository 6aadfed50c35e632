"""Optimizer: the base class of every update rule in `dygraph.optimizer`.

The base class owns what all algorithms share: the parameter groups, the learning rate (a
float or an LRScheduler), gradient clipping, weight decay, the per-parameter learning-rate
multiplier and the accumulator state with its `state_dict`. A subclass declares its
accumulators and hyper-parameters and writes `_update(param, data, grad, lr, group, acc)`,
one vectorised NumPy/CuPy update of one parameter, done in place on `data` (the parameter's
array, or its float32 master copy under multi_precision).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.framework.parameter import Parameter
    >>> w = Parameter(np.array([1.0, 2.0], np.float32), name="w")
    >>> opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=[w])
    >>> (w * w).sum().backward()
    >>> opt.step(); w.numpy()
    array([0.8, 1.6], dtype=float32)
"""

import numpy as np

from dygraph.autograd.grad_mode import no_grad
from dygraph.autograd.grad_mode import state as _state
from dygraph.backend import get_array_module
from dygraph.framework.errors import as_number, check_learning_rate, op_error
from dygraph.framework.step_calls import made_at_each_run
from dygraph.optimizer.lr.base import LRScheduler
from dygraph.optimizer.state import _MASTER, AccumulatorState, compute_dtype
from dygraph.regularizer import L2Decay, WeightDecayRegularizer
from dygraph.tensor.tensor import Tensor

__all__ = ["Optimizer"]


def _recorded(optimizer, method, args=(), drops=()):
    """Whether a to_static trace of a training step took this call, to make it at each run
    of the program instead of now (dygraph.jit.train_step)."""
    from dygraph.jit.train_step import record_call

    return record_call(optimizer, method, args, drops)


def _eager_parameter(p):
    """A static program's parameter variable (program.all_parameters()) as the layer's own
    Parameter, which the program reads and updates by name: one update path for both."""
    from dygraph.static.program import Variable

    if isinstance(p, Variable) and p.is_parameter:
        eager = p.block.program.parameters.get(p.name)
        if eager is not None:
            return eager
    return p


class Optimizer(AccumulatorState):
    """Base class of the optimizers; use a subclass such as SGD or Adam.

    Args:
        learning_rate: a float or an `LRScheduler` from `dygraph.optimizer.lr`.
        parameters: the Tensors to update (stop_gradient=False), or a list of dicts, each a
            parameter group {'params': [...], 'learning_rate': scale of the base rate,
            'weight_decay': ..., 'grad_clip': ..., plus algorithm options such as 'beta1'}.
            `parameter_list` is the 1.x spelling.
        weight_decay: a float (L2 coefficient), L1Decay or L2Decay; a parameter's own
            regularizer (from ParamAttr) takes precedence.
        grad_clip: ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> from dygraph.optimizer import Adam
        >>> w = Parameter(np.ones(3, np.float32), name="w")
        >>> Adam(learning_rate=0.01, parameters=[w]).get_lr()
        0.01
    """

    # Subclasses: every accumulator name they may create, and the algorithm options a
    # parameter group may override (the default of option 'beta1' is `self._beta1`).
    _accumulator_names = ()
    _group_options = ()

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None, *, parameter_list=None):
        owner = type(self).__name__
        if parameters is None:
            parameters = parameter_list
        self._adopts_parameters = parameters is None
        if parameters is None:
            parameters = self._default_parameters()
        if parameters is None and _state.static_program is not None:
            # Static mode, as Paddle: minimize(loss) takes the program's trainable
            # parameters (dygraph/static/optimize.py).
            parameters = []
        if parameters is None:
            raise op_error(owner, "parameters must be given in dynamic graph mode: pass "
                           "parameters=model.parameters()", AttributeError)
        if isinstance(parameters, Tensor) or isinstance(parameters, (set, frozenset)):
            raise op_error(owner, f"parameters must be a list (or tuple) of Tensors or of "
                           f"parameter-group dicts, got {type(parameters).__name__}",
                           TypeError)
        if isinstance(learning_rate, bool) or not isinstance(
                learning_rate, (int, float, np.floating, np.integer, LRScheduler, Tensor)):
            raise op_error(owner, f"learning_rate must be a float or an LRScheduler, got "
                           f"{type(learning_rate).__name__}", TypeError)
        if not isinstance(learning_rate, (LRScheduler, Tensor)):
            learning_rate = check_learning_rate(learning_rate, owner)
        if grad_clip is not None and not callable(grad_clip):
            raise op_error(owner, f"grad_clip must be a ClipGradBy* object, got "
                           f"{type(grad_clip).__name__}", TypeError)
        self._learning_rate = learning_rate
        self._name = name
        self._multi_precision = False  # subclasses with Paddle's multi_precision set it
        self._grad_clip = grad_clip
        # The groups' default: a regularizer (or None), or AdamW's decoupled coefficient.
        self._weight_decay = self._weight_decay_option(weight_decay, owner)
        self.regularization = self._weight_decay if isinstance(
            self._weight_decay, WeightDecayRegularizer) else None
        self._param_groups = []
        self._parameter_list = []
        self._group_of = {}  # id(param) -> its group
        self._acc = {}  # id(param) -> {accumulator name: array}
        self._pending = {}  # loaded state waiting for lazily created accumulators
        params = [_eager_parameter(p) for p in parameters]
        if not params and not self._adopts_parameters:
            # An empty list, or a generator already used up (model.parameters() consumed
            # by an earlier optimizer), would make step() silently do nothing.
            raise op_error(owner, "parameters is empty: nothing to optimize (was it a "
                           "generator that was already used up? pass a list, e.g. "
                           "list(model.parameters()))")
        if params and all(isinstance(p, dict) for p in params):
            for group in params:
                self._add_param_group(dict(group))
        else:
            self._add_param_group({"params": params})

    # -- configuration ---------------------------------------------------------------------
    def _default_parameters(self):
        """The parameters to use when none are given; None (here) makes them required.

        The 1.x API overrides this to return every live parameter: its optimizers take no
        parameter list, and models create parameters at their first call, after the
        optimizer, so each step adopts the ones that appeared since (`_adopt_new`).
        """
        return None

    def _adopt_new(self):
        self._adopt(self._default_parameters())

    def _adopt(self, params):
        """Add `params` not yet optimized to the first group (an optimizer made without a
        parameter list takes them as they appear: 1.x models, static programs)."""
        group = self._param_groups[0]
        for p in params:
            if id(p) not in self._group_of:
                self._group_of[id(p)] = group
                group["params"].append(p)
                self._parameter_list.append(p)

    def _weight_decay_option(self, weight_decay, owner):
        """Normalise the optimizer-level weight_decay into a regularizer or None."""
        if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
            return weight_decay
        return L2Decay(as_number(weight_decay, "weight_decay", owner))

    def _add_param_group(self, group):
        """Add a parameter group; options it does not set come from the optimizer.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> from dygraph.optimizer import SGD
            >>> a, b = Parameter(np.ones(1), name="a"), Parameter(np.ones(1), name="b")
            >>> opt = SGD(0.1, parameters=[a])
            >>> opt._add_param_group({'params': [b], 'learning_rate': 0.5})
            >>> len(opt._param_groups)
            2
        """
        owner = type(self).__name__
        if "params" not in group:
            raise op_error(owner, f"a parameter group needs a 'params' key, got keys "
                           f"{sorted(group)}", ValueError)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise op_error(owner, "a group's 'params' must be a list, not a set (the "
                           "update order must be deterministic)", TypeError)
        params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise op_error(owner, f"parameters must be Tensors, got "
                               f"{type(p).__name__}", TypeError)
            if id(p) in self._group_of:
                raise op_error(owner, f"parameter {p.name!r} appears more than once in the "
                               f"parameter groups", ValueError)
            self._group_of[id(p)] = group
        group["params"] = params
        group["learning_rate"] = check_learning_rate(group.get("learning_rate", 1.0),
                                                   f"{owner} (a parameter group)")
        if "weight_decay" in group:
            group["weight_decay"] = self._weight_decay_option(group["weight_decay"], owner)
        else:
            group["weight_decay"] = self._weight_decay
        group.setdefault("grad_clip", self._grad_clip)
        for option in self._group_options:
            group.setdefault(option, getattr(self, "_" + option))
        self._param_groups.append(group)
        self._parameter_list.extend(params)

    # -- learning rate ---------------------------------------------------------------------
    def get_lr(self):
        """The learning rate of the next step as a float.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> from dygraph.optimizer import SGD
            >>> SGD(0.5, parameters=[Parameter(np.ones(1))]).get_lr()
            0.5
        """
        lr = self._learning_rate
        if isinstance(lr, LRScheduler):
            # A scheduler's rate is checked as it is used: a user schedule that yields NaN
            # or a negative rate stops here instead of corrupting the weights.
            return check_learning_rate(lr(), type(lr).__name__)
        return float(lr)

    def set_lr(self, value):
        """Set a float learning rate; refused when the rate comes from an LRScheduler.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> from dygraph.optimizer import SGD
            >>> opt = SGD(0.5, parameters=[Parameter(np.ones(1))])
            >>> opt.set_lr(0.25); opt.get_lr()
            0.25
        """
        if isinstance(self._learning_rate, LRScheduler):
            raise op_error("set_lr", "the learning rate comes from an LRScheduler; calling "
                           "set_lr would conflict with it (step the scheduler instead, or "
                           "use set_lr_scheduler)", RuntimeError)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
            raise op_error("set_lr", f"value must be a float, got {type(value).__name__}",
                           TypeError)
        self._learning_rate = check_learning_rate(value, "set_lr")

    def set_lr_scheduler(self, scheduler):
        """Replace the learning rate by an LRScheduler.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> from dygraph.optimizer import SGD, lr
            >>> opt = SGD(0.5, parameters=[Parameter(np.ones(1))])
            >>> opt.set_lr_scheduler(lr.StepDecay(0.1, step_size=2)); opt.get_lr()
            0.1
        """
        if not isinstance(scheduler, LRScheduler):
            raise op_error("set_lr_scheduler", f"scheduler must be an LRScheduler, got "
                           f"{type(scheduler).__name__}", TypeError)
        self._learning_rate = scheduler

    # -- the update ------------------------------------------------------------------------
    @no_grad()
    @made_at_each_run()
    def step(self):
        """Update every trainable parameter that has a gradient (one optimizer step).

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32))
            >>> opt = dygraph.optimizer.SGD(0.5, parameters=[w])
            >>> (3 * w).sum().backward(); opt.step(); w.numpy()
            array([-0.5], dtype=float32)
        """
        if self._adopts_parameters:
            self._adopt_new()
        lr = self.get_lr()
        for group in self._param_groups:
            pairs = [(p, p._grad) for p in group["params"]
                     if not p._sg and p._grad is not None]
            if pairs:
                self._apply_group(group, pairs, lr)

    def _apply_group(self, group, params_grads, lr):
        clip = group["grad_clip"]
        if clip is not None:
            params_grads = clip(params_grads)
        group_lr = lr * group["learning_rate"]
        decay = group["weight_decay"]
        if not isinstance(decay, WeightDecayRegularizer):
            decay = None  # AdamW's decoupled coefficient is applied by AdamW itself
        for param, grad in self._foreach_step(group, params_grads, group_lr, decay):
            if grad is None:
                continue
            acc = self._acc.get(id(param))
            if acc is None:
                acc = self._create_accumulators(param)
            master = acc.get(_MASTER)
            data = param._data if master is None else master
            g = self._prepare_grad(grad._data, group)
            work = compute_dtype(data.dtype)
            if g.dtype != work:
                g = g.astype(work)
            regularizer = getattr(param, "regularizer", None) or decay
            if regularizer is not None:
                g = regularizer.apply_to_array(data, g, get_array_module(data))
            self._update(param, data, g, self._param_lr(param, group_lr), group, acc)
            if master is not None:
                param._data[...] = master
            param._version[0] += 1

    @staticmethod
    def _param_lr(param, group_lr):
        """The learning rate of `param`: its group's, scaled by its ParamAttr's
        learning_rate."""
        attr = getattr(param, "optimize_attr", None)
        return group_lr * attr["learning_rate"] if attr is not None else group_lr

    def _foreach_step(self, group, params_grads, lr, decay):
        """Update some of the group at once (see optimizer/foreach.py); returns the
        (param, grad) pairs left to the per-parameter loop."""
        return params_grads

    def _prepare_grad(self, grad, group):
        """Hook on the raw gradient before weight decay (Momentum's rescale_grad)."""
        return grad

    def _update(self, param, data, grad, lr, group, acc):
        """Update the array `data` (param._data, or its float32 master copy) in place.

        `grad` is read-only: it may be the user's gradient array.
        """
        raise NotImplementedError

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Update the parameters from the gradients `loss.backward()` already computed.

        Returns (optimize_ops, params_grads): no ops in dynamic mode, and the
        (param, grad) pairs used. `parameters` limits the update to those; `no_grad_set`
        (Tensors or names) excludes some.

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32))
            >>> opt = dygraph.optimizer.SGD(0.5, parameters=[w])
            >>> loss = (3 * w).sum(); loss.backward()
            >>> _, pairs = opt.minimize(loss); w.numpy()
            array([-0.5], dtype=float32)
        """
        from dygraph.static.program import Variable

        if isinstance(loss, Variable):  # static mode: append backward and update ops
            from dygraph.static.optimize import minimize_static

            if _recorded(self, "minimize", (None, None, parameters, no_grad_set)):
                return [], []  # in a to_static training step: the eager update, each run
            return minimize_static(self, loss, parameters, no_grad_set)
        if self._adopts_parameters:
            self._adopt_new()
        chosen = self._parameter_list if parameters is None else list(parameters)
        skip = set()
        for item in no_grad_set or ():
            skip.add(item if isinstance(item, str) else id(item))
        pairs = [(p, p._grad) for p in chosen
                 if not p._sg and p._grad is not None and id(p) not in skip
                 and p.name not in skip]
        self.apply_gradients(pairs)
        return [], pairs

    def apply_gradients(self, params_grads):
        """Run clipping, weight decay and the update on given (param, grad) pairs.

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32))
            >>> opt = dygraph.optimizer.SGD(0.5, parameters=[w])
            >>> opt.apply_gradients([(w, dygraph.to_tensor([2.0]))]); w.numpy()
            array([0.], dtype=float32)
        """
        by_group = {}
        for param, grad in params_grads:
            group = self._group_of.get(id(param))
            if group is None:
                raise op_error(type(self).__name__, f"parameter {param.name!r} is not "
                               f"one this optimizer updates", ValueError)
            by_group.setdefault(id(group), (group, []))[1].append((param, grad))
        lr = self.get_lr()
        with no_grad():
            for group, pairs in by_group.values():
                self._apply_group(group, pairs, lr)

    @made_at_each_run(drops=lambda self, set_to_zero: () if set_to_zero
                      else self._parameter_list)
    def clear_grad(self, set_to_zero=True):
        """Zero (default) or drop the gradients of the optimizer's parameters.

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32))
            >>> opt = dygraph.optimizer.SGD(0.5, parameters=[w])
            >>> (3 * w).sum().backward(); opt.clear_grad(); w.grad.numpy()
            array([0.], dtype=float32)
        """
        for p in self._parameter_list:
            if not p._sg:
                p._reset_grad(set_to_zero)

    clear_gradients = clear_grad  # the 1.x name


_DEFINES_BOTH = {}  # (class, rule) -> defines_both(class, rule)


def defines_both(cls, rule="_foreach_update"):
    """Whether `_update` and the faster `rule` (`_foreach_update`, `_device_update`) come
    from the same class: a subclass that changes only `_update` must not have its rule
    skipped by an inherited faster one.

    Example:
        >>> from dygraph.optimizer import Adam
        >>> defines_both(Adam), defines_both(Adam, "_device_update")
        (True, True)
    """
    known = _DEFINES_BOTH.get((cls, rule))
    if known is None:
        def owner(name):
            return next((k for k in cls.__mro__ if name in vars(k)), None)

        known = _DEFINES_BOTH[(cls, rule)] = owner("_update") is owner(rule)
    return known
