"""Helpers for the seed examples: small MNIST readers, a scratch working directory, a PNG of a
test digit, and parsing what the examples print.

The seeds train on the full MNIST for several epochs; here `dataset.mnist.train()/test()`
give the first few batches of the shipped sample (the examples' code is unchanged), so each
example runs in about a second.
"""

import re
import warnings

import numpy as np
import pytest

import dygraph.dataset.mnist as mnist_dataset
from dygraph.reader import firstn


@pytest.fixture
def small_mnist(monkeypatch, tmp_path):
    """Call with (train_samples, test_samples) to cap the MNIST readers; also makes a
    scratch directory the working directory, since the examples write 'save_dir'."""
    monkeypatch.chdir(tmp_path)
    full_train, full_test = mnist_dataset.train, mnist_dataset.test

    def cap(train_samples, test_samples=256):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "no full MNIST, using the shipped sample"
            mnist_dataset.files("train")
            mnist_dataset.files("test")
        monkeypatch.setattr(mnist_dataset, "train",
                            lambda: firstn(full_train(), train_samples))
        monkeypatch.setattr(mnist_dataset, "test", lambda: firstn(full_test(), test_samples))

    return cap


def write_digit_png(path, label):
    """Write the first test digit of class `label` as a 28x28 grayscale PNG; returns the
    pixels as the MNIST reader gives them ([-1, 1], shape [784])."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample = next(img for img, lab in mnist_dataset.test()() if lab == label)
    pixels = np.rint((sample + 1.0) * 127.5).clip(0, 255).astype(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels.reshape(28, 28)).save(path)
    return sample


def printed_values(text, prefix):
    """The numbers printed after `prefix` on each line that has it ('[2.302]' -> 2.302)."""
    pattern = re.escape(prefix) + r"\s*\[?\s*([-+0-9.eE]+)"
    return [float(m) for m in re.findall(pattern, text)]


# A training script that the launcher runs (test_seed_001's multi-GPU example), not a module
# for pytest to import.
collect_ignore = ["seed_001_multi_gpu_train.py"]


@pytest.fixture(autouse=True)
def _dynamic_after_each_example():
    """1.x static examples leave their thread in static mode (as a 1.x program would stay);
    the next example starts in dynamic mode again, with fresh default programs."""
    yield
    import dygraph
    from dygraph.static import program

    dygraph.disable_static()
    program._default.update(main=program.Program(), startup=program.Program())
