"""Control flow as Paddle's static tests use it: while_loop over tuples, lists, dicts and
nested loop variables, a 0-D loop variable, gradients through loops and branches; cond
returning None, tuples and dicts; tensor arrays; increment on int64; multi-output ops in a
fetch list. Run by Paddle (tools/record_static_refs.py) and DyGraph (see recorded.py)."""

import warnings

import numpy as np

from tests.static.recorded import Cases, base_of, raises, values

CASES = Cases()
case = CASES.case


def _new(paddle):
    paddle.enable_static()
    return paddle.static.Program(), paddle.static.Program()


def _grad_of(grad_list, var):
    return next(g for p, g in grad_list if p.is_same(var))


@case
def while_tuple_counter(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=0)
        step = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=3)
        stop = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=20)
        out = paddle.static.nn.while_loop(lambda i: paddle.less_than(i, stop),
                                          lambda i: paddle.add(i, step), (i,))
    (res,) = base_of(paddle).Executor(paddle.CPUPlace()).run(main, fetch_list=out)
    return {"i": res}


@case
def while_list_with_feed(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.zeros(shape=[1], dtype="int64")
        stop = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=7)
        mem = paddle.static.data(name="mem", shape=[6], dtype="float32")
        half = paddle.tensor.fill_constant(shape=[6], dtype="float32", value=0.5)

        def body(i, mem):
            return [paddle.increment(i), paddle.add(mem, half) * 1.5]

        out = paddle.static.nn.while_loop(lambda i, mem: paddle.less_than(i, stop), body,
                                          [i, mem])
    res = paddle.static.Executor().run(main, feed={"mem": values([6])}, fetch_list=out)
    return {"i": res[0], "mem": res[1]}


@case
def while_dict_and_nested_lists(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.zeros(shape=[1], dtype="int64")
        stop = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=6)
        a_dict = {"count": paddle.tensor.fill_constant(shape=[1], dtype="int64", value=0)}
        a_list = [paddle.tensor.fill_constant(shape=[3, 1], dtype="int64", value=2)]
        list_of_dict = [{"v": paddle.tensor.fill_constant(shape=[2], dtype="float32",
                                                          value=-1.5)}]

        def body(i, stop, a_dict, a_list, list_of_dict):
            a_dict["count"] = i
            a_dict["count"] += 2
            a_list[0] = paddle.reshape(a_list[0], [3, -1]) * 2
            list_of_dict[0]["v"] += 1
            list_of_dict[0]["v"] = paddle.nn.functional.relu(list_of_dict[0]["v"])
            return [paddle.increment(i), stop, a_dict, a_list, list_of_dict]

        i, stop, a_dict, a_list, list_of_dict = paddle.static.nn.while_loop(
            lambda i, *rest: paddle.less_than(i, stop), body,
            [i, stop, a_dict, a_list, list_of_dict])
    res = paddle.static.Executor().run(
        main, fetch_list=[i, a_dict["count"], a_list[0], list_of_dict[0]["v"]])
    return dict(zip(["i", "count", "list", "dict_in_list"], res))


@case
def while_nested_loops(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.zeros(shape=[1], dtype="int64")
        j = paddle.zeros(shape=[1], dtype="int64")
        init = paddle.static.data(name="init", shape=[2, 3], dtype="float32")
        sums = paddle.static.data(name="sums", shape=[2, 3], dtype="float32")
        outer_n = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=3)
        inner_n = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=4)
        step = paddle.tensor.fill_constant(shape=[2, 3], dtype="float32", value=0.25)

        def outer(i, j, init, sums):
            def inner(j, init, sums):
                init = paddle.add(init, step)
                return [paddle.increment(j), init, paddle.add(init, sums)]

            j, init, sums = paddle.static.nn.while_loop(
                lambda j, init, sums: paddle.less_than(j, inner_n), inner, [j, init, sums])
            return [paddle.increment(i), j, init, paddle.add(init, sums)]

        out = paddle.static.nn.while_loop(lambda i, j, init, sums: paddle.less_than(i, outer_n),
                                          outer, [i, j, init, sums])
    # (the inner counter j is not compared: Paddle 3.3 returns its start value, 0, where
    # the loops leave it at 4)
    res = paddle.static.Executor().run(
        main, feed={"init": values([2, 3], 1), "sums": values([2, 3], 2)},
        fetch_list=[out[0], out[2], out[3]])
    return dict(zip(["i", "init", "sums"], res))


@case
def while_gradients(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.static.data(name="i", shape=[1], dtype="float32")
        i.stop_gradient = False
        i.persistable = True
        x = paddle.static.data(name="x", shape=[1], dtype="float32")
        x.stop_gradient = False
        x.persistable = True
        out = paddle.static.nn.while_loop(lambda i, x: i < 4,
                                          lambda i, x: [i + 1, x * i + 0.5], [i, x])
        mean = paddle.mean(out[1])
        grads = paddle.static.append_backward(mean)
    res = paddle.static.Executor().run(
        main, feed={"i": np.array([1.5], "float32"), "x": np.array([2.0], "float32")},
        fetch_list=[out[1], _grad_of(grads, i), _grad_of(grads, x)])
    return dict(zip(["x", "di", "dx"], res))


@case
def while_with_switch_case(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=1)
        stop = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=30)
        three = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=3)

        def body(i):
            return paddle.static.nn.switch_case(
                branch_index=i, branch_fns={2: lambda: paddle.add(i, three),
                                            5: lambda: paddle.multiply(i, i)},
                default=lambda: paddle.add(i, paddle.ones([1], "int64")))

        out = paddle.static.nn.while_loop(lambda i: paddle.less_than(i, stop), body, [i])
    return {"i": paddle.static.Executor().run(main, fetch_list=out)[0]}


@case
def while_0d_counter_reads_rows(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[-1, 4], dtype="int32")
        total = paddle.tensor.fill_constant([], "int32", 0)
        n = paddle.shape(x)
        k = paddle.tensor.fill_constant([], "int32", 0)

        def body(total, k):
            total = total + x[k]
            k += 1
            return total, k

        total, k = paddle.static.nn.while_loop(lambda total, k: k + 1 <= n[0], body,
                                               [total, k])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a row fed for a [-1, 4] variable warns
        res = paddle.static.Executor().run(main, feed={"x": np.array([3, 1, 4, 1], "int32")},
                                           fetch_list=[total, k])
    return {"total": res[0], "k": res[1]}


@case
def while_argument_errors(paddle):
    main, startup = _new(paddle)
    out = {}
    with paddle.static.program_guard(main, startup):
        one = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=1)
        ten = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=10)
        ten_2d = paddle.tensor.fill_constant(shape=[2, 2], dtype="int64", value=10)
        one_2d = paddle.tensor.fill_constant(shape=[2, 2], dtype="int64", value=1)
        loop = paddle.static.nn.while_loop
        below = lambda i: paddle.less_than(i, ten)  # noqa: E731
        step = lambda i: paddle.add(i, one)  # noqa: E731
        out["cond_not_callable"] = raises(lambda: loop(one, step, [one]))
        out["body_not_callable"] = raises(lambda: loop(below, one, [one]))
        out["loop_vars_not_list"] = raises(lambda: loop(below, step, one))
        out["loop_vars_empty"] = raises(lambda: loop(below, step, []))
        out["cond_returns_int"] = raises(lambda: loop(lambda i: 1, step, [one]))
        out["cond_returns_int64"] = raises(lambda: loop(lambda i: paddle.add(i, one), step,
                                                        [one]))
        out["cond_returns_2d"] = raises(lambda: loop(lambda i: paddle.less_than(i, ten_2d),
                                                     step, [one_2d]))
        out["body_returns_two"] = raises(lambda: loop(below, lambda i: [step(i), step(i)],
                                                      [one]))
        out["body_returns_one_of_two"] = raises(
            lambda: loop(lambda i, t: paddle.less_than(i, t), lambda i, t: step(i), [one, ten]))

        def grows_dict(i, d):
            d["new"] = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=1)
            return step(i), d

        out["body_grows_a_dict"] = raises(lambda: loop(lambda i, d: i > 0, grows_dict,
                                                       [one, {"k": one_2d}]))
    return out


@case
def while_arrays_and_gradient(paddle):
    main, startup = _new(paddle)
    read, write = paddle.tensor.array_read, paddle.tensor.array_write
    with paddle.static.program_guard(main, startup):
        d = [paddle.static.data(name=f"d{k}", shape=[5], dtype="float32") for k in range(3)]
        x = paddle.static.data(name="x", shape=[5], dtype="float32")
        x.stop_gradient = False
        x.persistable = True
        i = paddle.zeros(shape=[1], dtype="int64")
        init = paddle.zeros(shape=[5], dtype="float32")
        init.stop_gradient = False
        mem = write(x=init, i=i)
        data = write(x=d[0], i=i)
        i = paddle.increment(i)
        write(d[1], i, array=data)
        i = paddle.increment(i)
        write(d[2], i, array=data)
        i = paddle.zeros(shape=[1], dtype="int64")
        j = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=1)
        outer_n = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=1)
        inner_n = paddle.tensor.fill_constant(shape=[1], dtype="int64", value=3)

        def inner(j, x, mem):
            total = paddle.add(x, paddle.add(read(data, j), read(mem, j)))
            j = paddle.increment(j)
            write(total * 0.5, i=j, array=mem)
            return [j, x, mem]

        def outer(i, j, x, mem):
            total = paddle.add(x, paddle.add(read(data, i), read(mem, i)))
            i = paddle.increment(i)
            write(total, i=i, array=mem)
            j, x, mem = paddle.static.nn.while_loop(lambda j, x, mem: paddle.less_than(j, inner_n),
                                                    inner, [j, x, mem])
            return [i, j, x, mem]

        out = paddle.static.nn.while_loop(lambda i, j, x, mem: paddle.less_than(i, outer_n),
                                          outer, [i, j, x, mem])
        last = read(out[3], j)  # j, a loop variable, holds its final value
        mean = paddle.mean(last)
        grads = paddle.static.append_backward(mean)
        length = paddle.tensor.array_length(out[3])
    feed = {f"d{k}": values([5], k) for k in range(3)}
    feed["x"] = values([5], 7)
    res = paddle.static.Executor().run(main, feed=feed,
                                       fetch_list=[last, _grad_of(grads, x), length])
    return dict(zip(["last", "dx", "length"], res))


@case
def static_pylayer_custom_gradient(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
        x.stop_gradient = False
        y = paddle.static.data(name="y", shape=[2, 3], dtype="float32")
        y.stop_gradient = False
        out = paddle.static.nn.static_pylayer(lambda a, b: paddle.exp(a) * 2.0 + b, [x, y],
                                              lambda g: (g * 3.0, g * -1.0))
        plain = paddle.static.nn.static_pylayer(lambda a: a * 2.0,
                                                [paddle.full([2], 1.5, "float32")])
        gx, gy = paddle.static.gradients([paddle.mean(out)], [x, y])
        refused = raises(lambda: paddle.static.nn.static_pylayer(lambda a: a, [x]))
    res = paddle.static.Executor().run(main, feed={"x": values([2, 3], 1),
                                                   "y": values([2, 3], 2)},
                                       fetch_list=[out, plain, gx, gy])
    paddle.disable_static()
    eager = raises(lambda: paddle.static.nn.static_pylayer(lambda a: a, [paddle.ones([1])]))
    return dict(zip(["out", "plain", "gx", "gy"], res), refused=refused, eager=eager)
