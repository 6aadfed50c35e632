"""Inference programs saved as JSON + checkpoint: reload in a fresh process, refuse damage,
never run code from the file."""

import json
import subprocess
import sys

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import static
from dygraph.vision.models import MNISTNet


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _trained(tmp_path):
    rng = np.random.default_rng(0)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        img = static.data("img", [None, 1, 28, 28])
        label = static.data("label", [None, 1], "int64")
        net = MNISTNet()
        logits = net(img)
        loss = F.cross_entropy(logits, label)
        dygraph.optimizer.Adam(1e-3, parameters=net.parameters()).minimize(loss)
    dygraph.disable_static()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    for _ in range(3):
        exe.run(main, feed={"img": rng.standard_normal((8, 1, 28, 28)).astype(np.float32),
                            "label": rng.integers(0, 10, (8, 1))}, fetch_list=[loss],
                scope=scope)
    x = rng.standard_normal((5, 1, 28, 28)).astype(np.float32)
    expected = exe.run(main.clone(for_test=True), feed={"img": x}, fetch_list=[logits],
                       scope=scope)[0]
    prefix = str(tmp_path / "mnist")
    static.save_inference_model(prefix, [img], [logits], exe, program=main, scope=scope)
    return prefix, x, expected


def test_saved_inference_model_predicts_the_same_in_a_fresh_process(tmp_path):
    prefix, x, expected = _trained(tmp_path)
    np.save(tmp_path / "x.npy", x)
    script = (
        "import sys, numpy as np\n"
        "from dygraph import static\n"
        "exe = static.Executor()\n"
        "program, feeds, fetches = static.load_inference_model(sys.argv[1], exe)\n"
        "out = exe.run(program, feed={feeds[0]: np.load(sys.argv[2])}, fetch_list=fetches)\n"
        "np.save(sys.argv[3], out[0])\n")
    subprocess.run([sys.executable, "-c", script, prefix, str(tmp_path / "x.npy"),
                    str(tmp_path / "out.npy")], check=True, timeout=120)
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-6)
    model = json.loads(open(prefix + ".pdmodel").read())
    assert model["feeds"] == ["img"] and not any("Update" in o["class"] for o in model["ops"])


def _rewrite(prefix, change):
    model = json.loads(open(prefix + ".pdmodel").read())
    change(model)
    with open(prefix + ".pdmodel", "w") as f:
        f.write(json.dumps(model))


def test_damaged_or_hostile_programs_are_refused(tmp_path):
    prefix, _, _ = _trained(tmp_path)
    exe = static.Executor()
    original = open(prefix + ".pdmodel").read()

    def op_class(model):
        model["ops"][0]["class"] = "os:system"

    def reach_out(model):
        model["ops"][0]["class"] = "dygraph.static.io:os.system"

    def call_save(model):
        model["ops"][0]["attrs"]["fn"] = {"__function__": "dygraph.io.checkpoint:save"}

    for change, match in ((op_class, "'os:system' is not an op class of dygraph"),
                          (reach_out, "is not an op class of dygraph"),
                          (call_save, "has no attribute 'fn'")):
        with open(prefix + ".pdmodel", "w") as f:
            f.write(original)
        _rewrite(prefix, change)
        with pytest.raises(ValueError, match=match):
            static.load_inference_model(prefix, exe)
    with open(prefix + ".pdmodel", "w") as f:
        f.write(original[:100])
    with pytest.raises(ValueError, match="damaged or not a program"):
        static.load_inference_model(prefix, exe)
    with pytest.raises(ValueError, match="no model file .*missing.pdmodel"):
        static.load_inference_model(str(tmp_path / "missing"), exe)


def test_a_batch_norm_model_saves_with_its_running_statistics(tmp_path):
    rng = np.random.default_rng(2)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 1, 6, 6])
        net = dygraph.nn.Sequential(dygraph.nn.Conv2D(1, 2, 3), dygraph.nn.BatchNorm2D(2))
        y = net(x)
        dygraph.optimizer.SGD(0.1, parameters=net.parameters()).minimize(y.mean())
    dygraph.disable_static()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    for _ in range(3):  # moves the running statistics away from their start
        exe.run(main, feed={"x": rng.standard_normal((4, 1, 6, 6)).astype(np.float32)},
                scope=scope)
    assert np.abs(scope.vars[net[1]._mean.name]).sum() > 0
    probe = rng.standard_normal((3, 1, 6, 6)).astype(np.float32)
    expected = exe.run(main.clone(for_test=True), feed={"x": probe}, fetch_list=[y],
                       scope=scope)[0]
    prefix = str(tmp_path / "bn")
    static.save_inference_model(prefix, [x], [y], exe, program=main, scope=scope)
    program, feeds, fetches = static.load_inference_model(prefix, static.Executor())
    got = static.Executor().run(program, feed={feeds[0]: probe}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
