"""The seeds' MNIST model (the 2.x form of seed 001's network) trained with Adam on the
shipped MNIST sample: shared by the rank scripts and the single-process reference.

Everything computes in the default float dtype, so a run that sets float64 first trains in
float64 throughout (parameters, images, gradients, DataParallel's buckets)."""

import warnings

import numpy as np

import dygraph as paddle
import dygraph.nn.functional as F
from tests.seeds.test_mnist_1x_vs_2x import MNIST2x

STEPS = 10
GLOBAL_BATCH = 64


def batches(steps=STEPS, batch=GLOBAL_BATCH):
    """`steps` global batches of (images [batch, 1, 28, 28] in the default float dtype,
    labels [batch, 1])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no full MNIST, using the shipped sample"
        reader = paddle.batch(paddle.dataset.mnist.train(), batch_size=batch, drop_last=True)
        out = []
        for data in reader():
            images = np.array([x[0].reshape(1, 28, 28) for x in data])
            images = images.astype(paddle.get_default_dtype())
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


def first_step(model, opt, images, labels):
    """One Adam step: (the loss, {name: gradient}, {name: parameter after the step}). For a
    DataParallel model the gradients are the all-reduced ones the optimizer uses."""
    loss = step_loss(model, images, labels)
    loss.backward()
    grads = {k: p.grad.numpy().copy() for k, p in model.state_dict().items()}
    opt.step()
    opt.clear_grad()
    params = {k: p.numpy().copy() for k, p in model.state_dict().items()}
    return float(loss.numpy()), grads, params


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


def save_reference(path, seed=100):
    """What rank_training.py's ranks compute, done by one process on the whole batch, into
    the .npz `path`: the first step in float32 ('step1_loss', 'step1_grad.NAME',
    'step1_param.NAME'), then the 10 steps in float64, on one batch ('losses', 'param.NAME')
    and on two micro-batches ('no_sync_losses', 'no_sync_param.NAME')."""
    paddle.set_default_dtype("float32")
    model, opt = make_model(seed)
    loss, grads, params = first_step(model, opt, *batches(1)[0])
    out = {"step1_loss": np.float32(loss)}
    out.update({f"step1_grad.{k}": v for k, v in grads.items()})
    out.update({f"step1_param.{k}": v for k, v in params.items()})
    paddle.set_default_dtype("float64")
    for prefix, micro_batches in (("", 1), ("no_sync_", 2)):
        losses, params = train_single(seed, micro_batches=micro_batches)
        out[f"{prefix}losses"] = losses
        out.update({f"{prefix}param.{k}": v for k, v in params.items()})
    np.savez(path, **out)
