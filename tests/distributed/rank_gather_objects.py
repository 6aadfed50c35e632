"""Run under mpirun (2 or 3 ranks): gather, reduce_scatter, alltoall_single, isend/irecv,
the object collectives and the group lifecycle (get_backend, shutdown/restart/destroy),
against NumPy computed from every rank's inputs. Each rank prints
'rank R: gather and objects ok' at the end; any failure aborts the job."""

import numpy as np

import dygraph as paddle
import dygraph.distributed as dist
from dygraph.distributed import ReduceOp, ReduceType

DTYPES = ["float16", "float32", "float64", "int32", "int64", "uint8", "bool", "complex64"]


def data(dtype, seed, shape=(2, 3)):
    rng = np.random.RandomState(seed)
    if dtype == "bool":
        return rng.randint(0, 2, shape).astype(bool)
    values = rng.randint(1, 4, shape)
    if dtype.startswith("complex"):
        return (values + 1j * rng.randint(0, 3, shape)).astype(dtype)
    return values.astype(dtype)


def same(got, want, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-3, err_msg=what) if got.dtype.kind in "fc" \
        else np.testing.assert_array_equal(got, want, err_msg=what)


def check_gather(rank, n):
    for dtype in DTYPES:
        arrays = [data(dtype, 10 * r + 1) for r in range(n)]
        out = []
        assert dist.gather(paddle.to_tensor(arrays[rank]), out if rank == n - 1 else None,
                           dst=n - 1) is None
        if rank == n - 1:
            assert len(out) == n
            for r in range(n):
                same(out[r].numpy(), arrays[r], f"gather {dtype} from {r}")
        # into a list of tensors given in place, without waiting at once
        slots = [paddle.to_tensor(np.zeros((2, 3), dtype)) for _ in range(n)]
        task = dist.gather(paddle.to_tensor(arrays[rank]), slots if rank == 0 else None,
                           dst=0, sync_op=False)
        task.wait()
        if rank == 0:
            for r in range(n):
                same(slots[r].numpy(), arrays[r], f"gather in place {dtype} from {r}")


def check_reduce_scatter(rank, n):
    for dtype in ["float32", "float64", "int64", "bool"]:
        # rank r contributes data(dtype, 100 r + i) for block i
        blocks = [[data(dtype, 100 * r + i) for i in range(n)] for r in range(n)]
        for op, name in [(ReduceOp.SUM, "sum"), (ReduceOp.MAX, "max"),
                         (ReduceType.kRedMin, "min"), (ReduceOp.AVG, "avg")]:
            if name == "avg" and dtype in ("int64", "bool"):
                continue
            stack = np.stack([blocks[r][rank] for r in range(n)])
            if dtype == "bool":
                want = stack.any(0) if name in ("sum", "max") else stack.all(0)
            elif name == "avg":
                want = (stack.sum(0) / n).astype(dtype)
            else:
                want = getattr(np, name)(stack, axis=0).astype(dtype)
            out = paddle.to_tensor(np.zeros((2, 3), dtype))
            dist.reduce_scatter(out, [paddle.to_tensor(b) for b in blocks[rank]], op=op)
            same(out.numpy(), want, f"reduce_scatter {name} {dtype}")
            # the input as one tensor of n blocks along the first axis
            whole = paddle.to_tensor(np.concatenate(blocks[rank]))
            out = paddle.to_tensor(np.zeros((2, 3), dtype))
            dist.reduce_scatter(out, whole, op=op, sync_op=False).wait()
            same(out.numpy(), want, f"reduce_scatter of one tensor {name} {dtype}")


def check_alltoall_single(rank, n):
    # equal splits: rank r sends rows [2i, 2i+1] of its tensor to rank i
    sent = np.arange(2 * n * 3, dtype="float32").reshape(2 * n, 3) + 100 * rank
    out = paddle.zeros([2 * n, 3])
    dist.alltoall_single(out, paddle.to_tensor(sent))
    want = np.concatenate([np.arange(2 * n * 3, dtype="float32").reshape(2 * n, 3)
                           [2 * rank:2 * rank + 2] + 100 * r for r in range(n)])
    same(out.numpy(), want, "alltoall_single equal splits")
    # uneven splits: rank r sends i + 1 rows to rank i, each row filled with 10 r + i
    in_sizes = [i + 1 for i in range(n)]
    rows = np.concatenate([np.full((i + 1, 2), 10 * rank + i, "int64") for i in range(n)])
    out = paddle.to_tensor(np.zeros(((rank + 1) * n, 2), "int64"))
    task = dist.alltoall_single(out, paddle.to_tensor(rows), in_sizes, [rank + 1] * n,
                                sync_op=False)
    task.wait()
    want = np.concatenate([np.full((rank + 1, 2), 10 * r + rank, "int64") for r in range(n)])
    same(out.numpy(), want, "alltoall_single uneven splits")
    # sizes that do not match raise on every rank before any data moves
    bad_out = [rank + 2] * n
    try:
        dist.alltoall_single(paddle.to_tensor(np.zeros((sum(bad_out), 2), "int64")),
                             paddle.to_tensor(rows), in_sizes, bad_out)
    except ValueError as exc:
        assert "the split sizes disagree" in str(exc), exc
    else:
        raise AssertionError("mismatched split sizes should raise")


def check_point_to_point(rank, n):
    right, left = (rank + 1) % n, (rank - 1) % n
    got = paddle.zeros([4], dtype="int32")
    receiving = dist.irecv(got, src=left)
    sending = dist.isend(paddle.to_tensor(np.arange(4, dtype="int32") + rank), dst=right)
    assert receiving.wait() and sending.wait() and receiving.is_completed()
    same(got.numpy(), np.arange(4, dtype="int32") + left, "isend/irecv")


def check_objects(rank, n):
    objects = [{"from": rank}, "text" * (rank + 1), [rank] * 3]
    dist.broadcast_object_list(objects, src=n - 1)
    assert objects == [{"from": n - 1}, "text" * n, [n - 1] * 3], objects
    out = ["stale"]
    dist.scatter_object_list(out, [{"for": i, "pad": "x" * 10 * i} for i in range(n)]
                             if rank == 1 else None, src=1)
    assert out == [{"for": rank, "pad": "x" * 10 * rank}], out
    # a ring of object lists, with sizes that differ per object
    if rank % 2 == 0:
        dist.send_object_list([rank, {"k": "v" * rank}, None], dst=(rank + 1) % n)
        slots = [None] * 3
        dist.recv_object_list(slots, src=(rank - 1) % n)
    else:
        slots = [None] * 3
        dist.recv_object_list(slots, src=(rank - 1) % n)
        dist.send_object_list([rank, {"k": "v" * rank}, None], dst_in_group=(rank + 1) % n)
    left = (rank - 1) % n
    assert slots == [left, {"k": "v" * left}, None], slots


def check_groups(rank, n):
    assert dist.get_backend() == "MPI"
    pair = dist.new_group([0, 1])
    assert pair.get_global_rank(1) == 1
    x = paddle.to_tensor([float(rank + 1)])
    dist.all_reduce(x, group=pair)
    assert x.numpy()[0] == (3.0 if rank < 2 else rank + 1)
    dist.shutdown_process_group(pair)
    if rank < 2:
        try:
            dist.all_reduce(x, group=pair)
        except RuntimeError as exc:
            assert "was shut down" in str(exc), exc
        else:
            raise AssertionError("a collective on a group that was shut down should raise")
        dist.restart_process_group(pair)
        y = paddle.to_tensor([2.0])
        dist.all_reduce(y, group=pair)
        assert y.numpy()[0] == 4.0
    dist.destroy_process_group(pair)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_parallel_env()  # connects again, from the job's communicator
    z = paddle.to_tensor([1.0])
    dist.all_reduce(z)
    assert z.numpy()[0] == n and dist.is_initialized()


def main():
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    check_gather(rank, n)
    check_reduce_scatter(rank, n)
    check_alltoall_single(rank, n)
    check_point_to_point(rank, n)
    check_objects(rank, n)
    check_groups(rank, n)
    print(f"rank {rank}: gather and objects ok", flush=True)


if __name__ == "__main__":
    main()
