"""Paddle's launch protocol without mpirun: trainers started as plain processes, each with
PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS and
PADDLE_CURRENT_ENDPOINT, join one MPI job when they call init_parallel_env.

Open MPI 5 connects processes only inside one runtime (a PMIx server): two processes
started on their own cannot MPI_Comm_connect to each other. So the trainers meet through
files in a rendezvous directory (one per job, named from the endpoints, on this host):

- every trainer but 0 writes a request (its command line, working directory, environment
  and module path) and waits;
- trainer 0 starts Open MPI's runtime with MPI_Comm_spawn, which runs each request's
  program again as a child of trainer 0's job, and merges the two sides
  (Intercomm.Merge) into one communicator ordered by trainer id;
- each waiting trainer becomes a stand-in for its restarted program: the program writes to
  the trainer's standard output and error (what it printed before init_parallel_env is
  not shown again), signals to the trainer are passed on, and the trainer exits with the
  program's exit code.

So the code before init_parallel_env runs twice on trainers 1..N-1; it should have no
effect that must happen once (writing the same files again is fine). Trainers must run on
one host (the endpoints name one); DYGRAPH_RENDEZVOUS_DIR overrides the directory.

Example:
    >>> rendezvous_dir(['127.0.0.1:6170', '127.0.0.1:6171']).startswith(
    ...     tempfile.gettempdir())
    True
"""

import contextlib
import hashlib
import json
import os
import signal
import stat
import sys
import tempfile
import time

from dygraph.distributed.mpirun import find_mpirun

__all__ = ["rendezvous_dir", "join", "rejoin", "run_request", "end_leader",
           "REJOIN_VARIABLE"]

REJOIN_VARIABLE = "DYGRAPH_REJOIN"
_STDIO_VARIABLE = "DYGRAPH_REJOIN_STDIO"
_LEADER_VARIABLE = "DYGRAPH_REJOIN_LEADER"
_POLL = 0.02

# What a process spawned by trainer 0 runs first: take the trainer's environment (keeping
# the variables of the MPI runtime that started it), working directory and module path,
# so that dygraph imports as it did there; then run the trainer's program again.
_BOOT = """import json, os, sys
request = json.load(open(sys.argv[1]))
runtime = {k: v for k, v in os.environ.items() if k.startswith(("PMIX", "OMPI", "PRTE", "OPAL"))}
os.environ.clear(); os.environ.update(request["env"]); os.environ.update(runtime)
os.chdir(request["cwd"]); sys.path[:] = request["path"]
from dygraph.distributed.rendezvous import run_request
run_request(sys.argv[1], request, int(sys.argv[2]))
"""


def rendezvous_dir(endpoints):
    """The directory where the trainers of the job with these endpoints meet.

    Example:
        >>> os.path.basename(rendezvous_dir(['h:1', 'h:2'])).startswith('dygraph-rendezvous-')
        True
    """
    given = os.environ.get("DYGRAPH_RENDEZVOUS_DIR")
    if given:
        return given
    digest = hashlib.sha1(",".join(endpoints).encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"dygraph-rendezvous-{os.getuid()}-{digest}")


def _write_json(path, value):
    partial = f"{path}.{os.getpid()}.partial"
    with open(partial, "w") as f:
        json.dump(value, f)
    os.replace(partial, path)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _tidy(where):
    """Remove the rendezvous directory once no trainer's file is left in it."""
    with contextlib.suppress(OSError):
        os.rmdir(where)


def _deadline_error(what, limit):
    return RuntimeError(
        f"init_parallel_env: PADDLE_TRAINERS_NUM={os.environ.get('PADDLE_TRAINERS_NUM')} "
        f"but this process was not started by mpirun, and {what} did not join within "
        f"{limit:g} s (with Paddle's launch variables and no mpirun, every trainer of "
        f"PADDLE_TRAINER_ENDPOINTS must start and call init_parallel_env; the limit is "
        f"DYGRAPH_DIST_TIMEOUT)")


def _check_one_host(endpoints):
    hosts = {e.rsplit(":", 1)[0] for e in endpoints}
    if len(hosts) > 1:
        raise RuntimeError(
            f"init_parallel_env: PADDLE_TRAINER_ENDPOINTS names several hosts "
            f"({sorted(hosts)}); trainers started without mpirun must run on one host. "
            f"Start a job of several hosts with python -m dygraph.distributed.launch --ips "
            f"... or mpirun")


def _runtime_environment():
    """Let this process start Open MPI's runtime (prte) from the pip installation: where
    it is installed, prte on PATH, and running as root allowed as for mpirun."""
    bindir = os.path.dirname(find_mpirun())
    prefix = os.path.dirname(bindir)
    for name in ("OPAL_PREFIX", "PRTE_PREFIX", "PMIX_PREFIX"):
        os.environ.setdefault(name, prefix)
    os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        for name in ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                     "PRTE_ALLOW_RUN_AS_ROOT", "PRTE_ALLOW_RUN_AS_ROOT_CONFIRM"):
            os.environ.setdefault(name, "1")


def _program(argv):
    """(interpreter options, target) of a command line: target is ('script', path),
    ('-m', module) or ('-c', code), followed by its arguments."""
    options, i = [], 1
    while i < len(argv):
        arg = argv[i]
        if arg in ("-m", "-c"):
            return options, [arg] + argv[i + 1:]
        if arg in ("-W", "-X"):
            options += argv[i:i + 2]
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            options.append(arg)
            i += 1
            continue
        if arg == "-":
            break
        return options, ["script"] + argv[i:]
    raise RuntimeError("init_parallel_env: a program read from standard input cannot be "
                       "started again for Paddle's launch variables; run it from a file")


def _private_dir(where):
    """Make `where` (or take it) only if it is this user's own directory that nobody else
    can write: the requests in it name programs that trainer 0 starts."""
    os.makedirs(where, mode=0o700, exist_ok=True)
    info = os.lstat(where)
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid()
            or info.st_mode & 0o077):
        raise RuntimeError(f"init_parallel_env: the rendezvous directory {where} is not a "
                           "directory private to this user; remove it and start again")
    return where


def join(rank, nranks, endpoints, limit):
    """Connect the trainers. On trainer 0, return the communicator of all of them (rank =
    trainer id); on the others, hand over to the restarted program and exit with its
    code (this call does not return)."""
    _check_one_host(endpoints)
    where = _private_dir(rendezvous_dir(endpoints))
    if rank != 0:
        _stand_in(where, rank, limit)
    requests = _wait_for_requests(where, nranks, limit)
    _runtime_environment()
    from dygraph.distributed.backend import load_mpi

    MPI = load_mpi()
    commands, args = [], []
    for trainer in range(1, nranks):
        options, _ = _program(requests[trainer]["argv"])
        commands.append(sys.executable)
        args.append(options + ["-c", _BOOT, os.path.join(where, f"request.{trainer}.json"),
                               str(os.getpid())])
    inter = MPI.COMM_SELF.Spawn_multiple(commands, args, [1] * (nranks - 1))
    comm = inter.Merge(False)
    inter.Free()
    for trainer in range(1, nranks):
        os.remove(os.path.join(where, f"request.{trainer}.json"))
    return comm


def _wait_for_requests(where, nranks, limit):
    deadline = time.monotonic() + limit
    requests = {}
    while len(requests) < nranks - 1:
        for trainer in range(1, nranks):
            path = os.path.join(where, f"request.{trainer}.json")
            if trainer in requests or not os.path.exists(path):
                continue
            with open(path) as f:
                request = json.load(f)
            if _alive(request["pid"]):
                requests[trainer] = request
            else:  # left by a trainer of an earlier job that died
                os.remove(path)
        if time.monotonic() > deadline:
            missing = sorted(set(range(1, nranks)) - set(requests))
            _tidy(where)
            raise _deadline_error(f"trainer(s) {missing}", limit)
        time.sleep(_POLL)
    return requests


def _stand_in(where, rank, limit):
    """Write this trainer's request, then wait for its restarted program and exit with
    that program's exit code."""
    pid = os.getpid()
    started = os.path.join(where, f"started.{pid}")
    result = os.path.join(where, f"result.{pid}")
    for stale in (started, result):
        if os.path.exists(stale):
            os.remove(stale)
    _write_json(os.path.join(where, f"request.{rank}.json"), {
        "pid": pid, "argv": list(sys.orig_argv), "cwd": os.getcwd(),
        "env": dict(os.environ), "path": list(sys.path)})
    sys.stdout.flush()
    sys.stderr.flush()
    deadline = time.monotonic() + limit
    while not os.path.exists(started):
        if time.monotonic() > deadline:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(where, f"request.{rank}.json"))
            _tidy(where)
            raise _deadline_error("trainer 0", limit)
        time.sleep(_POLL)
    with open(started) as f:
        child = int(f.read())
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: _alive(child) and os.kill(child, signum))
    while not os.path.exists(result):
        if not _alive(child) and not os.path.exists(result):
            os.remove(started)
            sys.stderr.write(f"dygraph.distributed: trainer {rank}'s program (pid {child}) "
                             f"ended without an exit code (killed, or the job was "
                             f"aborted)\n")
            sys.stderr.flush()
            _tidy(where)
            os._exit(1)
        time.sleep(_POLL)
    with open(result) as f:
        code = int(f.read())
    for done in (started, result):
        os.remove(done)
    _tidy(where)
    os._exit(code)


def rejoin(MPI):
    """In a program restarted by join: merge with trainer 0's side and return the
    communicator of all trainers (rank = trainer id); from here on the program writes to
    its trainer's standard output and error."""
    parent = MPI.Comm.Get_parent()
    if parent == MPI.COMM_NULL:
        raise RuntimeError(f"init_parallel_env: {REJOIN_VARIABLE} is set but this process "
                           f"was not started by a trainer's MPI_Comm_spawn")
    comm = parent.Merge(True)
    _state["joined"] = True
    sys.stdout.flush()
    sys.stderr.flush()
    _to_trainer(1)
    _to_trainer(2)
    return comm


_state = {"joined": False}


def _to_trainer(fd):
    """Point this process's `fd` at the same file descriptor of the trainer it stands for
    (its terminal, pipe or log file)."""
    target = os.open(f"{os.environ[_STDIO_VARIABLE]}/{fd}", os.O_WRONLY | os.O_APPEND)
    os.dup2(target, fd)
    os.close(target)


def end_leader():
    """In a restarted program that fails: end trainer 0 too. MPI_Abort ends only the
    processes trainer 0 spawned, and trainer 0 would wait for them for ever; once it has
    ended, Open MPI's runtime (its child) ends the other restarted programs, and each
    waiting trainer exits with an error.

    Example:
        >>> end_leader()  # not a restarted program: nothing to do
    """
    leader = os.environ.get(_LEADER_VARIABLE)
    if leader and _alive(int(leader)):
        os.kill(int(leader), signal.SIGTERM)


def run_request(path, request, leader):
    """Run a trainer's program again, as its request describes (in a process spawned by
    trainer 0, after _BOOT restored the trainer's environment and module path).

    Example:
        >>> run_request  # doctest: +ELLIPSIS
        <function run_request at ...>
    """
    import runpy
    import traceback

    trainer = request["pid"]
    os.environ[REJOIN_VARIABLE] = request["env"]["PADDLE_TRAINER_ID"]
    os.environ[_STDIO_VARIABLE] = f"/proc/{trainer}/fd"
    os.environ[_LEADER_VARIABLE] = str(leader)
    _write_json(os.path.join(os.path.dirname(path), f"started.{trainer}"), os.getpid())
    quiet = os.open(os.devnull, os.O_WRONLY)  # its first run showed this output already
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)
    _, target = _program(request["argv"])
    code = 0
    try:
        if target[0] == "-m":
            sys.argv = [target[1]] + target[2:]
            runpy.run_module(target[1], run_name="__main__", alter_sys=True)
        elif target[0] == "-c":
            sys.argv = ["-c"] + target[2:]
            exec(compile(target[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = target[1:]
            runpy.run_path(target[1], run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - report it on the trainer's console
        code = 1
        if not _state["joined"]:
            _to_trainer(2)
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    _write_json(os.path.join(os.path.dirname(path), f"result.{trainer}"), code)
    if code:
        from dygraph.distributed.env import abort_job

        abort_job(f"exit code {code}", code)
