"""Run under mpirun (2 or 3 ranks): every collective, for every dtype and reduce op, against
NumPy computed from every rank's inputs; checks, groups, tasks and all_reduce's backward.
Each rank prints 'rank R: collectives ok' at the end; any failure aborts the job."""

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist
from dygraph.distributed import ReduceOp

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]
OPS = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min", ReduceOp.PROD: "prod",
       ReduceOp.AVG: "avg"}
SHAPE = (2, 3)


def data(dtype, rank, salt=0):
    """The array rank `rank` contributes: small integers, so every reduction is exact."""
    rng = np.random.RandomState(1000 * salt + 17 * rank + len(dtype))
    if dtype == "bool":
        return rng.randint(0, 2, SHAPE).astype(bool)
    values = rng.randint(1, 4, SHAPE)
    if dtype.startswith("complex"):
        return (values + 1j * rng.randint(0, 3, SHAPE)).astype(dtype)
    return values.astype(dtype)


def expected_reduce(arrays, op, dtype):
    stack = np.stack(arrays)
    if dtype == "bool":
        return stack.any(0) if op in ("sum", "max") else stack.all(0)
    if op == "avg":
        return (stack.sum(0) / len(arrays)).astype(dtype)
    return getattr(np, op)(stack, axis=0).astype(dtype)


def close(got, want, dtype, what):
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype), (what, got.dtype, dtype)
    tol = 1e-3 if dtype == "float16" else 1e-6
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_reductions(rank, n):
    for dtype in DTYPES:
        arrays = [data(dtype, r) for r in range(n)]
        for op, name in OPS.items():
            invalid = ((name == "avg" and dtype[0] in "iub")
                       or (name in ("max", "min") and dtype.startswith("complex")))
            x = paddle.to_tensor(arrays[rank])
            if invalid:
                try:
                    dist.all_reduce(x, op)
                except TypeError as exc:
                    assert "all_reduce" in str(exc)
                    continue
                raise AssertionError(f"all_reduce {name} on {dtype} should raise")
            want = expected_reduce(arrays, name, dtype)
            dist.all_reduce(x, op)
            close(x.numpy(), want, dtype, f"all_reduce {name} {dtype}")
            y = paddle.to_tensor(arrays[rank])
            task = dist.all_reduce(y, op, sync_op=False)
            task.wait()
            close(y.numpy(), want, dtype, f"all_reduce(sync_op=False) {name} {dtype}")
            z = paddle.to_tensor(arrays[rank])
            dist.reduce(z, dst=n - 1, op=op)
            close(z.numpy(), want if rank == n - 1 else arrays[rank], dtype,
                  f"reduce {name} {dtype}")


def check_data_movement(rank, n):
    for dtype in DTYPES:
        arrays = [data(dtype, r, salt=1) for r in range(n)]
        x = paddle.to_tensor(arrays[rank])
        dist.broadcast(x, src=1)
        close(x.numpy(), arrays[1], dtype, f"broadcast {dtype}")
        gathered = []
        dist.all_gather(gathered, paddle.to_tensor(arrays[rank]))
        assert len(gathered) == n
        for r in range(n):
            close(gathered[r].numpy(), arrays[r], dtype, f"all_gather {dtype}")
        # scatter: rank n-1 hands piece i (data(dtype, 10 + i)) to rank i
        pieces = [paddle.to_tensor(data(dtype, 10 + i, salt=2)) for i in range(n)]
        out = paddle.to_tensor(np.zeros(SHAPE, dtype))
        dist.scatter(out, pieces if rank == n - 1 else None, src=n - 1)
        close(out.numpy(), data(dtype, 10 + rank, salt=2), dtype, f"scatter {dtype}")
        # alltoall: rank r sends data(dtype, 100*r + i) to rank i
        sent = [paddle.to_tensor(data(dtype, 100 * rank + i, salt=3)) for i in range(n)]
        received = []
        dist.alltoall(sent, received)
        for r in range(n):
            close(received[r].numpy(), data(dtype, 100 * r + rank, salt=3), dtype,
                  f"alltoall {dtype}")
        # send/recv around a ring
        task = dist.send(paddle.to_tensor(arrays[rank]), dst=(rank + 1) % n, sync_op=False)
        got = paddle.to_tensor(np.zeros(SHAPE, dtype))
        dist.recv(got, src=(rank - 1) % n)
        task.wait()
        close(got.numpy(), arrays[(rank - 1) % n], dtype, f"send/recv {dtype}")


def check_misc(rank, n):
    objects = []
    dist.all_gather_object(objects, {"rank": rank, "name": f"r{rank}"})
    assert objects == [{"rank": r, "name": f"r{r}"} for r in range(n)], objects
    dist.barrier()
    scalar = paddle.to_tensor(np.array(rank + 1.0))
    dist.all_reduce(scalar)
    assert scalar.shape == [] and float(scalar.numpy()) == n * (n + 1) / 2
    # a group of ranks 0 and 1; rank 2 (when there is one) is outside it
    pair = dist.new_group([0, 1])
    x = paddle.to_tensor([float(rank + 1)])
    assert dist.all_reduce(x, group=pair) is None
    assert x.numpy()[0] == (3.0 if rank < 2 else rank + 1)
    assert pair.rank == (rank if rank < 2 else -1) and pair.nranks == 2
    # mismatched shapes raise on every rank, naming the shapes
    bad = paddle.ones([2] if rank == 0 else [3])
    try:
        dist.all_reduce(bad)
    except ValueError as exc:
        assert "rank 0: shape [2]" in str(exc) and "rank 1: shape [3]" in str(exc), exc
    else:
        raise AssertionError("mismatched shapes should raise")
    assert bad.numpy().tolist() == [1.0] * (2 if rank == 0 else 3)  # untouched
    # all_reduce of a tensor in a graph records a backward: the gradient is all-reduced
    w = paddle.to_tensor([float(rank + 1)], stop_gradient=False)
    y = w * 2
    dist.all_reduce(y)
    total = 2 * n * (n + 1) / 2
    assert y.numpy()[0] == total
    (y * y).sum().backward()
    assert w.grad.numpy()[0] == 4 * n * total, w.grad.numpy()
    try:
        dist.all_reduce(w * 1, ReduceOp.MAX)
    except RuntimeError as exc:
        assert "no backward" in str(exc)
    else:
        raise AssertionError("MAX in a graph should say it has no backward")


def main():
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.ParallelEnv().world_size == n
    check_reductions(rank, n)
    check_data_movement(rank, n)
    check_misc(rank, n)
    print(f"rank {rank}: collectives ok", flush=True)


if __name__ == "__main__":
    main()
