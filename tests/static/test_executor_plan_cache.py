"""The Executor's plan cache: keyed by the feeds and fetches as well as the program, bounded
(least recently used plans are dropped and rebuilt when needed), and never confused by a
new program that reuses a freed one's id."""

import gc

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.static import executor
from dygraph.utils import unique_name

X = np.arange(6, dtype=np.float32).reshape(3, 2)


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _program(k):
    """A program computing y = x * k and z = y + 1 from feed 'x'."""
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 2])
        y = x * float(k)
        z = y + 1.0
    dygraph.disable_static()
    return main, y, z


def test_the_plan_follows_the_fetch_list_and_the_feed_names():
    main, y, z = _program(2)
    exe = static.Executor()
    np.testing.assert_array_equal(exe.run(main, feed={"x": X}, fetch_list=[y])[0], X * 2)
    np.testing.assert_array_equal(exe.run(main, feed={"x": X}, fetch_list=[z])[0], X * 2 + 1)
    np.testing.assert_array_equal(exe.run(main, feed={"x": X}, fetch_list=["x"])[0], X)
    # Equal fetch lists built anew (another list object, names) still find their plan.
    np.testing.assert_array_equal(exe.run(main, feed={"x": X}, fetch_list=[y.name])[0], X * 2)
    y_out, z_out = exe.run(main, feed={"x": X}, fetch_list=[y, z])
    np.testing.assert_array_equal(z_out, y_out + 1)
    assert len(exe._plans) == 4  # [y], [z], [x], [y, z]: one plan per fetch list
    # Without 'x' the program cannot run: the plan for feeds {'x'} must not be reused.
    with pytest.raises(ValueError, match="needs feed 'x'"):
        exe.run(main, feed={}, fetch_list=[z])


def test_the_plan_cache_is_bounded_and_an_evicted_program_runs_again():
    size = executor.PLAN_CACHE_SIZE
    programs = [_program(k) for k in range(size + 40)]
    exe = static.Executor()
    for k, (main, y, _) in enumerate(programs):
        np.testing.assert_array_equal(exe.run(main, feed={"x": X}, fetch_list=[y])[0], X * k)
        assert len(exe._plans) <= size
    assert len(exe._plans) == size
    programs_cached = {key[0] for key in exe._plans}
    assert programs_cached == {id(main) for main, _, _ in programs[40:]}

    def run(k, fetch=1):
        return exe.run(programs[k][0], feed={"x": X}, fetch_list=[programs[k][fetch]])[0]

    # A run makes its plan the most recently used: the next new plan drops the one after.
    np.testing.assert_array_equal(run(40), X * 40)
    np.testing.assert_array_equal(run(0), X * 0)  # dropped earlier: planned again
    programs_cached = {key[0] for key in exe._plans}
    assert id(programs[40][0]) in programs_cached
    assert id(programs[41][0]) not in programs_cached
    for k in (41, 1, size + 39):
        np.testing.assert_array_equal(run(k, fetch=2), X * k + 1)
    assert len(exe._plans) == size
    exe.close()
    assert not exe._plans


def test_a_new_program_never_runs_a_freed_programs_plan():
    # Startup programs built under unique_name.guard and dropped one after another: each
    # has the same parameter names, no feeds and no fetches, and often lands at a freed
    # one's address. A plan cached under that address alone would initialise the weight
    # with a dead program's value.
    exe = static.Executor()
    for k in range(executor.PLAN_CACHE_SIZE + 36):
        dygraph.enable_static()
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup), unique_name.guard():
            init = dygraph.nn.initializer.Constant(float(k))
            linear = dygraph.nn.Linear(2, 1, weight_attr=dygraph.ParamAttr(initializer=init))
            linear(static.data("x", [None, 2]))
        dygraph.disable_static()
        scope = static.Scope()
        exe.run(startup, scope=scope)
        weight = np.asarray(scope.find_var(linear.weight.name).get_tensor())
        np.testing.assert_array_equal(weight, np.full((2, 1), k, np.float32))
        del main, startup, linear
        gc.collect()
