"""Saving and restoring a program's persistable values (parameters and optimizer state held
in the scope): `paddle.static.save/load` and 1.x `fluid.io.save_persistables/
load_persistables` with an executor. The values go in the checkpoint format (atomic,
never a pickle).

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     y = dygraph.nn.Linear(2, 1)(static.data('x', [None, 2]))
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> path = os.path.join(tempfile.mkdtemp(), 'model')
    >>> save(main, path)
    >>> w = main.all_parameters()[0].name
    >>> static.global_scope().vars[w][...] = 0
    >>> load(main, path, exe); bool(np.abs(static.global_scope().vars[w]).sum() > 0)
    True
"""

import os

import numpy as np

from dygraph.io.checkpoint import load as _load
from dygraph.io.checkpoint import save as _save
from dygraph.static.executor import global_scope

__all__ = ["save", "load", "save_persistables", "load_persistables"]


def _persistable_names(program):
    return [v.name for v in program.list_vars() if v.persistable]


def _values(program, scope, what):
    values = {}
    for name in _persistable_names(program):
        value = scope.vars.get(name)
        if value is None:
            raise ValueError(f"{what}: {name!r} has no value in the scope; run the startup "
                             "program first")
        values[name] = np.asarray(value)
    return values


def _restore(program, values, scope, source, what):
    names = _persistable_names(program)
    missing = [n for n in names if n not in values]
    if missing:
        raise ValueError(f"{what}: {source} lacks {missing[:5]} of the program's "
                         f"persistable values")
    for name in names:
        value = np.asarray(values[name])
        old = scope.vars.get(name)
        if old is not None and old.shape != value.shape:
            raise ValueError(f"{what}: {name!r} has shape {list(value.shape)} in {source} "
                             f"but {list(old.shape)} in the program")
        scope.vars[name] = np.array(value, copy=True)


def save(program, model_path, protocol=4, **configs):
    """Write the program's persistable values to `model_path.pdparams`."""
    directory = os.path.dirname(model_path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    _save(_values(program, configs.get("scope") or global_scope(), "static.save"),
          model_path + ".pdparams")


def load(program, model_path, executor=None, var_list=None):
    """Read `model_path.pdparams` into the scope (every persistable value of `program`)."""
    path = model_path if model_path.endswith(".pdparams") else model_path + ".pdparams"
    _restore(program, _load(path, return_numpy=True), global_scope(), repr(path),
             "static.load")


def save_persistables(executor, dirname, main_program=None, filename=None):
    """1.x: the persistable values of `main_program` into `dirname` (one file)."""
    from dygraph.static.program import default_main_program

    program = main_program or default_main_program()
    os.makedirs(dirname, exist_ok=True)
    _save(_values(program, global_scope(), "save_persistables"),
          os.path.join(dirname, filename or "__persistables__"))


def load_persistables(executor, dirname, main_program=None, filename=None):
    """1.x: read what save_persistables wrote back into the scope."""
    from dygraph.static.program import default_main_program

    program = main_program or default_main_program()
    path = os.path.join(dirname, filename or "__persistables__")
    _restore(program, _load(path, return_numpy=True), global_scope(), repr(path),
             "load_persistables")
