"""Run under mpirun (2 ranks): save_state_dict of a model's and an optimizer's state into
argv[1], each tensor written once (keys dealt out over the ranks), then load_state_dict on
every rank into fresh tensors. Prints 'rank R: checkpoint ok'; the test then loads the
checkpoint in one process."""

import os
import sys

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist


def main():
    path = sys.argv[1]
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    paddle.seed(5)  # the same on every rank: the state is replicated
    model = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    state = model.state_dict()
    dist.save_state_dict(state, path)
    files = sorted(os.listdir(path))
    assert files == ["0.metadata"] + [f"{r}_0.distcp" for r in range(n)], files
    shares = [set(paddle.load(os.path.join(path, f"{r}_0.distcp"))) for r in range(n)]
    assert all(shares) and set.union(*shares) == set(state)
    assert sum(len(s) for s in shares) == len(state)  # each tensor written once
    fresh = {k: paddle.zeros(v.shape, dtype=v.dtype) for k, v in state.items()}
    dist.load_state_dict(fresh, path)
    for key, value in state.items():
        np.testing.assert_array_equal(fresh[key].numpy(), value.numpy(), err_msg=key)
    # a second checkpoint gets the next id; loading takes the newest
    dist.save_state_dict({k: v * 2 for k, v in state.items()}, path)
    dist.load_state_dict(fresh, path)
    np.testing.assert_array_equal(fresh["0.weight"].numpy(), 2 * state["0.weight"].numpy())
    dist.load_state_dict(fresh, path, unique_id=0)
    np.testing.assert_array_equal(fresh["0.weight"].numpy(), state["0.weight"].numpy())
    print(f"rank {rank}: checkpoint ok", flush=True)


if __name__ == "__main__":
    main()
