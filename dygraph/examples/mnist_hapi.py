"""The main job written with the high-level API: the seeds' MNIST model trained by
`Model.fit`, with Paddle's progress bar, ModelCheckpoint and EarlyStopping, then
`evaluate`, `predict` and `summary`.

    python -m dygraph.examples.mnist_hapi [--epochs 3] [--batch-size 64] [--lr 0.001]
        [--data-dir DIR] [--save-dir DIR] [--seed 1] [--verbose 1] [--max-steps N]
        [--amp float16|bfloat16]

Like `python -m dygraph.examples.mnist` it trains on the shipped 8,000 / 2,000-digit MNIST
sample when no data is given, from the same initial weights (same seed), and reaches the
same test accuracy (docs/MNIST.md). The checkpoints go to --save-dir, by default
`~/.cache/dygraph/examples/mnist_hapi` (see dygraph.examples.outputs).

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     result = main(['--max-steps', '2', '--save-dir', out, '--verbose', '0'])
    ... # doctest: +ELLIPSIS
    Data: ...
    >>> sorted(result)
    ['predicted', 'seconds_per_step', 'steps', 'summary', 'test_accuracy']
"""

import argparse
import time

import numpy as np

import dygraph
from dygraph.callbacks import Callback, EarlyStopping, ModelCheckpoint
from dygraph.examples.mnist import DEFAULT_EPOCHS
from dygraph.examples.mnist_data import load_data
from dygraph.examples.outputs import output_dir
from dygraph.hapi import InputSpec, Model
from dygraph.io import TensorDataset
from dygraph.utils import unique_name
from dygraph.vision.models import MNISTNet

__all__ = ["main"]


class _StepTimer(Callback):
    """Counts training steps and the wall time of the training epochs, data loading
    included, as the main job times its epochs (the cost of the high-level API)."""

    def __init__(self):
        super().__init__()
        self.steps, self.seconds, self._start = 0, 0.0, None

    def on_epoch_begin(self, epoch, logs=None):
        self._start = time.perf_counter()

    def on_train_batch_end(self, step, logs=None):
        self.steps += 1

    def on_epoch_end(self, epoch, logs=None):  # before fit's evaluation of the epoch
        self.seconds += time.perf_counter() - self._start


def _parser():
    p = argparse.ArgumentParser(prog="python -m dygraph.examples.mnist_hapi",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--save-dir", default=None,
                   help="where the checkpoints go (default: "
                        + output_dir("mnist_hapi").replace("%", "%%") + ")")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", type=int, default=1, choices=(0, 1, 2))
    p.add_argument("--max-steps", type=int, default=None, help="stop after N steps")
    p.add_argument("--amp", choices=("float16", "bfloat16"), default=None,
                   help="train under auto_cast O1 in this dtype")
    return p


def main(argv=None):
    """Train, evaluate, predict and summarise; returns the figures."""
    parser = _parser()
    args = parser.parse_args(argv)
    args.save_dir = output_dir("mnist_hapi", args.save_dir)
    dygraph.seed(args.seed)
    try:
        data = load_data(args.data_dir)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    print(f"Data: {data.source}; {len(data.train_y):,} training and {len(data.test_y):,} "
          f"test images")
    print(f"Outputs: {args.save_dir}")
    train = TensorDataset([dygraph.to_tensor(data.train_x),
                           dygraph.to_tensor(data.train_y.reshape(-1, 1))])
    test = TensorDataset([dygraph.to_tensor(data.test_x),
                          dygraph.to_tensor(data.test_y.reshape(-1, 1))])

    with unique_name.guard():
        net = MNISTNet()
    model = Model(net, inputs=[InputSpec([None, 1, 28, 28], "float32", "image")],
                  labels=[InputSpec([None, 1], "int64", "label")])
    model.prepare(dygraph.optimizer.Adam(args.lr, parameters=net.parameters()),
                  dygraph.nn.CrossEntropyLoss(), dygraph.metric.Accuracy(),
                  amp_configs={"level": "O1", "dtype": args.amp} if args.amp else None)
    timer = _StepTimer()
    callbacks = [ModelCheckpoint(save_dir=args.save_dir),
                 EarlyStopping(monitor="acc", mode="max", patience=2, verbose=args.verbose,
                               save_best_model=True),
                 timer]
    model.fit(train, test, epochs=args.epochs, batch_size=args.batch_size,
              verbose=args.verbose, save_dir=args.save_dir, callbacks=callbacks,
              num_iters=args.max_steps, log_freq=20)
    result = model.evaluate(test, batch_size=256, verbose=0)
    first = model.predict(TensorDataset([dygraph.to_tensor(data.test_x[:8])]), batch_size=8,
                          stack_outputs=True, verbose=0)[0]
    predicted = np.argmax(first, axis=1).tolist()
    print(f"Test accuracy: {result['acc']:.2%}; predicted {predicted} for digits "
          f"{data.test_y[:8].tolist()}")
    info = model.summary() if args.verbose else {}
    return {"test_accuracy": float(result["acc"]), "steps": timer.steps,
            "seconds_per_step": timer.seconds / max(timer.steps, 1),
            "predicted": predicted, "summary": info}


if __name__ == "__main__":
    main()
