"""single_blas_thread: one OpenBLAS thread inside the block, the previous count after it."""

import numpy as np

from dygraph.backend import blas_threads


def test_single_blas_thread_sets_one_thread_and_restores(monkeypatch):
    counts = [4]
    monkeypatch.setattr(blas_threads, "_funcs",
                        (lambda n: counts.append(n), lambda: counts[-1]))
    with blas_threads.single_blas_thread():
        assert counts[-1] == 1
    assert counts[-1] == 4


def test_single_blas_thread_restores_after_an_error(monkeypatch):
    counts = [2]
    monkeypatch.setattr(blas_threads, "_funcs",
                        (lambda n: counts.append(n), lambda: counts[-1]))
    try:
        with blas_threads.single_blas_thread():
            raise KeyError("boom")
    except KeyError:
        pass
    assert counts[-1] == 2


def test_numpy_openblas_is_found_and_products_stay_right():
    a = np.arange(12.0).reshape(3, 4)
    with blas_threads.single_blas_thread():
        inside = a @ a.T
        funcs = blas_threads._funcs
    np.testing.assert_allclose(inside, a @ a.T)
    if funcs:  # NumPy's wheels ship OpenBLAS; other builds leave the block a no-op
        with blas_threads.single_blas_thread():
            assert funcs[1]() == 1


def test_overlapping_blocks_restore_the_count_once_the_last_leaves(monkeypatch):
    counts = [3]
    monkeypatch.setattr(blas_threads, "_funcs",
                        (lambda n: counts.append(n), lambda: counts[-1]))
    outer = blas_threads.single_blas_thread()
    inner = blas_threads.single_blas_thread()
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)  # left first, as another thread's block might
    assert counts[-1] == 1
    inner.__exit__(None, None, None)
    assert counts[-1] == 3
