"""`python -m dygraph.distributed.launch`: start a training script once per device.

    python -m dygraph.distributed.launch --selected_gpus=0,1 --log_dir ./mylog train.py
    python -m dygraph.distributed.launch --nproc_per_node 2 train.py --epochs 3

It prints Paddle's configuration banner, then starts the ranks under Open MPI's mpirun (one
per selected device, or --nproc_per_node of them; with --ips host1,host2 that many on each
host, run from the first one). Each rank gets Paddle's PADDLE_* variables, which
`ParallelEnv`/`fluid.dygraph.parallel.Env` read, and with --log_dir writes its output to
DIR/workerlog.N. If a rank fails, mpirun ends the others and the launcher exits non-zero;
--timeout sets how long a collective waits for a rank that stopped answering.

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

from dygraph.distributed.mpirun import mpirun_command

__all__ = ["parse_args", "nprocs", "endpoints", "banner", "launch", "main"]


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
                        help="devices, one process each (CPU ranks when there is no GPU)")
    parser.add_argument("--nproc_per_node", type=int, default=None,
                        help="processes per host (default: one per selected device, else 1)")
    parser.add_argument("--log_dir", default=None, help="write DIR/workerlog.N per rank")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a collective waits for a silent rank (default 60)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.nproc_per_node is not None and args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node should be at least 1, got {args.nproc_per_node}")
    if args.selected_gpus is None:
        args.selected_gpus = ",".join(str(i) for i in range(args.nproc_per_node or 1))
    return args


def nprocs(args):
    """Processes per host: --nproc_per_node, else one per selected device.

    Example:
        >>> nprocs(parse_args(['--nproc_per_node', '3', 'train.py']))
        3
    """
    if args.nproc_per_node is not None:
        return args.nproc_per_node
    return len(args.selected_gpus.split(","))


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


def banner(args):
    """The configuration banner Paddle's launcher prints.

    Example:
        >>> print(banner(parse_args(['train.py'])).splitlines()[-1][:60])
        trainers_endpoints: 127.0.0.1:6170 , node_id: 0 , current_no
    """
    lines = ["-----------  Configuration Arguments -----------"]
    for name, value in sorted(vars(args).items()):
        lines.append(f"{name}: {value}")
    lines.append("------------------------------------------------")
    hosts = _hosts(args)
    node_id = hosts.index(args.node_ip) if args.node_ip in hosts else 0
    eps = endpoints(args)
    lines.append(f"trainers_endpoints: {','.join(eps)} , node_id: {node_id} , current_node_ip: "
                 f"{args.node_ip} , num_nodes: {len(hosts)} , node_ips: {hosts} , "
                 f"nranks: {len(eps)}")
    return "\n".join(lines)


def launch(args):
    """Start the job described by `args` under mpirun; returns mpirun's exit code."""
    hosts = _hosts(args)
    program = [sys.executable, "-u", "-m", "dygraph.distributed.worker",
               "--endpoints", ",".join(endpoints(args)), "--devices", args.selected_gpus,
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
    if args.print_config:
        print(banner(args), flush=True)
    code = launch(args)
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


if __name__ == "__main__":
    sys.exit(main())
