"""`jit.save` and `jit.load`: a Layer or function as an inference model (`path.pdmodel`, the
program in JSON; `path.pdiparams`, the values in the checkpoint format, through
dygraph.static.io), and back as a `TranslatedLayer` that runs, trains and saves again.

Example:
    >>> import os, tempfile
    >>> import dygraph
    >>> from dygraph.static import InputSpec
    >>> net = dygraph.nn.Linear(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), 'linear')
    >>> save(net, path, input_spec=[InputSpec([None, 3], 'float32', 'x')])
    >>> loaded = load(path)
    >>> x = dygraph.ones([4, 3])
    >>> bool((loaded(x) - net(x)).abs().max() < 1e-6)
    True
"""

from dygraph.framework.parameter import Parameter
from dygraph.jit.run_program import CompiledProgram
from dygraph.jit.static_function import StaticFunction
from dygraph.nn import Layer
from dygraph.static import io as _io
from dygraph.static.capture import Slot
from dygraph.static.executor import Scope, _Plan
from dygraph.static.input_spec import InputSpec
from dygraph.tensor.tensor import Tensor, _new_tensor, to_tensor

__all__ = ["save", "load", "TranslatedLayer"]


def _static_function(layer, input_spec):
    if isinstance(layer, Layer):
        forward = layer.forward
        if isinstance(forward, StaticFunction):
            return forward
        return StaticFunction(type(layer).forward, input_spec, layer)
    if isinstance(layer, StaticFunction):
        return layer
    if callable(layer):
        return StaticFunction(layer, input_spec)
    raise TypeError(f"jit.save: expected a Layer or a function, got {type(layer).__name__}")


def _concrete(function, input_spec):
    if input_spec is not None:
        specs = [InputSpec.from_tensor(s) if isinstance(s, Tensor) else s for s in input_spec]
        return function.get_concrete_program(*specs)[0]
    if function._input_spec is not None:
        return function.get_concrete_program(*function._input_spec)[0]
    last = function.program_cache.last
    if last is not None:
        # Traced from the tensors of a call: saved with the batch dimension free, as
        # Paddle's saved program runs any batch (the call's batch size is no part of it).
        specs = [InputSpec([None] + list(v.static_shape[1:]) if v.static_shape else [],
                           v._data.dtype.name, v.name) for v in last.inputs]
        try:
            return function.get_concrete_program(*specs)[0]
        except Exception:  # noqa: BLE001 - a program that fixes the batch: saved as traced
            return last
    raise ValueError("jit.save: give input_spec=[InputSpec(shape, dtype, name), ...] (or "
                     "call the to_static function once) so the program can be traced")


def save(layer, path, input_spec=None, **configs):
    """Write `path.pdmodel` and `path.pdiparams`: the inference program of `layer` (a
    Layer, a to_static function or a TranslatedLayer) for `input_spec` (None/-1 dims stay
    free), with its parameters and buffers. Dropout and batch norm are saved in inference
    mode.

    Example:
        >>> import os, tempfile, dygraph
        >>> path = os.path.join(tempfile.mkdtemp(), 'fc')
        >>> save(dygraph.nn.Linear(2, 1), path, [InputSpec([None, 2])])
        >>> sorted(os.listdir(os.path.dirname(path)))
        ['fc.pdiparams', 'fc.pdmodel']
    """
    if isinstance(layer, TranslatedLayer):
        program, feeds, fetches = layer._program, layer._feeds, layer._fetches
        persistables = layer._persistables
    else:
        concrete = _concrete(_static_function(layer, input_spec), input_spec)
        program = concrete.main_program
        feeds, fetches = concrete.inputs, concrete.outputs
        persistables = concrete.compiled.persistables
        if getattr(program, "train_step", None) is not None:
            raise ValueError("jit.save: the function is a training step (it calls "
                             "backward or an optimizer); save the model it trains: "
                             "jit.save(model, path, input_spec)")
        if not fetches:
            raise ValueError("jit.save: the function returns no tensor computed from its "
                             "inputs, so there is no program to save")
    scope = Scope()
    scope.vars = {name: t._data for name, t in persistables.items()}
    _io.save_inference_model(path, feeds, fetches, None, program=program, scope=scope)


def _with_mode(program, training):
    """A copy of `program` whose ops have their own instances and input slots, with
    dropout and batch norm switched to `training`."""
    new = program.clone()
    for o in new.global_block().ops:
        op = o.op
        op.inputs = tuple(Slot(s._sg) for s in op.inputs)
        if hasattr(op, "training"):
            op.training = training
        if "training" in (getattr(op, "kwargs", None) or {}):
            op.kwargs = {**op.kwargs, "training": training}
    return new


def _mark_gradients(program, needs):
    """Set which inputs of each op need a gradient (the loaded ops carry no such record):
    `needs` holds the names that do at the start (trainable parameters, inputs)."""
    block = program.global_block()
    needs = set(needs)
    for o in block.ops:
        wanted = [n in needs for n in o.inputs]
        o.op.edges = tuple(True if w else None for w in wanted)
        o.op.n_outputs = len(o.outputs)
        if getattr(o.op, "differentiable", True) and any(wanted):
            # (A saved program keeps only the variables something reads.)
            needs |= {n for n in o.outputs
                      if n in block.vars and block.vars[n]._data.dtype.kind in "fc"}
    for name, var in block.vars.items():
        var._sg = name not in needs


class TranslatedLayer(Layer):
    """A Layer running a loaded program (what jit.load returns). Its parameters are
    trainable Parameters. It starts in eval mode, as Paddle's does: the saved program is
    the inference one (dropout off, batch norm on running statistics) whatever mode the
    layer was saved in; train() switches dropout and batch norm on for fine-tuning."""

    def __init__(self, program, feeds, fetches, values):
        super().__init__()
        self._program = program
        block = program.global_block()
        self._feeds = list(feeds)
        self._fetches = [v.name for v in fetches]
        self._persistables = {}
        for i, (name, var) in enumerate(sorted((n, v) for n, v in block.vars.items()
                                               if v.persistable)):
            value = values[name]
            if var.is_parameter:
                t = Parameter(value, name=name, trainable=not var._sg)
                self.add_parameter(f"param_{i}", t)
            else:
                t = _new_tensor(value, None, 0, True)
                self.register_buffer(f"buffer_{i}", t, persistable=True)
            self._persistables[name] = t
        self._check = _Plan(program, set(self._feeds), self._fetches)
        self._compiled = {}
        self.eval()

    def _compiled_for(self, stops):
        key = (stops, self.training)
        compiled = self._compiled.get(key)
        if compiled is None:
            program = _with_mode(self._program, self.training)
            needs = [n for n, s in zip(self._feeds, stops) if not s]
            needs += [n for n, t in self._persistables.items() if not t._sg]
            _mark_gradients(program, needs)
            compiled = self._compiled[key] = CompiledProgram(
                program, self._feeds, self._fetches, self._persistables)
        return compiled

    def forward(self, *inputs):
        if len(inputs) != len(self._feeds):
            raise TypeError(f"TranslatedLayer: expected {len(self._feeds)} inputs "
                            f"({self._feeds}), got {len(inputs)}")
        tensors = [t if isinstance(t, Tensor) else to_tensor(t) for t in inputs]
        for name, t in zip(self._feeds, tensors):
            self._check.check_feed(name, t._data)
        stops = tuple(t._sg for t in tensors)
        stops += tuple(t._sg for t in self._persistables.values())
        outs = self._compiled_for(stops)(tensors)
        return outs[0] if len(outs) == 1 else outs

    def program(self, method_name="forward"):
        """The loaded (inference) program."""
        return self._program

def load(path, **configs):
    """The model jit.save wrote at `path` as a TranslatedLayer (no code from the files
    runs: only dygraph's own op classes are accepted; damaged files raise ValueError).

    Example:
        >>> import os, tempfile, dygraph
        >>> path = os.path.join(tempfile.mkdtemp(), 'fc')
        >>> save(dygraph.nn.Linear(2, 1), path, [InputSpec([None, 2])])
        >>> load(path)(dygraph.ones([3, 2])).shape
        [3, 1]
    """
    scope = Scope()
    program, feeds, fetches = _io.load_inference_model(path, None, scope=scope)
    return TranslatedLayer(program, feeds, fetches, scope.vars)
