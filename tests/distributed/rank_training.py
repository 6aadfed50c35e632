"""Run under mpirun with 2 ranks: DataParallel training of the seeds' MNIST model, each rank
on its half of every global batch of 64. First one Adam step in float32 (the global loss,
the all-reduced gradients and the parameters after the step); then, in float64, 10 Adam
steps, the same with no_sync() accumulating two micro-batches per step, and with the whole
step in jit.to_static (the gradient hooks and all-reduce run inside the converted step);
then find_unused_parameters. Rank 0 saves the results, the parameters with dygraph.save
(checkpointing from rank 0 only), into the directory given as argv[1].

Why float64 for the 10 steps: a half batch and a whole batch take different GEMM blockings
(and conv paths), so their float32 sums round differently, and ten Adam steps grow that
into ~5e-5 in the losses, as large as some bugs. The float32 step is exact up to rounding."""

import os
import sys

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist
from tests.distributed.mnist_job import batches, first_step, make_model, step_loss


def global_loss(loss):
    value = paddle.to_tensor(loss.numpy())
    dist.all_reduce(value, dist.ReduceOp.AVG)
    return float(value.numpy())


def shard(images, labels, rank, n):
    """Rank `rank`'s consecutive share of a global batch."""
    share = len(images) // n
    return images[rank * share:(rank + 1) * share], labels[rank * share:(rank + 1) * share]


def train(rank, n, micro_batches):
    model, _ = make_model(100 + rank)  # different seeds: the wrap broadcasts rank 0's values
    model = paddle.DataParallel(model)
    opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    losses = []
    for images, labels in batches():
        images, labels = shard(images, labels, rank, n)
        share = len(images)
        total = 0.0
        for part in range(micro_batches):
            sl = slice(part * share // micro_batches, (part + 1) * share // micro_batches)
            loss = step_loss(model, images[sl], labels[sl]) / micro_batches
            if part < micro_batches - 1:
                with model.no_sync():
                    loss.backward()
            else:
                loss.backward()
            total += global_loss(loss)
        opt.step()
        opt.clear_grad()
        losses.append(total)
    return np.array(losses), model


def train_static(rank, n):
    """train(rank, n, 1) with the loss, backward and Adam step in one converted function."""
    model, _ = make_model(100 + rank)
    model = paddle.DataParallel(model)
    opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())

    @paddle.jit.to_static
    def step(images, labels):
        loss = paddle.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    losses = []
    for images, labels in batches():
        images, labels = shard(images, labels, rank, n)
        losses.append(global_loss(step(paddle.to_tensor(images), paddle.to_tensor(labels))))
    assert len(step.program_cache) == 1
    return np.array(losses)


def check_unused(rank):
    """A parameter that gets no gradient: a clear error without find_unused_parameters (here
    on every rank alike), and zeros for it with it."""
    class TwoHeads(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.used = paddle.nn.Linear(2, 1)
            self.unused = paddle.nn.Linear(2, 1)

        def forward(self, x):
            return self.used(x)

    x = paddle.ones([1, 2])
    strict = paddle.DataParallel(TwoHeads())
    try:
        strict(x).sum().backward()
    except RuntimeError as exc:
        assert "find_unused_parameters=True" in str(exc) and "got no gradient" in str(exc)
    else:
        raise AssertionError("an unused parameter should raise")
    loose = paddle.DataParallel(TwoHeads(), find_unused_parameters=True)
    (loose(x) * (rank + 1)).sum().backward()
    n = dist.get_world_size()
    mean_scale = sum(range(1, n + 1)) / n
    np.testing.assert_allclose(loose._layers.used.weight.grad.numpy(), mean_scale)
    assert (loose._layers.unused.weight.grad.numpy() == 0).all()


def step_one(rank, n):
    """The first step of train(rank, n, 1) in float32: (the global loss, {name: all-reduced
    gradient}, {name: parameter after the step})."""
    model, _ = make_model(100 + rank)
    model = paddle.DataParallel(model)
    opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    loss, grads, params = first_step(model, opt, *shard(*batches(1)[0], rank, n))
    return global_loss(paddle.to_tensor(np.float32(loss))), grads, params


def main():
    out_dir = sys.argv[1]
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    paddle.set_default_dtype("float32")
    loss, grads, params = step_one(rank, n)
    if rank == 0:
        np.savez(os.path.join(out_dir, "step1.npz"), loss=np.float32(loss),
                 **{f"grad.{k}": v for k, v in grads.items()},
                 **{f"param.{k}": v for k, v in params.items()})
    paddle.set_default_dtype("float64")
    losses, model = train(rank, n, micro_batches=1)
    params = {k: v.numpy() for k, v in model.state_dict().items()}
    gathered = []
    for name in sorted(params):  # every rank holds the same parameters
        dist.all_gather(gathered, paddle.to_tensor(params[name]))
        assert all((g.numpy() == params[name]).all() for g in gathered), name
    if rank == 0:
        paddle.save(model.state_dict(), os.path.join(out_dir, "model.pdparams"))
        np.save(os.path.join(out_dir, "losses.npy"), losses)
    acc_losses, acc_model = train(rank, n, micro_batches=2)
    if rank == 0:
        paddle.save(acc_model.state_dict(), os.path.join(out_dir, "no_sync.pdparams"))
        np.save(os.path.join(out_dir, "no_sync_losses.npy"), acc_losses)
    static_losses = train_static(rank, n)
    if rank == 0:
        np.save(os.path.join(out_dir, "static_losses.npy"), static_losses)
    check_unused(rank)
    dist.barrier()
    print(f"rank {rank}: training ok", flush=True)


if __name__ == "__main__":
    main()
