"""static.save/load and fluid.io.save_persistables/load_persistables round-trip the scope."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
from dygraph import static


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _program():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3])
        out = dygraph.nn.Linear(3, 2)(x)
    exe = static.Executor()
    exe.run(startup)
    return main, exe, x, out


def test_static_save_load_round_trip(tmp_path):
    main, exe, x, out = _program()
    feed = {"x": np.ones((2, 3), np.float32)}
    before = exe.run(main, feed=feed, fetch_list=[out])[0]
    static.save(main, str(tmp_path / "m"))
    for p in main.all_parameters():
        static.global_scope().vars[p.name] = np.zeros_like(static.global_scope().vars[p.name])
    static.load(main, str(tmp_path / "m"), exe)
    np.testing.assert_array_equal(exe.run(main, feed=feed, fetch_list=[out])[0], before)
    other, exe2, _, _ = _program()
    with pytest.raises(ValueError, match="lacks"):
        static.load(other, str(tmp_path / "m"), exe2)


def test_fluid_save_and_load_persistables(tmp_path):
    main, exe, x, out = _program()
    fluid.io.save_persistables(exe, str(tmp_path), main_program=main)
    names = [p.name for p in main.all_parameters()]
    saved = {n: static.global_scope().vars[n].copy() for n in names}
    for n in names:
        static.global_scope().vars[n] += 1.0
    fluid.io.load_persistables(exe, str(tmp_path), main_program=main)
    for n in names:
        np.testing.assert_array_equal(static.global_scope().vars[n], saved[n])
