"""Data-parallel scaling: the seeds' MNIST model on 1 process and on 2, DyGraph beside PyTorch.

Each configuration trains the MNIST model (conv 20@5x5, pool, conv 50@5x5, pool, linear
800 -> 10; cross-entropy, Adam) with the same per-rank batch, one thread per process, every
process started by Open MPI's mpirun:
  dygraph 1      -- the plain model, 1 process;
  dygraph 2 none-buckets -- 2 processes training the plain model each, no communication:
                    the ceiling the machine allows (cores, caches, memory bandwidth, load);
  dygraph 2      -- paddle.DataParallel with Paddle's bucket sizes (25 MB / 1 MB: all of this
                    model's 134 KB of gradients fall into one bucket, which can only start
                    when the last gradient is ready);
  dygraph 2 small-buckets -- DataParallel with 0.05 MB / 0.01 MB buckets (4 buckets), so the
                    all-reduce of the upper layers runs while the lower layers' backward does;
  torch 1 / torch 2 -- the same model in PyTorch, 2 processes under DistributedDataParallel
                    with the gloo backend (torch 2 none-buckets: without DDP).
Throughput is samples per second over all ranks; scaling efficiency = throughput(2) /
(2 * throughput(1)). "hidden comm" is the fraction of the all-reduce time that backward
hides: each bucket's all-reduce takes time c when run alone (blocking); in a training step
the part of it still running when backward ends, min(c, finished - backward end), is
exposed, the rest hidden; the fraction is averaged over the steps. Medians over repeats;
the repeats take turns between the configurations, so load from other processes falls on
all of them alike; "best-of eff." uses each configuration's fastest repeat instead, the
figure least disturbed by other load. The "none-buckets" lines (two independent copies of
the 1-process run, no communication) are the ceiling the machine allows: on a machine with
fewer free cores than processes the 2-process figures say more about the load than about
the framework, and "vs ceiling" (step time without communication / step time with it, same
framework) is the part the framework's communication costs.

Run: python benchmarks/data_parallel.py [--steps 40] [--repeats 3] [--batch 32]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("dygraph", 1, None), ("dygraph", 2, "none"), ("dygraph", 2, None),
           ("dygraph", 2, "small"), ("torch", 1, None), ("torch", 2, "none"),
           ("torch", 2, None)]


def _parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=40, help="timed steps per job")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--worker", choices=["dygraph", "torch"], default=None)
    p.add_argument("--buckets", default=None, help="worker: 'small', or 'none' for no "
                   "DataParallel")
    return p.parse_args(argv)


def _images(batch, rank):
    import numpy as np

    rng = np.random.RandomState(rank)
    return (rng.uniform(-1, 1, (batch, 1, 28, 28)).astype("float32"),
            rng.randint(0, 10, (batch, 1)).astype("int64"))


def _report(result):
    print("RESULT " + json.dumps(result), flush=True)


# -- the ranks ---------------------------------------------------------------------------------
def dygraph_worker(args):
    sys.path.insert(0, ROOT)
    import numpy as np

    import dygraph as paddle
    import dygraph.distributed as dist
    import dygraph.nn.functional as F
    from dygraph.distributed.task import Task
    from tests.seeds.test_mnist_1x_vs_2x import MNIST2x

    world = dist.init_parallel_env()
    rank, n = world.rank, world.nranks
    paddle.seed(1)
    model = MNIST2x()
    if n > 1 and args.buckets != "none":
        sizes = (0.05, 0.01) if args.buckets == "small" else (25, 1)
        model = paddle.DataParallel(model, comm_buffer_size=sizes[0],
                                    last_comm_buffer_size=sizes[1])
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    images, labels = _images(args.batch, rank)
    x, y = paddle.to_tensor(images), paddle.to_tensor(labels)

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()

    for _ in range(args.warmup):
        step()
    # Barriers around the timed steps exactly where the PyTorch ranks have them (only under
    # DataParallel), so the no-communication configurations time the same work.
    synced = n > 1 and args.buckets != "none"
    if synced:
        dist.barrier()
    reducer = getattr(model, "_reducer", None)
    timelines = []
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
        if reducer is not None:
            timelines.append((reducer.backward_end,
                              [(b.started, b.finished) for b in reducer.buckets]))
    if synced:
        dist.barrier()
    step_s = (time.perf_counter() - start) / args.steps
    result = {"step_s": step_s}
    if reducer is not None:
        comm = []  # each bucket's all-reduce alone, blocking: nothing to hide it behind
        for bucket in reducer.buckets:
            flat, times = np.array(bucket.flat), []
            for _ in range(20):
                dist.barrier()
                t0 = time.perf_counter()
                Task([world.backend.allreduce(flat, "sum")], "bench", world).wait()
                times.append(time.perf_counter() - t0)
            comm.append(statistics.median(times))
        hidden = []
        for end, buckets in timelines:  # the part of each all-reduce done before backward ended
            exposed = [min(c, max(0.0, finished - end)) for c, (_, finished) in zip(comm, buckets)]
            hidden.append(1 - sum(exposed) / sum(comm))
        result.update(comm_s=sum(comm), hidden=statistics.mean(hidden),
                      buckets=len(reducer.buckets))
    if rank == 0:
        _report(result)


def torch_worker(args):
    import torch
    import torch.distributed as tdist
    import torch.nn.functional as tf

    torch.set_num_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    n = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 20, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Conv2d(20, 50, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Flatten(), torch.nn.Linear(800, 10))
    if n > 1 and args.buckets != "none":
        port = 29500 + int(os.environ.get("BENCH_PORT_OFFSET", "0"))
        tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                 world_size=n)
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    images, labels = _images(args.batch, rank)
    x, y = torch.from_numpy(images), torch.from_numpy(labels[:, 0])

    def step():
        loss = tf.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()

    for _ in range(args.warmup):
        step()
    ddp = n > 1 and args.buckets != "none"
    if ddp:
        tdist.barrier()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    if ddp:
        tdist.barrier()
    result = {"step_s": (time.perf_counter() - start) / args.steps}
    if rank == 0:
        _report(result)
    if ddp:
        tdist.destroy_process_group()


# -- the driver --------------------------------------------------------------------------------
def _run(config, args, attempt):
    sys.path.insert(0, ROOT)
    from dygraph.distributed.mpirun import mpirun_command

    framework, nprocs, buckets = config
    program = [sys.executable, os.path.abspath(__file__), "--worker", framework,
               "--steps", str(args.steps), "--warmup", str(args.warmup),
               "--batch", str(args.batch)]
    if buckets:
        program += ["--buckets", buckets]
    cmd, env = mpirun_command(nprocs, program)
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               BENCH_PORT_OFFSET=str(attempt % 50),
               PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""))
    time.sleep(0.3)  # let spinning BLAS/MPI threads of the previous job go quiet
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    for line in run.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{config} failed:\n{run.stdout}\n{run.stderr}")


def main(args):
    results = {c: [] for c in CONFIGS}
    attempt = 0
    for _ in range(args.repeats):
        for config in CONFIGS:
            attempt += 1
            results[config].append(_run(config, args, attempt))
    med = {c: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for c, rs in results.items()}
    best = {c: min(r["step_s"] for r in rs) for c, rs in results.items()}
    print(f"MNIST model, batch {args.batch} per rank, 1 thread per process, {args.steps} steps, "
          f"median of {args.repeats} interleaved repeats (cores: {os.cpu_count()}; shared "
          f"machines depress the 2-process figures)")
    print(f"{'configuration':<26}{'step ms':>9}{'samples/s':>11}{'efficiency':>12}"
          f"{'best-of eff.':>14}{'vs ceiling':>12}  hidden comm")
    single, single_best = {}, {}
    for config in CONFIGS:
        framework, nprocs, buckets = config
        m = med[config]
        throughput = nprocs * args.batch / m["step_s"]
        if nprocs == 1:
            single[framework], single_best[framework] = throughput, args.batch / best[config]
        efficiency = throughput / (nprocs * single[framework])
        best_efficiency = single_best[framework] and (
            nprocs * args.batch / best[config]) / (nprocs * single_best[framework])
        hidden = ""
        if "comm_s" in m:
            hidden = (f"{m['hidden']:.0%} of {m['comm_s'] * 1e3:.2f} ms, "
                      f"{int(m['buckets'])} bucket{'s' if m['buckets'] > 1 else ''}")
        ceiling = med.get((framework, nprocs, "none"))
        vs_ceiling = (f"{ceiling['step_s'] / m['step_s']:.2f}"
                      if nprocs > 1 and buckets != "none" and ceiling else "")
        name = f"{framework} {nprocs}" + (f" {buckets}-buckets" if buckets else "")
        print(f"{name:<26}{m['step_s'] * 1e3:>9.2f}{throughput:>11.0f}{efficiency:>12.2f}"
              f"{best_efficiency:>14.2f}{vs_ceiling:>12}  {hidden}")


if __name__ == "__main__":
    ARGS = _parse()
    if ARGS.worker == "dygraph":
        dygraph_worker(ARGS)
    elif ARGS.worker == "torch":
        torch_worker(ARGS)
    else:
        main(ARGS)
