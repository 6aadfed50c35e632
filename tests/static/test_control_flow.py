"""cond and IfElse: static results and gradients equal the eager ones."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
from dygraph import static
from dygraph.static.control_flow import IfElse, cond


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _if_else(a, b, cond_rows):
    ie = IfElse(cond_rows)
    with ie.true_block():
        ie.output(ie.input(a) + ie.input(b))
    with ie.false_block():
        ie.output(ie.input(a) * ie.input(b))
    return ie()[0]


def test_if_else_static_equals_eager_values_and_gradients():
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((5, 3)).astype(np.float32) for _ in range(2))
    mask = np.array([[True], [False], [True], [True], [False]])
    ta = dygraph.to_tensor(a, stop_gradient=False)
    tb = dygraph.to_tensor(b, stop_gradient=False)
    out = _if_else(ta, tb, dygraph.to_tensor(mask))
    out.sum().backward()
    expected = np.where(mask, a + b, a * b)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)

    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        va, vb = static.data("a", [None, 3]), static.data("b", [None, 3])
        vm = static.data("m", [None, 1], "bool")
        va.stop_gradient = vb.stop_gradient = False
        vout = _if_else(va, vb, vm)
        ga, gb = static.gradients([vout.sum()], [va, vb])
    got, got_ga, got_gb = static.Executor().run(
        main, feed={"a": a, "b": b, "m": mask}, fetch_list=[vout, ga, gb])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got_ga, ta.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got_gb, tb.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("flag", [True, False])
def test_cond_static_equals_eager(flag):
    x = np.array([1.5, -2.0], np.float32)
    t = dygraph.to_tensor(x, stop_gradient=False)
    eager = cond(dygraph.to_tensor(flag), lambda: t * t, lambda: t * 3.0)
    eager.sum().backward()
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        v = static.data("x", [2])
        v.stop_gradient = False
        p = static.data("p", [1], "bool")
        out = static.nn.cond(p, lambda: v * v, lambda: v * 3.0)
        (g,) = static.gradients([out.sum()], [v])
    got, got_g = static.Executor().run(main, feed={"x": x, "p": np.array([flag])},
                                       fetch_list=[out, g])
    np.testing.assert_allclose(got, eager.numpy())
    np.testing.assert_allclose(got_g, t.grad.numpy())


def test_the_articles_if_else_gives_the_dygraph_result():
    rng = np.random.default_rng(1)
    inp1, inp2 = rng.random((4, 3, 3)), rng.random((4, 3, 3))
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        d1 = fluid.layers.data(name="inp1", shape=[3, 3], dtype="float32")
        d2 = fluid.layers.data(name="inp2", shape=[3, 3], dtype="float32")
        a = fluid.layers.expand(fluid.layers.reshape(fluid.layers.reduce_sum(d1), [1, 1]),
                                [4, 1])
        b = fluid.layers.expand(fluid.layers.reshape(fluid.layers.reduce_sum(d2), [1, 1]),
                                [4, 1])
        ie = fluid.layers.IfElse(fluid.layers.less_than(x=a, y=b))
        with ie.true_block():
            ie.output(fluid.layers.elementwise_add(ie.input(d1), ie.input(d2)))
        with ie.false_block():
            ie.output(fluid.layers.elementwise_sub(ie.input(d1), ie.input(d2)))
        out = ie()
        got = fluid.Executor(fluid.CPUPlace()).run(
            fluid.default_main_program(), feed={"inp1": inp1, "inp2": inp2}, fetch_list=out)[0]
    expected = inp1 + inp2 if inp1.sum() < inp2.sum() else inp1 - inp2
    np.testing.assert_allclose(got, expected.astype(np.float32), rtol=1e-5)


def test_if_else_checks_its_condition():
    with pytest.raises(ValueError, match=r"IfElse: cond must be a \[N, 1\] bool"):
        IfElse(dygraph.ones([3]))
    with pytest.raises(AssertionError, match="numel should be 1"):
        cond(dygraph.ones([2]) > 0, lambda: 1, lambda: 2)
