"""1.x dygraph checkpoints, written with `dygraph.save` / `dygraph.load` (no pickle).

- 1.4/1.5: `save_persistables(model_dict, dirname='save_dir', optimizers=None)` writes the
  model's state into `dirname` (and the optimizers' state when given);
  `load_persistables(dirname)` returns (params, optimizers) (1.5) and
  `load_persistables(state_dict, dirname)` the values for state_dict's keys (1.4).
- 1.6: `save_dygraph(state_dict, model_path)` writes `model_path.pdparams` for a layer's
  state or `model_path.pdopt` for an optimizer's; `load_dygraph(model_path)` returns
  (params, optimizer state) as NumPy arrays, None for a file that is not there.

Example:
    >>> import os, tempfile
    >>> import dygraph.fluid as fluid
    >>> folder = os.path.join(tempfile.mkdtemp(), 'save_dir')
    >>> with fluid.dygraph.guard():  # doctest: +NORMALIZE_WHITESPACE
    ...     linear = fluid.dygraph.Linear(2, 1)
    ...     fluid.dygraph.save_persistables(linear.state_dict(), folder)
    ...     params, optimizers = fluid.dygraph.load_persistables(folder)
    No optimizer loaded. If you didn't save optimizer, please ignore this.
    The program can still work with new optimizer.
    >>> sorted(params), optimizers
    (['bias', 'weight'], {})
"""

import collections.abc
import os

from dygraph.framework.parameter import Parameter
from dygraph.io.checkpoint import load, save

__all__ = ["save_persistables", "load_persistables", "save_dygraph", "load_dygraph"]

PARAMS_FILE = "persistables.pdparams"
OPTIMIZERS_FILE = "optimizers.pdopt"
_NO_OPTIMIZER = ("No optimizer loaded. If you didn't save optimizer, please ignore this. "
                 "The program can still work with new optimizer. ")


def _optimizer_states(optimizers):
    if not isinstance(optimizers, (list, tuple)):
        optimizers = [optimizers]
    states = {}
    for opt in optimizers:
        name = getattr(opt, "_name", None) or type(opt).__name__
        if name in states:
            raise ValueError(f"save_persistables: two optimizers are named {name!r}; give "
                             f"them distinct names")
        states[name] = opt.state_dict()
    return states


def save_persistables(model_dict, dirname="save_dir", optimizers=None):
    """Save a layer's state dict (or any {name: variable} dict) into the folder `dirname`,
    with the state of `optimizers` (an optimizer or a list) when given; the folder's
    previous checkpoint is replaced.

    Example:
        >>> import os, tempfile
        >>> import dygraph.fluid as fluid
        >>> folder = os.path.join(tempfile.mkdtemp(), 'ckpt')
        >>> save_persistables(fluid.dygraph.Linear(2, 2).state_dict(), folder)
        >>> sorted(os.listdir(folder))
        ['persistables.pdparams']
    """
    if not isinstance(model_dict, collections.abc.Mapping):
        raise TypeError(f"save_persistables: model_dict must be a dict such as "
                        f"layer.state_dict(), got {type(model_dict).__name__}")
    os.makedirs(dirname, exist_ok=True)
    save(dict(model_dict), os.path.join(dirname, PARAMS_FILE))
    optimizer_path = os.path.join(dirname, OPTIMIZERS_FILE)
    if optimizers is not None:
        save(_optimizer_states(optimizers), optimizer_path)
    elif os.path.exists(optimizer_path):
        os.remove(optimizer_path)  # it belongs to an older checkpoint


def _read_params(dirname):
    path = os.path.join(dirname, PARAMS_FILE)
    if not os.path.isfile(path):
        raise ValueError(f"load_persistables: no checkpoint in {dirname!r} (expected "
                         f"{PARAMS_FILE} written by save_persistables)")
    return load(path)


def load_persistables(*args, **kwargs):
    """Load what save_persistables wrote. Two forms:

    - 1.5 `load_persistables(dirname='save_dir')` -> (params, optimizers): dicts of the
      saved variables and of the optimizers' states ({} when none was saved, with a note).
    - 1.4 `load_persistables(vardict, dirname)` -> {key: value} for vardict's keys.

    Example:
        >>> import os, tempfile
        >>> import dygraph.fluid as fluid
        >>> folder = os.path.join(tempfile.mkdtemp(), 'ckpt')
        >>> state = fluid.dygraph.Linear(2, 2).state_dict()
        >>> save_persistables(state, folder)
        >>> sorted(load_persistables(state, folder))
        ['bias', 'weight']
    """
    if (args and isinstance(args[0], collections.abc.Mapping)) or "vardict" in kwargs:
        return _load_v14(*args, **kwargs)
    return _load_v15(*args, **kwargs)


def _load_v15(dirname="save_dir"):
    params = _read_params(dirname)
    optimizer_path = os.path.join(dirname, OPTIMIZERS_FILE)
    if os.path.isfile(optimizer_path):
        return params, load(optimizer_path)
    print(_NO_OPTIMIZER)
    return params, {}


def _load_v14(vardict, dirname="save_dir", filename=None):
    params = _read_params(dirname)
    missing = [key for key in vardict if key not in params]
    if missing:
        raise ValueError(f"load_persistables: the checkpoint in {dirname!r} has no value "
                         f"for {missing}")
    return {key: params[key] for key in vardict}


def _model_path(model_path, api):
    model_path = os.fspath(model_path)
    if not os.path.basename(model_path):
        raise ValueError(f"{api}: model_path must be dirname/filename, got {model_path!r}")
    return model_path


def save_dygraph(state_dict, model_path):
    """Save a layer's state dict to `model_path + '.pdparams'`, or an optimizer's to
    `model_path + '.pdopt'` (the kind is told by whether it holds parameters).

    Example:
        >>> import os, tempfile
        >>> import dygraph.fluid as fluid
        >>> path = os.path.join(tempfile.mkdtemp(), 'linear')
        >>> save_dygraph(fluid.dygraph.Linear(2, 2).state_dict(), path)
        >>> os.path.exists(path + '.pdparams')
        True
    """
    model_path = _model_path(model_path, "save_dygraph")
    if not isinstance(state_dict, collections.abc.Mapping) or not state_dict:
        raise ValueError("save_dygraph: state_dict must be a non-empty dict (a layer's or "
                         "an optimizer's state_dict())")
    is_model = any(isinstance(v, Parameter) for v in state_dict.values())
    folder = os.path.dirname(model_path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    save(dict(state_dict), model_path + (".pdparams" if is_model else ".pdopt"))


def load_dygraph(model_path):
    """(parameters, optimizer state) saved by save_dygraph under `model_path`, with NumPy
    arrays as values; either is None when its file does not exist. A path ending in
    '.pdparams' or '.pdopt' names the same checkpoint.

    Example:
        >>> import os, tempfile
        >>> import dygraph.fluid as fluid
        >>> path = os.path.join(tempfile.mkdtemp(), 'linear')
        >>> save_dygraph(fluid.dygraph.Linear(2, 2).state_dict(), path)
        >>> params, opt_state = load_dygraph(path)
        >>> sorted(params), opt_state
        (['bias', 'weight'], None)
    """
    model_path = _model_path(model_path, "load_dygraph")
    for suffix in (".pdparams", ".pdopt"):
        if model_path.endswith(suffix):
            model_path = model_path[:-len(suffix)]
    found = []
    for suffix in (".pdparams", ".pdopt"):
        path = model_path + suffix
        if os.path.isdir(path):
            raise ValueError(f"load_dygraph: {path!r} is a directory, not a checkpoint "
                             "file; pass the path that save_dygraph was given")
        found.append(load(path, return_numpy=True) if os.path.isfile(path) else None)
    if found == [None, None]:
        raise ValueError(f"load_dygraph: neither {model_path}.pdparams nor "
                         f"{model_path}.pdopt exists")
    return tuple(found)
