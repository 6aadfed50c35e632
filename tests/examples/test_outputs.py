"""Where the examples write: by default a folder per example under the DyGraph home
($DYGRAPH_HOME, else $XDG_CACHE_HOME/dygraph, else ~/.cache/dygraph), never the directory
they run from; --save-dir still picks the folder."""

import os
import subprocess
import sys

import pytest

from dygraph.examples import mnist_hapi, mnist_parallel
from dygraph.examples.outputs import dygraph_home, output_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytest.importorskip("PIL.Image")  # the main job writes and predicts a PNG


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """An empty working directory, HOME and XDG_CACHE_HOME in tmp_path, no DYGRAPH_HOME."""
    cwd, home, cache = tmp_path / "cwd", tmp_path / "home", tmp_path / "cache"
    for folder in (cwd, home, cache):
        folder.mkdir()
    monkeypatch.delenv("DYGRAPH_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.chdir(cwd)
    return cwd, home, cache


def test_the_home_is_dygraph_home_then_xdg_cache_then_dot_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("DYGRAPH_HOME", raising=False)
    assert dygraph_home() == str(tmp_path / "h" / ".cache" / "dygraph")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert dygraph_home() == str(tmp_path / "c" / "dygraph")
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path / "d"))
    assert dygraph_home() == str(tmp_path / "d")
    assert output_dir("mnist") == str(tmp_path / "d" / "examples" / "mnist")
    assert output_dir("mnist", "runs/a") == "runs/a"  # an explicit folder as given
    monkeypatch.setenv("DYGRAPH_HOME", "~/dg")
    assert output_dir("mnist_hapi") == str(tmp_path / "h" / "dg" / "examples" / "mnist_hapi")


def test_the_main_job_writes_under_the_cache_and_nothing_in_its_directory(homes):
    cwd, home, cache = homes
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "dygraph.examples.mnist", "--max-steps", "2", "--quiet"],
        capture_output=True, text=True, env=env, timeout=300, cwd=str(cwd))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = cache / "dygraph" / "examples" / "mnist"
    assert f"Outputs: {out}\n" in proc.stdout, proc.stdout
    assert f"Checkpoint saved: {out / 'mnist.pdparams'}" in proc.stdout
    names = os.listdir(out)
    assert {"mnist.pdparams", "mnist.pdopt"} <= set(names), names
    assert [n for n in names if n.startswith("infer_") and n.endswith(".png")], names
    assert os.listdir(cwd) == []
    assert not os.path.exists(home / ".cache" / "dygraph")  # XDG_CACHE_HOME, not ~/.cache


def test_the_main_job_keeps_an_explicit_save_dir(homes):
    cwd, _, cache = homes
    from dygraph.examples import mnist

    result = mnist.main(["--max-steps", "1", "--quiet", "--save-dir", "mine"])
    assert result["checkpoint"][0] == os.path.join("mine", "mnist.pdparams")
    assert os.path.isfile(cwd / "mine" / "mnist.pdparams")
    assert not os.path.exists(cache / "dygraph")


def test_the_hapi_job_writes_under_the_cache(homes, capsys):
    cwd, _, cache = homes
    mnist_hapi.main(["--max-steps", "2", "--verbose", "0"])
    out = cache / "dygraph" / "examples" / "mnist_hapi"
    assert f"Outputs: {out}\n" in capsys.readouterr().out
    assert any(name.endswith(".pdparams") for name in os.listdir(out)), os.listdir(out)
    assert os.listdir(cwd) == []


def test_the_parallel_job_writes_under_the_cache(homes, capsys):
    cwd, _, cache = homes
    mnist_parallel.main(["--max-steps", "2"])
    out = cache / "dygraph" / "examples" / "mnist_parallel"
    assert f"saved {out / 'mnist.pdparams'}" in capsys.readouterr().out
    assert os.listdir(out) == ["mnist.pdparams"]
    assert os.listdir(cwd) == []
