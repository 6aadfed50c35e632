"""convert_to_mixed_precision: a saved float32 model rewritten to float16 or bfloat16 runs
close to the original, stores its low-precision parameters low, keeps (or not) float32
inputs and outputs, honours the black and white lists and keeps control flow in float32."""

import json
import os
import pathlib

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.inference import (
    Config,
    PlaceType,
    PrecisionType,
    convert_to_mixed_precision,
    create_predictor,
)
from dygraph.static.executor import Executor, Scope
from dygraph.static.io import load_inference_model

REFS = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                   / "inference_refs.json").read_text())
X = np.linspace(-1, 1, 5 * 16, dtype=np.float32).reshape(5, 16)


def _save(tmp_path, build):
    dygraph.seed(3)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 16])
            y = build(x)
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "fp32")
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    return prefix


def _mlp(x):
    h = dygraph.nn.functional.relu(dygraph.nn.Linear(16, 256)(x))
    h = dygraph.nn.LayerNorm(256)(h)
    return dygraph.nn.functional.softmax(dygraph.nn.Linear(256, 8)(h))


def _convert(prefix, precision, **kwargs):
    out = prefix + f"_{int(precision)}"
    convert_to_mixed_precision(prefix + ".pdmodel", prefix + ".pdiparams", out + ".pdmodel",
                               out + ".pdiparams", precision, PlaceType.GPU, **kwargs)
    return out


def _run(prefix, x=X):
    return create_predictor(Config(prefix)).run([x])[0].numpy()


def _program(prefix):
    program, feeds, fetches = load_inference_model(prefix, Executor(), scope=Scope())
    return program.global_block(), feeds, fetches


def test_float16_model_is_close_and_half_the_size(tmp_path):
    prefix = _save(tmp_path, _mlp)
    half = _convert(prefix, PrecisionType.Half)
    out = _run(half)
    assert out.dtype == np.float32  # keep_io_types: float32 in, float32 out
    np.testing.assert_allclose(out, _run(prefix), atol=2e-3)
    block, feeds, fetches = _program(half)
    dtypes = {n: v._data.dtype.name for n, v in block.vars.items() if v.persistable}
    assert {d for n, d in dtypes.items() if "linear" in n} == {"float16"}
    # layer norm is on the black list: its parameters stay float32, cast around it
    assert {d for n, d in dtypes.items() if "layer_norm" in n} == {"float32"}
    assert os.path.getsize(half + ".pdiparams") < 0.65 * os.path.getsize(prefix + ".pdiparams")
    assert feeds == ["x"] and [v.name for v in fetches] == [v.name for v in
                                                           _program(prefix)[2]]


def test_without_keep_io_types_the_input_is_float16(tmp_path):
    prefix = _save(tmp_path, lambda x: dygraph.nn.Linear(16, 4)(x))
    half = _convert(prefix, PrecisionType.Half, keep_io_types=False)
    block, _, fetches = _program(half)
    assert block.vars["x"]._data.dtype == np.float16
    assert fetches[0]._data.dtype == np.float16
    out = _run(half, X.astype(np.float16))
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), _run(prefix), atol=1e-2)


def test_bfloat16_rounds_parameters_and_values(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    prefix = _save(tmp_path, _mlp)
    bf16 = _convert(prefix, PrecisionType.Bfloat16)
    values = dygraph.load(bf16 + ".pdiparams", return_numpy=True)
    weight = next(v for k, v in values.items() if k.startswith("linear"))
    assert weight.dtype == np.float32  # bfloat16 is kept in float32 storage
    np.testing.assert_array_equal(weight, weight.astype(ml_dtypes.bfloat16).astype(np.float32))
    out, ref = _run(bf16), _run(prefix)
    assert not np.array_equal(out, ref)
    np.testing.assert_allclose(out, ref, atol=2e-2)


def test_black_list_keeps_an_op_in_float32(tmp_path):
    prefix = _save(tmp_path, _mlp)
    half = _convert(prefix, PrecisionType.Half, black_list={"matmul_v2", "linear", "relu"})
    block, _, _ = _program(half)
    assert all(v._data.dtype == np.float32 for v in block.vars.values() if v.persistable)
    np.testing.assert_allclose(_run(half), _run(prefix), rtol=1e-6, atol=1e-7)
    # DyGraph's layer norm op is Normalize (amp's alias of Paddle's layer_norm names a
    # class that no longer exists, so the list is given DyGraph's name)
    whitened = _convert(prefix, PrecisionType.Half, white_list={"normalize"})
    block, _, _ = _program(whitened)
    assert {v._data.dtype for n, v in block.vars.items() if "layer_norm" in n} == {
        np.dtype(np.float16)}


def test_control_flow_runs_in_float32_inside_a_low_model(tmp_path):
    def looped(x):
        h = dygraph.nn.Linear(16, 16)(x)
        i, n = dygraph.full([1], 0, "int64"), dygraph.full([1], 3, "int64")
        _, h = static.nn.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, dygraph.tanh(h)),
                                    [i, h])
        return dygraph.nn.Linear(16, 4)(h)

    prefix = _save(tmp_path, looped)
    half = _convert(prefix, PrecisionType.Half)
    np.testing.assert_allclose(_run(half), _run(prefix), atol=2e-3)
    block, _, _ = _program(half)
    loop = next(o for o in block.ops if o.type == "while")
    assert all(block.vars[n]._data.dtype != np.float16 for n in loop.inputs if n in block.vars)


def test_refusals(tmp_path):
    prefix = _save(tmp_path, lambda x: dygraph.nn.Linear(16, 4)(x))
    args = (prefix + ".pdmodel", prefix + ".pdiparams", prefix + "_h.pdmodel",
            prefix + "_h.pdiparams")
    with pytest.raises(ValueError) as info:
        convert_to_mixed_precision(*args, PrecisionType.Half, PlaceType.CPU)
    assert type(info.value).__name__ == REFS["convert_on_cpu_backend_raises"]
    with pytest.raises(ValueError, match="PrecisionType.Half or PrecisionType.Bfloat16"):
        convert_to_mixed_precision(*args, PrecisionType.Int8, PlaceType.GPU)
    with pytest.raises(TypeError, match="white_list"):
        convert_to_mixed_precision(*args, PrecisionType.Half, PlaceType.GPU, grey_list=set())
    assert not os.path.exists(prefix + "_h.pdmodel")
