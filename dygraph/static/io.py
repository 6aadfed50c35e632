"""Saving and loading inference programs: the program as JSON, the values in the checkpoint
format. Loading never executes code from the files.

`path.pdmodel` holds the forward ops from the feeds to the fetches: each op's class, its
declared attributes and its input and output names, in the schema of
dygraph/static/program_format.py (which the loader checks before building anything).
`path.pdiparams` holds the parameters and constants (dygraph.save). A save replaces the
pair as one, and both files carry the id of the save that wrote them.

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

import contextlib
import json
import os
import secrets

import numpy as np

from dygraph.io.checkpoint import load, save
from dygraph.static import program_format as fmt
from dygraph.static.capture import Slot
from dygraph.static.executor import global_scope
from dygraph.static.program import PROBES, Block, Operator, Program, Variable

__all__ = ["save_inference_model", "load_inference_model", "encode_inference",
           "decode_inference"]

# The parameters file holds this entry too: the id of the save that wrote the pair, which
# the program file repeats, so that a loader can tell a pair mixed from two saves.
_SAVE_ID = "@save_id"
_OP_FIELDS = {"class", "type", "attrs", "inputs", "outputs", "stop_gradient"}


@contextlib.contextmanager
def _pair_lock(directory, exclusive):
    """Holds an advisory lock on `directory` (flock): savers take it exclusively around the
    two renames, loaders shared around the two reads, so a loader never sees half of a
    save. Where flock is missing (Windows) the save id check still refuses a mixed pair."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(directory or ".", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _forward_ops(program, feed_names, fetch_names):
    """The forward ops that the fetches need, in program order."""
    needed, chosen = set(fetch_names), []
    for o in reversed(program.global_block().ops):
        if o.role in ("forward", "const") and set(o.outputs) & needed:
            chosen.append(o)
            needed |= set(o.inputs)
    return chosen[::-1], needed


def _program_of(program, variables):
    """The program to save: `program`, else the one the feed and fetch Variables belong to
    (a program built outside program_guard is not the default one), else the default."""
    from dygraph.static.program import default_main_program

    if program is not None:
        return program
    owners = {id(v.block.program): v.block.program for v in variables
              if isinstance(v, Variable) and v.block is not None}
    if len(owners) > 1:
        raise ValueError("save_inference_model: the feed and fetch variables belong to "
                         f"{len(owners)} different programs; pass program=")
    return next(iter(owners.values())) if owners else default_main_program()


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None,
                         **kwargs):
    """Write `path_prefix.pdmodel` (the program from `feed_vars` to `fetch_vars`, in
    inference mode) and `path_prefix.pdiparams` (its parameters, from the executor's scope).

    The pair is replaced as one: both files are written under temporary names and renamed
    under a lock that loaders share, and each names the save that wrote it."""
    model, arrays, values = encode_inference(feed_vars, fetch_vars, program,
                                             kwargs.get("scope") or global_scope(),
                                             "save_inference_model")
    arrays.update(values)
    save_id = secrets.token_hex(16)
    arrays[_SAVE_ID] = np.frombuffer(save_id.encode(), np.uint8)
    model["save_id"] = save_id
    _write_pair(path_prefix, json.dumps(model).encode(), arrays)


def encode_inference(feed_vars, fetch_vars, program, scope, api, with_values=True):
    """(the model record, the arrays its ops refer to, the persistable values from
    `scope`) of the inference program from `feed_vars` to `fetch_vars` (see the module
    docstring); with_values=False leaves the values out (empty)."""
    feed_vars, fetch_vars = _list(feed_vars), _list(fetch_vars)
    source = _program_of(program, feed_vars + fetch_vars)
    feeds = [v.name if isinstance(v, Variable) else str(v) for v in feed_vars]
    fetches = [v.name if isinstance(v, Variable) else str(v) for v in fetch_vars]
    missing = [n for n in feeds + fetches if n not in source.global_block().vars]
    if missing:
        raise ValueError(f"{api}: {missing} are not variables of the program being saved; "
                         "pass program= (the Program they were built in)")
    program = source.clone(for_test=True)
    ops, needed = _forward_ops(program, feeds, fetches)
    needed |= set(feeds)  # a feed only read for its shape (view_as's y) is still an input
    block = program.global_block()
    encoder = fmt.Encoder()
    op_records = _op_records(ops, block, encoder, "op")
    block_records = []
    while len(block_records) < len(encoder.blocks):  # encoding may find nested blocks
        index, sub = sorted(encoder.blocks.values(), key=lambda e: e[0])[len(block_records)]
        block_records.append(_op_records(sub.ops, sub, encoder, f"block {index} op"))
    variables, values = {}, {}
    for name in sorted(needed):
        # (the test clone keeps the variables ops use: a feed that is only fetched, or
        # only read for its shape, comes from the program itself)
        var = block.vars[name] if name in block.vars else source.global_block().vars[name]
        variables[name] = {"shape": list(var.static_shape),
                           "dtype": fmt.dtype_name(var._data.dtype),
                           "persistable": var.persistable}
        if var.is_parameter:  # jit.load makes these trainable Parameters again
            variables[name]["parameter"] = True
            variables[name]["stop_gradient"] = bool(var._sg)
        if var.persistable and with_values:
            value = scope.vars.get(name)
            if value is None:
                raise ValueError(f"{api}: parameter {name!r} has no value in the scope; run "
                                 "the startup program first")
            values[name] = np.asarray(value)
    model = {"format": fmt.FORMAT, "version": fmt.VERSION, "feeds": feeds,
             "fetches": fetches, "vars": variables, "ops": op_records,
             "blocks": block_records}
    return model, encoder.arrays, values


def _write_pair(path_prefix, model_bytes, arrays):
    directory = os.path.dirname(os.path.abspath(path_prefix))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path_prefix}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    try:
        save(arrays, tmp + ".pdiparams")  # itself written atomically, fsynced
        with open(tmp + ".pdmodel", "xb") as f:
            f.write(model_bytes)
            f.flush()
            os.fsync(f.fileno())
        with _pair_lock(directory, exclusive=True):
            os.replace(tmp + ".pdiparams", path_prefix + ".pdiparams")
            os.replace(tmp + ".pdmodel", path_prefix + ".pdmodel")
    finally:
        for leftover in (tmp + ".pdiparams", tmp + ".pdmodel"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def _op_records(ops, block, encoder, what):
    from dygraph.static.block_op import lookup

    records = []
    for i, o in enumerate(ops):
        cls = type(o.op)
        records.append({"class": f"{cls.__module__}:{cls.__qualname__}", "type": o.type,
                        "attrs": encoder.attrs(o.op, f"{what} {i} ({o.type})"),
                        "inputs": o.inputs, "outputs": o.outputs,
                        "stop_gradient": [lookup(block, n)._sg for n in o.inputs]})
    return records


def _names(value, where, decoder):
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise decoder.fail(where, "expected a list of variable names")
    return value


def _decode_ops(records, decoder, table, into, what, strict):
    if not isinstance(records, list):
        raise decoder.fail(what, "ops are not a list")
    for i, record in enumerate(records):
        where = f"{what} {i}"
        if not isinstance(record, dict) or not _OP_FIELDS <= set(record):
            raise decoder.fail(where, f"an op record has the fields {sorted(_OP_FIELDS)}")
        cls = table.lookup(record["class"], f"load_inference_model: {decoder.path}: {where}")
        attrs = decoder.attrs(cls, record["attrs"], where, strict)
        inputs = _names(record["inputs"], f"{where} inputs", decoder)
        outputs = _names(record["outputs"], f"{where} outputs", decoder)
        stops = record["stop_gradient"]
        if (not isinstance(stops, list) or len(stops) != len(inputs)
                or not all(isinstance(b, bool) for b in stops)):
            raise decoder.fail(f"{where} stop_gradient", "expected one bool per input")
        op = object.__new__(cls)
        for k, v in attrs.items():
            setattr(op, k, v)
        op.inputs = tuple(Slot(sg) for sg in stops)
        op.versions = (0,) * len(op.inputs)
        into.ops.append(Operator(op, inputs, outputs))


def _list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _read_pair(model_file, params_file):
    directory = os.path.dirname(os.path.abspath(model_file))
    with _pair_lock(directory, exclusive=False):
        try:
            with open(model_file, "rb") as f:
                text = f.read()
        except (FileNotFoundError, IsADirectoryError):
            raise ValueError(f"load_inference_model: no model file {model_file}") from None
        arrays = load(params_file, return_numpy=True)
    try:
        model = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"load_inference_model: {model_file} is damaged or not a "
                         f"program ({type(exc).__name__}: {str(exc)[:100]})") from None
    if not isinstance(model, dict) or model.get("format") != fmt.FORMAT:
        raise ValueError(f"load_inference_model: {model_file} is not a DyGraph program")
    if model.get("version") not in (1, fmt.VERSION):
        raise ValueError(f"load_inference_model: {model_file}: format version "
                         f"{str(model.get('version'))[:20]} is not one this DyGraph reads")
    if not isinstance(arrays, dict):
        raise ValueError(f"load_inference_model: {params_file} does not hold named arrays")
    saved_by = arrays.pop(_SAVE_ID, None)
    if "save_id" in model or saved_by is not None:
        if saved_by is None or bytes(np.asarray(saved_by, np.uint8)).decode(
                "ascii", "replace") != model.get("save_id"):
            raise ValueError(f"load_inference_model: {model_file} and {params_file} were "
                             "written by two different saves; save the model again")
    return model, arrays


def _create_var(block, name, info, arrays, decoder, values):
    where = f"var {name!r}"
    if not isinstance(info, dict) or not {"shape", "dtype", "persistable"} <= set(info):
        raise decoder.fail(where, "a variable has a shape, a dtype and persistable")
    shape = fmt.check_shape(info["shape"], f"{decoder.path}: {where}")
    dtype = fmt.dtype_from_name(info["dtype"], f"{decoder.path}: {where}")
    # Stand-ins are zero-strided views: a declared shape costs nothing until data arrives.
    try:
        stand_ins = tuple(np.broadcast_to(np.zeros((), dtype),
                                          [p if d == -1 else d for d in shape])
                          for p in PROBES)
    except ValueError:
        raise decoder.fail(where, f"shape {list(shape)} is too large") from None
    var = block.create_var(name, shape, dtype, bool(info["persistable"]),
                           bool(info.get("stop_gradient", False)), stand_ins)
    var.is_parameter = bool(info.get("parameter", False))
    if info["persistable"] and arrays is not None:
        value = arrays.get(name)
        if not isinstance(value, np.ndarray):
            raise decoder.fail(where, "the parameters file holds no array of that name")
        if (value.dtype != dtype or value.ndim != len(shape)
                or any(d not in (-1, s) for d, s in zip(shape, value.shape))):
            raise decoder.fail(where, f"the parameters file holds {value.dtype} "
                                      f"{list(value.shape)}, the program {dtype} {list(shape)}")
        values[name] = np.array(value, copy=True)
    return var


def load_inference_model(path_prefix, executor, **kwargs):
    """[program, feed names, fetch variables] from what save_inference_model wrote; the
    parameters go into the executor's scope (or `scope=`). `model_filename` and
    `params_filename` give the two files' paths when they do not share the prefix.

    The files are data: every op class, attribute, record and function they name is
    checked against dygraph.static.program_format's schema; nothing in them runs, and a
    malformed file raises ValueError naming the file and the field."""
    model_file = kwargs.get("model_filename") or path_prefix + ".pdmodel"
    params_file = kwargs.get("params_filename") or path_prefix + ".pdiparams"
    model, arrays = _read_pair(model_file, params_file)
    program, feeds, fetches, values = decode_inference(model, arrays, model_file)
    scope = kwargs.get("scope") or global_scope()
    scope.vars.update(values)  # only once the whole file has checked out
    return [program, feeds, fetches]


def decode_inference(model, arrays, path, with_values=True):
    """(program, feed names, fetch variables, persistable values) from a model record and
    its arrays, every field checked against the schema (ValueError naming `path` and the
    field). with_values=False builds the program without the persistable values (they
    come later, from deserialize_persistables)."""
    program = Program()
    block = program.global_block()
    subs = model.get("blocks", [])
    if not isinstance(subs, list):
        raise ValueError(f"load_inference_model: {path}: blocks are not a list")
    for _ in subs:  # every block exists before an op refers to it
        program.blocks.append(Block(program, len(program.blocks), 0))
    decoder = fmt.Decoder(path, arrays, program.blocks)
    variables = model.get("vars")
    if not isinstance(variables, dict):
        raise decoder.fail("vars", "expected a mapping of variable names")
    feeds = _names(model.get("feeds"), "feeds", decoder)
    fetches = _names(model.get("fetches"), "fetches", decoder)
    for name in feeds + fetches:
        if name not in variables:
            raise decoder.fail("feeds and fetches", f"{name!r} is not a variable")
    values = {}
    for name, info in variables.items():
        var = _create_var(block, name, info, arrays if with_values else None, decoder,
                          values)
        if not var.persistable and name in feeds:
            var.is_feed = True
    strict = model["version"] == fmt.VERSION
    table = fmt.OpTable()
    _decode_ops(model.get("ops"), decoder, table, block, "op", strict)
    for k, records in enumerate(subs, start=1):
        _decode_ops(records, decoder, table, program.blocks[k], f"block {k} op", strict)
    program._bump()
    return program, list(feeds), [block.vars[n] for n in fetches], values
