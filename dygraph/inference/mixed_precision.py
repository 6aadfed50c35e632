"""`convert_to_mixed_precision`: a saved float32 model rewritten to compute in float16 or
bfloat16, saved as a new model pair.

The saved program is loaded (as data, through the checked program format) and its ops are
recorded again into a new program under `auto_cast` at level O2: every op computes in the
low precision but those on the black list (DyGraph's amp list, plus `black_list`, less
`white_list`), and the casts between the two are recorded where they are needed. A float
parameter whose readers all compute low is stored low: float16 halves it on disk;
bfloat16, which DyGraph keeps in float32 storage (NumPy has no bfloat16), is stored
rounded to bfloat16. With `keep_io_types` the inputs and outputs stay float32 (the casts
are inside the program); without it the float inputs are declared in the low precision.
Ops that hold sub-blocks (control flow) compute in float32.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> from dygraph.inference import (Config, PlaceType, PrecisionType, create_predictor,
    ...                                convert_to_mixed_precision)
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 4])
    ...     y = dygraph.nn.Linear(4, 2)(x)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> d = tempfile.mkdtemp()
    >>> static.save_inference_model(os.path.join(d, 'm'), [x], [y], exe, program=main)
    >>> convert_to_mixed_precision(os.path.join(d, 'm.pdmodel'), os.path.join(d, 'm.pdiparams'),
    ...                            os.path.join(d, 'h.pdmodel'), os.path.join(d, 'h.pdiparams'),
    ...                            PrecisionType.Half, PlaceType.GPU)
    >>> p = create_predictor(Config(os.path.join(d, 'h')))
    >>> p.run([np.ones((3, 4), np.float32)])[0].dtype
    dygraph.float32
"""

import os
import secrets

import numpy as np

from dygraph.inference.config import PlaceType, PrecisionType

__all__ = ["convert_to_mixed_precision"]

_PRECISIONS = {PrecisionType.Half: "float16", PrecisionType.Bfloat16: "bfloat16"}


def convert_to_mixed_precision(model_file, params_file, mixed_model_file, mixed_params_file,
                               mixed_precision, backend, keep_io_types=True,
                               black_list=frozenset(), **kwargs):
    """Write the model of `model_file`/`params_file` computing in `mixed_precision`
    (PrecisionType.Half or Bfloat16) to `mixed_model_file`/`mixed_params_file` (see the
    module docstring). `backend` is where the model will run: GPU, XPU or CUSTOM; CPU is
    refused, as in Paddle. `black_list` (and kwargs' `white_list`) name ops (Paddle's
    names or DyGraph's) to keep in float32 (to compute low)."""
    white_list = kwargs.pop("white_list", None)
    if kwargs:
        raise TypeError(f"convert_to_mixed_precision: unexpected arguments {sorted(kwargs)}; "
                        "the one extra is white_list")
    precision = _PRECISIONS.get(mixed_precision)
    if precision is None:
        raise ValueError("convert_to_mixed_precision: mixed_precision must be "
                         f"PrecisionType.Half or PrecisionType.Bfloat16, got {mixed_precision!r}")
    if backend not in (PlaceType.GPU, PlaceType.XPU, PlaceType.CUSTOM):
        raise ValueError("convert_to_mixed_precision: mixed precision is supported for the "
                         f"GPU, XPU or CUSTOM backends, not {backend!r}")
    from dygraph.static.executor import Executor, Scope
    from dygraph.static.io import load_inference_model, save_inference_model

    scope = Scope()
    program, feeds, fetch_vars = load_inference_model(
        "", Executor(), model_filename=model_file, params_filename=params_file, scope=scope)
    mixed, feed_vars, outputs, values = _record_mixed(
        program, feeds, [v.name for v in fetch_vars], scope.vars, precision, keep_io_types,
        set(black_list or ()), set(white_list or ()))
    out_scope = Scope()
    out_scope.vars.update(values)
    directory = os.path.dirname(os.path.abspath(mixed_model_file))
    tmp = os.path.join(directory, f".mixed.{os.getpid()}.{secrets.token_hex(6)}")
    try:
        save_inference_model(tmp, feed_vars, outputs, Executor(), program=mixed,
                             scope=out_scope)
        os.replace(tmp + ".pdiparams", mixed_params_file)
        os.replace(tmp + ".pdmodel", mixed_model_file)
    finally:
        for leftover in (tmp + ".pdiparams", tmp + ".pdmodel"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def _holds_blocks(op):
    from dygraph.static import program_format as fmt

    return any(fmt.attr_kind(type(op), name) == fmt.BLOCK
               for name in fmt.declared_attrs(type(op)))


def _lowered(value, precision):
    """A float32 parameter in the low precision's storage."""
    if precision == "float16":
        return value.astype(np.float16)
    try:
        import ml_dtypes
    except ImportError:
        raise ImportError("convert_to_mixed_precision to bfloat16 needs the ml_dtypes "
                          "package: pip install 'dygraph-framework[bfloat16]'") from None
    return value.astype(ml_dtypes.bfloat16).astype(np.float32)


def _rename(block, var, new, ops):
    """Rename `var` of `block` to `new` in the block and in `ops` (those that name it)."""
    old = var.name
    block.vars[new] = block.vars.pop(old)
    var.name = new
    for o in ops:
        o.inputs = [new if n == old else n for n in o.inputs]
        o.outputs = [new if n == old else n for n in o.outputs]


def _declare_inner_names(block):
    """A loaded sub-block knows its inner names (loop placeholders, intermediates) only
    from its ops; saving looks each input up for its stop_gradient, which the loaded op
    kept in its input slots: declare them."""
    from dygraph.static.block_op import lookup

    for o in block.ops:
        for name, slot in zip(o.inputs, o.op.inputs):
            try:
                lookup(block, name)
            except KeyError:
                block.create_var(name, (), np.float32, stop_gradient=slot._sg)


def _keep_names(block, names, outs):
    """Give the variables the last op made (`outs`) the source program's `names`: ops in
    sub-blocks and the fetches refer to them by those. A variable the recording named
    alike before (an inserted cast's) is renamed out of the way first."""
    for name, out in zip(names, outs):
        if out.name == name:
            continue
        if name in block.vars:
            _rename(block, block.vars[name], f"{name}.mixed_{secrets.token_hex(3)}",
                    block.ops)
        _rename(block, out, name, block.ops[-1:])


def _record_mixed(program, feeds, fetches, values, precision, keep_io_types, black, white):
    """The program's ops recorded again under auto_cast O2 into a new Program: returns it,
    its feed and fetch variables, and the (converted) values of its persistables."""
    from dygraph.amp.auto_cast import BLACK_LIST, _op_names, auto_cast
    from dygraph.autograd.function import apply
    from dygraph.ops.common import cast
    from dygraph.static.capture import disable_static, enable_static, in_dynamic_mode
    from dygraph.static.program import Program, data, program_guard

    source = program.global_block()
    kept = {type(o.op).__name__.lower() for o in source.ops if _holds_blocks(o.op)}
    black = _op_names(black) | kept
    white = _op_names(white) - kept
    black_names = (BLACK_LIST | black) - white
    readers = {}
    for o in source.ops:
        for n in o.inputs:
            readers.setdefault(n, []).append(type(o.op).__name__.lower())
    low = np.dtype(np.float16) if precision == "float16" else None
    mixed, switched = Program(), in_dynamic_mode()
    for sub in program.blocks[1:]:  # the sub-blocks, at the same indices, run in float32
        sub.program = mixed
        mixed.blocks.append(sub)
        _declare_inner_names(sub)
    if switched:
        enable_static()
    try:
        with program_guard(mixed, Program()):
            block, env, converted = mixed.global_block(), {}, {}
            for name in feeds:
                var = source.vars[name]
                dtype = var._data.dtype
                if not keep_io_types and low is not None and dtype == np.float32:
                    dtype = low
                env[name] = data(name, list(var.static_shape), dtype)
            for name, var in source.vars.items():
                if not var.persistable or name not in values:
                    continue
                value = values[name]
                if value.dtype == np.float32 and readers.get(name) and not (
                        set(readers[name]) & black_names):
                    value = _lowered(value, precision)
                new = block.create_var(name, value.shape, value.dtype, persistable=True,
                                       stop_gradient=var._sg, stand_ins=(value, value))
                new.is_parameter = var.is_parameter
                env[name], converted[name] = new, value
            with auto_cast(level="O2", dtype=precision, custom_white_list=white,
                           custom_black_list=black):
                for o in source.ops:
                    out = apply(o.op, *[env[n] for n in o.inputs])
                    out = out if isinstance(out, tuple) else (out,)
                    if any(hasattr(v, "static_shape") for v in out):  # recorded, not eager
                        _keep_names(block, o.outputs, out)
                    env.update(zip(o.outputs, out))
            outputs = []
            for name in fetches:
                out, dtype = env[name], source.vars[name]._data.dtype
                if keep_io_types and out._data.dtype != dtype:
                    out = cast(out, dtype)
                outputs.append(out)
    finally:
        if switched:
            disable_static()
    return mixed, [env[n] for n in feeds], outputs, converted
