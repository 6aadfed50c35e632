"""The predictor's two backends: DyGraph's Executor on NumPy, and onnxruntime.

Each has `feeds` and `fetches` (names), `run(feed)` -> list of arrays in fetch order, and
`declared_shape(name)` / `dtype(name)` for the handles.

Example:
    >>> import numpy as np
    >>> from dygraph.ops.pool.pooling import MaxPool
    >>> _INFERENCE_ATTRS[MaxPool]
    {'need_arg': False}
"""

import numpy as np

from dygraph.autograd.function import _FORWARD_ERRORS
from dygraph.framework.errors import op_error
from dygraph.ops.conv.convolution import Conv
from dygraph.ops.pool.pooling import MaxPool
from dygraph.static.eager_call import EagerCall
from dygraph.static.executor import Executor, Scope, _Plan
from dygraph.static.io import load_inference_model

__all__ = ["ExecutorBackend", "OrtBackend"]

# No gradient is taken at inference: ops skip what only their backward reads (the
# convolution's column buffer, the max-pool's winning taps).
_INFERENCE_ATTRS = {Conv: {"keep_cols": False}, MaxPool: {"need_arg": False}}


def _load(config, scope):
    program, feeds, fetch_vars = load_inference_model(
        "", Executor(), model_filename=config.prog_file(),
        params_filename=config.params_file(), scope=scope)
    return program, feeds, [v.name for v in fetch_vars]


class ExecutorBackend:
    """The saved program, planned once (the Executor's plan: the ops the outputs need and
    where each intermediate dies); a run is a flat loop of op forwards on NumPy arrays,
    without the slots and saved outputs that only a backward would read."""

    def __init__(self, config):
        scope = Scope()
        self.program, self.feeds, self.fetches = _load(config, scope)
        plan = _Plan(self.program, set(self.feeds), list(self.fetches))
        for o in plan.ops:
            for attr, value in _INFERENCE_ATTRS.get(type(o.op), {}).items():
                setattr(o.op, attr, value)
            if isinstance(o.op, EagerCall):  # its function then records no autograd graph
                o.op.stops = [True] * len(o.op.stops)
        self._ops = plan.ops
        self._steps = [(o.op.forward, tuple(o.inputs), tuple(o.outputs), tuple(dead))
                       for o, dead in zip(plan.ops, plan.free_after)]
        self._check_feed = plan.check_feed
        self._values = {n: scope.vars[n] for n in plan.persistable}

    def run(self, feed):
        env = dict(self._values)
        for name, value in feed.items():
            env[name] = self._check_feed(name, value)
        index = 0
        try:
            for index, (forward, ins, outs, dead) in enumerate(self._steps):  # noqa: B007
                result = forward(np, *[env[n] for n in ins])
                if type(result) is tuple:
                    env.update(zip(outs, result))
                else:
                    env[outs[0]] = result
                for name in dead:
                    del env[name]
        except _FORWARD_ERRORS as exc:
            shapes = [list(np.shape(env.get(n))) for n in self._ops[index].inputs]
            raise op_error(self._ops[index].type, f"{exc} (in the predictor; inputs "
                           f"{shapes})", type(exc)) from None
        return [env[n] for n in self.fetches]

    def declared_shape(self, name):
        return self.program.global_block().var(name).static_shape

    def dtype(self, name):
        return self.program.global_block().var(name)._data.dtype


def _ort_dtype(type_name):
    """NumPy dtype of an onnxruntime type string such as 'tensor(float)'."""
    names = {"float": "float32", "double": "float64", "float16": "float16"}
    inner = type_name[len("tensor("):-1]
    return np.dtype(names.get(inner, inner))


class OrtBackend:
    """An onnxruntime InferenceSession of the model (converted to ONNX in memory when it
    is a DyGraph program)."""

    def __init__(self, config):
        from dygraph.onnx.graph import require_onnx

        ort = require_onnx("onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = config.cpu_math_library_num_threads()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL if config.ir_optim()
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
        if not config.glog_info_disabled():
            options.log_severity_level = 3  # errors only: ORT's warnings are not ours
        source = config.prog_file()
        if not source.endswith(".onnx"):
            from dygraph.onnx.export import to_onnx_model

            scope = Scope()
            program, feeds, fetches = _load(config, scope)
            model = to_onnx_model(program, feeds, fetches, values=scope.vars,
                                  output_names=fetches)
            source = model.SerializeToString()
        self.session = ort.InferenceSession(source, options,
                                            providers=["CPUExecutionProvider"])
        self._inputs = {i.name: i for i in self.session.get_inputs()}
        self._outputs = {o.name: o for o in self.session.get_outputs()}
        self.feeds, self.fetches = list(self._inputs), list(self._outputs)
        self._dtypes = {n: _ort_dtype(i.type) for n, i in self._inputs.items()}

    def run(self, feed):
        for name, value in feed.items():
            want = self._dtypes.get(name)
            if want is not None and value.dtype != want and value.dtype.kind == "f" == \
                    want.kind:
                # Another float precision converts, as the Executor's feeds do.
                feed[name] = value.astype(want)
        return self.session.run(self.fetches, feed)

    def _info(self, name):
        return self._inputs.get(name) or self._outputs[name]

    def declared_shape(self, name):
        return tuple(d if isinstance(d, int) else -1 for d in self._info(name).shape)

    def dtype(self, name):
        return _ort_dtype(self._info(name).type)
