"""The accumulator state of an optimizer: creation, state_dict and set_state_dict.

`AccumulatorState` is a base of `Optimizer`. Accumulators are arrays per parameter
(moments, velocities, powers of beta), created at a parameter's first update and keyed in
`state_dict()` as Paddle does: '<param name>_<accumulator>_0'.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.framework.parameter import Parameter
    >>> w = Parameter(np.array([1.0], np.float32), name="w")
    >>> opt = dygraph.optimizer.Adagrad(0.1, parameters=[w])
    >>> (2 * w).sum().backward(); opt.step()
    >>> opt.state_dict()["w_moment_0"].numpy()
    array([4.], dtype=float32)
"""

import numpy as np

from dygraph.backend import get_array_module
from dygraph.framework.errors import op_error
from dygraph.optimizer.lr.base import LRScheduler
from dygraph.tensor.tensor import Tensor, _new_tensor

__all__ = ["AccumulatorState"]

# Host-side accumulators (the powers beta^t) are one-element arrays that stay on the CPU
# even for GPU parameters, as in Paddle, so reading them never syncs the device.
_HOST = "host"
# With multi_precision, float16 parameters are updated through a float32 copy kept here.
_MASTER = "master_weight"


def compute_dtype(dtype):
    """float32 for float16 parameters (their accumulators and update math, as in Paddle),
    the parameter's own dtype otherwise."""
    if dtype.kind == "f" and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return dtype


class AccumulatorState:
    """Mixin holding `_acc` ({id(param): {name: array}}) and the loaded-state buffer.

    The host class provides `_parameter_list`, `_group_of`, `_learning_rate`,
    `_multi_precision` and `_accumulator_names`; see Optimizer.

    Example:
        >>> from dygraph.optimizer import Optimizer
        >>> issubclass(Optimizer, AccumulatorState)
        True
    """

    def _accumulator_specs(self, param, group):
        """{name: (fill value, 'like' for the parameter's shape or _HOST for [1] on host)}."""
        return {}

    def _create_accumulators(self, param):
        data = param._data
        xp = get_array_module(data)
        dtype = compute_dtype(data.dtype)
        acc = {}
        if self._multi_precision and dtype != data.dtype:
            acc[_MASTER] = self._loaded_or(param, _MASTER, data.astype(dtype))
        for acc_name, (fill, kind) in self._accumulator_specs(
                param, self._group_of[id(param)]).items():
            if kind == _HOST:
                value = np.full((1,), fill, dtype=dtype)
            else:
                value = xp.full(data.shape, fill, dtype=dtype)
            acc[acc_name] = self._loaded_or(param, acc_name, value)
        self._acc[id(param)] = acc
        return acc

    def _loaded_or(self, param, acc_name, value):
        """`value`, overwritten by the loaded state for this accumulator if there is one."""
        key = self._state_key(param, acc_name)
        loaded = self._pending.pop(key, None)
        if loaded is not None:
            self._assign(value, loaded, key)
        return value

    @staticmethod
    def _state_key(param, acc_name):
        return f"{param.name}_{acc_name}_0"

    @staticmethod
    def _assign(target, value, key):
        src = value._data if isinstance(value, Tensor) else value
        src_shape = tuple(getattr(src, "shape", np.shape(src)))
        if src_shape != tuple(target.shape):
            raise op_error("set_state_dict", f"state {key!r} has shape {list(src_shape)}, "
                           f"the optimizer expects {list(target.shape)}")
        xp = get_array_module(target)
        if xp is np:
            from dygraph.backend import as_numpy

            target[...] = as_numpy(src)
        else:
            target[...] = xp.asarray(src)

    def _check_loaded_names(self, state):
        """Refuse accumulator state saved for parameters none of which are ours."""
        suffixes = tuple(f"_{name}_0" for name in self._accumulator_names)
        found = [key for key in state if isinstance(key, str) and key.endswith(suffixes)]
        if not found:
            return
        ours = {self._state_key(p, name) for p in self._parameter_list
                for name in self._accumulator_names}
        if not ours.intersection(found):
            raise op_error("set_state_dict", f"the state holds {type(self).__name__} "
                           f"accumulators for other parameters (e.g. {found[0]!r}); this "
                           f"optimizer's parameters are named "
                           f"{[p.name for p in self._parameter_list[:4]]}...", ValueError)

    def state_dict(self):
        """Accumulators as Tensors keyed '<param name>_<accumulator>_0', plus
        'LR_Scheduler' (the scheduler's state) when the learning rate is a scheduler.

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32), name="w")
            >>> opt = dygraph.optimizer.Momentum(0.1, parameters=[w])
            >>> (3 * w).sum().backward(); opt.step()
            >>> sorted(opt.state_dict())
            ['w_velocity_0']
        """
        state = {}
        for param in self._parameter_list:
            acc = self._acc.get(id(param))
            if acc is None:
                continue
            for acc_name, value in acc.items():
                key = self._state_key(param, acc_name)
                if key in state:
                    raise op_error("state_dict", f"two parameters share the name "
                                   f"{param.name!r}, so their optimizer state would "
                                   f"collide; give them distinct names")
                tensor = _new_tensor(value, None, 0, True)
                tensor.name = key
                if acc_name == _MASTER:  # Paddle keeps master weights in a sub-dict
                    state.setdefault("master_weights", {})[param.name] = tensor
                else:
                    state[key] = tensor
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Load what `state_dict()` returned (also after dygraph.save/dygraph.load).

        Loading replaces the whole accumulator state: a parameter without an entry starts
        from fresh accumulators at its next step.

        Example:
            >>> import numpy as np
            >>> import dygraph
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0], np.float32), name="w")
            >>> opt = dygraph.optimizer.Momentum(0.1, parameters=[w])
            >>> opt.set_state_dict({'w_velocity_0': np.array([2.0], np.float32)})
            >>> (3 * w).sum().backward(); opt.step(); w.numpy()
            array([0.52], dtype=float32)
        """
        if not isinstance(state_dict, dict):
            raise op_error("set_state_dict", f"expected a dict, got "
                           f"{type(state_dict).__name__}", TypeError)
        state = dict(state_dict)
        scheduler_state = state.pop("LR_Scheduler", None)
        if isinstance(self._learning_rate, LRScheduler) and scheduler_state is not None:
            self._learning_rate.set_state_dict(scheduler_state)
        for name, value in (state.pop("master_weights", None) or {}).items():
            state[f"{name}_{_MASTER}_0"] = value
        self._check_loaded_names(state)
        # A parameter with no saved entry had no state when it was saved, so it starts
        # fresh, as it would have in the uninterrupted run: drop what it has now. The rest
        # of the state fills accumulators when the first step creates them.
        self._acc.clear()
        self._pending = state
        for param in self._parameter_list:
            if any(self._state_key(param, name) in state
                   for name in (*self._accumulator_names, _MASTER)):
                self._create_accumulators(param)

    set_dict = set_state_dict  # the 1.x name

    load_state_dict = set_state_dict
