"""The training and evaluation loops of the MNIST example, and its progress bar and plot.

`train_epoch` takes any iterable of (images, labels) batches, so the example feeds it a
DataLoader and benchmarks/mnist_accuracy.py a fixed batch order shared with PyTorch.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.vision.models import MNISTNet
    >>> _ = dygraph.seed(0)
    >>> model = MNISTNet()
    >>> opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    >>> x = np.zeros((8, 1, 28, 28), np.float32); y = np.arange(8) % 10
    >>> losses = train_epoch(model, opt, [(x, y)] * 2)
    >>> len(losses), losses[1] < losses[0]
    (2, True)
"""

import sys

import numpy as np

import dygraph
import dygraph.nn.functional as F

__all__ = ["train_epoch", "evaluate", "predict", "progress_bar", "plot_curves"]


def _tensor(value):
    return value if isinstance(value, dygraph.Tensor) else dygraph.to_tensor(value)


def train_epoch(model, optimizer, batches, progress=None, max_steps=None):
    """One training pass over `batches` ((images, labels) pairs of Tensors or arrays):
    forward, cross-entropy on the logits, backward, optimizer step, clear_grad.

    Stops after `max_steps` steps when given. `progress` (see progress_bar) is advanced
    every step and shows the running mean loss. Returns the per-step losses (floats).

    Example:
        >>> import numpy as np
        >>> from dygraph.vision.models import MNISTNet
        >>> model = MNISTNet()
        >>> opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        >>> batch = (np.zeros((2, 1, 28, 28), np.float32), np.array([3, 5]))
        >>> len(train_epoch(model, opt, [batch] * 5, max_steps=3))
        3
    """
    losses, total = [], 0.0
    for images, labels in batches:
        loss = F.cross_entropy(model(_tensor(images)), _tensor(labels))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        losses.append(loss.item())
        total += losses[-1]
        if progress is not None:
            # The postfix first (without a redraw), so the bar's redraw shows this step.
            progress.set_postfix_str(f"loss {losses[-1]:.4f} (mean {total / len(losses):.4f})",
                                     refresh=False)
            progress.update(1)
        if max_steps is not None and len(losses) >= max_steps:
            break
    return losses


def evaluate(model, images, labels, batch_size=500):
    """(mean cross-entropy loss, accuracy) of `model` on arrays `images` [N, 1, 28, 28] and
    `labels` [N], without recording gradients. The caller chooses train() or eval() mode.

    Example:
        >>> from dygraph.vision.models import MNISTNet
        >>> loss, acc = evaluate(MNISTNet().eval(), np.zeros((4, 1, 28, 28), np.float32),
        ...                      np.zeros(4, np.int64))
        >>> 0.0 <= acc <= 1.0
        True
    """
    labels = np.asarray(labels).reshape(-1)
    total_loss, correct = 0.0, 0
    with dygraph.no_grad():
        for start in range(0, len(labels), batch_size):
            target = labels[start:start + batch_size]
            logits = model(dygraph.to_tensor(images[start:start + batch_size]))
            loss = F.cross_entropy(logits, dygraph.to_tensor(target), reduction="sum")
            total_loss += loss.item()
            correct += int((logits.numpy().argmax(axis=1) == target).sum())
    return total_loss / len(labels), correct / len(labels)


def predict(model, image):
    """(predicted class, probabilities) for one image array [1, 1, 28, 28].

    Example:
        >>> from dygraph.vision.models import MNISTNet
        >>> label, probs = predict(MNISTNet().eval(), np.zeros((1, 1, 28, 28), np.float32))
        >>> probs.shape, 0 <= label < 10
        ((10,), True)
    """
    with dygraph.no_grad():
        probs = F.softmax(model(dygraph.to_tensor(image)), axis=-1).numpy()[0]
    # The seeds read the last entry of argsort: the most likely class.
    return int(np.argsort(probs)[-1]), probs


class _PrintProgress:
    """Fallback when tqdm is missing: a line every `every` steps, like the seeds' loop."""

    def __init__(self, total, desc, every=100):
        self.total, self.desc, self.every, self.n, self.postfix = total, desc, every, 0, ""

    def update(self, n=1):
        self.n += n
        if self.n % self.every == 0 or self.n == self.total:
            print(f"{self.desc} step {self.n}/{self.total}: {self.postfix}", flush=True)

    def set_postfix_str(self, text, refresh=True):
        self.postfix = text

    def close(self):
        pass


_warned_tqdm = []


def progress_bar(total, desc, enabled=True):
    """A tqdm bar (on stderr) over `total` steps, or a plain printer every 100 steps when
    tqdm is not installed (said once) or `enabled` is false.

    Example:
        >>> bar = progress_bar(3, 'epoch 1', enabled=False)
        >>> bar.update(1); bar.close()
    """
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            if not _warned_tqdm:
                _warned_tqdm.append(True)
                print("tqdm is not installed (pip install tqdm): printing the loss every 100 "
                      "steps instead of a progress bar", flush=True)
        else:
            return tqdm(total=total, desc=desc, unit="step", file=sys.stderr,
                        dynamic_ncols=True, leave=True)
    return _PrintProgress(total, desc)


def plot_curves(step_losses, epoch_accuracies, path):
    """Save a PNG with the training loss per step and the test accuracy per epoch.

    Returns `path`, or None when matplotlib is not installed.

    Example:
        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     out = plot_curves([2.3, 1.0, 0.5], [0.9], os.path.join(folder, 'c.png'))
        ...     out is None or os.path.isfile(out)
        True
    """
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")  # no display needed: the plot only goes to a file
    from matplotlib import pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(np.arange(1, len(step_losses) + 1), step_losses, linewidth=0.8)
    left.set(xlabel="step", ylabel="training loss", title="Loss per step")
    left.set_yscale("log")
    right.plot(np.arange(1, len(epoch_accuracies) + 1), np.asarray(epoch_accuracies) * 100,
               marker="o")
    right.set(xlabel="epoch", ylabel="test accuracy (%)", title="Accuracy per epoch")
    right.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
