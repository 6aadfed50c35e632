"""A collective training script written for PaddlePaddle's fleet, as Paddle's multi-card
examples are, with only the import lines changed. Started alone it trains on the whole
batch; under the launcher, mpirun or Paddle's launch variables each worker trains on its
share and fleet's DataParallel averages the gradients. Worker 0 (and every worker) saves
its parameters to argv[1]/params.rank<N>.npz; each prints 'worker N of M: fleet ok'."""

import os
import sys

import numpy as np

import dygraph as paddle
from dygraph.distributed import fleet


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(8, 16)
        self.fc2 = paddle.nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


def main():
    out_dir = sys.argv[1]
    paddle.set_default_dtype("float64")  # so that ranks and one process agree to rounding
    strategy = fleet.DistributedStrategy()
    strategy.find_unused_parameters = False
    strategy.fuse_grad_size_in_MB = 16
    strategy.hybrid_configs = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1}
    fleet.init(is_collective=True, strategy=strategy)
    rank, nranks = fleet.worker_index(), fleet.worker_num()
    hcg = fleet.get_hybrid_communicate_group()
    assert hcg.get_data_parallel_world_size() == nranks
    assert hcg.get_data_parallel_rank() == rank and hcg.get_model_parallel_world_size() == 1

    paddle.seed(2024 + rank)  # different on purpose: distributed_model broadcasts rank 0's
    model = fleet.distributed_model(MLP())
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    opt = fleet.distributed_optimizer(opt)

    rng = np.random.RandomState(7)
    features = rng.standard_normal((6, 16, 8))
    labels = rng.randint(0, 2, (6, 16, 1))
    share = 16 // nranks
    for step in range(6):
        x = paddle.to_tensor(features[step, rank * share:(rank + 1) * share])
        y = paddle.to_tensor(labels[step, rank * share:(rank + 1) * share])
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    files = fleet.util.get_file_shard([f"part-{i}" for i in range(5)])
    every = fleet.util.all_gather(files) if nranks > 1 else [files]
    assert sum(every, []) == [f"part-{i}" for i in range(5)], every
    assert fleet.util.all_reduce([rank + 1], "sum") == [nranks * (nranks + 1) // 2]
    fleet.barrier_worker()
    params = {name: p.numpy() for name, p in model.state_dict().items()}
    np.savez(os.path.join(out_dir, f"params.rank{rank}.npz"), **params)
    print(f"worker {rank} of {nranks}: fleet ok", flush=True)


if __name__ == "__main__":
    main()
