"""dygraph.distributed.spawn of a function of this script: rank r writes r + offset of
every rank, all-reduced, into OUT/rank{r}.txt."""

import os
import sys

import dygraph as paddle
import dygraph.distributed as dist


def train(out_dir, offset):
    x = paddle.to_tensor([float(dist.get_rank() + offset)])
    dist.all_reduce(x)
    with open(os.path.join(out_dir, f"rank{dist.get_rank()}.txt"), "w") as f:
        f.write(f"{dist.get_world_size()} {float(x.numpy()[0])}")


if __name__ == "__main__":
    dist.spawn(train, args=(sys.argv[1], 10), nprocs=2)
