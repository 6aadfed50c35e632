"""spawn(func, args, nprocs): run `func(*args)` on nprocs ranks, started under mpirun.

The function and its arguments are pickled; a function of the calling script is found again
by re-running that script as `__mp_main__` in each rank (as multiprocessing's spawn does), so
the script's top level belongs under `if __name__ == '__main__':`. Each rank has called
init_parallel_env() before `func` runs.

Example:
    >>> spawn  # doctest: +ELLIPSIS
    <function spawn at ...>
"""

import os
import pickle
import subprocess
import sys
import tempfile

from dygraph.distributed.mpirun import mpirun_command

__all__ = ["spawn"]


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start `nprocs` ranks (all cores when -1) that each call `func(*args)`; wait for them
    and raise RuntimeError if any failed. Options: `timeout` (seconds a collective waits for
    a silent rank), `log_dir` (workerlog.N per rank).

    Example:
        >>> import dygraph.distributed as dist
        >>> def train(n): print(dist.get_rank(), n)
        >>> dist.spawn(train, args=(5,), nprocs=2)  # doctest: +SKIP
    """
    if not join:
        raise ValueError("spawn: join=False is not supported; the call returns when the "
                         "ranks have finished")
    if nprocs in (-1, None):
        nprocs = os.cpu_count() or 1
    nprocs = int(nprocs)
    if nprocs < 1:
        raise ValueError(f"spawn: nprocs should be at least 1, got {nprocs}")
    main = sys.modules.get("__main__")
    main_path = None
    if getattr(func, "__module__", None) == "__main__":
        main_path = getattr(main, "__file__", None)
        if main_path is None:
            raise ValueError("spawn: func is defined in an interactive session; define it in "
                             "a module or script file so that the ranks can import it")
        main_path = os.path.abspath(main_path)
    with tempfile.TemporaryDirectory(prefix="dygraph_spawn_") as tmp:
        path = os.path.join(tmp, "job.pkl")
        with open(path, "wb") as f:
            pickle.dump((main_path, pickle.dumps((func, tuple(args)))), f)
        program = [sys.executable, "-u", "-m", "dygraph.distributed.worker", "--spawn", path,
                   "--devices", ",".join(str(i) for i in range(nprocs))]
        if options.get("timeout"):
            program += ["--timeout", str(options["timeout"])]
        if options.get("log_dir"):
            program += ["--log_dir", str(options["log_dir"])]
        cmd, env = mpirun_command(nprocs, program)
        code = subprocess.call(cmd, env=env)
    if code != 0:
        raise RuntimeError(f"spawn: the job of {nprocs} processes failed (mpirun exit code "
                           f"{code}); the failing rank's error is printed above")
