"""The seeds' MNIST model (the 2.x form of seed 001's network) trained with Adam on the
shipped MNIST sample: shared by the rank scripts and the single-process references."""

import warnings

import numpy as np

import dygraph as paddle
import dygraph.nn.functional as F
from tests.seeds.test_mnist_1x_vs_2x import MNIST2x

STEPS = 10
GLOBAL_BATCH = 64


def batches(steps=STEPS, batch=GLOBAL_BATCH):
    """`steps` global batches of (images [batch, 1, 28, 28], labels [batch, 1])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no full MNIST, using the shipped sample"
        reader = paddle.batch(paddle.dataset.mnist.train(), batch_size=batch, drop_last=True)
        out = []
        for data in reader():
            images = np.array([x[0].reshape(1, 28, 28) for x in data]).astype("float32")
            labels = np.array([x[1] for x in data]).astype("int64").reshape(-1, 1)
            out.append((images, labels))
            if len(out) == steps:
                return out
    return out


def make_model(seed):
    paddle.seed(seed)
    model = MNIST2x()
    opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    return model, opt


def step_loss(model, images, labels):
    return F.cross_entropy(model(paddle.to_tensor(images)), paddle.to_tensor(labels))


def train_single(seed=100, steps=STEPS, micro_batches=1):
    """One process, the whole global batch (split into micro-batches whose mean losses are
    averaged, when asked); returns (losses, {name: array})."""
    model, opt = make_model(seed)
    losses = []
    for images, labels in batches(steps):
        total = 0.0
        for part in range(micro_batches):
            sl = slice(part * len(images) // micro_batches,
                       (part + 1) * len(images) // micro_batches)
            loss = step_loss(model, images[sl], labels[sl]) / micro_batches
            loss.backward()
            total += float(loss.numpy())
        opt.step()
        opt.clear_grad()
        losses.append(total)
    return np.array(losses), {k: v.numpy() for k, v in model.state_dict().items()}
