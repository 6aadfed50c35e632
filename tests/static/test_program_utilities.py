"""What the Paddle-recorded cases cannot check: ExponentialMovingAverage (Paddle 3.3's
fails to build in both its static modes) against its formula, the carriers of build
options, the refusals of damaged bytes, and sparse_embedding against NumPy."""

import numpy as np
import pytest

import dygraph
from dygraph import static


@pytest.fixture(autouse=True)
def _eager_afterwards():
    yield
    dygraph.disable_static()


def _trained_with_ema(decay, thres_steps=False, steps=3):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with dygraph.utils.unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [None, 2])
        y = static.nn.fc(x, 1, weight_attr=dygraph.ParamAttr(
            initializer=dygraph.nn.initializer.Assign(np.array([[1.0], [-2.0]]))))
        dygraph.optimizer.SGD(0.25).minimize(dygraph.mean(y))
        counter = static.create_global_var([1], 4.0, "float32", persistable=True,
                                           name="my_step") if thres_steps else None
        ema = static.ExponentialMovingAverage(decay, thres_steps=counter)
        ema.update()
    exe, scope = static.Executor(), static.Scope()
    history = []
    with static.scope_guard(scope):
        exe.run(startup)
        for _ in range(steps):
            exe.run(main, feed={"x": np.array([[1.0, 3.0]], np.float32)})
            history.append({n: scope.vars[n].copy() for n in ("fc_0.w_0", "fc_0.b_0")})
    return ema, exe, scope, history


@pytest.mark.parametrize("thres_steps", [False, True])
def test_moving_average_follows_its_formula_and_restores(thres_steps):
    ema, exe, scope, history = _trained_with_ema(0.9, thres_steps)
    decay = min(0.9, 5.0 / 14.0) if thres_steps else 0.9
    for name in ("fc_0.w_0", "fc_0.b_0"):
        average = np.zeros_like(history[0][name])
        for values in history:
            average = decay * average + (1 - decay) * values[name]
        np.testing.assert_allclose(scope.vars[f"{name}_ema_0"], average, rtol=1e-6)
        with static.scope_guard(scope), ema.apply(exe):
            np.testing.assert_allclose(scope.vars[name], average / (1 - decay ** 3),
                                       rtol=1e-6)
        np.testing.assert_array_equal(scope.vars[name], history[-1][name])
    assert scope.vars["@EMA_STEP_COUNTER@"].tolist() == [3]


def test_moving_average_without_restore_and_in_dygraph():
    ema, exe, scope, history = _trained_with_ema(0.5, steps=1)
    with static.scope_guard(scope):
        with ema.apply(exe, need_restore=False):
            pass
        np.testing.assert_allclose(scope.vars["fc_0.w_0"], history[0]["fc_0.w_0"], rtol=1e-6)
        scope.vars["fc_0.w_0"] = np.zeros((2, 1), np.float32)
        ema.restore(exe)
        np.testing.assert_array_equal(scope.vars["fc_0.w_0"], history[0]["fc_0.w_0"])
    dygraph.disable_static()
    with pytest.raises(Exception, match="In dygraph"):
        static.ExponentialMovingAverage()


def test_compiled_program_carries_options_and_runs_as_its_program():
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 2])
        y = x * 2.0
    exec_strategy = static.ExecutionStrategy()
    exec_strategy.num_threads = 2
    compiled = static.CompiledProgram(main).with_data_parallel(
        loss_name=y.name, exec_strategy=exec_strategy, places=static.cpu_places(1))
    assert isinstance(compiled, static.CompiledProgram)
    out = static.Executor().run(compiled, feed={"x": np.ones((2, 2), np.float32)},
                                fetch_list=[y])
    assert out[0].tolist() == [[2.0, 2.0], [2.0, 2.0]]
    with pytest.raises(TypeError, match="Program or a CompiledProgram"):
        static.Executor().run("main")
    with pytest.raises(AttributeError):
        exec_strategy.threads = 2


def test_cuda_places_need_a_gpu_build():
    if dygraph.is_compiled_with_cuda():
        assert all(p.is_gpu_place() for p in static.cuda_places())
    else:
        with pytest.raises(AssertionError, match="Not compiled with CUDA"):
            static.cuda_places()


def test_damaged_bytes_are_refused():
    with pytest.raises(ValueError, match="not a serialized program"):
        static.deserialize_program(b"\x00garbage")
    with pytest.raises(TypeError, match="must be bytes"):
        static.deserialize_persistables(static.Program(), "text", None)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2])
        y = dygraph.nn.Linear(2, 1)(x)
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        program = static.deserialize_program(static.serialize_program([x], [y],
                                                                      program=main))
        weight = main.all_parameters()[0].name
        other = dict(static.global_scope().vars)
        other[weight] = np.zeros((3, 3), np.float32)
        import io

        buffer = io.BytesIO()
        dygraph.save(other, buffer)
        with pytest.raises(ValueError, match=weight):
            static.deserialize_persistables(program, buffer.getvalue(), exe)


def test_sparse_embedding_is_a_lookup_of_ids_with_a_trailing_one():
    table = np.arange(12, dtype=np.float32).reshape(6, 2)
    ids = np.array([[1], [5], [2]])
    out = static.nn.sparse_embedding(
        dygraph.to_tensor(ids), (6, 2), padding_idx=2,
        param_attr=dygraph.ParamAttr(initializer=dygraph.nn.initializer.Assign(table)))
    expected = table[ids[:, 0]]
    expected[2] = 0
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(ValueError, match="last dimension of the ids must be 1"):
        static.nn.sparse_embedding(dygraph.to_tensor([[1, 2]]), (6, 2))


def test_py_func_and_ctr_metric_bundle_need_a_program():
    with pytest.raises(RuntimeError, match="static program"):
        static.py_func(lambda a: a, dygraph.ones([1]), None)
    with pytest.raises(RuntimeError, match="static program"):
        static.ctr_metric_bundle(dygraph.ones([2, 1]), dygraph.ones([2, 1]))
