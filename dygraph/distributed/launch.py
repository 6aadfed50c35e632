"""`python -m dygraph.distributed.launch`: start a training script once per device.

    python -m dygraph.distributed.launch --selected_gpus=0,1 --log_dir ./mylog train.py
    python -m dygraph.distributed.launch --nproc_per_node 2 train.py --epochs 3

It prints Paddle's configuration banner and where the ranks run, then starts the ranks under
Open MPI's mpirun (one per selected device, or --nproc_per_node of them; with --ips
host1,host2 that many on each host, run from the first one). Each rank gets Paddle's PADDLE_*
variables, which `ParallelEnv`/`fluid.dygraph.parallel.Env` read, and with --log_dir writes
its output to DIR/workerlog.N. If a rank fails, mpirun ends the others and the launcher
exits non-zero; --timeout sets how long a collective waits for a rank that stopped answering.

Devices are reported as they are: without CuPy or a CUDA device the ranks run on the CPU
("launch train in CPU mode", as Paddle says, and `devices: cpu x2`), and --selected_gpus only
sets how many ranks there are; with GPUs, each rank is given one that exists (a
--selected_gpus entry CuPy does not see is an error) as FLAGS_selected_gpus, which
`ParallelEnv().dev_id` reads. The launching host's GPUs stand for every host's.

The module is callable, as Paddle's `paddle.distributed.launch()`: it runs the launcher
with the arguments of sys.argv.

Example:
    >>> args = parse_args(['--selected_gpus', '0,1', 'train.py', '--lr', '0.1'])
    >>> args.training_script, args.training_script_args, nprocs(args)
    ('train.py', ['--lr', '0.1'], 2)
"""

import argparse
import os
import signal
import subprocess
import sys
import types

from dygraph.distributed.mpirun import mpirun_command

__all__ = ["parse_args", "nprocs", "endpoints", "banner", "gpu_count", "host_devices",
           "device_report", "launch", "main"]


def parse_args(argv=None):
    """The launcher's arguments (Paddle's names; --ips is --cluster_node_ips).

    Example:
        >>> parse_args(['train.py']).started_port
        6170
    """
    parser = argparse.ArgumentParser(
        prog="python -m dygraph.distributed.launch",
        description="Start a data-parallel training script on several processes.")
    parser.add_argument("--cluster_node_ips", "--ips", default="127.0.0.1",
                        help="comma-separated hosts of the job (run the launcher on the first)")
    parser.add_argument("--node_ip", default="127.0.0.1", help="this host")
    parser.add_argument("--use_paddlecloud", action="store_true", default=True,
                        help="accepted for compatibility")
    parser.add_argument("--started_port", type=int, default=6170,
                        help="first port of the trainers' endpoints")
    parser.add_argument("--print_config", type=bool, default=True)
    parser.add_argument("--selected_gpus", "--gpus", default=None,
                        help="GPUs as CuPy numbers them, one process each (without a GPU: "
                             "that many CPU ranks)")
    parser.add_argument("--nproc_per_node", type=int, default=None,
                        help="processes per host (default: one per selected GPU, else 1)")
    parser.add_argument("--log_dir", default=None, help="write DIR/workerlog.N per rank")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a collective waits for a silent rank (default 60)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.nproc_per_node is not None and args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node should be at least 1, got {args.nproc_per_node}")
    return args


def nprocs(args):
    """Processes per host: --nproc_per_node, else one per --selected_gpus entry, else 1.

    Example:
        >>> nprocs(parse_args(['--nproc_per_node', '3', 'train.py']))
        3
    """
    if args.nproc_per_node is not None:
        return args.nproc_per_node
    return len(_selected(args)) or 1


def _selected(args):
    text = args.selected_gpus or ""
    return [g.strip() for g in text.split(",") if g.strip()]


def gpu_count():
    """The GPUs this host's ranks can use: CuPy's device count, 0 without CuPy or a CUDA
    device (within CUDA_VISIBLE_DEVICES).

    Example:
        >>> gpu_count() >= 0
        True
    """
    from dygraph.device import cuda

    return cuda.device_count()


def host_devices(args, gpus=None):
    """Where the ranks of this host run: ('gpu', [GPU of rank 0, ...]) when the host has
    GPUs (`gpus`, default gpu_count()), else ('cpu', [local rank numbers]). The list is
    what each rank reads as FLAGS_selected_gpus (ParallelEnv().dev_id); ranks beyond the
    selected GPUs share them in turn. Raises ValueError for a --selected_gpus entry that
    is not a GPU of this host.

    Example:
        >>> host_devices(parse_args(['--nproc_per_node', '2', 'train.py']), gpus=0)
        ('cpu', ['0', '1'])
        >>> host_devices(parse_args(['--gpus', '1,3', 'train.py']), gpus=4)
        ('gpu', ['1', '3'])
    """
    gpus = gpu_count() if gpus is None else gpus
    n = nprocs(args)
    if gpus == 0:
        return "cpu", [str(i) for i in range(n)]
    selected = _selected(args) or [str(i) for i in range(min(n, gpus))]
    missing = [g for g in selected if not (g.isdigit() and int(g) < gpus)]
    if missing:
        raise ValueError(
            f"--selected_gpus {args.selected_gpus}: no GPU {', '.join(missing)} on this host; "
            f"CuPy sees {gpus} GPU(s), numbered 0 to {gpus - 1}")
    return "gpu", [selected[i % len(selected)] for i in range(n)]


def _why_no_gpu():
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed"
    return "CuPy sees no CUDA device"


def device_report(args, gpus=None):
    """The lines that say where the ranks of this host run (see host_devices).

    Example:
        >>> print(device_report(parse_args(['--nproc_per_node', '2', 'train.py']), gpus=0))
        ... # doctest: +ELLIPSIS
        launch train in CPU mode (no GPU: ...)
        devices: cpu x2
        >>> print(device_report(parse_args(['--nproc_per_node', '2', 'train.py']), gpus=2))
        launch train in GPU mode
        devices: gpu 0,1
    """
    kind, ids = host_devices(args, gpus)
    if kind == "cpu":
        first = f"launch train in CPU mode (no GPU: {_why_no_gpu()})"
        if args.selected_gpus is not None:
            first += f"; --selected_gpus {args.selected_gpus} only sets the number of ranks"
        return f"{first}\ndevices: cpu x{len(ids)}"
    shared = " (ranks share GPUs in turn)" if len(set(ids)) < len(ids) else ""
    return f"launch train in GPU mode\ndevices: gpu {','.join(ids)}{shared}"


def _hosts(args):
    return [h.strip() for h in args.cluster_node_ips.split(",") if h.strip()]


def endpoints(args):
    """Every trainer's ip:port, host by host.

    Example:
        >>> endpoints(parse_args(['--nproc_per_node', '2', 'train.py']))
        ['127.0.0.1:6170', '127.0.0.1:6171']
    """
    return [f"{host}:{args.started_port + i}" for host in _hosts(args)
            for i in range(nprocs(args))]


def banner(args, gpus=None):
    """The configuration banner Paddle's launcher prints: the arguments as given, where the
    ranks run (device_report; `gpus` as there), and the trainers' endpoints.

    Example:
        >>> lines = banner(parse_args(['--nproc_per_node', '2', 'train.py']), gpus=0)
        >>> print(lines.splitlines()[-2])
        devices: cpu x2
        >>> print(lines.splitlines()[-1][:60])
        trainers_endpoints: 127.0.0.1:6170,127.0.0.1:6171 , node_id:
    """
    lines = ["-----------  Configuration Arguments -----------"]
    for name, value in sorted(vars(args).items()):
        lines.append(f"{name}: {value}")
    lines.append("------------------------------------------------")
    lines += device_report(args, gpus).splitlines()
    hosts = _hosts(args)
    node_id = hosts.index(args.node_ip) if args.node_ip in hosts else 0
    eps = endpoints(args)
    lines.append(f"trainers_endpoints: {','.join(eps)} , node_id: {node_id} , current_node_ip: "
                 f"{args.node_ip} , num_nodes: {len(hosts)} , node_ips: {hosts} , "
                 f"nranks: {len(eps)}")
    return "\n".join(lines)


def launch(args, devices=None):
    """Start the job described by `args` under mpirun, rank r of each host with device
    `devices[r]` (default: host_devices(args)); returns mpirun's exit code."""
    if devices is None:
        devices = host_devices(args)[1]
    hosts = _hosts(args)
    program = [sys.executable, "-u", "-m", "dygraph.distributed.worker",
               "--endpoints", ",".join(endpoints(args)), "--devices", ",".join(devices),
               "--timeout", str(args.timeout)]
    if args.log_dir:
        program += ["--log_dir", args.log_dir]
    program += [args.training_script] + list(args.training_script_args)
    cmd, env = mpirun_command(nprocs(args), program,
                              hosts=hosts if hosts != ["127.0.0.1"] else None)
    proc = subprocess.Popen(cmd, env=env)

    def stop(signum, frame):  # mpirun ends its ranks when it is terminated
        proc.terminate()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def main(argv=None):
    """Entry point of `python -m dygraph.distributed.launch`."""
    args = parse_args(argv)
    gpus = gpu_count()
    try:
        _, devices = host_devices(args, gpus)
    except ValueError as exc:
        print(f"dygraph.distributed.launch: {exc}", file=sys.stderr, flush=True)
        return 2
    print(banner(args, gpus) if args.print_config else device_report(args, gpus), flush=True)
    code = launch(args, devices)
    if code != 0:
        where = f"; the ranks' output is in {args.log_dir}/workerlog.N" if args.log_dir else ""
        print(f"dygraph.distributed.launch: the job failed (mpirun exit code {code}){where}",
              file=sys.stderr, flush=True)
        for line in _failures(args.log_dir):
            print(line, file=sys.stderr, flush=True)
    return code


def _failures(log_dir):
    """The 'rank N failed' lines of the worker logs (they are not on the console)."""
    if not log_dir or not os.path.isdir(log_dir):
        return []
    lines = []
    for name in sorted(os.listdir(log_dir)):
        if name.startswith("workerlog."):
            with open(os.path.join(log_dir, name), errors="replace") as f:
                lines += [f"{name}: {line.rstrip()}" for line in f
                          if line.startswith("dygraph.distributed: rank ")]
    return lines


class _LaunchModule(types.ModuleType):
    """This module, callable: `dygraph.distributed.launch()` is Paddle's
    `paddle.distributed.launch()`, the launcher with the arguments of sys.argv (exits
    with the job's code when it failed)."""

    def __call__(self):
        code = main()
        if code:
            sys.exit(code)


sys.modules[__name__].__class__ = _LaunchModule

if __name__ == "__main__":
    sys.exit(main())
