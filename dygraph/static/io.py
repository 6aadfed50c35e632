"""Saving and loading inference programs: the program as JSON, the values in the checkpoint
format. Loading never executes code from the files.

`path.pdmodel` holds the forward ops from the feeds to the fetches: each op's class (which
must be an Op of the dygraph package), its attributes (numbers, strings, lists, tuples,
geometry records and dygraph functions by name; arrays by reference; the sub-blocks of
while_loop and cond by number, their ops saved alongside) and its input and output
names. `path.pdiparams` holds the parameters and constants (dygraph.save).

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 2])
    ...     y = dygraph.nn.Linear(2, 1)(x)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'model')
    >>> save_inference_model(prefix, [x], [y], exe, program=main)
    >>> program, feeds, fetches = load_inference_model(prefix, exe)
    >>> feeds, exe.run(program, feed={'x': np.ones((3, 2), np.float32)},
    ...                fetch_list=fetches)[0].shape
    (['x'], (3, 1))
"""

import importlib
import json
import os

import numpy as np

from dygraph.autograd.function import Op
from dygraph.io.checkpoint import load, save
from dygraph.static.capture import Slot
from dygraph.static.executor import global_scope
from dygraph.static.program import Block, Operator, Program, Variable

__all__ = ["save_inference_model", "load_inference_model"]

FORMAT = "dygraph-program"
# Attributes that hold one run's working state, not the op's configuration.
_RUN_STATE = {"inputs", "edges", "versions", "out_data", "cols", "saved", "tensors", "outs",
              "keep", "flat", "prob", "rows", "probing", "arg", "inner", "bulk", "xhat",
              "rstd", "batch_mean", "batch_var", "grad_wanted"}


class _Encoder:
    def __init__(self):
        self.arrays = {}
        self.blocks = {}  # id(sub-block) -> (its index in the file, the block)

    def value(self, v, where):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, (np.integer, np.floating, np.bool_)):
            return v.item()
        if isinstance(v, np.dtype):
            return {"__dtype__": v.str}
        if isinstance(v, slice):  # indexing ops (x[:, -1])
            return {"__slice__": [self.value(x, where) for x in (v.start, v.stop, v.step)]}
        if v is Ellipsis:
            return {"__ellipsis__": True}
        if isinstance(v, tuple):
            return {"__tuple__": [self.value(x, where) for x in v]}
        if isinstance(v, list):
            return [self.value(x, where) for x in v]
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"__dict__": {k: self.value(x, where) for k, x in v.items()}}
        if isinstance(v, Block):  # a loop body or branch: saved with the program
            if id(v) not in self.blocks:
                self.blocks[id(v)] = (len(self.blocks) + 1, v)
            return {"__block__": self.blocks[id(v)][0]}
        if isinstance(v, np.ndarray):
            key = f"@array{len(self.arrays)}"
            self.arrays[key] = v
            return {"__array__": key}
        if callable(v) and getattr(v, "__module__", "").startswith("dygraph."):
            return {"__function__": f"{v.__module__}:{v.__qualname__}"}
        if type(v).__module__.startswith("dygraph.") and not isinstance(v, Op):
            # A plain record of dygraph's (Geometry, PoolGeometry): its fields by name.
            slots = getattr(type(v), "__slots__", None)
            fields = {k: getattr(v, k) for k in slots} if slots else vars(v)
            return {"__record__": f"{type(v).__module__}:{type(v).__qualname__}",
                    "fields": {k: self.value(x, where) for k, x in fields.items()}}
        raise TypeError(f"save_inference_model: {where} holds a {type(v).__name__}, which "
                        "an inference program cannot store")


def _resolve(path, what):
    module, _, qualname = path.partition(":")
    if not module.startswith("dygraph.") or not qualname:
        raise ValueError(f"load_inference_model: {what} {path!r} is not part of dygraph")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    # Only what dygraph itself defines: a name reaching an imported module (os.system
    # through `dygraph.x:os.system`) is refused.
    if obj is None or not getattr(obj, "__module__", "").startswith("dygraph."):
        raise ValueError(f"load_inference_model: {what} {path!r} is not defined by dygraph")
    return obj


def _decode(v, arrays, where, blocks=()):
    if isinstance(v, list):
        return [_decode(x, arrays, where, blocks) for x in v]
    if not isinstance(v, dict):
        return v
    if "__tuple__" in v:
        return tuple(_decode(x, arrays, where, blocks) for x in v["__tuple__"])
    if "__dict__" in v:
        return {k: _decode(x, arrays, where, blocks) for k, x in v["__dict__"].items()}
    if "__block__" in v:
        k = v["__block__"]
        if not isinstance(k, int) or not 0 < k < len(blocks):
            raise ValueError(f"load_inference_model: {where}: no block {k!r}")
        return blocks[k]
    if "__array__" in v:
        return arrays[v["__array__"]]
    if "__dtype__" in v:
        return np.dtype(v["__dtype__"])
    if "__slice__" in v:
        return slice(*(_decode(x, arrays, where) for x in v["__slice__"]))
    if "__ellipsis__" in v:
        return Ellipsis
    if "__function__" in v:
        fn = _resolve(v["__function__"], "function")
        # Only the functions static capture records whole (losses, dropout): a file must
        # not make a run call anything else (dygraph.save, for one).
        if not getattr(fn, "static_whole_call", False):
            raise ValueError(f"load_inference_model: {where}: {v['__function__']} is not a "
                             "function a program may call")
        return fn
    if "__record__" in v:
        cls = _resolve(v["__record__"], "record type")
        record = object.__new__(cls)
        for k, x in v["fields"].items():
            setattr(record, k, _decode(x, arrays, where))
        return record
    raise ValueError(f"load_inference_model: {where}: unknown entry {sorted(v)}")


def _forward_ops(program, feed_names, fetch_names):
    """The forward ops that the fetches need, in program order."""
    needed, chosen = set(fetch_names), []
    for o in reversed(program.global_block().ops):
        if o.role in ("forward", "const") and set(o.outputs) & needed:
            chosen.append(o)
            needed |= set(o.inputs)
    return chosen[::-1], needed


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None,
                         **kwargs):
    """Write `path_prefix.pdmodel` (the program from `feed_vars` to `fetch_vars`, in
    inference mode) and `path_prefix.pdiparams` (its parameters, from the executor's scope)."""
    from dygraph.static.program import default_main_program

    program = (program or default_main_program()).clone(for_test=True)
    feeds = [v.name if isinstance(v, Variable) else str(v) for v in _list(feed_vars)]
    fetches = [v.name if isinstance(v, Variable) else str(v) for v in _list(fetch_vars)]
    ops, needed = _forward_ops(program, feeds, fetches)
    block = program.global_block()
    encoder = _Encoder()
    scope = kwargs.get("scope") or global_scope()
    op_records = _op_records(ops, block, encoder, "op")
    block_records = []
    while len(block_records) < len(encoder.blocks):  # encoding may find nested blocks
        index, sub = sorted(encoder.blocks.values(), key=lambda e: e[0])[len(block_records)]
        block_records.append(_op_records(sub.ops, sub, encoder, f"block {index} op"))
    variables = {}
    for name in sorted(needed):
        var = block.vars[name]
        variables[name] = {"shape": list(var.static_shape), "dtype": var._data.dtype.str,
                           "persistable": var.persistable}
        if var.is_parameter:  # jit.load makes these trainable Parameters again
            variables[name]["parameter"] = True
            variables[name]["stop_gradient"] = bool(var._sg)
        if var.persistable:
            value = scope.vars.get(name)
            if value is None:
                raise ValueError(f"save_inference_model: parameter {name!r} has no value in "
                                 "the scope; run the startup program first")
            encoder.arrays[name] = np.asarray(value)
    model = {"format": FORMAT, "version": 1, "feeds": feeds, "fetches": fetches,
             "vars": variables, "ops": op_records, "blocks": block_records}
    directory = os.path.dirname(path_prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    save(encoder.arrays, path_prefix + ".pdiparams")
    data = json.dumps(model).encode()
    tmp = path_prefix + ".pdmodel.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path_prefix + ".pdmodel")


def _op_records(ops, block, encoder, what):
    from dygraph.static.block_op import lookup

    records = []
    for i, o in enumerate(ops):
        attrs = {k: encoder.value(v, f"{what} {i} ({o.type}) attribute {k!r}")
                 for k, v in vars(o.op).items() if k not in _RUN_STATE}
        cls = type(o.op)
        records.append({"class": f"{cls.__module__}:{cls.__qualname__}", "type": o.type,
                        "attrs": attrs, "inputs": o.inputs, "outputs": o.outputs,
                        "stop_gradient": [lookup(block, n)._sg for n in o.inputs]})
    return records


def _decode_ops(records, arrays, blocks, into, what):
    for i, record in enumerate(records):
        cls = _resolve(record["class"], "op class")
        if not (isinstance(cls, type) and issubclass(cls, Op)):
            raise ValueError(f"load_inference_model: {what} {i}: {record['class']} is not "
                             "an op")
        op = object.__new__(cls)
        for k, v in record["attrs"].items():
            setattr(op, k, _decode(v, arrays, f"{what} {i}", blocks))
        op.inputs = tuple(Slot(sg) for sg in record["stop_gradient"])
        op.versions = (0,) * len(op.inputs)
        into.ops.append(Operator(op, record["inputs"], record["outputs"]))


def _list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def load_inference_model(path_prefix, executor, **kwargs):
    """[program, feed names, fetch variables] from what save_inference_model wrote; the
    parameters go into the executor's scope (or `scope=`). `model_filename` and
    `params_filename` give the two files' paths when they do not share the prefix."""
    model_file = kwargs.get("model_filename") or path_prefix + ".pdmodel"
    params_file = kwargs.get("params_filename") or path_prefix + ".pdiparams"
    try:
        with open(model_file, "rb") as f:
            model = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise ValueError(f"load_inference_model: no {model_file}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"load_inference_model: {model_file} is damaged or not a "
                         f"program ({exc})") from None
    if not isinstance(model, dict) or model.get("format") != FORMAT:
        raise ValueError(f"load_inference_model: {model_file} is not a DyGraph "
                         "program")
    arrays = load(params_file, return_numpy=True)
    program = Program()
    block = program.global_block()
    scope = kwargs.get("scope") or global_scope()
    try:
        for name, info in model["vars"].items():
            dtype = np.dtype(info["dtype"])
            var = block.create_var(name, info["shape"], dtype, bool(info["persistable"]),
                                   bool(info.get("stop_gradient", False)))
            var.is_parameter = bool(info.get("parameter", False))
            if info["persistable"]:
                scope.vars[name] = np.array(arrays[name], copy=True)
            elif name in model["feeds"]:
                var.is_feed = True
        subs = model.get("blocks", [])
        for _ in subs:  # every block exists before an op refers to it
            program.blocks.append(Block(program, len(program.blocks), 0))
        _decode_ops(model["ops"], arrays, program.blocks, block, "op")
        for k, records in enumerate(subs, start=1):
            _decode_ops(records, arrays, program.blocks, program.blocks[k], f"block {k} op")
    except (KeyError, TypeError, AttributeError, ImportError) as exc:
        raise ValueError(f"load_inference_model: {model_file} is damaged "
                         f"({type(exc).__name__}: {exc})") from None
    program._bump()
    return [program, list(model["feeds"]), [block.vars[n] for n in model["fetches"]]]
