"""What each rank runs under mpirun for `launch` and `spawn`: describe the job in Paddle's
environment variables, send the output to workerlog.N when asked, then run the training
script (or the spawned function). An uncaught exception names the rank and ends the job.

Not called by users: `python -m dygraph.distributed.worker --endpoints ... -- train.py args`.

Example:
    >>> job = job_environment(1, 2, ['127.0.0.1:6170', '127.0.0.1:6171'], ['0', '1'], 1)
    >>> job['PADDLE_TRAINER_ID'], job['FLAGS_selected_gpus']
    ('1', '1')
"""

import argparse
import os
import pickle
import runpy
import sys
import traceback

__all__ = ["job_environment", "main"]


def job_environment(rank, nranks, endpoints, devices, local_rank):
    """The PADDLE_* variables of rank `rank` (what paddle.distributed.launch sets).

    Example:
        >>> job_environment(0, 1, ['127.0.0.1:6170'], ['0'], 0)['PADDLE_CURRENT_ENDPOINT']
        '127.0.0.1:6170'
    """
    return {"PADDLE_TRAINERS_NUM": str(nranks), "PADDLE_TRAINER_ID": str(rank),
            "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
            "PADDLE_CURRENT_ENDPOINT": endpoints[rank] if rank < len(endpoints) else "",
            "FLAGS_selected_gpus": devices[local_rank % len(devices)] if devices else "0"}


def _redirect_output(log_dir, rank):
    os.makedirs(log_dir, exist_ok=True)
    fd = os.open(os.path.join(log_dir, f"workerlog.{rank}"),
                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)


def _run_spawned(path):
    with open(path, "rb") as f:
        main_path, payload = pickle.load(f)
    if main_path:  # functions of the caller's script unpickle from its module, re-imported
        module = runpy.run_path(main_path, run_name="__mp_main__")
        main = type(sys)("__mp_main__")
        main.__dict__.update(module)
        sys.modules["__main__"] = sys.modules["__mp_main__"] = main
    func, args = pickle.loads(payload)
    from dygraph.distributed import init_parallel_env

    init_parallel_env()
    func(*args)


def main(argv=None):
    """Set up this rank and run the script or the spawned function."""
    parser = argparse.ArgumentParser(prog="dygraph.distributed.worker")
    parser.add_argument("--endpoints", default="")
    parser.add_argument("--devices", default="")
    parser.add_argument("--log_dir", default=None)
    parser.add_argument("--timeout", default=None)
    parser.add_argument("--spawn", default=None)
    parser.add_argument("script", nargs="?")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
    nranks = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMI_SIZE", "1")))
    local_rank = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", rank))
    endpoints = args.endpoints.split(",") if args.endpoints else []
    devices = args.devices.split(",") if args.devices else []
    os.environ.update(job_environment(rank, nranks, endpoints, devices, local_rank))
    if args.timeout:
        os.environ["DYGRAPH_DIST_TIMEOUT"] = str(args.timeout)
    if args.log_dir:
        _redirect_output(args.log_dir, rank)
    try:
        if args.spawn:
            _run_spawned(args.spawn)
        else:
            sys.argv = [args.script] + list(args.script_args)
            sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
            runpy.run_path(args.script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            _fail(f"SystemExit({exc.code!r})")
    except BaseException as exc:  # noqa: BLE001 - any failure must end the whole job
        traceback.print_exc()
        _fail(f"{type(exc).__name__}: {exc}")
    sys.stdout.flush()
    sys.stderr.flush()


def _fail(reason):
    from dygraph.distributed.env import abort_job

    abort_job(reason)


if __name__ == "__main__":
    main()
