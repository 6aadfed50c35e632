"""`import dygraph.io` / `dygraph.vision` stay light; names resolve lazily as in Paddle."""

import subprocess
import sys

import dygraph


def test_imports_do_not_load_checkpoints_models_or_pillow():
    code = ("import sys, dygraph.io, dygraph.vision, dygraph.vision.datasets; "
            "print(sorted(m for m in ('dygraph.io.checkpoint', 'dygraph.vision.models', 'PIL') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_names():
    assert dygraph.vision.MNIST is dygraph.vision.datasets.MNIST
    assert dygraph.vision.ToTensor is dygraph.vision.transforms.ToTensor
    assert dygraph.vision.get_image_backend() in ("pil", "cv2")
    assert dygraph.batch is dygraph.reader.batch
    assert dygraph.io.DataLoader.__module__ == "dygraph.io.dataloader"
