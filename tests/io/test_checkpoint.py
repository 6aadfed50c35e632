"""dygraph.save / dygraph.load: round trips, the file format's checks, atomic writes and a
process killed mid-save."""

import io
import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dygraph
from dygraph.framework.parameter import Parameter
from dygraph.io import checkpoint

REPO = os.path.dirname(os.path.dirname(os.path.abspath(dygraph.__file__)))


def round_trip(obj, **configs):
    buffer = io.BytesIO()
    dygraph.save(obj, buffer)
    buffer.seek(0)
    return dygraph.load(buffer, **configs)


def test_nested_state_round_trips_with_types_dtypes_and_names():
    w = Parameter(np.arange(6, dtype=np.float32).reshape(2, 3), name="linear_0.w_0")
    obj = {
        "model": {"fc.weight": w, "fc.bias": dygraph.to_tensor([0.5, -1.0])},
        "opt": {"LR_Scheduler": {"last_epoch": 3, "last_lr": 0.1, "best": None}},
        "arrays": [np.arange(4, dtype=np.int64), np.ones((2, 0), np.float16),
                   np.array([1 + 2j], np.complex64), np.array([True, False])],
        "scalars": (1, 2.5, -0.0, float("inf"), 2 ** 70, True, None, "日本", b"\x00\xff",
                    3 - 4j, np.float32(1.5), np.int16(-3)),
        7: "int key", 2.5: "float key", None: "none key",
    }
    got = round_trip(obj)
    assert list(got) == list(obj)
    weight = got["model"]["fc.weight"]
    assert isinstance(weight, dygraph.Tensor) and weight.stop_gradient
    assert weight.name == "linear_0.w_0" and weight.dtype == dygraph.float32
    np.testing.assert_array_equal(weight.numpy(), w.numpy())
    np.testing.assert_array_equal(got["model"]["fc.bias"].numpy(), [0.5, -1.0])
    assert got["opt"] == obj["opt"]
    for a, b in zip(got["arrays"], obj["arrays"]):
        assert type(a) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert got["scalars"] == obj["scalars"]
    assert [type(v) for v in got["scalars"]] == [type(v) for v in obj["scalars"]]
    assert str(got["scalars"][2]) == "-0.0"
    assert got[7] == "int key" and got[2.5] == "float key" and got[None] == "none key"


def test_zero_d_tensors_and_views_keep_their_shape():
    got = round_trip([dygraph.to_tensor(3.0), np.arange(6).reshape(2, 3).T,
                      np.arange(3, dtype=">i4"), np.float64(2.0)])
    assert got[0].shape == [] and got[0].item() == 3.0
    np.testing.assert_array_equal(got[1], np.arange(6).reshape(2, 3).T)
    assert got[2].dtype == np.int32 and got[3] == np.float64(2.0) and got[3].shape == ()


def test_shared_objects_stay_shared():
    w = dygraph.to_tensor([1.0, 2.0])
    a = np.zeros(3)
    got = round_trip({"x": w, "y": w, "a": [a, a]})
    assert got["x"] is got["y"] and got["a"][0] is got["a"][1]


def test_return_numpy_and_nan():
    got = round_trip({"w": dygraph.to_tensor([float("nan"), 1.0])}, return_numpy=True)
    assert type(got["w"]) is np.ndarray and np.isnan(got["w"][0])


def test_paddle_file_names_and_a_new_directory(tmp_path):
    for name in ("model.pdparams", "model.pdopt", "weights", "w.pdtensor"):
        path = tmp_path / "sub" / "dir" / name
        dygraph.save({"a": 1}, str(path))
        assert dygraph.load(str(path)) == {"a": 1}
    dygraph.save({"b": 2}, tmp_path / "pathlike.pdparams")
    assert dygraph.load(tmp_path / "pathlike.pdparams") == {"b": 2}
    assert sorted(os.listdir(tmp_path / "sub" / "dir")) == [
        "model.pdopt", "model.pdparams", "w.pdtensor", "weights"]  # no temporaries left


def test_overwrite_replaces_the_file_and_keeps_permissions(tmp_path):
    path = tmp_path / "m.pdparams"
    dygraph.save({"v": 1}, str(path))
    dygraph.save({"v": 2}, str(path))
    assert dygraph.load(str(path)) == {"v": 2}
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask


def test_failed_save_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "m.pdparams"
    dygraph.save({"v": 1}, str(path))
    with pytest.raises(TypeError, match=r"obj\['bad'\]\[0\].*object"):
        dygraph.save({"v": 2, "bad": [object()]}, str(path))
    assert dygraph.load(str(path)) == {"v": 1}
    assert os.listdir(tmp_path) == ["m.pdparams"]


@pytest.mark.parametrize("obj, exc, match", [
    ({"f": lambda: 0}, TypeError, "function"),
    ({(1, 2): 0}, TypeError, "key of type tuple"),
    ({"s": np.array(["a"])}, TypeError, "dtype <U1"),
    ({"o": np.array([None], dtype=object)}, TypeError, "dtype object"),
])
def test_unsupported_objects_are_refused_on_save(obj, exc, match):
    with pytest.raises(exc, match=match):
        dygraph.save(obj, io.BytesIO())


def test_reference_cycle_is_refused():
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="cycle"):
        dygraph.save(loop, io.BytesIO())


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="protocol"):
        dygraph.save({}, str(tmp_path / "a"), protocol=5)
    with pytest.raises(ValueError, match="not supported"):
        dygraph.save({}, str(tmp_path / "a"), pickle_module=pickle)
    with pytest.raises(ValueError, match="not supported"):
        dygraph.load(str(tmp_path / "a"), model_filename="x")
    with pytest.raises(ValueError, match="directory"):
        dygraph.save({}, str(tmp_path))
    with pytest.raises(ValueError, match="directory"):
        dygraph.load(str(tmp_path))
    with pytest.raises(ValueError, match="file"):
        dygraph.save({}, str(tmp_path) + os.sep)
    with pytest.raises(FileNotFoundError):
        dygraph.load(str(tmp_path / "missing.pdparams"))


# -- damaged and foreign files ------------------------------------------------------------
def saved_bytes():
    buffer = io.BytesIO()
    dygraph.save({"w": np.arange(100, dtype=np.float32), "name": "x"}, buffer)
    return bytearray(buffer.getvalue())


def load_bytes(tmp_path, data):
    path = tmp_path / "damaged.pdparams"
    path.write_bytes(bytes(data))
    return dygraph.load(str(path))


def test_every_truncation_is_reported(tmp_path):
    data = saved_bytes()
    for cut in sorted({0, 1, 11, 12, 63, 64, 65, len(data) // 2, len(data) - 1}):
        with pytest.raises(ValueError, match="truncated|empty") as info:
            load_bytes(tmp_path, data[:cut])
        assert "damaged.pdparams" in str(info.value)


def test_corruption_anywhere_is_reported(tmp_path):
    data = saved_bytes()
    header_len = int.from_bytes(data[16:24], "little")
    for where, part in [(20, "preamble"), (64 + 5, "header"),
                        (64 + header_len + (-header_len % 64) + 7, "array data")]:
        damaged = bytearray(data)
        damaged[where] ^= 0x10
        with pytest.raises(ValueError, match=f"{part} is corrupt"):
            load_bytes(tmp_path, damaged)


def test_trailing_bytes_are_reported(tmp_path):
    with pytest.raises(ValueError, match="after the array data"):
        load_bytes(tmp_path, saved_bytes() + b"junk")


def test_newer_format_version_is_reported(tmp_path):
    data = saved_bytes()
    data[12:16] = (checkpoint.FORMAT_VERSION + 1).to_bytes(4, "little")
    data[40:44] = __import__("zlib").crc32(bytes(data[:40])).to_bytes(4, "little")
    with pytest.raises(ValueError, match="newer DyGraph"):
        load_bytes(tmp_path, data)


class Boom:
    """Unpickling this would run code; load must never get that far."""

    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


@pytest.mark.parametrize("payload, kind", [
    (pickle.dumps({"w": Boom()}, protocol=4), "pickle"),
    (pickle.dumps({"w": 1}, protocol=2), "pickle"),
    (b"PK\x03\x04" + b"\0" * 60, "zip"),
    (b"\x93NUMPY\x01\x00" + b"\0" * 60, "npy"),
    (b"hello, world" * 10, "unknown format"),
])
def test_foreign_files_are_refused_without_unpickling(tmp_path, monkeypatch, payload, kind):
    def forbidden(*args, **kwargs):
        raise AssertionError("load tried to unpickle")

    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    with pytest.raises(ValueError, match=f"not a DyGraph checkpoint.*{kind}"):
        load_bytes(tmp_path, payload)


def test_inconsistent_array_table_is_reported(tmp_path):
    data = saved_bytes()
    header_len = int.from_bytes(data[16:24], "little")
    header = bytes(data[64:64 + header_len]).replace(b'"shape":[100]', b'"shape":[900]')
    assert len(header) == header_len
    data[64:64 + header_len] = header
    zlib = __import__("zlib")
    data[32:36] = zlib.crc32(header).to_bytes(4, "little")
    data[40:44] = zlib.crc32(bytes(data[:40])).to_bytes(4, "little")
    with pytest.raises(ValueError, match="does not fit its shape"):
        load_bytes(tmp_path, data)


# -- crash safety -------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from dygraph.io.checkpoint import save
    path, start = sys.argv[1], int(sys.argv[2])
    version = start
    while True:
        n = 50_000 + 997 * (version % 50)  # sizes differ, so a torn file cannot pass
        save({"version": version, "w": np.full(n, version, np.float32),
              "meta": {"n": n, "tag": "v%d" % version}}, path)
        if version == start:
            print("ready", flush=True)
        version += 1
""")


def check_complete(path):
    state = dygraph.load(path)
    n, version = state["meta"]["n"], state["version"]
    assert state["meta"]["tag"] == f"v{version}"
    w = state["w"]
    assert w.shape == (n,) and np.all(w == version)
    return version


def test_killed_during_save_loop_leaves_a_complete_checkpoint(tmp_path):
    path = str(tmp_path / "loop.pdparams")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rng = random.Random(5)
    version = 0
    for _ in range(4):
        child = subprocess.Popen([sys.executable, "-c", CHILD, path, str(version)],
                                 stdout=subprocess.PIPE, env=env)
        try:
            assert child.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.0, 0.15))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        last = check_complete(path)
        assert last >= version
        version = last + 1
    leftovers = [f for f in os.listdir(tmp_path) if f != "loop.pdparams"]
    assert all(f.startswith(".loop.pdparams.") and f.endswith(".tmp") for f in leftovers)
