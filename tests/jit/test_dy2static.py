"""dy2static: converted functions give the original's values eagerly, and, built into a
static program on `static.data` inputs and run by the Executor, the eager values and
gradients; what cannot be converted raises Dy2StaticUnsupported naming the line."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid
import dygraph.nn.functional as F
from dygraph import static
from dygraph.jit.dy2static import Dy2StaticUnsupported, convert_to_static
from tests.jit import dy2static_python_cases as cases


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _build(fn, arrays, grad, free=False):
    """Build fn on static.data inputs (a free first dimension when `free`); returns (main,
    startup, outputs, grads, inputs)."""
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        inputs = [static.data(f"in{i}", ([None] + list(a.shape[1:])) if free and a.ndim
                              else a.shape, a.dtype.name) for i, a in enumerate(arrays)]
        for v in inputs:
            v.stop_gradient = not (grad and v.dtype.name.startswith("float"))
        outs = fn(*inputs)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        wrt = [v for v in inputs if not v.stop_gradient]
        floats = [o for o in outs if isinstance(o, static.Variable) and
                  o.dtype.name.startswith("float")]
        grads = static.gradients([sum(o.sum() for o in floats)], wrt) if grad and wrt else []
    dygraph.disable_static()
    return main, startup, outs, grads, inputs


def _eager(fn, arrays, grad):
    tensors = [dygraph.to_tensor(a, stop_gradient=not (grad and a.dtype.kind == "f"))
               for a in arrays]
    outs = fn(*tensors)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    floats = [o for o in outs if isinstance(o, dygraph.Tensor) and o.dtype.name.startswith(
        "float")]
    grads = []
    if grad and floats:
        sum(o.sum() for o in floats).backward()
        grads = [t.grad.numpy() if t.grad is not None else np.zeros_like(t.numpy())
                 for t in tensors if not t.stop_gradient]
    return [np.asarray(o.numpy() if isinstance(o, dygraph.Tensor) else o) for o in outs], grads


def check(fn, *cases, grad=True, free=False):
    """For each tuple of input arrays: original eagerly == converted eagerly == converted
    in a static program (one program for all cases), values and input gradients."""
    converted = convert_to_static(fn)
    main, startup, outs, grads, inputs = _build(converted, cases[0], grad, free)
    exe = static.Executor()
    if startup.global_block().ops:  # parameters to initialise
        exe.run(startup)
    for arrays in cases:
        expected, expected_grads = _eager(fn, arrays, grad)
        again, _ = _eager(converted, arrays, False)
        for e, a in zip(expected, again):
            np.testing.assert_allclose(a, e, rtol=1e-6)
        feed = {v.name: a for v, a in zip(inputs, arrays)}
        got = exe.run(main, feed=feed, fetch_list=outs + grads)
        for e, a in zip(expected + expected_grads, got):
            np.testing.assert_allclose(a.reshape(np.shape(e)), e, rtol=1e-5, atol=1e-6)
    return main


def compare(inp1, inp2):
    """The seeds' article (seed 003), IfElse example: add if sum(inp1) < sum(inp2)."""
    if inp1.sum() < inp2.sum():
        x = inp1 + inp2
    else:
        x = inp1 - inp2
    return x


def test_seed_compare_example_as_python_if():
    rng = np.random.default_rng(3)
    a, b = rng.random((4, 3, 3)).astype(np.float32), rng.random((4, 3, 3)).astype(np.float32)
    main = check(compare, (a, b), (b, a), (a, a))
    assert any(o.type == "ifblocks" for o in main.global_block().ops)


def article_compare(inp1, inp2):
    """The article's dygraph code (seed 003) as a function, in its 1.x API."""
    if fluid.layers.reduce_sum(inp1) < fluid.layers.reduce_sum(inp2):
        x = fluid.layers.elementwise_add(inp1, inp2)
    else:
        x = fluid.layers.elementwise_sub(inp1, inp2)
    return x


def test_seed_article_dygraph_code_builds_the_static_program_of_its_ifelse_example():
    rng = np.random.default_rng(0)
    inp1, inp2 = rng.random((4, 3, 3)), rng.random((4, 3, 3))  # float64, as the article
    converted = convert_to_static(article_compare)
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        data1 = fluid.layers.data(name="inp1", shape=[3, 3], dtype=np.float32)
        data2 = fluid.layers.data(name="inp2", shape=[3, 3], dtype=np.float32)
        out = converted(data1, data2)
        exe = fluid.Executor(fluid.CPUPlace())
        for a, b in ((inp1, inp2), (inp2, inp1)):
            got = exe.run(fluid.default_main_program(), feed={"inp1": a, "inp2": b},
                          fetch_list=[out])[0]
            expected = a + b if np.sum(a) < np.sum(b) else a - b
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)  # float32
    with fluid.dygraph.guard():
        np.testing.assert_allclose(converted(inp1, inp2).numpy(),
                                   article_compare(inp1, inp2).numpy())


def elif_chain(x):
    s = x.sum()
    scale = 1.0
    if s > 1:
        scale = 3.0
        y = x * scale
    elif s > -1:
        y = F.relu(x) + 1
    else:
        y = -x
    return y * scale


def test_if_elif_else_and_python_numbers_in_branches():
    x = np.array([0.5, 1.0], np.float32)
    check(elif_chain, (x,), (x - 1.2,), (-3 * x,))


def early_return(x):
    if x.mean() > 0:
        return x * 2
    y = x - 1
    if y.sum() < -5:
        return y * y
    return -y


def test_return_inside_ifs():
    x = np.array([1.0, -0.5, 2.0], np.float32)
    check(early_return, (x,), (-x,), (-3 * x,))


def halve_until_small(x):
    steps = 0
    while x.abs().max() > 1.0:
        x = x / 2
        steps += 1
    return x, steps


def test_while_on_a_tensor_with_a_python_counter():
    x = np.array([3.0, -7.0], np.float32)
    main = check(halve_until_small, (x,), (x / 100,))
    assert main.num_blocks >= 2


def skip_odd_stop_early(x, n):
    total = x * 0
    for i in range(n):
        if i % 2 == 1:
            continue
        total = total + x * i
        if total.sum() > 10:
            break
    return total


def test_for_range_of_a_tensor_with_break_and_continue():
    x = np.array([0.5, 1.0], np.float32)
    check(skip_odd_stop_early, (x, np.array(3)), (x, np.array(20)), (x, np.array(0)))


def grow(x):
    for _ in range(5):
        x = x * 2
        if x.sum() > 20:
            return x
    return -x


def test_return_inside_a_python_loop_turns_it_into_a_program_loop():
    check(grow, (np.array([1.0, 2.0], np.float32),), (np.array([0.1, 0.1], np.float32),))


def countdown(x, n):
    i = 0
    while i < n:
        x = x * 1.5
        if x.sum() > 30:
            return x
        i += 1
    return x - 100


def test_return_inside_a_while_on_a_tensor():
    x = np.array([1.0, 2.0], np.float32)
    check(countdown, (x, np.array(10)), (x, np.array(2)))


def test_inputs_with_a_free_batch_dimension():
    x = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 2.0]], np.float32)
    check(compare, (x, -x), (x[:2], x[:2] + 1), free=True)
    check(countdown, (x, np.array(10)), (x[:1], np.array(1)), free=True)
    check(halve_until_small, (x * 4,), (x[:2] / 9,), free=True)


def search(x, n):
    found = x * 0
    for i in range(n):
        if (x * i).sum() > 4:
            found = x * i
            break
    else:
        found = found - 1
    return found


def test_for_else_with_break_on_a_tensor_range():
    x = np.array([1.0, 0.5], np.float32)
    check(search, (x, np.array(5)), (x, np.array(2)))


def test_a_variable_unset_on_the_path_taken_raises_name_error_eagerly():
    converted = convert_to_static(one_branch_only)
    assert converted(dygraph.to_tensor([1.0])).tolist() == [3.0]
    for fn in (one_branch_only, converted):
        with pytest.raises(NameError):
            fn(dygraph.to_tensor([-1.0]))


def logic(x, y):
    if (x.sum() > 0 and y.sum() > 0) or not x.mean() < -1:
        return x + y
    return x - y


def test_and_or_not_on_tensors():
    x, y = np.array([1.0, 2.0], np.float32), np.array([-3.0, 0.5], np.float32)
    check(logic, (x, y), (-x, y), (-5 * x, y), (x, -y))


def test_and_or_keep_python_semantics_on_python_values():
    def pick(a, b):
        return a and b, a or b, not a

    converted = convert_to_static(pick)
    for a, b in ((0, 5), (3, []), ("", "z")):
        assert converted(a, b) == pick(a, b)


def python_flow(x, n=3):
    for i in range(n):
        if i % 2:
            x = x + i
        else:
            x = x * 2
    return x


def test_control_flow_on_python_values_is_unrolled():
    main = check(python_flow, (np.array([1.0, 2.0], np.float32),))
    assert main.num_blocks == 1
    assert not any(o.type in ("ifblocks", "while") for o in main.global_block().ops)


def show(x):
    y = x * 2
    print("y is", y)
    if y.sum() > 0:
        print("positive", y.sum())
    else:
        print("not positive")
    return y


def test_print_of_a_tensor_prints_when_the_program_runs(capsys):
    x = np.array([1.0, -3.0], np.float32)
    main, startup, outs, _, inputs = _build(convert_to_static(show), (x,), False)
    assert capsys.readouterr().out == ""  # building prints nothing
    exe = static.Executor()
    for value in (x, -x):
        show(dygraph.to_tensor(value))
        eager = capsys.readouterr().out
        exe.run(main, feed={inputs[0].name: value}, fetch_list=outs)
        assert capsys.readouterr().out == eager
        assert ("not positive" in eager) == (value.sum() < 0)


class Gate(dygraph.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = dygraph.nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = F.relu(h)
        else:
            h = h * 0.1
        return super().forward(h) if False else h


def test_method_with_parameters_and_zero_argument_super():
    dygraph.seed(1)
    net = Gate()
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    check(net.forward, (x,), (-x,), (x * 5,))


class Outer(dygraph.nn.Layer):
    def __init__(self):
        super().__init__()
        self.gate = Gate()

    def forward(self, x):
        return self.helper(self.gate(x)) + 1

    def helper(self, h):
        while h.abs().sum() < 10:
            h = h * 2
        return h


def test_called_user_layers_and_methods_are_converted_too():
    dygraph.seed(2)
    net = Outer()
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    main = check(net.forward, (x,), (-x,))
    assert "forward" not in net.gate.__dict__  # the converted forward was only lent
    assert any(o.type == "while" for o in main.global_block().ops)


def nested_loops(x, n):
    total = x * 0
    i = 0
    while i < n:
        j = 0
        while j < 5:
            if (total + j).sum() > 6:
                break
            total = total + x
            j += 1
        i += 1
    return total, i


def test_nested_while_loops_with_break_in_the_inner_one():
    x = np.array([0.5, 0.25], np.float32)
    check(nested_loops, (x, np.array(3)), (x, np.array(0)))


def rows_and_ifexp(x):
    out = []
    for row in x:
        out.append(row * 2 if row.sum() > 0 else row - 1)
    return dygraph.stack(out)


def test_for_over_rows_of_a_known_size_and_conditional_expression():
    x = np.array([[1.0, 2.0], [-1.0, -2.0], [0.5, -3.0]], np.float32)
    check(rows_and_ifexp, (x,))


def _scaler(scale):
    def apply_scale(x):
        if x.sum() > 0:
            return x * scale
        return x
    return apply_scale


def test_closure_cells_are_the_originals():
    x = np.array([1.0, 2.0], np.float32)
    check(_scaler(3.0), (x,), (-x,))


def side_effect(x, log):
    if x.sum() > 0:
        log.append(x)
    return x


def none_or_tensor(x):
    y = None
    if x.sum() > 0:
        y = x
    return y


def one_branch_only(x):
    if x.sum() > 0:
        z = x * 2
    return z + 1


flip = lambda v: v if v.sum() > 0 else -v  # noqa: E731 (a lambda is not converted)


def calls_lambda(x):
    return flip(x) * 2


def list_grows(x):
    found = []
    while x.sum() < 10:
        x = x * 2
        found += [x]
    return x


def free_dim_flow(x):
    if x.shape[0] > 1:
        x = x * 2
    return x


def free_dim_range(x):
    return dygraph.stack([x[i] for i in range(x.shape[0])])


def test_free_dimensions_of_shapes_refuse_python_arithmetic():
    x = np.ones((2, 3), np.float32)
    for fn in (free_dim_flow, free_dim_range):
        converted = convert_to_static(fn)
        np.testing.assert_allclose(converted(dygraph.to_tensor(x)).numpy(),
                                   fn(dygraph.to_tensor(x)).numpy())
        dygraph.enable_static()
        with static.program_guard(static.Program(), static.Program()):
            with pytest.raises(Dy2StaticUnsupported, match="free.*test_dy2static.py:"):
                converted(static.data("x", [None, 3]))
            out = converted(static.data("y", [2, 3]))  # known sizes are plain ints
        dygraph.disable_static()
        assert out.shape == [2, 3]
    assert str(convert_to_static(free_dim_flow).__dy2static_code__).count("convert_shape")


def asserts(x):
    assert x.sum() > 0, "positive"
    return x


def generator(x):
    yield x


@pytest.mark.parametrize("fn, args, construct", [
    (side_effect, ([],), "log.append(x)"),
    (none_or_tensor, (), "variable 'y'"),
    (one_branch_only, (), "using 'z'"),
    pytest.param(calls_lambda, (), "not converted", marks=pytest.mark.skipif(
        not hasattr(static.program, "ValueDependentError"),
        reason="static Variables refuse bool() with jit's ValueDependentError")),
    (asserts, (), "`assert`"),
    (list_grows, (), "changing the list in variable 'found' in place"),
])
def test_unconvertible_code_in_a_program_raises_naming_the_line(fn, args, construct):
    converted = convert_to_static(fn)
    eager = converted(dygraph.to_tensor([1.0]), *args)  # eagerly it is plain Python
    assert eager is not None
    dygraph.enable_static()
    with static.program_guard(static.Program(), static.Program()):
        with pytest.raises(Dy2StaticUnsupported) as info:
            converted(static.data("x", [1]), *args)
    assert construct in str(info.value) and "test_dy2static.py:" in str(info.value)


def test_functions_that_cannot_be_converted_at_all():
    with pytest.raises(Dy2StaticUnsupported, match="generator"):
        convert_to_static(generator)
    with pytest.raises(Dy2StaticUnsupported, match="lambda"):
        convert_to_static(lambda x: x)
    with pytest.raises(Dy2StaticUnsupported, match="builtin"):
        convert_to_static(print)


@pytest.mark.parametrize("fn, calls", [
    (cases.p_try, [([1, 0, 5, 3],), ([2, -1, 4],), ([],)]),
    (cases.p_while_true, [(5,), (7, "a", {"k": 3, "extra": 1})]),
    (cases.p_nested, [(3,), (9,)]),
    (cases.p_misc, [(0, 0), (0, 2), (3, 0), (7, 1)]),
    (cases.p_recursive, [(5,)]),
    (cases.p_range_forms, [(1, 9), (4, 5)]),
])
def test_converted_code_keeps_python_semantics_on_python_values(fn, calls):
    converted = convert_to_static(fn)
    for call in calls:
        kwargs = call[-1] if isinstance(call[-1], dict) else {}
        args = call[:-1] if kwargs else call
        assert converted(*args, **kwargs) == fn(*args, **kwargs)
