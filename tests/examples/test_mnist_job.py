"""The main job (python -m dygraph.examples.mnist): a short run on the shipped sample as a
subprocess, in-process runs on small IDX files the tests write, the data layouts, the
seeds' image loading, the options, and the fallbacks without tqdm or matplotlib."""

import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph
from dygraph.examples import mnist, mnist_train
from dygraph.examples.mnist_data import load_data, load_image, scale_images, write_digit_png
from dygraph.examples.mnist_train import plot_curves, progress_bar
from dygraph.vision.datasets import write_idx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
Image = pytest.importorskip("PIL.Image")


def digits(n, seed=0):
    """Learnable synthetic digits: class k lights up row band k, plus noise."""
    gen = np.random.default_rng(seed)
    labels = gen.integers(0, 10, n).astype(np.uint8)
    images = gen.integers(0, 60, (n, 28, 28)).astype(np.uint8)
    for k in range(10):
        images[labels == k, 2 + 2 * k:4 + 2 * k, 4:24] = 255
    return images, labels


def write_standard(folder, n_train=96, n_test=40):
    for prefix, n, seed in (("train", n_train, 0), ("t10k", n_test, 1)):
        images, labels = digits(n, seed)
        write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte.gz"), images)
        write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), labels, compress=False)


def write_single(folder, n=50):
    images, labels = digits(n, 2)
    write_idx(os.path.join(folder, "images-idx3-ubyte.gz"), images)
    write_idx(os.path.join(folder, "labels-idx1-ubyte.gz"), labels)
    return images, labels


def test_main_job_on_the_shipped_sample(tmp_path):
    save = tmp_path / "out"
    env = dict(os.environ, DYGRAPH_HOME=str(tmp_path / "empty_home"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "dygraph.examples.mnist", "--max-steps", "3", "--save-dir",
         str(save), "--seed", "3"], capture_output=True, text=True, env=env, timeout=300,
        cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "shipped MNIST sample" in out
    assert "8,000 training and 2,000 test images" in out
    assert "Epoch 1: 3 steps" in out and "test accuracy" in out
    assert "the same as the trained model's" in out
    assert "loss" in proc.stderr  # the tqdm bar's running loss
    for name in ("mnist.pdparams", "mnist.pdopt"):
        assert (save / name).stat().st_size > 0
    pngs = [p for p in os.listdir(save) if p.startswith("infer_")]
    assert len(pngs) == 1
    line = next(s for s in out.splitlines() if s.startswith("Inference result of"))
    assert pngs[0] in line and "true label" in line
    assert "Final test accuracy:" in out


def test_main_in_process_on_a_data_dir(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    write_standard(tmp_path / "data")
    result = mnist.main(["--data-dir", str(tmp_path / "data"), "--epochs", "2",
                         "--batch-size", "16", "--lr", "0.003", "--save-dir",
                         str(tmp_path / "out"), "--num-workers", "1", "--quiet"])
    out = capsys.readouterr().out
    assert result["steps"] == 2 * (96 // 16)
    assert len(result["accuracies"]) == 2 and "Epoch 2:" in out
    assert result["accuracies"][-1] > 0.5  # the bands are easy to learn
    params = dygraph.load(result["checkpoint"][0])
    assert sorted(v.shape for v in params.values())[-1] == [800, 10]
    assert 0 <= result["predicted"] < 10
    if result["plot"] is not None:
        assert os.path.getsize(result["plot"]) > 0


def test_main_predicts_a_given_image(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    write_single(tmp_path / "data")
    picture = Image.new("RGB", (40, 40), "black")
    picture.save(tmp_path / "mine.jpg")
    result = mnist.main(["--data-dir", str(tmp_path / "data"), "--max-steps", "1",
                         "--batch-size", "8", "--save-dir", str(tmp_path / "out"),
                         "--image", str(tmp_path / "mine.jpg"), "--quiet"])
    out = capsys.readouterr().out
    assert "first 40 for training and the last 10 for testing" in out
    assert result["image"] == str(tmp_path / "mine.jpg") and result["true_label"] is None
    assert f"Inference result of {tmp_path / 'mine.jpg'} is: {result['predicted']}" in out
    assert not [p for p in os.listdir(tmp_path / "out") if p.startswith("infer_")]


def test_options_parse():
    args = mnist.build_parser().parse_args([])
    assert (args.epochs, args.batch_size, args.lr) == (mnist.DEFAULT_EPOCHS, 64, 1e-3)
    assert (args.dataset, args.device, args.num_workers) == ("mnist", "cpu", 0)
    assert args.data_dir is None and args.image is None and args.max_steps is None
    args = mnist.build_parser().parse_args(
        ["--epochs", "2", "--batch-size", "32", "--lr", "0.01", "--data-dir", "d",
         "--dataset", "fashion-mnist", "--device", "gpu", "--save-dir", "s", "--seed", "7",
         "--num-workers", "2", "--image", "x.png", "--max-steps", "5"])
    assert (args.epochs, args.batch_size, args.lr, args.data_dir, args.dataset) == (
        2, 32, 0.01, "d", "fashion-mnist")
    assert (args.device, args.save_dir, args.seed, args.num_workers, args.image,
            args.max_steps) == ("gpu", "s", 7, 2, "x.png", 5)


@pytest.mark.parametrize("argv", [["--dataset", "cifar"], ["--epochs", "0"],
                                  ["--batch-size", "0"], ["--max-steps", "0"],
                                  ["--num-workers", "-1"], ["--lr", "-1"]])
def test_bad_options_exit(argv, capsys):
    with pytest.raises(SystemExit) as info:
        mnist.main(argv)
    assert info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_setup_errors_are_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        mnist.main(["--dataset", "fashion-mnist", "--save-dir", str(tmp_path / "out")])
    assert info.value.code == 2
    assert "no Fashion-MNIST files" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mnist.main(["--device", "tpu", "--save-dir", str(tmp_path / "out")])
    assert "--device tpu" in capsys.readouterr().err
    assert dygraph.get_device() == "cpu"


def test_load_data_layouts(tmp_path, monkeypatch):
    write_standard(tmp_path)
    data = load_data(str(tmp_path))
    assert data.train_x.shape == (96, 1, 28, 28) and data.test_y.shape == (40,)
    assert data.train_x.dtype == np.float32 and data.train_y.dtype == np.int64
    assert data.train_x.min() >= -1.0 and data.train_x.max() == 1.0
    single = tmp_path / "single"
    single.mkdir()
    images, labels = write_single(single, n=50)
    data = load_data(str(single))
    assert (len(data.train_y), len(data.test_y)) == (40, 10)
    np.testing.assert_array_equal(data.test_y, labels[40:])
    np.testing.assert_allclose(data.train_x, scale_images(images[:40]))
    with pytest.raises(FileNotFoundError, match="images-idx3-ubyte.gz"):
        load_data(str(tmp_path / "nothing"))
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path / "home"))
    assert load_data().is_sample
    with pytest.raises(FileNotFoundError, match="--data-dir"):
        load_data(dataset="fashion-mnist")
    with pytest.raises(ValueError, match="dataset"):
        load_data(dataset="cifar")


def test_load_image_matches_the_seeds(tmp_path):
    gen = np.random.default_rng(0)
    Image.fromarray(gen.integers(0, 256, (50, 60, 3), dtype=np.uint8)).save(tmp_path / "a.png")
    im = Image.open(tmp_path / "a.png").convert("L").resize((28, 28), Image.LANCZOS)
    expected = np.array(im).reshape(1, 1, 28, 28).astype(np.float32) / 255.0 * 2.0 - 1.0
    got = load_image(tmp_path / "a.png")
    assert got.shape == (1, 1, 28, 28) and got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)
    pixels = gen.integers(0, 256, (28, 28), dtype=np.uint8)
    path = write_digit_png(pixels, str(tmp_path), 4)
    assert os.path.basename(path) == "infer_4.png"
    np.testing.assert_allclose(load_image(path)[0], scale_images(pixels[None])[0], atol=1e-6)


def test_fallbacks_without_tqdm_and_matplotlib(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr(mnist_train, "_warned_tqdm", [])  # the note is printed once a process
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    bar = progress_bar(100, "epoch 1")
    bar.set_postfix_str("loss 0.5")
    for _ in range(100):
        bar.update(1)
    out = capsys.readouterr().out
    assert "tqdm is not installed" in out and "epoch 1 step 100/100: loss 0.5" in out
    assert plot_curves([1.0, 0.5], [0.9], str(tmp_path / "c.png")) is None


def test_plot_written(tmp_path):
    pytest.importorskip("matplotlib")
    path = plot_curves([2.0, 1.0, 0.5], [0.8, 0.9], str(tmp_path / "c.png"))
    with Image.open(path) as im:
        assert im.format == "PNG" and im.size[0] > 100


@pytest.mark.parametrize("argv, message", [
    (["--image", "/no/such/file.png"], "no such file"),
    (["--batch-size", "100000"], "larger than the 8000 training images"),
])
def test_setup_errors_are_one_line_and_come_before_training(argv, message, capsys):
    from dygraph.examples.mnist import main

    with pytest.raises(SystemExit):
        main(argv)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
