"""PredictorPool, get_num_bytes_of_data_type and the TensorRT versions against Paddle 3.3's
answers (tests/data/inference_refs.json, written by tools/record_inference_refs.py)."""

import json
import pathlib

import numpy as np
import pytest

import dygraph
from dygraph import inference, static

REFS = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                   / "inference_refs.json").read_text())


@pytest.fixture(scope="module")
def model_prefix(tmp_path_factory):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 4])
            y = dygraph.nn.functional.relu(dygraph.nn.Linear(4, 3)(x))
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path_factory.mktemp("pool") / "m")
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    return prefix


def _raised(call):
    try:
        call()
    except Exception as exc:
        return type(exc).__name__
    return None


def test_num_bytes_and_trt_versions_are_paddles():
    for name, size in REFS["num_bytes"].items():
        assert inference.get_num_bytes_of_data_type(inference.DataType[name]) == size, name
    assert _raised(lambda: inference.get_num_bytes_of_data_type(5)) == (
        REFS["num_bytes_of_int_raises"])
    assert list(inference.get_trt_compile_version()) == REFS["trt_compile_version"]
    assert list(inference.get_trt_runtime_version()) == REFS["trt_runtime_version"]


def test_pool_hands_out_independent_predictors(model_prefix):
    pool = inference.PredictorPool(inference.Config(model_prefix), 2)
    assert (pool.retrieve(1) is pool.retrieve(1)) == REFS["pool_same_object"]
    assert (pool.retrieve(0) is not pool.retrieve(1)) == REFS["pool_distinct_objects"]
    a, b = pool.retrieve(0), pool.retrieve(1)
    a.get_input_handle("x").copy_from_cpu(np.ones((2, 4), np.float32))
    b.get_input_handle("x").copy_from_cpu(-np.ones((5, 4), np.float32))
    a.run()
    b.run()
    out_a = a.get_output_handle(a.get_output_names()[0]).copy_to_cpu()
    out_b = b.get_output_handle(b.get_output_names()[0]).copy_to_cpu()
    assert out_a.shape == (2, 3) and out_b.shape == (5, 3)


def test_pool_errors_are_paddles(model_prefix):
    config = inference.Config(model_prefix)
    pool = inference.PredictorPool(config, 2)
    calls = {"size 0": lambda: inference.PredictorPool(config, 0),
             "size -1": lambda: inference.PredictorPool(config, -1),
             "retrieve 2 of 2": lambda: pool.retrieve(2),
             "retrieve -1": lambda: pool.retrieve(-1)}
    for case, expected in REFS["pool_raises"].items():
        assert _raised(calls[case]) == expected, case
