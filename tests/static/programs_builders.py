"""The paddle.static.nn layer builders with fixed weights: values, output shapes and the
names of the parameters they make. Paddle 3.3 runs most of these builders only in its
older static mode, so the recorder runs this module with FLAGS_enable_pir_api=0
(LEGACY_IR below). Run by Paddle (tools/record_static_refs.py) and DyGraph (recorded.py).
"""

import numpy as np

from tests.static.recorded import Cases, values

CASES = Cases()
case = CASES.case
LEGACY_IR = True


def _attr(paddle, shape, seed, scale=0.5):
    init = paddle.nn.initializer.Assign(values(shape, seed, scale))
    return paddle.ParamAttr(initializer=init)


def _run(paddle, build, feed, scope_values=None):
    """Build in a fresh program, run startup and main once; the fetched values, the
    parameter names and the declared output shapes."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        outs = build()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        for name, value in (scope_values or {}).items():
            scope.find_var(name).get_tensor().set(value, paddle.CPUPlace())
        got = exe.run(main, feed=feed, fetch_list=outs)
    return {"values": got, "shapes": [list(o.shape) for o in outs],
            "params": sorted(p.name for p in main.global_block().all_parameters())}


@case
def fc_one_and_two_inputs(paddle):
    def build():
        x = paddle.static.data("x", [-1, 2, 3], "float32")
        y = paddle.static.data("y", [-1, 2, 4], "float32")
        one = paddle.static.nn.fc(x, 4, weight_attr=_attr(paddle, [6, 4], 1),
                                  bias_attr=_attr(paddle, [4], 2), activation="relu")
        two = paddle.static.nn.fc([x, y], 3, num_flatten_dims=2,
                                  weight_attr=[_attr(paddle, [3, 3], 3), _attr(paddle, [4, 3], 4)],
                                  bias_attr=False, activation="tanh")
        return [one, two]

    return _run(paddle, build, {"x": values([2, 2, 3], 5), "y": values([2, 2, 4], 6)})


@case
def conv2d_and_transpose(paddle):
    def build():
        x = paddle.static.data("x", [-1, 4, 6, 6], "float32")
        a = paddle.static.nn.conv2d(x, 6, 3, stride=2, padding=1, groups=2,
                                    param_attr=_attr(paddle, [6, 2, 3, 3], 1),
                                    bias_attr=_attr(paddle, [6], 2), act="relu")
        b = paddle.static.nn.conv2d(x, 3, [2, 3], padding="SAME",
                                    param_attr=_attr(paddle, [3, 4, 2, 3], 3), bias_attr=False)
        e = paddle.static.nn.conv2d(x, 2, 2, padding=[1, 2], dilation=2,
                                    param_attr=_attr(paddle, [2, 4, 2, 2], 8))
        c = paddle.static.nn.conv2d_transpose(x, 2, filter_size=3, stride=2, padding=1,
                                              param_attr=_attr(paddle, [4, 2, 3, 3], 4),
                                              bias_attr=_attr(paddle, [2], 5))
        d = paddle.static.nn.conv2d_transpose(x, 2, output_size=[8, 8],
                                              param_attr=_attr(paddle, [4, 2, 3, 3], 6),
                                              act="sigmoid")
        return [a, b, c, d, e]

    return _run(paddle, build, {"x": values([2, 4, 6, 6], 7)})


@case
def conv3d_and_transpose(paddle):
    def build():
        x = paddle.static.data("x", [-1, 2, 4, 4, 4], "float32")
        a = paddle.static.nn.conv3d(x, 3, 2, param_attr=_attr(paddle, [3, 2, 2, 2, 2], 1),
                                    bias_attr=_attr(paddle, [3], 2))
        b = paddle.static.nn.conv3d_transpose(x, 2, filter_size=2, stride=2,
                                              param_attr=_attr(paddle, [2, 2, 2, 2, 2], 3),
                                              bias_attr=_attr(paddle, [2], 4))
        return [a, b]

    return _run(paddle, build, {"x": values([1, 2, 4, 4, 4], 5)})


@case
def batch_norm_trains_and_tests(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, 2, 2], "float32")
        y = paddle.static.nn.batch_norm(x, act="relu", momentum=0.8,
                                        param_attr=_attr(paddle, [3], 1),
                                        bias_attr=_attr(paddle, [3], 2),
                                        moving_mean_name="bn_mean")
        test_program = main.clone(for_test=True)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(startup)
        train = [exe.run(main, feed={"x": values([4, 3, 2, 2], k, 2.0)}, fetch_list=[y])[0]
                 for k in range(2)]
        test = exe.run(test_program, feed={"x": values([4, 3, 2, 2], 5, 2.0)},
                       fetch_list=[y])[0]
        stats = [np.array(scope.find_var(n).get_tensor()) for n in ("bn_mean",
                                                                     "batch_norm_0.w_1")]
    return {"train": train, "test": test, "stats": stats,
            "params": sorted(p.name for p in main.global_block().all_parameters())}


@case
def embedding_with_padding(paddle):
    def build():
        ids = paddle.static.data("ids", [-1, 3], "int64")
        a = paddle.static.nn.embedding(ids, (6, 4), padding_idx=-1,
                                       param_attr=_attr(paddle, [6, 4], 1))
        b = paddle.static.nn.embedding(ids, (6, 2), param_attr=_attr(paddle, [6, 2], 2))
        return [a, b]

    return _run(paddle, build, {"ids": np.array([[0, 5, 2], [3, 3, 1]], "int64")})


@case
def group_instance_layer_norm(paddle):
    def build():
        x = paddle.static.data("x", [-1, 4, 3, 3], "float32")
        a = paddle.static.nn.group_norm(x, 2, param_attr=_attr(paddle, [4], 1),
                                        bias_attr=_attr(paddle, [4], 2), act="relu")
        b = paddle.static.nn.group_norm(x, 4, epsilon=1e-3)
        c = paddle.static.nn.instance_norm(x, param_attr=_attr(paddle, [4], 3),
                                           bias_attr=_attr(paddle, [4], 4))
        d = paddle.static.nn.instance_norm(x)
        e = paddle.static.nn.layer_norm(x, begin_norm_axis=2,
                                        param_attr=_attr(paddle, [9], 5),
                                        bias_attr=_attr(paddle, [9], 6))
        f = paddle.static.nn.layer_norm(x, scale=False, shift=False, epsilon=1e-3)
        return [a, b, c, d, e, f]

    return _run(paddle, build, {"x": values([2, 4, 3, 3], 7, 2.0)})


@case
def prelu_modes_and_bilinear(paddle):
    def build():
        x = paddle.static.data("x", [-1, 3, 2, 2], "float32")
        v = paddle.static.data("v", [-1, 3], "float32")
        w = paddle.static.data("w", [-1, 4], "float32")
        outs = [paddle.static.nn.prelu(x, "all", param_attr=_attr(paddle, [1], 1)),
                paddle.static.nn.prelu(x, "channel", param_attr=_attr(paddle, [1, 3, 1, 1], 2)),
                paddle.static.nn.prelu(x, "element", param_attr=_attr(paddle, [1, 3, 2, 2], 3)),
                paddle.static.nn.prelu(x, "all")]
        outs.append(paddle.static.nn.bilinear_tensor_product(
            v, w, 5, act="tanh", param_attr=_attr(paddle, [5, 3, 4], 4),
            bias_attr=_attr(paddle, [1, 5], 5)))
        return outs

    return _run(paddle, build, {"x": values([2, 3, 2, 2], 6, 2.0), "v": values([2, 3], 7),
                                "w": values([2, 4], 8)})


@case
def row_conv_and_spectral_norm(paddle):
    def build():
        seq = paddle.static.data("seq", [-1, 5, 3], "float32")
        a = paddle.static.nn.row_conv(seq, 2, param_attr=_attr(paddle, [3, 3], 1), act="relu")
        weight = paddle.static.create_parameter([3, 2, 2], "float32",
                                                attr=_attr(paddle, [3, 2, 2], 2, 2.0))
        b = paddle.static.nn.spectral_norm(weight, dim=1, power_iters=3)
        c = paddle.static.nn.spectral_norm(weight, dim=0, power_iters=1)
        return [a, b, c]

    start = {"spectral_norm_0.w_0": values([2], 3), "spectral_norm_0.w_1": values([6], 4),
             "spectral_norm_1.w_0": values([3], 5), "spectral_norm_1.w_1": values([4], 6)}
    return _run(paddle, build, {"seq": values([2, 5, 3], 7)}, start)


@case
def deform_conv2d_v1_and_v2(paddle):
    def build():
        x = paddle.static.data("x", [-1, 2, 5, 5], "float32")
        offset = paddle.static.data("offset", [-1, 18, 3, 3], "float32")
        mask = paddle.static.data("mask", [-1, 9, 3, 3], "float32")
        a = paddle.static.nn.deform_conv2d(x, offset, mask, 3, 3,
                                           weight_attr=_attr(paddle, [3, 2, 3, 3], 1),
                                           bias_attr=_attr(paddle, [3], 2))
        b = paddle.static.nn.deform_conv2d(x, offset, None, 2, 3,
                                           weight_attr=_attr(paddle, [2, 2, 3, 3], 3))
        return [a, b]

    feed = {"x": values([1, 2, 5, 5], 4), "offset": values([1, 18, 3, 3], 5, 0.8),
            "mask": np.abs(values([1, 9, 3, 3], 6))}
    return _run(paddle, build, feed)


@case
def fc_trains_with_sgd(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        hidden = paddle.static.nn.fc(x, 5, weight_attr=_attr(paddle, [4, 5], 1),
                                     activation="relu")
        pred = paddle.static.nn.fc(hidden, 1, weight_attr=_attr(paddle, [5, 1], 2))
        loss = paddle.mean(paddle.square(pred - y))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(startup)
        feed = {"x": values([8, 4], 3), "y": values([8, 1], 4)}
        losses = [exe.run(main, feed=feed, fetch_list=[loss])[0] for _ in range(4)]
        weight = np.array(scope.find_var("fc_1.w_0").get_tensor())
    return {"losses": losses, "weight": weight}


@case
def py_func_with_gradient(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        block = main.current_block()
        out = block.create_var(name="cube", dtype="float32", shape=[2, 3])
        paddle.static.nn.py_func(func=lambda a: np.asarray(a) ** 3, x=x, out=out,
                                 backward_func=lambda a, y, dy: 3 * np.asarray(a) ** 2 *
                                 np.asarray(dy))
        loss = paddle.mean(out * 2.0)
        (gx,) = paddle.static.gradients([loss], [x])
    got = paddle.static.Executor().run(main, feed={"x": values([2, 3], 1)},
                                       fetch_list=[out, gx])
    return {"out": got[0], "grad": got[1]}
