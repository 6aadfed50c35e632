"""The main job: train the seeds' handwritten-digit model, checkpoint it, reload it and
predict an image file.

    python -m dygraph.examples.mnist [--epochs 3] [--batch-size 64] [--lr 0.001]
        [--data-dir DIR] [--dataset mnist|fashion-mnist] [--download] [--device cpu|gpu]
        [--save-dir DIR] [--seed 1] [--num-workers 0] [--image PATH] [--max-steps N]

It trains MNISTNet (conv 20@5x5, relu, max-pool, conv 50@5x5, relu, max-pool, linear 800->10)
with Adam (lr 1e-3, batch 64) on images scaled to [-1, 1], as the seeds do, with a tqdm bar
showing the running loss. After every epoch it switches to eval(), reports the test loss
and accuracy, and goes back to train(). Then it saves `mnist.pdparams` (model) and
`mnist.pdopt` (optimizer) with dygraph.save, loads them into a fresh model in eval mode,
checks that it scores the same test accuracy, and predicts an image like the seeds'
`infer_3.png` step (grey, 28x28, [-1, 1]); without --image it first writes a test digit to
the save dir. Last, it plots the loss per step and the accuracy per epoch
(`mnist_curves.png`) when matplotlib is installed. The save dir is --save-dir, by default
`~/.cache/dygraph/examples/mnist` (under `$DYGRAPH_HOME` or `$XDG_CACHE_HOME` when set, see
dygraph.examples.outputs), so a run leaves the current directory as it was.

Without --data-dir and without MNIST in the data home it trains on the 8,000 / 2,000-digit
sample that ships with DyGraph (and says so); the default 3 epochs take about a minute on
two CPU cores there and reach about 96% test accuracy (docs/MNIST.md).

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     result = main(['--max-steps', '2', '--save-dir', out, '--quiet'])
    ... # doctest: +ELLIPSIS
    Data: ...
    >>> result['steps'], os.path.basename(result['checkpoint'][0])
    (2, 'mnist.pdparams')
"""

import argparse
import os
import time

import numpy as np

import dygraph
from dygraph.examples.mnist_data import load_data, load_image, unscale_image, write_digit_png
from dygraph.examples.mnist_train import evaluate, plot_curves, predict, progress_bar, train_epoch
from dygraph.examples.outputs import output_dir
from dygraph.io import DataLoader, TensorDataset
from dygraph.utils import unique_name
from dygraph.vision.models import MNISTNet

__all__ = ["main", "build_parser", "DEFAULT_EPOCHS"]

DEFAULT_EPOCHS = 3
FASHION_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                   "Sneaker", "Bag", "Ankle boot")


def build_parser():
    """The command-line options of the job.

    Example:
        >>> build_parser().parse_args([]).batch_size
        64
    """
    p = argparse.ArgumentParser(
        prog="python -m dygraph.examples.mnist",
        description="Train the seeds' MNIST model with DyGraph, checkpoint it, reload it "
                    "and predict an image.")
    p.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS,
                   help=f"passes over the training data (default {DEFAULT_EPOCHS})")
    p.add_argument("--batch-size", type=int, default=64, help="training batch size (64)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (0.001)")
    p.add_argument("--data-dir", default=None,
                   help="folder with the IDX files: train-/t10k- images and labels, or "
                        "images-idx3-ubyte.gz + labels-idx1-ubyte.gz (first 80%% train, "
                        "last 20%% test). Default: the data home, else the shipped sample")
    p.add_argument("--dataset", choices=("mnist", "fashion-mnist"), default="mnist")
    p.add_argument("--download", action="store_true",
                   help="download the full data set into the data home when it is missing")
    p.add_argument("--device", default="cpu", help="cpu, gpu or gpu:N (gpu needs CuPy)")
    p.add_argument("--save-dir", default=None,
                   help="where the checkpoint, the digit image and the plot go (default: "
                        + output_dir("mnist").replace("%", "%%") + ")")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--num-workers", type=int, default=0,
                   help="DataLoader worker processes (0: load in the main process)")
    p.add_argument("--image", default=None,
                   help="a PNG/JPG to predict; default: a test digit written to --save-dir")
    p.add_argument("--max-steps", type=int, default=None,
                   help="stop training after this many steps in all (for quick checks)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _check_args(parser, args):
    for name in ("epochs", "batch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} should be at least 1")
    if args.num_workers < 0:
        parser.error("--num-workers should be at least 0")
    if args.max_steps is not None and args.max_steps < 1:
        parser.error("--max-steps should be at least 1")
    if args.lr <= 0:
        parser.error("--lr should be positive")
    if args.image is not None and not os.path.isfile(args.image):
        parser.error(f"--image {args.image}: no such file")


def _train(args, data, model, optimizer):
    """The epochs: train, then eval() -> test loss/accuracy -> train(). Returns the
    per-step losses and the per-epoch test accuracies."""
    loader = DataLoader(TensorDataset([data.train_x, data.train_y]),
                        batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.num_workers)
    steps_per_epoch = len(loader)
    left = args.max_steps
    step_losses, accuracies = [], []
    for epoch in range(1, args.epochs + 1):
        total = steps_per_epoch if left is None else min(steps_per_epoch, left)
        bar = progress_bar(total, f"epoch {epoch}/{args.epochs}", enabled=not args.quiet)
        start = time.perf_counter()
        losses = train_epoch(model, optimizer, loader, bar, max_steps=total)
        seconds = time.perf_counter() - start
        bar.close()
        model.eval()
        test_loss, accuracy = evaluate(model, data.test_x, data.test_y)
        model.train()
        step_losses += losses
        accuracies.append(accuracy)
        print(f"Epoch {epoch}: {len(losses)} steps in {seconds:.1f}s, train loss "
              f"{np.mean(losses):.4f}, test loss {test_loss:.4f}, test accuracy "
              f"{accuracy:.2%}", flush=True)
        if left is not None:
            left -= len(losses)
            if left <= 0:
                break
    return step_losses, accuracies


def _save_and_reload(args, model, optimizer, data, accuracy):
    """Checkpoint the model and optimizer, load them into fresh objects, and check that the
    reloaded model (eval mode) scores the same. Returns (fresh model, file paths)."""
    os.makedirs(args.save_dir, exist_ok=True)
    params = os.path.join(args.save_dir, "mnist.pdparams")
    opt_state = os.path.join(args.save_dir, "mnist.pdopt")
    dygraph.save(model.state_dict(), params)
    dygraph.save(optimizer.state_dict(), opt_state)
    print(f"Checkpoint saved: {params} and {opt_state}")

    with unique_name.guard():  # the same parameter names as the trained model (see main)
        fresh = MNISTNet()
    fresh.set_state_dict(dygraph.load(params))
    # The optimizer state is what resuming training needs; loading it checks it round-trips.
    resumed = dygraph.optimizer.Adam(learning_rate=args.lr, parameters=fresh.parameters())
    resumed.set_state_dict(dygraph.load(opt_state))
    fresh.eval()
    _, reloaded = evaluate(fresh, data.test_x, data.test_y)
    same = reloaded == accuracy
    print(f"Checkpoint loaded into a fresh model (eval mode): test accuracy {reloaded:.2%} "
          f"({'the same as' if same else 'DIFFERENT from'} the trained model's "
          f"{accuracy:.2%})")
    if not same:
        raise RuntimeError("the reloaded checkpoint does not reproduce the trained model")
    return fresh, (params, opt_state)


def _class_name(dataset, label):
    return f"{label} ({FASHION_CLASSES[label]})" if dataset == "fashion-mnist" else str(label)


def _infer(args, model, data):
    """Predict --image, or a test digit written to the save dir. Returns the result dict."""
    true_label = None
    path = args.image
    if path is None:
        index = int(np.random.default_rng(args.seed).integers(len(data.test_y)))
        true_label = int(data.test_y[index])
        path = write_digit_png(unscale_image(data.test_x[index]), args.save_dir, true_label)
        print(f"No --image given: wrote test image #{index} "
              f"(label {_class_name(args.dataset, true_label)}) to {path}")
    predicted, probs = predict(model, load_image(path))
    line = (f"Inference result of {path} is: {_class_name(args.dataset, predicted)} "
            f"(probability {probs[predicted]:.3f})")
    if true_label is not None:
        line += f"; true label {_class_name(args.dataset, true_label)}"
    print(line)
    return {"image": path, "predicted": predicted, "true_label": true_label}


def main(argv=None):
    """Run the job with command-line arguments `argv` (default: sys.argv); returns a dict
    with the test accuracies, the checkpoint and image paths and the prediction.

    Example:
        >>> callable(main)
        True
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)
    args.save_dir = output_dir("mnist", args.save_dir)
    # Set-up problems (no CuPy for --device gpu, no data files, a failed download) are the
    # user's to fix: a one-line error, not a traceback.
    try:
        dygraph.set_device(args.device)
    except (RuntimeError, ValueError) as exc:
        parser.error(f"--device {args.device}: {exc}")
    dygraph.seed(args.seed)
    try:
        data = load_data(args.data_dir, args.dataset, args.download)
    except (OSError, ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    if args.batch_size > len(data.train_y):
        parser.error(f"--batch-size {args.batch_size} is larger than the "
                     f"{len(data.train_y)} training images")
    print(f"Data: {data.source}; {len(data.train_y):,} training and {len(data.test_y):,} "
          f"test images")
    if data.is_sample:
        print("Running on the shipped MNIST sample (offline and without data).")
    print(f"Outputs: {args.save_dir}")

    # Optimizer states are keyed by parameter names (as in Paddle): numbering the names afresh
    # gives the reloaded model of _save_and_reload the same names, so the state loads into it.
    with unique_name.guard():
        model = MNISTNet()
    optimizer = dygraph.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    step_losses, accuracies = _train(args, data, model, optimizer)
    fresh, checkpoint = _save_and_reload(args, model, optimizer, data, accuracies[-1])
    result = {"test_accuracy": accuracies[-1], "accuracies": accuracies,
              "checkpoint": checkpoint, "steps": len(step_losses)}
    result.update(_infer(args, fresh, data))

    plot = plot_curves(step_losses, accuracies, os.path.join(args.save_dir, "mnist_curves.png"))
    if plot is None:
        print("matplotlib is not installed (pip install matplotlib): no plot written")
    else:
        print(f"Loss and accuracy plot: {plot}")
    result["plot"] = plot
    print(f"Final test accuracy: {accuracies[-1]:.2%}")
    return result


if __name__ == "__main__":
    main()
