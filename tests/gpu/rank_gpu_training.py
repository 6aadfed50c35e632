"""Run under mpirun with 2 ranks, each on a GPU (its own where the machine has two, else
both on GPU 0): collectives on GPU tensors, then DataParallel training of the seeds' MNIST
model, each rank on its half of every global batch of 64, for 5 Adam steps. Rank 0 saves
the global losses into the directory given as argv[1]."""

import os
import sys

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist
from tests.distributed.mnist_job import batches, make_model, step_loss

STEPS = 5


def check_collectives(rank, n):
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3) * (rank + 1))
    dist.all_reduce(x)
    assert "CUDAPlace" in str(x.place), x.place
    np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(2, 3) * sum(range(1, n + 1)))
    b = paddle.to_tensor([float(rank + 7)])
    dist.broadcast(b, src=1)
    assert "CUDAPlace" in str(b.place) and b.numpy().tolist() == [8.0], b
    gathered = []
    dist.all_gather(gathered, paddle.to_tensor([rank, rank]))
    assert [t.numpy().tolist() for t in gathered] == [[r, r] for r in range(n)]
    assert all("CUDAPlace" in str(t.place) for t in gathered)


def train(rank, n):
    model, _ = make_model(100 + rank)  # different seeds: the wrap broadcasts rank 0's values
    model.to(paddle.get_device())
    model = paddle.DataParallel(model)
    opt = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    losses = []
    for images, labels in batches(STEPS):
        share = len(images) // n
        loss = step_loss(model, images[rank * share:(rank + 1) * share],
                         labels[rank * share:(rank + 1) * share])
        loss.backward()
        opt.step()
        opt.clear_grad()
        value = paddle.to_tensor(loss.numpy())
        dist.all_reduce(value, dist.ReduceOp.AVG)
        losses.append(float(value.numpy()))
    assert all("CUDAPlace" in str(p.place) for p in model.parameters())
    return np.array(losses)


def main():
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    gpu = rank if paddle.device.cuda.device_count() >= n else 0
    paddle.set_device(f"gpu:{gpu}")
    check_collectives(rank, n)
    losses = train(rank, n)
    if rank == 0:
        np.save(os.path.join(sys.argv[1], "losses.npy"), losses)
    print(f"rank {rank}: gpu training ok", flush=True)


if __name__ == "__main__":
    main()
