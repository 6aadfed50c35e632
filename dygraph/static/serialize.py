"""Programs and their values as bytes (Paddle's paddle.static.serialize_program,
deserialize_program, serialize_persistables, deserialize_persistables, save_to_file,
load_from_file, normalize_program).

The bytes are the safe formats of save_inference_model, not a pickle: a program is its
JSON record (dygraph/static/program_format.py is the schema) with the constant arrays its
ops hold, together in one checkpoint-format container; persistables are a checkpoint of
named arrays. Deserializing checks every field and runs nothing from the bytes.

Example:
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
    >>> program = deserialize_program(serialize_program([x], [y], program=main))
    >>> _ = deserialize_persistables(program, serialize_persistables([x], [y], exe,
    ...                                                               program=main), exe)
    >>> exe.run(program, feed={'x': np.ones((3, 2), np.float32)},
    ...         fetch_list=[program.global_block().var(y.name)])[0].shape
    (3, 1)
"""

import io
import json

import numpy as np

from dygraph.io.checkpoint import load, save
from dygraph.static.executor import global_scope
from dygraph.static.io import decode_inference, encode_inference
from dygraph.static.program import Operator, Program, Variable

__all__ = ["serialize_program", "deserialize_program", "serialize_persistables",
           "deserialize_persistables", "save_to_file", "load_from_file",
           "normalize_program"]

_MODEL = "@model"  # the container entry holding the program's JSON record


def _variables(value, what):
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items or not all(isinstance(v, Variable) for v in items):
        raise TypeError(f"{what} type must be a Variable or a list of Variable.")
    return items


def _to_bytes(arrays):
    buffer = io.BytesIO()
    save(arrays, buffer)
    return buffer.getvalue()


def _from_bytes(data, what):
    if not isinstance(data, bytes):
        raise TypeError(f"{what}: data must be bytes, got {type(data).__name__}")
    arrays = load(io.BytesIO(data), return_numpy=True)
    if not isinstance(arrays, dict):
        raise ValueError(f"{what}: the bytes do not hold named arrays")
    return arrays


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The inference program from `feed_vars` to `fetch_vars` (of `program=`, else the
    program the variables belong to) as bytes, without the persistable values.

    Example:
        >>> import dygraph
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     x = static.data('x', [None, 2])
        ...     y = dygraph.nn.Linear(2, 1)(x)
        >>> dygraph.disable_static()
        >>> exe = static.Executor(); _ = exe.run(startup)
        >>> program = deserialize_program(serialize_program([x], [y], program=main))
        >>> [o.type for o in program.global_block().ops]
        ['linear']
    """
    feed_vars = _variables(feed_vars, "feed_vars")
    fetch_vars = _variables(fetch_vars, "fetch_vars")
    model, arrays, _ = encode_inference(feed_vars, fetch_vars, kwargs.get("program"), None,
                                        "serialize_program", with_values=False)
    arrays = dict(arrays)
    arrays[_MODEL] = np.frombuffer(json.dumps(model).encode(), np.uint8)
    return _to_bytes(arrays)


def deserialize_program(data):
    """The Program serialize_program made `data` from (its persistable values come from
    deserialize_persistables).

    Example:
        >>> deserialize_program(b'not a program')
        Traceback (most recent call last):
        ...
        ValueError: deserialize_program: the bytes are not a serialized program
    """
    try:
        arrays = _from_bytes(data, "deserialize_program")
    except (ValueError, OSError):
        arrays = {}
    record = arrays.pop(_MODEL, None)
    if record is None:
        raise ValueError("deserialize_program: the bytes are not a serialized program")
    try:
        model = json.loads(bytes(np.asarray(record, np.uint8)).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("deserialize_program: the program record is damaged") from None
    if not isinstance(model, dict) or model.get("format") != "dygraph-program":
        raise ValueError("deserialize_program: the bytes are not a serialized program")
    program, _, _, _ = decode_inference(model, arrays, "serialized program",
                                        with_values=False)
    return program


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The values (from the scope) of the persistable variables the inference program
    from `feed_vars` to `fetch_vars` reads, as bytes.

    Example:
        >>> import dygraph
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     x = static.data('x', [None, 2])
        ...     y = dygraph.nn.Linear(2, 1)(x)
        >>> dygraph.disable_static()
        >>> exe = static.Executor(); _ = exe.run(startup)
        >>> data = serialize_persistables([x], [y], exe, program=main)
        >>> isinstance(data, bytes)
        True
    """
    feed_vars = _variables(feed_vars, "feed_vars")
    fetch_vars = _variables(fetch_vars, "fetch_vars")
    _, _, values = encode_inference(feed_vars, fetch_vars, kwargs.get("program"),
                                    kwargs.get("scope") or global_scope(),
                                    "serialize_persistables")
    return _to_bytes(values)


def deserialize_persistables(program, data, executor):
    """Put the values serialize_persistables wrote into the scope, each checked against
    the variable of `program` it is for; returns the program.

    Example:
        >>> import dygraph
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     x = static.data('x', [None, 2])
        ...     y = dygraph.nn.Linear(2, 1)(x)
        >>> dygraph.disable_static()
        >>> exe = static.Executor(); _ = exe.run(startup)
        >>> program = deserialize_program(serialize_program([x], [y], program=main))
        >>> data = serialize_persistables([x], [y], exe, program=main)
        >>> deserialize_persistables(program, data, exe) is program
        True
    """
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `Program`, but received {type(program)}")
    values = _from_bytes(data, "deserialize_persistables")
    wanted = {v.name: v for v in program.list_vars() if v.persistable}
    checked = {}
    for name, var in wanted.items():
        if name not in values:
            raise ValueError(f"deserialize_persistables: the bytes lack {name!r}")
        value = values[name]
        shape = var.static_shape
        if value.ndim != len(shape) or any(d not in (-1, s) for d, s in
                                           zip(shape, value.shape)):
            raise ValueError(f"deserialize_persistables: {name!r} has shape "
                             f"{list(value.shape)} in the bytes, {list(shape)} in the program")
        checked[name] = np.array(value, dtype=var._data.dtype, copy=True)
    global_scope().vars.update(checked)
    return program


def save_to_file(path, content):
    """Write the bytes `content` to `path`.

    Example:
        >>> save_to_file('/tmp/x', 'text')
        Traceback (most recent call last):
        ...
        ValueError: 'content' type should be bytes.
    """
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path):
    """The bytes of the file at `path`.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), 'blob')
        >>> save_to_file(path, b'abc'); load_from_file(path)
        b'abc'
    """
    with open(path, "rb") as f:
        return f.read()


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """A copy of `program` for inference from `feed_vars` to `fetch_vars`: test mode
    (dropout off, batch norm on running statistics), without gradient or optimizer ops,
    keeping only the ops the fetches need.

    Example:
        >>> normalize_program('main', [], [])
        Traceback (most recent call last):
        ...
        TypeError: program type must be `Program`, but received `<class 'str'>`
    """
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `Program`, but received `{type(program)}`")
    feeds = [v.name for v in _variables(feed_vars, "feed_vars")]
    fetches = [v.name for v in _variables(fetch_vars, "fetch_vars")]
    clone = program.clone(for_test=True)
    block = clone.global_block()
    needed, kept = set(fetches), []
    for o in reversed(block.ops):
        if o.role in ("forward", "const") and set(o.outputs) & needed:
            kept.append(o)
            needed |= set(o.inputs)
    block.ops = [Operator(o.op, o.inputs, o.outputs, o.role) for o in reversed(kept)]
    needed |= set(feeds)
    block.vars = {k: v for k, v in block.vars.items() if k in needed}
    for name in feeds:
        block.vars[name].is_feed = True
    clone._bump()
    return clone
