"""cond as Paddle's tests use it (None, tuples, dicts, nested conds and their gradients),
tensor arrays, increment, and multi-output ops in a fetch list. Run by Paddle
(tools/record_static_refs.py) and DyGraph (see recorded.py)."""

import numpy as np

from tests.static.recorded import Cases, raises, values

CASES = Cases()
case = CASES.case


def _new(paddle):
    paddle.enable_static()
    return paddle.static.Program(), paddle.static.Program()


def _grad_of(grad_list, var):
    return next(g for p, g in grad_list if p.is_same(var))


@case
def cond_single_and_0d(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        x = paddle.tensor.fill_constant(shape=[1], dtype="float32", value=0.3)
        y = paddle.tensor.fill_constant(shape=[1], dtype="float32", value=0.7)
        a = paddle.static.nn.cond(paddle.less_than(y, x),
                                  lambda: paddle.full([2, 3], 4, "int32"),
                                  lambda: paddle.full([3, 2], -2, "int32"))
        p = paddle.greater_equal(paddle.full([], 0.7, "float32"), paddle.full([], 0.3, "float32"))
        b = paddle.static.nn.cond(p, lambda: paddle.full([], 5, "int32"),
                                  lambda: paddle.full([], -5, "int32"))
    res = paddle.static.Executor().run(main, fetch_list=[a, b])
    return {"a": res[0], "b": res[1], "b_shape": list(b.shape)}


@case
def cond_tuple_and_dict(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        pred = paddle.tensor.fill_constant(shape=[1], dtype="bool", value=True)
        pair = paddle.static.nn.cond(
            pred, lambda: (paddle.full([1, 2], 1, "int32"), paddle.full([2, 3], True, "bool")),
            lambda: (paddle.full([3, 4], 3, "int32"), paddle.full([4, 5], False, "bool")))
        x = paddle.full(shape=[1], dtype="float32", fill_value=0.1)
        y = paddle.full(shape=[1], dtype="float32", fill_value=0.23)
        named = paddle.static.nn.cond(
            paddle.less_than(x=y, y=x),
            lambda: {"1": paddle.full([3, 2], 1, "int32"), "2": paddle.full([2, 3], True, "bool")},
            lambda: {"1": paddle.full([3, 4], 3, "int32"), "2": paddle.full([4, 5], False, "bool")})
    res = paddle.static.Executor().run(main, fetch_list=[pair[0], pair[1], named["1"],
                                                         named["2"]])
    return {"pair0": res[0], "pair1": res[1], "one": res[2], "two": res[3],
            "shape_one": list(named["1"].shape), "shape_two": list(named["2"].shape)}


@case
def cond_reads_a_feed_each_run(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        a = paddle.tensor.fill_constant(shape=[3, 2, 1], dtype="int32", value=7)
        i = paddle.static.data(name="i", shape=[1], dtype="int32")
        a = paddle.static.nn.cond(paddle.equal(i % 2, 0), lambda: a * (i + 1),
                                  lambda: a - (i - 1))
    exe = paddle.static.Executor()
    return {"runs": [exe.run(main, feed={"i": np.full([1], k, "int32")}, fetch_list=[a])[0]
                     for k in range(5)]}


@case
def cond_returning_none(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.static.data(name="i", shape=[1], dtype="int32")
        pred = paddle.equal(i % 2, 0)
        outs = [paddle.static.nn.cond(pred, lambda: None, lambda: None),
                paddle.static.nn.cond(pred, None, lambda: None),
                paddle.static.nn.cond(pred, lambda: None, None)]
    for k in range(3):
        paddle.static.Executor().run(main, feed={"i": np.full([1], k, "int32")})
    return {"outs": [o is None for o in outs]}


@case
def cond_errors(paddle):
    main, startup = _new(paddle)
    out = {}
    with paddle.static.program_guard(main, startup):
        i = paddle.static.data(name="i", shape=[1], dtype="int32")
        pred = paddle.equal(i % 2, 0)
        one = lambda: paddle.full([2, 7], 3, "int32")  # noqa: E731
        two = lambda: (paddle.full([3, 1], 7, "int32"), paddle.full([3, 1], 8, "int32"))  # noqa: E731
        none = lambda: None  # noqa: E731
        cond = paddle.static.nn.cond
        out["true_fn_a_tensor"] = raises(lambda: cond(pred, i, one))
        out["false_fn_an_array"] = raises(lambda: cond(pred, one, np.asarray([3])))
        out["pred_none"] = raises(lambda: cond(None, one, one))
        out["name_a_set"] = raises(lambda: cond(pred, one, one, set()))
        for key, fns in {"none_one": (none, one), "two_none": (two, none),
                         "one_two": (one, two)}.items():
            try:
                cond(pred, *fns)
                out[key] = ""
            except ValueError as exc:
                out[key] = str(exc).split(":")[0]
    return out


@case
def cond_gradients_nested(paddle):
    main, startup = _new(paddle)
    cond = paddle.static.nn.cond
    with paddle.static.program_guard(main, startup):
        i = paddle.static.data(name="i", shape=[1], dtype="float32")
        i.stop_gradient = False
        a = 2.0 * i
        a.persistable = True
        out = cond(i < 5.0,
                   lambda: cond(i >= 3.0, lambda: paddle.add(a, a), lambda: a - a),
                   lambda: cond(i < 8.0, lambda: a * a, lambda: a / a))
        grads = paddle.static.append_backward(paddle.mean(out))
    exe = paddle.static.Executor()
    runs = [exe.run(main, feed={"i": np.full([1], k, "float32")},
                    fetch_list=[out, _grad_of(grads, a)]) for k in range(10)]
    return {"out": [r[0] for r in runs], "da": [r[1] for r in runs]}


@case
def cond_gradients_of_constants(paddle):
    main, startup = _new(paddle)
    cond = paddle.static.nn.cond
    with paddle.static.program_guard(main, startup):
        a = paddle.tensor.fill_constant(shape=[1], dtype="float32", value=1.25)
        a.stop_gradient = False
        a.persistable = True
        b = paddle.tensor.fill_constant(shape=[1], dtype="float32", value=1.5)
        b.stop_gradient = False
        b.persistable = True
        out = cond(a < b, lambda: cond(a - b < -1.0, lambda: a + b, lambda: a * b),
                   lambda: cond(paddle.equal(a, b), lambda: a - b, lambda: paddle.pow(a, b)))
        grads = paddle.static.append_backward(out)
        c = paddle.full(shape=[], dtype="float32", fill_value=-2.5)
        c.stop_gradient = False
        c.persistable = True
        flipped = cond(c >= 0, lambda: c, lambda: -c)
        grads_c = paddle.static.append_backward(flipped)
    res = paddle.static.Executor().run(
        main, fetch_list=[out, _grad_of(grads, a), _grad_of(grads, b), flipped,
                          _grad_of(grads_c, c)])
    return dict(zip(["out", "da", "db", "flipped", "dc"], res))


@case
def cond_eager(paddle):
    a = paddle.full(shape=[], dtype="float32", fill_value=-2.0)
    a.stop_gradient = False
    out = paddle.static.nn.cond(a >= 0, lambda: a, lambda: -a)
    out.backward()
    cond = paddle.static.nn.cond
    return {"out": out.numpy(), "grad": a.grad.numpy(),
            "missing_branch": cond(paddle.to_tensor(False), lambda: a, None) is None,
            "python_pred": raises(lambda: cond(True, lambda: a, lambda: a)),
            "two_values": raises(lambda: cond(paddle.to_tensor([True, False]), lambda: a,
                                              lambda: a))}


@case
def arrays_static(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        arr = paddle.tensor.create_array("float32")
        i = paddle.zeros([1], "int64")
        same = paddle.tensor.array_write(x, i, arr) is arr
        second = paddle.increment(i)
        paddle.tensor.array_write(x * 2.0, second, arr)
        paddle.tensor.array_write(x - 1.0, paddle.zeros([1], "int64"), arr)  # overwrite 0
        length = paddle.tensor.array_length(arr)
        first = paddle.tensor.array_read(arr, paddle.zeros([1], "int64"))
        last = paddle.tensor.array_read(arr, second)
        fresh = paddle.tensor.array_write(x + 1.0, paddle.zeros([1], "int64"))
        listed = paddle.tensor.create_array("float32", [x, x * 3.0])
        read_listed = paddle.tensor.array_read(listed, paddle.ones([1], "int64"))
        counts = [paddle.tensor.array_length(fresh), paddle.tensor.array_length(listed)]
    res = paddle.static.Executor().run(main, feed={"x": values([2, 3])},
                                       fetch_list=[length, first, last, read_listed] + counts)
    return dict(zip(["length", "first", "last", "read_listed", "fresh_n", "listed_n"], res),
                same=same, length_shape=list(length.shape))


@case
def arrays_eager(paddle):
    arr = paddle.tensor.create_array("float32")
    x = paddle.full([1, 3], 5.0)
    i = paddle.zeros([1], "int64")
    same = paddle.tensor.array_write(x, i, arr) is arr
    first = paddle.tensor.array_read(arr, i)
    listed = paddle.tensor.create_array("float32", [paddle.ones([2]), paddle.zeros([2])])
    write, read = paddle.tensor.array_write, paddle.tensor.array_read
    return {"same": same, "type": type(arr).__name__, "length": paddle.tensor.array_length(arr),
            "first": first.numpy(), "listed_n": len(listed),
            "beyond": raises(lambda: write(x, paddle.to_tensor([5], "int64"), arr)),
            "int_index": raises(lambda: read(arr, 0)),
            "0d_index": raises(lambda: read(arr, paddle.to_tensor(0))),
            "not_a_list": raises(lambda: paddle.tensor.create_array("float32", x))}


@case
def increment_int64_and_float(paddle):
    eager = []
    for x, step in [(paddle.to_tensor([1], "int64"), 1.0), (paddle.to_tensor([1], "int64"), 2.7),
                    (paddle.to_tensor(1.5), 2.5), (paddle.to_tensor([4], "int32"), 3)]:
        y = paddle.increment(x, step)
        eager.append([y.numpy(), y is x])
    out = {"eager": eager,
           "two_values": raises(lambda: paddle.increment(paddle.to_tensor([1.0, 2.0])))}
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        i = paddle.zeros([1], "int64")
        j = paddle.increment(i)
        k = paddle.increment(i, 2.0)
        out["in_place"] = [j is i, k is i]
    out["static"] = paddle.static.Executor().run(main, fetch_list=[i, j, k])
    return out


@case
def multi_output_ops_in_fetch_list(paddle):
    main, startup = _new(paddle)
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 2], "float64")
        y = paddle.static.data("y", [3, 1], "float64")
        solution = paddle.linalg.lstsq(x, y)
        top = paddle.topk(x, 1)
    exe = paddle.static.Executor()
    feed = {"x": np.array([[1.0, 0.5], [0.0, 1.0], [1.0, 1.0]]),
            "y": np.array([[1.0], [2.0], [3.0]])}
    flat = exe.run(main, feed=feed, fetch_list=[solution])
    nested = exe.run(main, feed=feed, fetch_list=[solution[0], [x, top[0]]])
    whole = exe.run(main, feed=feed, fetch_list=solution)
    return {"flat_n": len(flat), "solution": flat[0], "rank": flat[2],
            "dtypes": [a.dtype.name for a in flat], "nested_n": len(nested),
            "nested_top": nested[2], "whole_n": len(whole)}


@case
def switch_case_and_case(paddle):
    main, startup = _new(paddle)
    fill = paddle.tensor.fill_constant
    ones = [lambda v=v, s=s: fill(shape=s, dtype="int32", value=v)
            for v, s in ((1, [4, 2]), (2, [4, 2]), (3, [4, 3]))]
    with paddle.static.program_guard(main, startup):
        one, two, five = (fill(shape=[1], dtype="int32", value=v) for v in (1, 2, 5))
        index_u8 = paddle.static.data(name="index_u8", shape=[1], dtype="uint8")
        switch = paddle.static.nn.switch_case
        outs = [switch(one, {1: ones[0], 2: ones[1], 3: ones[2]}),
                switch(one, tuple(ones)),
                switch(five, ((1, ones[0]), (2, ones[1])), default=ones[2]),
                switch(two, [(1, ones[0]), (2, ones[1])]),
                switch(five, [(1, ones[0]), (3, ones[1]), (2, ones[2])]),
                switch(index_u8, {1: ones[0], 3: ones[2]})]
        x = paddle.full(shape=[], dtype="float32", fill_value=0.25)
        y = paddle.full(shape=[], dtype="float32", fill_value=0.5)
        pairs = [(paddle.less_than(y, x), ones[0]), (paddle.equal(x, y), ones[1])]
        outs += [paddle.static.nn.case(pairs, default=ones[2]), paddle.static.nn.case(pairs),
                 paddle.static.nn.case([(paddle.less_than(x, y), ones[1])] + pairs)]
        key = fill(shape=[1], dtype="float32", value=0.5)
        fn = ones[0]
        errors = {"index_python": raises(lambda: switch(1, {1: fn})),
                  "index_float": raises(lambda: switch(key, {1: fn})),
                  "fns_int": raises(lambda: switch(one, 2)),
                  "key_str": raises(lambda: switch(one, [("1", fn)])),
                  "same_key": raises(lambda: switch(one, [(1, fn), (1, fn)])),
                  "pairs_int": raises(lambda: paddle.static.nn.case(1, fn)),
                  "pred_python": raises(lambda: paddle.static.nn.case([(True, fn)], fn)),
                  "pred_float": raises(lambda: paddle.static.nn.case([(key, fn)], fn)),
                  "default_int": raises(lambda: paddle.static.nn.case([(pairs[0][0], fn)], 1))}
    res = paddle.static.Executor().run(main, feed={"index_u8": np.array([3], "uint8")},
                                       fetch_list=outs)
    return {"outs": res, "errors": errors}
