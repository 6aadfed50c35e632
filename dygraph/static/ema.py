"""ExponentialMovingAverage (Paddle's paddle.static.ExponentialMovingAverage): a moving
average of every parameter, kept by the training program, for evaluation.

`update()` appends one op to the main program: each run adds one to the step counter
(`@EMA_STEP_COUNTER@`) and moves each average (`<param>_ema_0`, a persistable variable)
toward its parameter, `ema = decay * ema + (1 - decay) * param`, with decay
min(decay, (t + 1) / (t + 10)) when `thres_steps` gives a step t. `apply(exe)` puts the
bias-corrected averages, ema / (1 - decay ** step), into the parameters for the block of
a `with`, and puts the trained values back afterwards (`restore`).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 1])
    ...     y = static.nn.fc(x, 1, bias_attr=False)
    ...     _ = dygraph.optimizer.SGD(0.5).minimize(dygraph.mean(y))
    ...     ema = ExponentialMovingAverage(0.5)
    ...     ema.update()
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> w = main.all_parameters()[0].name
    >>> static.global_scope().vars[w][...] = 1.0
    >>> for _ in range(2):
    ...     _ = exe.run(main, feed={'x': np.ones((1, 1), np.float32)})
    >>> with ema.apply(exe):  # (0.5 * 0.5 + 0.0 * 0.5) / (1 - 0.5 ** 2)
    ...     averaged = static.global_scope().vars[w].item()
    >>> round(averaged, 4), static.global_scope().vars[w].item()
    (0.1667, 0.0)
"""

import contextlib

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.function import Op
from dygraph.static.executor import global_scope
from dygraph.static.parameters import create_global_var
from dygraph.utils.unique_name import generate

__all__ = ["ExponentialMovingAverage", "EmaUpdate"]

_STEP = "@EMA_STEP_COUNTER@"
_DECAY = "scheduled_ema_decay_rate"


class EmaUpdate(Op):
    """(step + 1, the decay used, each average moved toward its parameter)."""

    attrs = ("decay", "n", "thresholded")

    differentiable = False

    def __init__(self, decay, n, thresholded):
        self.decay, self.n, self.thresholded = decay, n, thresholded

    def forward(self, xp, step, decay, *arrays):
        d = np.float32(self.decay)
        if self.thresholded:
            t = float(np.asarray(arrays[0]).reshape(-1)[0])
            d = np.float32(min(self.decay, (t + 1.0) / (t + 10.0)))
            arrays = arrays[1:]
        params, emas = arrays[:self.n], arrays[self.n:]
        moved = tuple((e * d + p * (1 - d)).astype(e.dtype) for p, e in zip(params, emas))
        return (step + 1, np.full_like(decay, d)) + moved

    def backward(self, m, *grads):
        raise NotImplementedError("the moving average has no gradient")


class ExponentialMovingAverage:
    """Moving averages of the parameters of the default main program (those whose
    ParamAttr has do_model_average); see the module docstring."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        from dygraph.static.program import default_main_program

        if grad_mode.state.static_program is None:
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        self._decay, self._thres_steps = float(decay), thres_steps
        self._program = default_main_program()
        parameters = self._program.parameters
        self._params = [v for v in self._program.global_block().all_parameters()
                        if getattr(parameters.get(v.name), "do_model_average", True)
                        is not False]
        self._decay_var = create_global_var([1], decay, "float32", persistable=True,
                                            name=_DECAY)
        self._step = create_global_var([1], 0, "int64", persistable=True, name=_STEP)
        prefix = name or ""
        self._emas = [create_global_var(list(p.static_shape), 0.0, p._data.dtype,
                                        persistable=True,
                                        name=generate(f"{prefix}{p.name}_ema"))
                      for p in self._params]
        self._saved = None

    def update(self):
        """Append the op that moves the averages at each run of the training program."""
        op = EmaUpdate(self._decay, len(self._params), self._thres_steps is not None)
        op.n_outputs = 2 + len(self._emas)
        thres = [self._thres_steps.name] if self._thres_steps is not None else []
        emas = [e.name for e in self._emas]
        self._program.global_block().append_op(
            op, [_STEP, _DECAY] + thres + [p.name for p in self._params] + emas,
            [_STEP, _DECAY] + emas, role="optimize")

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Put the bias-corrected averages into the parameters inside the `with`; the
        trained values come back at its end unless need_restore is False (then call
        restore)."""
        scope = global_scope()
        step = float(np.asarray(scope.vars[_STEP]).reshape(-1)[0])
        decay = float(np.asarray(scope.vars[_DECAY]).reshape(-1)[0])
        self._saved = {p.name: np.array(scope.vars[p.name], copy=True) for p in self._params}
        for p, e in zip(self._params, self._emas):
            ema = np.asarray(scope.vars[e.name])
            value = ema / (1.0 - decay ** step) if step > 0 else ema
            scope.vars[p.name] = value.astype(ema.dtype)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Put the trained values back into the parameters."""
        if self._saved is not None:
            global_scope().vars.update(self._saved)
            self._saved = None
