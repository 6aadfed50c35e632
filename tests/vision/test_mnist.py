"""MNIST / FashionMNIST: IDX files, the data home, downloads (never from the internet) and
the shipped sample."""

import gzip
import hashlib
import http.server
import os
import threading

import numpy as np
import pytest

from dygraph.io import DataLoader
from dygraph.vision import transforms as T
from dygraph.vision.datasets import (
    MNIST,
    FashionMNIST,
    IDXFormatError,
    mnist_sample_paths,
    read_idx,
    write_idx,
)
from dygraph.vision.datasets.download import DownloadError, download

UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing listens there


def small_set(n=5, seed=0):
    gen = np.random.default_rng(seed)
    return gen.integers(0, 256, (n, 28, 28), dtype=np.uint8), gen.integers(0, 10, n, np.uint8)


def write_mnist(folder, mode="train", compress=True, n=5):
    images, labels = small_set(n)
    prefix = "train" if mode == "train" else "t10k"
    suffix = ".gz" if compress else ""
    write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte{suffix}"), images, compress)
    write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte{suffix}"), labels, compress)
    return images, labels


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DYGRAPH_DATASET_MIRROR", UNREACHABLE)
    return tmp_path / "home"


@pytest.mark.parametrize("compress", [True, False])
def test_idx_round_trip_gzipped_and_raw(tmp_path, compress):
    images, _ = small_set()
    path = tmp_path / "x"
    write_idx(path, images, compress=compress)
    assert (open(path, "rb").read(2) == b"\x1f\x8b") == compress
    np.testing.assert_array_equal(read_idx(path, expect_dims=3), images)


def test_idx_errors(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x12\x34\x08\x01" + b"\x00" * 8)
    with pytest.raises(IDXFormatError, match="bad magic number 12340801"):
        read_idx(bad)
    labels = tmp_path / "labels"
    write_idx(labels, np.arange(4, dtype=np.uint8))
    with pytest.raises(IDXFormatError, match="3-D file was expected"):
        read_idx(labels, expect_dims=3)
    short = tmp_path / "short.gz"
    with gzip.open(short, "wb") as f:
        f.write(bytes([0, 0, 8, 1]) + np.array([10], ">u4").tobytes() + b"\x01\x02")
    with pytest.raises(IDXFormatError, match=r"shape \[10\].*holds 10 bytes"):
        read_idx(short)


@pytest.mark.parametrize("compress", [True, False])
def test_mnist_from_explicit_paths(tmp_path, compress):
    images, labels = write_mnist(tmp_path, "test", compress)
    suffix = ".gz" if compress else ""
    ds = MNIST(image_path=str(tmp_path / f"t10k-images-idx3-ubyte{suffix}"),
               label_path=str(tmp_path / f"t10k-labels-idx1-ubyte{suffix}"),
               mode="test", backend="cv2", download=False)
    assert len(ds) == 5
    image, label = ds[3]
    assert image.shape == (28, 28) and image.dtype == np.float32
    np.testing.assert_array_equal(image, images[3].astype(np.float32))
    assert label.shape == (1,) and label.dtype == np.int64 and label[0] == labels[3]


def test_mnist_from_data_home_and_data_dir(home, tmp_path):
    images, labels = write_mnist(home / "mnist", "train", compress=False)
    ds = MNIST(mode="train", backend="cv2")
    np.testing.assert_array_equal(ds[0][0], images[0])
    other = tmp_path / "elsewhere"
    _, test_labels = write_mnist(other, "test")
    assert MNIST(mode="test", data_dir=str(other), backend="cv2")[4][1][0] == test_labels[4]
    fashion_images, _ = write_mnist(home / "fashion-mnist", "train")
    np.testing.assert_array_equal(FashionMNIST(backend="cv2")[1][0], fashion_images[1])


def test_mnist_pil_backend_and_transform(tmp_path):
    images, _ = write_mnist(tmp_path, "train")
    paths = dict(image_path=str(tmp_path / "train-images-idx3-ubyte.gz"),
                 label_path=str(tmp_path / "train-labels-idx1-ubyte.gz"))
    image, _ = MNIST(**paths, backend="pil")[2]
    assert image.size == (28, 28) and image.mode == "L"
    np.testing.assert_array_equal(np.asarray(image), images[2])
    tensor, _ = MNIST(**paths, backend="pil", transform=T.ToTensor())[2]
    assert tensor.shape == [1, 28, 28]
    np.testing.assert_allclose(tensor.numpy()[0], images[2] / 255.0, rtol=1e-6)
    norm = MNIST(**paths, backend="cv2",
                 transform=T.Normalize(mean=[127.5], std=[127.5], data_format="CHW"))
    scaled = norm[2][0]  # Paddle's MNIST example: a 28x28 image becomes 1x28x28 in [-1, 1]
    assert scaled.shape == (1, 28, 28) and scaled.dtype == np.float32
    np.testing.assert_allclose(scaled[0], images[2] / 127.5 - 1.0, atol=1e-6)


def test_mnist_argument_and_file_errors(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        MNIST(mode="valid", sample=True)
    with pytest.raises(ValueError, match="backend"):
        MNIST(sample=True, backend="opencv")
    with pytest.raises(FileNotFoundError, match="no such file"):
        MNIST(image_path=str(tmp_path / "nope"), label_path=str(tmp_path / "nope2"))
    images, _ = write_mnist(tmp_path, "train", n=5)
    write_idx(tmp_path / "labels3", np.zeros(3, np.uint8))
    with pytest.raises(IDXFormatError, match="5 images but .* 3 labels"):
        MNIST(image_path=str(tmp_path / "train-images-idx3-ubyte.gz"),
              label_path=str(tmp_path / "labels3"))
    with pytest.raises(ValueError, match="no Fashion-MNIST sample"):
        FashionMNIST(sample=True)


def test_missing_files_with_download_disabled(home):
    with pytest.raises(FileNotFoundError) as info:
        MNIST(mode="test", download=False, backend="cv2")
    message = str(info.value)
    assert "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz" in message
    assert str(home / "mnist") in message and "DYGRAPH_HOME" in message
    assert "sample=True" in message


def test_missing_files_offline_download_fails_clearly(home):
    with pytest.raises(RuntimeError) as info:
        MNIST(mode="train", backend="cv2")
    message = str(info.value)
    assert "could not be downloaded" in message
    assert f"{UNREACHABLE}/mnist/train-images-idx3-ubyte.gz" in message
    assert str(home / "mnist") in message and "sample=True" in message
    assert not list((home / "mnist").glob("*"))  # no partial files left behind
    with pytest.raises(RuntimeError, match="fashion-mnist/t10k-labels-idx1-ubyte.gz"):
        FashionMNIST(mode="test", backend="cv2")


@pytest.fixture
def local_server(tmp_path):
    """An HTTP server on 127.0.0.1 serving tmp_path/served."""
    root = tmp_path / "served"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_download_checks_md5_and_tries_the_next_mirror(tmp_path, local_server):
    root, url = local_server
    (root / "f.bin").write_bytes(b"payload")
    good = hashlib.md5(b"payload").hexdigest()
    target = tmp_path / "got" / "f.bin"
    download([f"{UNREACHABLE}/f.bin", f"{url}/f.bin"], str(target), good, timeout=5)
    assert target.read_bytes() == b"payload"
    with pytest.raises(DownloadError, match="md5 .* does not match the expected 0+"):
        download([f"{url}/f.bin"], str(tmp_path / "bad.bin"), "0" * 32, timeout=5)
    assert not (tmp_path / "bad.bin").exists()


def test_mnist_download_rejects_a_corrupt_mirror(home, local_server, monkeypatch):
    root, url = local_server
    (root / "mnist").mkdir()
    write_mnist(root / "mnist", "test")  # valid IDX files, but not the real MNIST md5
    monkeypatch.setenv("DYGRAPH_DATASET_MIRROR", url)
    with pytest.raises(RuntimeError, match="md5"):
        MNIST(mode="test", backend="cv2")


def test_shipped_sample():
    train = MNIST(mode="train", sample=True, backend="cv2")
    test = MNIST(mode="test", sample=True, backend="cv2")
    assert (len(train), len(test)) == (8000, 2000)
    assert [os.path.basename(p) for p in mnist_sample_paths("train")] == [
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    assert sum(os.path.getsize(p) for m in ("train", "test") for p in mnist_sample_paths(m)) \
        < 2 * 1024 * 1024
    assert set(np.unique(train.labels).tolist()) == set(range(10))
    assert np.bincount(test.labels, minlength=10).min() > 100  # every digit well represented
    image, label = test[0]
    assert image.shape == (28, 28) and 0 <= image.min() and image.max() <= 255
    assert image.max() > 200 and label.dtype == np.int64  # real digits: bright strokes
    x, y = next(iter(DataLoader(MNIST(mode="test", sample=True, transform=T.ToTensor()),
                                batch_size=16)))
    assert x.shape == [16, 1, 28, 28] and y.shape == [16, 1]
    assert 0.0 <= float(x.numpy().min()) and float(x.numpy().max()) <= 1.0
