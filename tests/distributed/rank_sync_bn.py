"""Run on 2 ranks: SyncBatchNorm on each rank's half of a batch must give the outputs,
input gradients and (summed) weight gradients of BatchNorm2D on the whole batch."""

import numpy as np

import dygraph
import dygraph.distributed as dist


def main():
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)
    batch = rng.standard_normal((4, 3, 2, 2))
    weights = rng.standard_normal((4, 3, 2, 2))
    rows = slice(rank * 4 // world, (rank + 1) * 4 // world)

    ref = dygraph.nn.BatchNorm2D(3, dtype="float64")
    x_all = dygraph.to_tensor(batch, stop_gradient=False)
    ref_out = ref(x_all)
    (ref_out * dygraph.to_tensor(weights)).sum().backward()
    want_out = ref_out.numpy()

    sync = dygraph.nn.SyncBatchNorm(3)
    sync.to(dtype="float64")
    x = dygraph.to_tensor(batch[rows], stop_gradient=False)
    out = sync(x)
    (out * dygraph.to_tensor(weights[rows])).sum().backward()
    np.testing.assert_allclose(out.numpy(), want_out[rows], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), x_all.grad.numpy()[rows], rtol=1e-8, atol=1e-10)
    grad_w = sync.weight.grad.detach()
    dist.all_reduce(grad_w)
    np.testing.assert_allclose(grad_w.numpy(), ref.weight.grad.numpy(), rtol=1e-8)
    np.testing.assert_allclose(sync._mean.numpy(), ref._mean.numpy(), rtol=1e-8)
    print(f"rank {rank}: sync batch norm ok", flush=True)


if __name__ == "__main__":
    main()
