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

__all__ = ["save", "load", "save_persistables", "load_persistables", "load_program_state",
           "set_program_state"]


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


def load_program_state(model_path, var_list=None):
    """{name: array} of what `static.save(program, model_path)` wrote (or, for a directory,
    what `fluid.io.save_persistables` wrote there), to give to set_program_state. As in
    Paddle, `var_list` does not narrow a file saved whole.

    Example:
        >>> import os, tempfile
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
        >>> sorted(load_program_state(path)) == sorted(p.name for p in main.all_parameters())
        True
    """
    if os.path.isdir(model_path):
        path = os.path.join(model_path, "__persistables__")
    else:
        path = model_path if model_path.endswith(".pdparams") else model_path + ".pdparams"
    if not os.path.exists(path):
        raise ValueError(f"load_program_state: no saved program state at {model_path!r}")
    state = _load(path, return_numpy=True)
    if not isinstance(state, dict):
        raise ValueError(f"load_program_state: {path!r} does not hold named arrays")
    return {name: np.asarray(value) for name, value in state.items()}


def set_program_state(program, state_dict):
    """Put the arrays of `state_dict` ({name: array}) into the scope for the persistable
    variables of `program` they name; a shape that differs from the variable's raises
    AssertionError, and a variable without an entry keeps its value (with a warning).

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> from dygraph import static
        >>> dygraph.enable_static()
        >>> main, startup = static.Program(), static.Program()
        >>> with static.program_guard(main, startup):
        ...     y = dygraph.nn.Linear(2, 1, bias_attr=False)(static.data('x', [None, 2]))
        >>> dygraph.disable_static()
        >>> w = main.all_parameters()[0].name
        >>> set_program_state(main, {w: np.ones((2, 1), np.float32)})
        >>> static.global_scope().vars[w].tolist()
        [[1.0], [1.0]]
    """
    import warnings

    scope = global_scope()
    unset = []
    for var in program.list_vars():
        if not var.persistable:
            continue
        if var.name not in state_dict:
            unset.append(var.name)
            continue
        value = np.asarray(state_dict[var.name])
        shape = var.static_shape
        if value.ndim != len(shape) or any(d not in (-1, s) for d, s in
                                           zip(shape, value.shape)):
            raise AssertionError(f"Parameter's shape does not match, the Program requires a "
                                 f"parameter with the shape of ({tuple(shape)}), while the "
                                 f"loaded parameter (namely [ {var.name} ]) has a shape of "
                                 f"({tuple(value.shape)}).")
        scope.vars[var.name] = np.array(value, dtype=var._data.dtype, copy=True)
    if unset:
        warnings.warn(f"set_program_state: no value for {unset[:5]} in state_dict; they keep "
                      "their values", UserWarning, stacklevel=2)
