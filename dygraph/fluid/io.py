"""fluid.io: the 1.x reader decorators and DataLoader that dygraph code imports from here.

They are `dygraph.reader`'s decorators (Paddle's `paddle.reader`) and `dygraph.io`'s
DataLoader (with `from_generator`).

Example:
    >>> import dygraph.fluid as fluid
    >>> list(fluid.io.batch(lambda: iter(range(5)), batch_size=2, drop_last=True)())
    [[0, 1], [2, 3]]
"""

import os

from dygraph.io import DataLoader
from dygraph.reader import (
    batch,
    buffered,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    shuffle,
    xmap_readers,
)

__all__ = ["DataLoader", "batch", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "shuffle", "xmap_readers", "save_inference_model",
           "load_inference_model", "save_persistables", "load_persistables"]


def save_inference_model(dirname, feeded_var_names, target_vars, executor,
                         main_program=None, model_filename=None, params_filename=None,
                         export_for_deployment=True, program_only=False):
    """1.x form: write the inference program from the named feeds to `target_vars` into
    `dirname` (`__model__` files, as dygraph.static.save_inference_model writes them).

    Example:
        >>> import os, tempfile, numpy as np, dygraph, dygraph.fluid as fluid
        >>> with fluid.program_guard(fluid.Program(), fluid.Program()):
        ...     x = fluid.layers.data(name='x', shape=[2])
        ...     y = fluid.layers.scale(x, 2.0)
        ...     exe = fluid.Executor(fluid.CPUPlace())
        ...     folder = tempfile.mkdtemp()
        ...     save_inference_model(folder, ['x'], [y], exe)
        ...     program, feeds, fetches = load_inference_model(folder, exe)
        >>> dygraph.disable_static()
        >>> exe.run(program, feed={'x': np.ones((1, 2), np.float32)}, fetch_list=fetches)
        [array([[2., 2.]], dtype=float32)]
    """
    from dygraph.static import io as _io
    from dygraph.static.program import default_main_program

    program = main_program or default_main_program()
    block = program.global_block()
    feeds = [block.var(n) if isinstance(n, str) else n for n in feeded_var_names]
    _io.save_inference_model(os.path.join(dirname, model_filename or "__model__"), feeds,
                             target_vars, executor, program=program)


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         pserver_endpoints=None):
    """1.x form: [program, feed names, fetch variables] from save_inference_model's folder."""
    from dygraph.static import io as _io

    return _io.load_inference_model(os.path.join(dirname, model_filename or "__model__"),
                                     executor)


def save_persistables(executor, dirname, main_program=None, filename=None):
    """1.x static form: the program's parameters and optimizer state into `dirname`.
    (The dygraph form, save_persistables(model_dict, dirname), is fluid.dygraph's.)

    Example:
        >>> import tempfile, dygraph, dygraph.fluid as fluid
        >>> with fluid.program_guard(fluid.Program(), fluid.Program()):
        ...     y = fluid.dygraph.FC('fc', 1)(fluid.layers.data(name='x', shape=[2]))
        ...     exe = fluid.Executor(fluid.CPUPlace())
        ...     _ = exe.run(fluid.default_startup_program())
        ...     folder = tempfile.mkdtemp()
        ...     save_persistables(exe, folder)
        ...     load_persistables(exe, folder)
        >>> dygraph.disable_static()
    """
    from dygraph.static import persist

    persist.save_persistables(executor, dirname, main_program, filename)


def load_persistables(executor, dirname, main_program=None, filename=None):
    """1.x static form: read what save_persistables wrote into the scope."""
    from dygraph.static import persist

    persist.load_persistables(executor, dirname, main_program, filename)
