"""Started as a plain process with Paddle's launch variables (no mpirun), once per trainer:
an all_reduce and a DataParallel step, checked against NumPy. Prints 'before init' (once
per trainer on its console: the restarted program's first lines are not shown again),
then 'trainer R of N: paddle env ok'. argv[1], when given, is a fault after the checks:
'exit3' (trainer 1 exits with code 3) or 'raise0' (trainer 0 raises); argv[2] a tag that
finds the job's processes."""

import sys

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist

print("before init", flush=True)


def main():
    group = dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    env = dist.ParallelEnv()
    assert (group.rank, group.nranks) == (env.rank, env.world_size) == (rank, n), (rank, n)
    x = paddle.to_tensor([float(rank + 1), 10.0 * rank])
    dist.all_reduce(x)
    np.testing.assert_array_equal(x.numpy(), [n * (n + 1) / 2, 10.0 * n * (n - 1) / 2])
    # one DataParallel step: each rank's batch is [rank + 1]; the weight's gradient is the
    # mean of the ranks' inputs
    paddle.seed(rank)  # different weights: the wrap broadcasts rank 0's
    model = paddle.DataParallel(paddle.nn.Linear(1, 1, bias_attr=False))
    start = model._layers.weight.numpy().copy()
    model(paddle.to_tensor([[float(rank + 1)]])).sum().backward()
    np.testing.assert_allclose(model._layers.weight.grad.numpy(), [[(n + 1) / 2]])
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    opt.step()
    weights = []
    dist.all_gather(weights, model._layers.weight)
    for w in weights:
        np.testing.assert_allclose(w.numpy(), start - 0.5 * (n + 1) / 2)
    print(f"trainer {rank} of {n}: paddle env ok", flush=True)
    fault = sys.argv[1] if len(sys.argv) > 1 else ""
    if fault == "exit3" and rank == 1:
        sys.exit(3)
    if fault == "raise0" and rank == 0:
        raise ValueError("trainer 0 fails on purpose")
    dist.barrier()


if __name__ == "__main__":
    main()
