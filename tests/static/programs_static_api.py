"""paddle.static's program utilities: serializing programs and their values to bytes and
files, normalize_program, program state, CompiledProgram/BuildStrategy, Scope and
scope_guard, WeightNormParamAttr, ctr_metric_bundle, device_guard and name_scope. Paddle
3.3 runs serialize_program, CompiledProgram, WeightNormParamAttr and ctr_metric_bundle only
in its older static mode, so the recorder runs this module with FLAGS_enable_pir_api=0.
Run by Paddle (tools/record_static_refs.py) and DyGraph (see recorded.py)."""

import os
import tempfile

import numpy as np

from tests.static.recorded import Cases, raises, values

CASES = Cases()
case = CASES.case
LEGACY_IR = True


def _attr(paddle, shape, seed):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(values(shape, seed)))


def _net(paddle):
    """A small trained-looking network: (main, startup, x, y, loss)."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        hidden = paddle.static.nn.fc(x, 4, weight_attr=_attr(paddle, [3, 4], 1),
                                     bias_attr=_attr(paddle, [4], 2), activation="relu")
        y = paddle.static.nn.fc(hidden, 2, weight_attr=_attr(paddle, [4, 2], 3))
        loss = paddle.mean(paddle.square(y))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return main, startup, x, y, loss


@case
def serialize_round_trip(paddle):
    main, startup, x, y, _ = _net(paddle)
    feed = {"x": values([2, 3], 4)}
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        want = exe.run(main, feed=feed, fetch_list=[y])[0]  # (trains one step too)
        program_bytes = paddle.static.serialize_program([x], [y], program=main)
        value_bytes = paddle.static.serialize_persistables([x], [y], exe, program=main)
        path = os.path.join(tempfile.mkdtemp(), "model")
        paddle.static.save_to_file(path + ".pdmodel", program_bytes)
        paddle.static.save_to_file(path + ".pdiparams", value_bytes)
        after = exe.run(main, feed=feed, fetch_list=[y])[0]
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        program = paddle.static.deserialize_program(
            paddle.static.load_from_file(path + ".pdmodel"))
        paddle.static.deserialize_persistables(
            program, paddle.static.load_from_file(path + ".pdiparams"), exe)
        fetch = program.global_block().var(y.name)
        got = exe.run(program, feed=feed, fetch_list=[fetch])[0]
    return {"before": want, "after_one_step": after, "loaded": got,
            "types": [type(program_bytes).__name__, type(value_bytes).__name__,
                      type(program).__name__],
            "text_content": raises(lambda: paddle.static.save_to_file(path, "text"))}


@case
def normalize_program_for_inference(paddle):
    main, startup, x, y, _ = _net(paddle)
    feed = {"x": values([2, 3], 5)}
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        program = paddle.static.normalize_program(main, [x], [y])
        first = exe.run(program, feed=feed, fetch_list=[y])[0]
        second = exe.run(program, feed=feed, fetch_list=[y])[0]  # no training step ran
    norm = paddle.static.normalize_program
    return {"first": first, "second": second, "same_object": program is main,
            "not_a_program": raises(lambda: norm("main", [x], [y])),
            "feed_a_string": raises(lambda: norm(main, "x", [y])),
            "fetch_none": raises(lambda: norm(main, [x], None))}


@case
def program_state_save_load_set(paddle):
    main, startup, x, y, _ = _net(paddle)
    feed = {"x": values([2, 3], 6)}
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        exe.run(main, feed=feed, fetch_list=[y])
        path = os.path.join(tempfile.mkdtemp(), "ckpt")
        paddle.static.save(main, path)
        state = paddle.static.load_program_state(path)
        params = {k: v for k, v in state.items() if k.startswith("fc_")}
        zeroed = {k: np.zeros_like(v) for k, v in params.items()}
        paddle.static.set_program_state(main, zeroed)
        zero_out = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[y])[0]
        paddle.static.set_program_state(main, params)
        back = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[y])[0]
        wrong = {"fc_0.w_0": np.zeros([5, 5], "float32")}
        error = raises(lambda: paddle.static.set_program_state(main, wrong))
    return {"params": {k: params[k] for k in sorted(params)}, "zero_out": zero_out,
            "back": back, "wrong_shape": error}


@case
def compiled_program_and_strategy(paddle):
    main, startup, x, y, loss = _net(paddle)
    strategy = paddle.static.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = True
    strategy.enable_inplace = False
    strategy.reduce_strategy = paddle.static.BuildStrategy.ReduceStrategy.Reduce
    compiled = paddle.static.CompiledProgram(main, build_strategy=strategy)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        losses = [exe.run(compiled, feed={"x": values([4, 3], 7)}, fetch_list=[loss])[0]
                  for _ in range(3)]
    fresh = paddle.static.BuildStrategy()
    return {"losses": losses, "defaults": [fresh.enable_inplace, fresh.fuse_all_reduce_ops,
                                           fresh.num_trainers, fresh.debug_graphviz_path],
            "wrong_type": raises(lambda: setattr(fresh, "num_trainers", "two")),
            "unknown_option": raises(lambda: setattr(fresh, "not_an_option", 1)),
            "not_a_program": raises(lambda: paddle.static.CompiledProgram("main"))}


@case
def scope_guard_keeps_values_apart(paddle):
    main, startup, x, y, _ = _net(paddle)
    one, two = paddle.static.Scope(), paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(one):
        exe.run(startup)
        exe.run(main, feed={"x": values([2, 3], 8)}, fetch_list=[y])
        in_one = np.array(paddle.static.global_scope().find_var("fc_0.w_0").get_tensor())
    with paddle.static.scope_guard(two):
        exe.run(startup)
        in_two = np.array(two.find_var("fc_0.w_0").get_tensor())
        missing = paddle.static.global_scope().find_var("no_such_variable") is None
    return {"trained": in_one, "fresh": in_two, "missing_is_none": missing}


@case
def weight_norm_param_attr(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        outs = []
        for dim in (None, 0, 1):
            attr = paddle.static.WeightNormParamAttr(
                dim=dim, initializer=paddle.nn.initializer.Assign(values([3, 2], 9)))
            outs.append(paddle.static.nn.fc(x, 2, weight_attr=attr, bias_attr=False))
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        got = exe.run(main, feed={"x": values([2, 3], 10)}, fetch_list=outs)
        g = np.array(paddle.static.global_scope().find_var("fc_1.w_0_g").get_tensor())
    params = main.global_block().all_parameters()
    return {"outs": got, "g_dim0": g,
            "params": sorted([p.name, list(p.shape)] for p in params)}


@case
def ctr_metric_bundle_sums(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        p = paddle.static.data("p", [-1, 1], "float32")
        label = paddle.static.data("label", [-1, 1], "float32")
        sums = paddle.static.ctr_metric_bundle(p, label)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        runs = []
        for k in range(2):
            feed = {"p": np.abs(values([5, 1], k)), "label": (values([5, 1], k + 3) > 0)
                    .astype("float32")}
            runs.append(exe.run(main, feed=feed, fetch_list=list(sums)))
    return {"runs": runs}


@case
def device_guard_and_name_scope(paddle):
    main, startup, x, y, _ = _net(paddle)
    with paddle.static.program_guard(main, startup):
        with paddle.static.device_guard("cpu"), paddle.static.name_scope("head"):
            z = y * 2.0
        with paddle.static.device_guard(None), paddle.static.name_scope("tail"):
            w = z + 1.0

        def unknown_device():
            with paddle.static.device_guard("tpu"):
                pass

        def empty_scope():
            with paddle.static.name_scope():
                pass

        error, empty = raises(unknown_device), raises(empty_scope)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        out = exe.run(main.clone(for_test=True), feed={"x": values([2, 3], 11)},
                      fetch_list=[w])[0]
    return {"out": out, "unknown_device": error, "empty_name_scope": empty,
            "cpu_places": len(paddle.static.cpu_places(3))}
