"""Batch-parallel kernels (dygraph.backend.parallel): chunks cover the batch once, errors
come back, workers do not split again, and a depthwise convolution split over threads
gives the one-thread values and gradients (PyTorch's conv tests cover the same strides,
padding and dilation for grouped convs; conv_ref is our direct reference)."""

import threading
import time

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph.backend import parallel
from tests.op_specs.spec_conv import conv_ref


@pytest.fixture
def threads():
    def use(n):
        parallel.set_num_threads(n)

    yield use
    parallel.set_num_threads(None)


def test_chunks_cover_the_batch_once_across_threads(threads):
    threads(3)
    seen, names = [], set()

    def record(lo, hi):
        seen.append((lo, hi))
        names.add(threading.current_thread().name)

    parallel.over_batch(np, record, 10, 10 * parallel._MIN_CHUNK)
    assert sorted(seen) == [(0, 3), (3, 6), (6, 10)]
    assert len(names) >= 2  # the caller and at least one worker


def test_small_work_and_one_thread_run_in_the_caller(threads):
    calls = []
    parallel.over_batch(np, lambda lo, hi: calls.append((lo, hi)), 8, 100)
    threads(1)
    parallel.over_batch(np, lambda lo, hi: calls.append((lo, hi)), 8, 1 << 30)
    assert calls == [(0, 8), (0, 8)]


def test_a_chunk_error_is_raised_after_every_chunk_finished(threads):
    threads(2)
    done = []

    def fail_second(lo, hi):
        if lo:
            raise ValueError("chunk failed")
        done.append(lo)

    with pytest.raises(ValueError, match="chunk failed"):
        parallel.over_batch(np, fail_second, 4, 4 * parallel._MIN_CHUNK)
    assert done == [0]


def test_a_worker_does_not_split_again(threads):
    threads(2)
    inner = []

    def outer(lo, hi):
        parallel.over_batch(np, lambda a, b: inner.append((lo, a, b)), 4,
                            4 * parallel._MIN_CHUNK)

    parallel.over_batch(np, outer, 4, 4 * parallel._MIN_CHUNK)
    assert sorted(inner) == [(0, 0, 2), (0, 2, 4), (2, 0, 4)]


def test_set_num_threads_rejects_zero():
    with pytest.raises(ValueError, match=">= 1"):
        parallel.set_num_threads(0)


@pytest.mark.parametrize("stride,padding,dilation", [(1, 1, 1), (2, 1, 1), (1, 2, 2)])
def test_depthwise_conv_split_over_threads_matches_the_reference(threads, stride, padding,
                                                                  dilation):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 8, 40, 40)).astype(np.float64)
    w = rng.standard_normal((8, 1, 3, 3))
    b = rng.standard_normal(8)
    g = rng.standard_normal(conv_ref(x, w, b, stride, padding, dilation, 8).shape)
    results = []
    for n in (1, 3):
        threads(n)
        xt = dygraph.to_tensor(x, stop_gradient=False)
        wt = dygraph.to_tensor(w, stop_gradient=False)
        bt = dygraph.to_tensor(b, stop_gradient=False)
        out = F.conv2d(xt, wt, bt, stride=stride, padding=padding, dilation=dilation,
                       groups=8)
        out.backward(dygraph.to_tensor(g))
        results.append([out.numpy(), xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()])
    np.testing.assert_allclose(results[0][0], conv_ref(x, w, b, stride, padding, dilation, 8),
                               rtol=1e-10, atol=1e-10)
    for one, split in zip(*results):
        np.testing.assert_allclose(split, one, rtol=1e-10, atol=1e-10)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool(threads):
    import os

    threads(2)
    rows = np.zeros(4)

    def fill(lo, hi):
        rows[lo:hi] = 1

    parallel.over_batch(np, fill, 4, 4 * parallel._MIN_CHUNK)  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # the child: the inherited pool has no threads; a hang would time out
        rows[:] = 0
        parallel.over_batch(np, fill, 4, 4 * parallel._MIN_CHUNK)
        os._exit(0 if rows.sum() == 4 else 1)
    for _ in range(400):  # up to 20 s: a child stuck on the inherited pool is killed
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("over_batch hung in a forked child")
    assert os.waitstatus_to_exitcode(status) == 0
