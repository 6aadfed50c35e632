"""The .pdmodel format is data with a schema: hostile files are refused at load, run no code,
read no memory, allocate only what they hold; every malformed file is a ValueError naming
the file and the field."""

import copy
import json
import os
import random
import time
import tracemalloc

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.static import program_format as fmt


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


def _saved(tmp_path, name="m"):
    """A small saved program with a compare op (a selector), a reduction (a selector), a
    conv (a record) and a parameter."""
    dygraph.seed(0)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 1, 4, 4])
        conv = dygraph.nn.Conv2D(1, 2, 3)
        y = conv(x)
        flat = y.reshape([-1, 8])
        out = dygraph.cast(dygraph.greater_than(flat, flat * 0.5), "float32")
        out = out + dygraph.max(flat, axis=1, keepdim=True)
    dygraph.disable_static()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    prefix = str(tmp_path / name)
    static.save_inference_model(prefix, [x], [out], exe, program=main, scope=scope)
    return prefix


def _feed():
    return {"x": np.random.default_rng(1).standard_normal((2, 1, 4, 4)).astype(np.float32)}


def _run(prefix):
    exe = static.Executor()
    program, feeds, fetches = static.load_inference_model(prefix, exe, scope=static.Scope())
    return program, exe


def _edit(prefix, change):
    with open(prefix + ".pdmodel") as f:
        model = json.load(f)
    change(model)
    with open(prefix + ".pdmodel", "w") as f:
        json.dump(model, f)


_CONV = "conv.convolution:Conv"


def _op(model, cls_suffix):
    return next(o for o in model["ops"] if o["class"].endswith(cls_suffix))


def test_a_saved_program_round_trips(tmp_path):
    prefix = _saved(tmp_path)
    exe = static.Executor()
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    got = exe.run(program, feed=_feed(), fetch_list=fetches)[0]
    assert got.shape == (2, 1, 8) or got.shape == (2, 8)
    model = json.load(open(prefix + ".pdmodel"))
    assert model["version"] == fmt.VERSION and model["save_id"]


def test_a_selector_outside_its_table_is_refused(tmp_path):
    """The reported attack: fn_name 'savetxt' then 'load' with allow_pickle."""
    prefix = _saved(tmp_path)
    for name in ("savetxt", "load", "__class__", 7):
        _edit(prefix, lambda m, n=name: _op(m, "compare:_Elementwise")["attrs"].update(
            fn_name=n))
        with pytest.raises(ValueError, match=r"m\.pdmodel: op \d+ attribute 'fn_name'"):
            _run(prefix)
    prefix = _saved(tmp_path, "r")
    _edit(prefix, lambda m: _op(m, "reduction.reduce:Extreme")["attrs"].update(fn="tofile"))
    with pytest.raises(ValueError, match="'tofile' is not one of"):
        _run(prefix)


def test_records_are_the_geometry_types_with_their_own_fields(tmp_path):
    """The reported attack: a workspace _Block record whose __array_interface__ points at
    an address of the file's choosing."""
    prefix = _saved(tmp_path)
    block = {"__record__": "dygraph.backend.workspace:_Block",
             "fields": {"buf": None, "__array_interface__": {"__dict__": {
                 "data": {"__tuple__": [4096, False]}, "shape": {"__tuple__": [2]},
                 "typestr": "<f8", "version": 3}}}}
    _edit(prefix, lambda m: _op(m, _CONV)["attrs"].update(geo=block))
    with pytest.raises(ValueError, match="is not a record type a program may hold"):
        _run(prefix)
    prefix = _saved(tmp_path, "extra_field")

    def extra_field(model):
        _op(model, _CONV)["attrs"]["geo"]["fields"]["__class__"] = 1
    _edit(prefix, extra_field)
    with pytest.raises(ValueError, match="a Geometry record has exactly the fields"):
        _run(prefix)


def test_only_declared_attributes_may_be_set(tmp_path):
    prefix = _saved(tmp_path)
    for name, value in (("forward", 1), ("save_inputs", True), ("packed_inputs", [1]),
                        ("__dict__", {"__dict__": {}})):
        _edit(prefix, lambda m, n=name, v=value: _op(m, _CONV)["attrs"].update({n: v}))
        with pytest.raises(ValueError, match=f"Conv has no attribute '{name}'"):
            _run(prefix)
        _edit(prefix, lambda m, n=name: _op(m, _CONV)["attrs"].pop(n))


def test_functions_and_blocks_only_where_declared(tmp_path):
    prefix = _saved(tmp_path)
    for value in ({"__function__": "dygraph.io.checkpoint:save"}, {"__block__": 1},
                  {"__array__": "no such array"}, {"__tuple__": [1], "x": 2}):
        _edit(prefix, lambda m, v=value: _op(m, _CONV)["attrs"].update(keep_cols=v))
        with pytest.raises(ValueError, match="attribute 'keep_cols'"):
            _run(prefix)


def test_version_1_files_still_load_without_their_run_state(tmp_path):
    prefix = _saved(tmp_path)
    exe = static.Executor()
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    expected = exe.run(program, feed=_feed(), fetch_list=fetches)[0]

    def as_version_1(model):
        model["version"] = 1
        _op(model, _CONV)["attrs"]["in_sizes"] = {"__tuple__": [9, 9]}  # run state
        model["vars"]["x"]["dtype"] = "<f4"
    _edit(prefix, as_version_1)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    np.testing.assert_array_equal(exe.run(program, feed=_feed(), fetch_list=fetches)[0],
                                  expected)


def test_declared_shapes_cost_nothing_and_bad_ones_are_named(tmp_path):
    prefix = _saved(tmp_path)
    _edit(prefix, lambda m: m["vars"]["x"].update(shape=[1 << 20, 1 << 20, 1, 1]))
    tracemalloc.start()
    try:
        _run(prefix)  # a 4 TiB claim: loads as a zero-strided stand-in
        assert tracemalloc.get_traced_memory()[1] < 8 << 20
    finally:
        tracemalloc.stop()
    for shape in ([1 << 62, 1 << 62], [-5], "abc", [1] * 100, [1.5]):
        _edit(prefix, lambda m, s=shape: m["vars"]["x"].update(shape=s))
        with pytest.raises(ValueError, match=r"m\.pdmodel: var 'x'"):
            _run(prefix)
    for dtype in ("O", "V1000000000", "<U5", "object", 3):
        _edit(prefix, lambda m, d=dtype: m["vars"]["x"].update(shape=[-1, 1, 4, 4], dtype=d))
        with pytest.raises(ValueError, match=r"m\.pdmodel: var 'x'"):
            _run(prefix)


def test_deep_nesting_is_a_value_error(tmp_path):
    prefix = _saved(tmp_path)
    for depth in (40, 100_000):
        deep = "[" * depth + "]" * depth
        text = open(prefix + ".pdmodel").read()
        assert '"keep_cols": true' in text
        text = text.replace('"keep_cols": true', f'"keep_cols": {deep}', 1)
        with open(prefix + ".pdmodel", "w") as f:
            f.write(text)
        with pytest.raises(ValueError, match="m.pdmodel"):
            _run(prefix)
        with open(prefix + ".pdmodel", "w") as f:
            f.write(text.replace(deep, "true"))


def test_a_pair_from_two_saves_is_refused(tmp_path):
    a, b = _saved(tmp_path, "a"), _saved(tmp_path, "b")
    os.replace(b + ".pdiparams", a + ".pdiparams")
    with pytest.raises(ValueError, match="written by two different saves"):
        _run(a)


def test_saving_outside_program_guard_finds_the_variables_program(tmp_path):
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2])
        y = dygraph.nn.Linear(2, 1)(x)
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe)  # no program=
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    assert exe.run(program, feed={"x": np.ones((3, 2), np.float32)},
                   fetch_list=fetches)[0].shape == (3, 1)
    with pytest.raises(ValueError, match=r"\['nope'\] are not variables of the program"):
        static.save_inference_model(str(tmp_path / "n"), ["nope"], [y], exe, program=main)


# -- fuzzing -----------------------------------------------------------------------------

_HOSTILE = [
    None, True, -1, 1 << 62, 1e308, "savetxt", "load", "x" * 1000, [], [[[[]]]],
    {"__function__": "os:system"}, {"__function__": "dygraph.io.checkpoint:load"},
    {"__record__": "builtins:eval", "fields": {}}, {"__block__": 0}, {"__block__": 99},
    {"__array__": "@array0"}, {"__dtype__": "O"}, {"__slice__": [None, "a", None]},
    {"__tuple__": [{"__ellipsis__": True}] * 3}, {"__dict__": {"a": {"__block__": 1}}},
    {"__unknown__": 1}, {"__tuple__": 5}, {"__dict__": []},
]


def _mutations(model, rng):
    """Yield mutated copies of a program's JSON: values replaced at random places."""
    text = json.dumps(model)
    for _ in range(300):
        m = json.loads(text)
        for _ in range(rng.randint(1, 3)):
            node, key = _random_slot(m, rng)
            if node is not None:
                node[key] = copy.deepcopy(rng.choice(_HOSTILE))
        yield m


def _random_slot(node, rng, depth=0):
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    if not keys:
        return None, None
    key = rng.choice(keys)
    child = node[key]
    if isinstance(child, (dict, list)) and child and rng.random() < 0.75 and depth < 12:
        inner = _random_slot(child, rng, depth + 1)
        if inner[0] is not None:
            return inner
    return node, key


def test_mutated_programs_fail_cleanly_fast_and_small(tmp_path):
    """Mutated program files and damaged parameter files: each load raises only
    ValueError (or loads, and a run raises an ordinary exception or returns), runs no code
    (a marker file that hostile names point at never appears), takes under a second and
    allocates at most a small multiple of the files' size."""
    prefix = _saved(tmp_path)
    marker = tmp_path / "ran"
    model = json.load(open(prefix + ".pdmodel"))
    size = os.path.getsize(prefix + ".pdmodel") + os.path.getsize(prefix + ".pdiparams")
    rng = random.Random(0)
    params = open(prefix + ".pdiparams", "rb").read()
    fmt.OpTable()  # the op modules are imported once, outside the measurement
    tracemalloc.start()
    try:
        loaded = 0
        for i, mutated in enumerate(_mutations(model, rng)):
            with open(prefix + ".pdmodel", "w") as f:
                json.dump(mutated, f)
            if i % 10 == 0:  # some runs also get a damaged parameters file
                cut = rng.randrange(len(params))
                with open(prefix + ".pdiparams", "wb") as f:
                    f.write(params[:cut] + bytes([params[cut] ^ 0xFF]) + params[cut + 1:])
            tracemalloc.reset_peak()
            start = time.perf_counter()
            try:
                program, exe = _run(prefix)
            except ValueError:
                pass
            else:
                loaded += 1
                try:
                    exe.run(program, feed=_feed(), fetch_list=[program.global_block().ops[-1]
                                                               .outputs[0]])
                except Exception:  # noqa: BLE001 - a run may fail, it must not run code
                    pass
            assert time.perf_counter() - start < 1.0, mutated
            assert tracemalloc.get_traced_memory()[1] < 20 * size + (2 << 20), mutated
            assert not marker.exists()
            with open(prefix + ".pdiparams", "wb") as f:
                f.write(params)
    finally:
        tracemalloc.stop()
    assert 0 < loaded < 300  # both outcomes were reached


# -- the schema is complete and closed ----------------------------------------------------

def test_no_op_and_no_loader_reads_a_name_from_a_file_with_getattr():
    """A getattr whose name is not a literal, inside an op class or in the loader, is how a
    file's string could select code: there is none (closed tables instead)."""
    import ast
    import inspect

    table = fmt.OpTable()
    offenders = []
    sources = {}
    for cls in table.classes.values():
        module = inspect.getmodule(cls)
        sources.setdefault(module.__file__, set()).add(cls.__qualname__)
    # The loader: all of static/io.py, and the reading side of program_format.
    sources[static.io.__file__] = None
    sources[fmt.__file__] = {"Decoder", "OpTable", "dtype_from_name", "check_shape"}
    for path, qualnames in sources.items():
        tree = ast.parse(open(path).read())
        scopes = [tree] if qualnames is None else [
            node for node in ast.walk(tree)
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in
            {q.rsplit(".", 1)[-1] for q in qualnames}]
        for scope in scopes:
            for node in ast.walk(scope):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "getattr"
                        and not isinstance(node.args[1], ast.Constant)):
                    offenders.append(f"{path}:{node.lineno}")
    assert offenders == []


def test_every_op_class_declares_its_configuration():
    """`attrs` names exactly what each op's __init__ sets (less per-run placeholders), and
    OP_MODULES names every module that defines op classes."""
    import ast
    import importlib
    import inspect
    import pkgutil
    import textwrap

    from dygraph.autograd.function import Op

    for info in pkgutil.walk_packages(dygraph.__path__, "dygraph."):
        if "gpu" not in info.name and "cuda" not in info.name:
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional package this machine lacks
                pass
    run_state = {"inputs", "edges", "versions", "out_data", "cols", "saved", "tensors",
                 "outs", "keep", "flat", "prob", "rows", "probing", "arg", "inner", "bulk",
                 "xhat", "rstd", "batch_mean", "batch_var", "grad_wanted"}
    classes, pending = [], [Op]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("dygraph.") and cls is not Op:
            classes.append(cls)
    assert {c.__module__ for c in classes} == set(fmt.OP_MODULES)
    from dygraph.autograd.whole_call import WHOLE_CALLS

    whole_call_modules = {path.partition(":")[0] for path in WHOLE_CALLS}
    assert whole_call_modules <= set(fmt.OP_MODULES) | set(fmt.WHOLE_CALL_MODULES)
    assert set(fmt.WHOLE_CALL_MODULES) <= whole_call_modules
    wrong = []
    for cls in classes:
        init = cls.__dict__.get("__init__")
        if init is None:
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
        assigned = {t.attr for node in ast.walk(tree) for t in ast.walk(node)
                    if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store)
                    and isinstance(t.value, ast.Name) and t.value.id == "self"}
        own = set(cls.__dict__.get("attrs", ()))
        if assigned - run_state != own:
            wrong.append(f"{cls.__module__}:{cls.__qualname__}: sets "
                         f"{sorted(assigned - run_state)}, declares {sorted(own)}")
    assert wrong == []


def test_a_program_that_would_write_a_file_is_refused_and_writes_nothing(tmp_path):
    """A hand-made hostile op: a whole-call op naming dygraph.save with a path of the
    file's choosing. If the loader accepted the function, running the program would
    create the marker file."""
    prefix = _saved(tmp_path)
    marker = tmp_path / "ran"

    def hostile(model):
        model["vars"]["evil"] = {"shape": [], "dtype": "float32", "persistable": False}
        model["ops"].append({
            "class": "dygraph.static.eager_call:EagerCall", "type": "eagercall",
            "attrs": {"fn": {"__function__": "dygraph.io.checkpoint:save"},
                      "kwargs": {"__dict__": {"obj": {"__dict__": {}}, "path": str(marker)}},
                      "names": [], "stops": [], "free_dims": {"__tuple__": []},
                      "always": True, "amp": None, "n_outputs": 1},
            "inputs": [], "outputs": ["evil"], "stop_gradient": []})
        model["fetches"].append("evil")
    _edit(prefix, hostile)
    with pytest.raises(ValueError, match="is not a function a program may call"):
        _run(prefix)
    assert not marker.exists()


def test_a_file_naming_former_module_paths_loads(tmp_path):
    """A program saved before the layout by concept names its ops, records and functions by
    the module paths of then (dygraph.ops.conv, dygraph.ops.compare_extra, ...); it loads and
    gives the same numbers, through static/former_paths.py."""
    from dygraph.static.former_paths import FORMER_MODULES, current_path

    prefix = _saved(tmp_path)
    exe = static.Executor()
    program, _, fetches = static.load_inference_model(prefix, exe)
    want = exe.run(program, feed=_feed(), fetch_list=fetches)[0]
    former = {new: old for old, new in FORMER_MODULES.items()}
    renamed = []

    def to_former(value):
        if isinstance(value, dict):
            return {k: to_former(v) for k, v in value.items()}
        if isinstance(value, list):
            return [to_former(v) for v in value]
        if isinstance(value, str) and ":" in value:
            module, _, qualname = value.partition(":")
            if module in former:
                renamed.append(value)
                return f"{former[module]}:{qualname}"
        return value

    _edit(prefix, lambda model: model.update(to_former(model)))
    assert len(renamed) >= 4  # the conv, compare, max and cast op classes at least
    program, _, fetches = static.load_inference_model(prefix, exe)
    np.testing.assert_array_equal(exe.run(program, feed=_feed(), fetch_list=fetches)[0], want)
    assert current_path("dygraph.ops.conv:Conv") == "dygraph.ops.conv.convolution:Conv"
    assert current_path("no.such:Thing") == "no.such:Thing"


MOVED = [  # (build y from x, the class's path now, its former path)
    (lambda x: dygraph.maximum(x, dygraph.full([3], 0.5)),
     "dygraph.ops.math.extrema:Maximum", "dygraph.ops.math.arithmetic:Maximum"),
    (lambda x: dygraph.nn.functional.layer_norm(x, [3]),
     "dygraph.ops.normalization.normalize:Normalize", "dygraph.ops.normalization.norms:Normalize"),
]


@pytest.mark.parametrize("build, now, before", MOVED)
def test_a_file_naming_a_moved_op_class_loads(tmp_path, build, now, before):
    """maximum's op class moved from ops/math/arithmetic.py to ops/math/extrema.py, and
    Normalize from ops/normalization/norms.py to normalize.py; a file that names one at its
    former place (or the layout before that) loads, with its numbers."""
    from dygraph.static.former_paths import current_path

    assert current_path(before) == now
    assert current_path("dygraph.ops.math:Maximum") == "dygraph.ops.math.extrema:Maximum"
    assert current_path("dygraph.ops.math.arithmetic:Add") == "dygraph.ops.math.arithmetic:Add"
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3], "float32")
        y = build(x)
    dygraph.disable_static()
    prefix = str(tmp_path / "model")
    exe = static.Executor()
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    data = np.array([[0.0, 1.0, 0.25]], np.float32)
    program, _, fetches = static.load_inference_model(prefix, exe)
    want = exe.run(program, feed={"x": data}, fetch_list=fetches)[0]
    moved = []

    def to_former(value):
        if isinstance(value, dict):
            return {k: to_former(v) for k, v in value.items()}
        if isinstance(value, list):
            return [to_former(v) for v in value]
        if value == now:
            moved.append(value)
            return before
        return value

    _edit(prefix, lambda model: model.update(to_former(model)))
    assert moved
    program, _, fetches = static.load_inference_model(prefix, exe)
    out = exe.run(program, feed={"x": data}, fetch_list=fetches)[0]
    np.testing.assert_array_equal(out, want)


def test_a_fresh_process_loads_a_program_calling_a_lazily_loaded_function(tmp_path):
    """nms is a whole call registered by dygraph.vision.ops, which `import dygraph` leaves
    for its first use: a fresh process that only loads the program must still find it."""
    import subprocess
    import sys

    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        boxes = static.data("boxes", [None, 4])
        keep = dygraph.vision.ops.nms(boxes, iou_threshold=0.5)
    dygraph.disable_static()
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "nms")
    static.save_inference_model(prefix, [boxes], [keep], exe, program=main)
    feed = np.array([[0, 0, 1, 1], [0, 0, 1, 1.1], [5, 5, 6, 6]], np.float32)
    code = ("import sys, numpy as np\nfrom dygraph import static\n"
            "exe = static.Executor()\n"
            "program, feeds, fetches = static.load_inference_model(sys.argv[1], exe)\n"
            "print(exe.run(program, feed={'boxes': np.array(eval(sys.argv[2]), np.float32)},"
            " fetch_list=fetches)[0].tolist())\n")
    out = subprocess.run([sys.executable, "-c", code, prefix, repr(feed.tolist())],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[0, 2]"
