"""Data-parallel training of the seeds' digit model on several processes:

    python -m dygraph.distributed.launch --nproc_per_node 2 dygraph/examples/mnist_parallel.py
    mpirun -n 2 python dygraph/examples/mnist_parallel.py --epochs 1     # the same, plainly

Each rank reads its share of every epoch (DistributedBatchSampler), trains MNISTNet wrapped
in paddle.DataParallel (gradients averaged over the ranks during backward) with Adam, and
prints its loss; rank 0 reports the test accuracy and saves the checkpoint in --save-dir,
by default `~/.cache/dygraph/examples/mnist_parallel` (see dygraph.examples.outputs). The
global batch is --batch-size (split over the ranks), so any number of processes trains the
same model.
Without MNIST in the data home it uses the sample that ships with DyGraph.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     accuracy = main(['--max-steps', '2', '--save-dir', out])  # doctest: +ELLIPSIS
    rank 0/1 ...
    >>> 0.0 <= accuracy <= 1.0
    True
"""

import argparse
import os

import dygraph as paddle
import dygraph.distributed as dist
from dygraph.examples.mnist_data import load_data
from dygraph.examples.mnist_train import evaluate, train_epoch
from dygraph.examples.outputs import output_dir
from dygraph.io import DistributedBatchSampler
from dygraph.vision.models import MNISTNet


def main(argv=None):
    """Train on this rank's share; returns the test accuracy (rank 0) or None."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--save-dir", default=None,
                        help="where rank 0 saves the checkpoint (default: "
                             + output_dir("mnist_parallel").replace("%", "%%") + ")")
    args = parser.parse_args(argv)
    args.save_dir = output_dir("mnist_parallel", args.save_dir)
    dist.init_parallel_env()
    rank, nranks = dist.get_rank(), dist.get_world_size()
    data = load_data()
    paddle.seed(1)
    model = paddle.DataParallel(MNISTNet())  # rank 0's initial weights go to every rank
    optimizer = paddle.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    sampler = DistributedBatchSampler(range(len(data.train_y)), args.batch_size // nranks,
                                      num_replicas=nranks, rank=rank, shuffle=True,
                                      drop_last=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        batches = ((data.train_x[idx], data.train_y[idx]) for idx in sampler)
        losses = train_epoch(model, optimizer, batches, max_steps=args.max_steps)
        print(f"rank {rank}/{nranks} epoch {epoch}: {len(losses)} steps, last loss "
              f"{losses[-1]:.4f}", flush=True)
    if rank != 0:
        return None
    model.eval()
    _, accuracy = evaluate(model, data.test_x, data.test_y)
    os.makedirs(args.save_dir, exist_ok=True)
    path = os.path.join(args.save_dir, "mnist.pdparams")
    paddle.save(model.state_dict(), path)
    print(f"test accuracy {accuracy:.4f}; saved {path}", flush=True)
    return accuracy


if __name__ == "__main__":
    main()
