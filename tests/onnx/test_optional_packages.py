"""onnx and onnxruntime are optional: importing dygraph.onnx and dygraph.inference does not
load them, and using them without the packages names what to install."""

import subprocess
import sys

import pytest

import dygraph
from dygraph.inference import Config, create_predictor
from dygraph.static import InputSpec


def test_importing_the_packages_does_not_load_onnx():
    code = ("import sys, dygraph.onnx, dygraph.inference; "
            "print(sorted(m for m in ('onnx', 'onnxruntime') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_packages_name_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    with pytest.raises(ImportError,
                       match=r"'onnx' package: pip install 'dygraph-framework\[onnx\]'"):
        dygraph.onnx.export(dygraph.nn.ReLU(), str(tmp_path / "m"), [InputSpec([2])])
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    config = Config(str(tmp_path / "m"))
    config.enable_onnxruntime()
    with pytest.raises(ImportError, match="'onnxruntime' package"):
        create_predictor(config)
