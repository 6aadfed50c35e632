"""`paddle.onnx.export`: a Layer to an ONNX file, through a static program.

The layer runs once in static capture (eval mode) on program inputs made from the
InputSpecs; the program's ops are then mapped one by one (dygraph/onnx/map_*.py) to ONNX
nodes, its parameters and constants become initializers, and free (None or -1) input
dimensions become named dynamic dimensions. The model is checked with onnx.checker.

Example:
    >>> import os, tempfile
    >>> import dygraph
    >>> from dygraph.static import InputSpec
    >>> path = os.path.join(tempfile.mkdtemp(), 'linear')
    >>> export(dygraph.nn.Linear(4, 2), path, [InputSpec([None, 4], 'float32', 'x')])
    >>> os.path.exists(path + '.onnx')
    True
"""

import inspect
import os

import numpy as np

from dygraph.onnx import map_basic, map_nn, map_rnn, map_shape  # noqa: F401 (fill MAPPINGS)
from dygraph.onnx.graph import MAPPINGS, Graph, require_onnx
from dygraph.static import capture as _capture
from dygraph.static.capture import Constant
from dygraph.static.input_spec import InputSpec
from dygraph.static.program import Program, Variable, data, program_guard
from dygraph.tensor.tensor import Tensor

__all__ = ["export", "to_onnx_model", "capture_layer"]

MIN_OPSET = 13


def _specs(layer, input_spec):
    if input_spec is None:
        input_spec = getattr(layer, "_input_spec", None) or getattr(
            getattr(layer, "forward", None), "_input_spec", None)
    if input_spec is None:
        raise ValueError("paddle.onnx.export: give input_spec, e.g. "
                         "[paddle.static.InputSpec([None, 3, 32, 32], 'float32', 'x')]")
    try:
        params = [p.name for p in inspect.signature(layer.forward if hasattr(
            layer, "forward") else layer).parameters.values()]
    except (TypeError, ValueError):
        params = []
    specs = []
    for i, spec in enumerate(input_spec):
        if isinstance(spec, Tensor):
            spec = InputSpec.from_tensor(spec)
        elif isinstance(spec, np.ndarray):
            spec = InputSpec.from_numpy(spec)
        elif not isinstance(spec, InputSpec):
            raise TypeError(f"paddle.onnx.export: input_spec[{i}] must be an InputSpec or an "
                            f"example Tensor, got {type(spec).__name__}")
        name = spec.name or (params[i] if i < len(params) else f"x{i}")
        specs.append(InputSpec(spec.shape, spec.dtype, name))
    return specs


def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [leaf for item in out for leaf in _flatten(item)]
    if isinstance(out, dict):
        return [leaf for item in out.values() for leaf in _flatten(item)]
    return [out]


def capture_layer(layer, input_spec):
    """(program, feed names, fetch names) of `layer` called in eval mode on inputs made from
    `input_spec`; the layer's training flag is restored afterwards.

    Example:
        >>> import dygraph
        >>> program, feeds, fetches = capture_layer(
        ...     dygraph.nn.ReLU(), [InputSpec([None, 3], 'float32', 'x')])
        >>> feeds, program.global_block().ops[0].type
        (['x'], 'relu')
    """
    specs = _specs(layer, input_spec)
    training = getattr(layer, "training", False)
    if hasattr(layer, "eval"):
        layer.eval()
    was_static = not _capture.in_dynamic_mode()
    main = Program()
    _capture.enable_static()
    try:
        with program_guard(main, Program()):
            feeds = [data(s.name, s.shape, s.dtype) for s in specs]
            outputs = _flatten(layer(*feeds))
    finally:
        if not was_static:
            _capture.disable_static()
        if training and hasattr(layer, "train"):
            layer.train()
    for i, out in enumerate(outputs):
        if not isinstance(out, Variable):
            raise TypeError(f"paddle.onnx.export: output {i} of the layer is a "
                            f"{type(out).__name__}, not a value computed from the inputs")
    return main, [f.name for f in feeds], [o.name for o in outputs]


def _needed_ops(block, fetches):
    needed, chosen = set(fetches), []
    for o in reversed(block.ops):
        if set(o.outputs) & needed:
            chosen.append(o)
            needed |= set(o.inputs)
    return chosen[::-1], needed


def _value_info(helper, var, name, free_names):
    dims = []
    for i, d in enumerate(var.static_shape):
        dims.append(d if d >= 0 else free_names(i))
    return helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(var._data.dtype), dims)


def to_onnx_model(program, feeds, fetches, opset_version=17, graph_name="dygraph",
                  values=None, output_names=None):
    """The ONNX ModelProto of `program` from `feeds` to `fetches` (variable names).
    Persistable values come from `values` (name -> array, e.g. a Scope's vars) or the
    program's parameters; the outputs are called `output_names` (default output_0...)."""
    onnx = require_onnx()
    helper = onnx.helper
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= int(opset_version) <= newest:
        raise ValueError(f"paddle.onnx.export: opset_version must be in [{MIN_OPSET}, "
                         f"{newest}] (the installed onnx), got {opset_version}")
    block = program.global_block()
    shapes = {n: (v.static_shape, v._data.dtype) for n, v in block.vars.items()}
    g = Graph(helper, int(opset_version), shapes)
    ops, needed = _needed_ops(block, fetches)
    for name in sorted(needed - set(feeds)):
        var = block.vars[name]
        if var.persistable:
            source = program.parameters.get(name)
            if values is not None and name in values:
                g.initializers[name] = np.asarray(values[name])
            elif source is not None:
                g.initializers[name] = np.asarray(source._data)
            else:
                raise ValueError(f"paddle.onnx.export: persistable {name!r} has no value")
    for o in ops:
        if isinstance(o.op, Constant):
            g.initializers[o.outputs[0]] = np.asarray(o.op.value)
            continue
        mapping = MAPPINGS.get(type(o.op))
        if mapping is None:
            cls = type(o.op)
            raise NotImplementedError(f"paddle.onnx.export: op {cls.__name__} "
                                      f"({cls.__module__}) has no ONNX mapping (program op "
                                      f"{o!r})")
        mapping(g, o.op, list(o.inputs), list(o.outputs))
    output_names = _name_outputs(g, feeds, fetches, output_names)
    # Free dims get names of their own (one input's batch says nothing of another's).
    lead = "batch" if len(feeds) == 1 else "{}_batch"
    inputs = [_value_info(helper, block.vars[n], n,
                          lambda i, n=n: lead.format(n) if i == 0 else f"{n}_dim{i}")
              for n in feeds]
    outputs = [_value_info(helper, block.vars[f], out, lambda i: None)
               for f, out in zip(fetches, output_names)]
    # Only what a node reads: mappings fold some parameters into new initializers.
    used = {name for node in g.nodes for name in node.input}
    initializers = [onnx.numpy_helper.from_array(np.ascontiguousarray(v), name=k)
                    for k, v in g.initializers.items() if k in used]
    graph = helper.make_graph(g.nodes, graph_name, inputs, outputs, initializers)
    opsets = [helper.make_opsetid("", int(opset_version))]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="dygraph",
                              ir_version=helper.find_min_ir_version_for(opsets))
    return model


def _name_outputs(g, feeds, fetches, names=None):
    """Name the graph outputs (output_0, output_1... by default): each fetch produced by a
    node is renamed there; a feed, an initializer or a repeated fetch gets an Identity."""
    produced = {out: node for node in g.nodes for out in node.output}
    wanted = names or [f"output_{i}" for i in range(len(fetches))]
    renamed, names = {}, []
    for fetch, name in zip(fetches, wanted):
        if fetch == name and fetch in produced:
            names.append(name)
            continue
        if fetch in produced and fetch not in renamed:
            renamed[fetch] = name
        else:
            g.add("Identity", [renamed.get(fetch, fetch)], [name])
        names.append(name)
    for node in g.nodes:
        for field in (node.input, node.output):
            for k, value in enumerate(field):
                if value in renamed:
                    field[k] = renamed[value]
    return names


def export(layer, path, input_spec=None, opset_version=17, **configs):
    """Write `path + '.onnx'`: `layer` (a Layer or function of Tensors) captured in eval
    mode with inputs from `input_spec` (InputSpecs or example Tensors; None and -1 dims
    stay dynamic), checked with onnx.checker. Needs the onnx package
    (pip install 'dygraph-framework[onnx]'). `enable_onnx_checker=False` skips the check.

    A layer that jit.load returned is exported from its saved program. An op without an
    ONNX mapping raises NotImplementedError naming the op class.
    """
    onnx = require_onnx()
    check = configs.pop("enable_onnx_checker", True)
    if configs:
        raise TypeError(f"paddle.onnx.export: unsupported options {sorted(configs)}")
    from dygraph.jit.save_load import TranslatedLayer

    values = None
    if isinstance(layer, TranslatedLayer):
        # A loaded model is its saved inference program already: exported as it is (its
        # inputs keep the saved shapes; input_spec is not needed).
        program, feeds, fetches = layer._program, list(layer._feeds), list(layer._fetches)
        values = {name: t._data for name, t in layer._persistables.items()}
    else:
        program, feeds, fetches = capture_layer(layer, input_spec)
    model = to_onnx_model(program, feeds, fetches, opset_version,
                          graph_name=type(layer).__name__, values=values)
    if check:
        onnx.checker.check_model(model, full_check=True)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    onnx.save(model, path + ".onnx")
