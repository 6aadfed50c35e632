"""DataLoader worker processes: errors, worker info, timeouts, lifetime."""

import gc
import multiprocessing
import os
import signal
import struct
import subprocess
import sys
import time

import pytest

import dygraph
from dygraph.io import DataLoader, get_worker_info
from tests.io import worker_data as wd


def children():
    return {p.pid for p in multiprocessing.active_children()}


def test_worker_error_reaches_main_with_traceback():
    before = children()
    loader = DataLoader(wd.Failing(8, bad=5), batch_size=2, num_workers=2, timeout=30)
    start = time.monotonic()
    with pytest.raises(ValueError) as info:
        for _ in loader:
            pass
    message = str(info.value)
    assert "DataLoader worker 0" in message  # batch [4, 5] is the third: worker 0
    assert "sample 5 is corrupt" in message
    assert "Original traceback" in message and "explode_in_dataset" in message
    assert time.monotonic() - start < 10
    assert children() <= before  # the workers were cleaned up


def test_worker_init_fn_error_is_reported():
    loader = DataLoader(wd.Indexed(4), num_workers=2, worker_init_fn=wd.failing_init,
                        timeout=30)
    with pytest.raises(OSError, match="worker_init_fn.*cannot open the resource for worker 0"):
        next(iter(loader))


def test_unpicklable_batch_is_an_error_not_a_hang():
    loader = DataLoader(wd.Unpicklable(), batch_size=2, num_workers=1, collate_fn=wd.keep,
                        timeout=30)
    with pytest.raises(Exception, match="DataLoader worker 0.*sending a batch"):
        next(iter(loader))


def test_dead_worker_is_detected():
    loader = DataLoader(wd.Dies(), batch_size=1, num_workers=2, timeout=30)
    with pytest.raises(RuntimeError, match="exited unexpectedly with exit code 7"):
        list(loader)


def _pending_bytes(conn):
    """How many bytes wait unread in a pipe."""
    import fcntl
    import termios

    return struct.unpack("i", fcntl.ioctl(conn.fileno(), termios.FIONREAD, b"\0" * 4))[0]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and FIONREAD are POSIX")
def test_worker_killed_while_sending_a_batch_is_reported():
    # The main process reads nothing until the worker is dead, so the worker stops with a
    # 16 MB batch partly written: the pipe holds its length header and the first bytes.
    start = time.monotonic()
    it = iter(DataLoader(wd.Large(2, mb=16), batch_size=1, num_workers=1, timeout=30))
    worker, conn = it.workers[0], it.result_conns[0]
    while _pending_bytes(conn) <= 4 and time.monotonic() - start < 8:
        time.sleep(0.01)
    assert _pending_bytes(conn) > 4, "the worker never started sending"
    os.kill(worker.pid, signal.SIGKILL)
    worker.join(timeout=5)
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) exited "
                                           r"unexpectedly: killed by SIGKILL \(exit code -9\)"):
        next(it)
    assert not it.alive and time.monotonic() - start < 10


def test_timeout_raises_clear_error_quickly():
    loader = DataLoader(wd.Slow(4, delay=3.0), batch_size=1, num_workers=1, timeout=0.3)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"timed out.*0.3 seconds"):
        next(iter(loader))
    assert time.monotonic() - start < 2.5


def test_worker_init_fn_and_get_worker_info():
    assert get_worker_info() is None
    dygraph.seed(42)
    loader = DataLoader(wd.WhoLoads(), batch_size=2, num_workers=2,
                        worker_init_fn=wd.init_worker, timeout=30)
    batches = list(loader)
    workers = [b["worker"].numpy().tolist() for b in batches]
    assert workers == [[0, 0], [1, 1], [0, 0], [1, 1]]  # round-robin, in order
    for batch, wid in zip(batches, [0, 1, 0, 1]):
        assert batch["env"].numpy().tolist() == [wid, wid]  # worker_init_fn ran there
        assert batch["num_workers"].numpy().tolist() == [2, 2]
        assert all(batch["same_dataset"].numpy())
    seeds = {b["seed"].numpy()[0] for b in batches}
    assert len(seeds) == 2  # one seed per worker
    draws = [v for b in batches for v in b["draw"].numpy().tolist()]
    assert len(set(draws)) == len(draws)  # workers do not share a random stream
    dygraph.seed(42)
    again = [v for b in loader for v in b["draw"].numpy().tolist()]
    assert again == draws  # dygraph.seed reproduces the workers' randomness


def test_persistent_workers_survive_epochs_and_a_break():
    loader = DataLoader(wd.Indexed(6), batch_size=2, num_workers=2, persistent_workers=True,
                        timeout=30)
    first = [b[1].numpy().tolist() for b in loader]
    pids = [p.pid for p in loader._iterator.workers]
    for _ in loader:  # leave the epoch early: stale prefetched batches must be dropped
        break
    second = [b[1].numpy().tolist() for b in loader]
    assert first == second == [[0, 1], [2, 3], [4, 5]]
    assert [p.pid for p in loader._iterator.workers] == pids


def test_workers_end_on_break_and_garbage_collection():
    before = children()
    loader = DataLoader(wd.Indexed(50, shape=(64, 1, 28, 28)), batch_size=8, num_workers=2,
                        timeout=30)
    it = iter(loader)
    next(it)
    started = children() - before
    assert len(started) == 2
    del it
    gc.collect()
    deadline = time.monotonic() + 10
    while children() & started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not children() & started


def test_spawn_start_method():
    loader = DataLoader(wd.Indexed(5), batch_size=2, num_workers=2,
                        multiprocessing_context="spawn", timeout=60)
    assert [b[1].numpy().tolist() for b in loader] == [[0, 1], [2, 3], [4]]


EXIT_SCRIPT = """
from dygraph.io import DataLoader
from tests.io.worker_data import Indexed, Slow
if __name__ == "__main__":
    keep = DataLoader(Indexed(100), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in keep:
        break
    busy = iter(DataLoader(Slow(100, 0.1), batch_size=1, num_workers=2))
    next(busy)
    print(" ".join(str(p.pid) for p in keep._iterator.workers + busy.workers))
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads process states from /proc")
def test_workers_end_at_interpreter_exit(tmp_path):
    script = tmp_path / "leave_workers.py"
    script.write_text(EXIT_SCRIPT)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60, check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": root})
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 4
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(p) for p in pids):
        time.sleep(0.05)
    assert not any(_running(p) for p in pids)


def _running(pid):
    """True while `pid` exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return False
