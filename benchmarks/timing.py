"""Interleaved timing shared by the benchmarks: repeats take turns between the contenders,
with a pause before each timed block (BLAS/OpenMP threads spin for a while after their last
call and would slow whatever runs next on a small machine); the command-line options and
thread settings every benchmark shares.

This module imports no numerical library: a benchmark sets its thread count with it before
NumPy, PyTorch or Paddle load (their thread pools read the variables then)."""

import argparse
import os
import statistics
import sys
import time

SETTLE_S = 0.3
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def parser(doc, steps, repeats, unit="steps"):
    """An argument parser with the options of every side-by-side benchmark: --steps (per
    timed repeat), --repeats and --threads (default 2); the caller adds its own.

    Example:
        >>> parser("Title.\\nMore.", 5, 3).parse_args([]).threads
        2
    """
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--steps", type=int, default=steps, help=f"{unit} per timed repeat")
    p.add_argument("--repeats", type=int, default=repeats)
    p.add_argument("--threads", type=int, default=2)
    return p


def set_threads(n):
    """Use `n` BLAS/OpenMP threads in the numerical libraries imported after this call.

    Example:
        >>> set_threads(2); os.environ["OMP_NUM_THREADS"]
        '2'
    """
    for var in THREAD_VARIABLES:
        os.environ[var] = str(n)
    warn_pinned_kernel()


def warn_pinned_kernel():
    """Say so on stderr when OPENBLAS_CORETYPE is set: it pins NumPy's OpenBLAS (so
    DyGraph's products) to an older kernel than the CPU's own, while PyTorch's BLAS picks
    its kernel freely, and the comparison is no longer even. Some machines set it for old
    OpenBLAS builds; unset it (and OPENBLAS_L2_SIZE) for the benchmark's command alone.

    Example:
        >>> warn_pinned_kernel()  # a note on stderr, or nothing
    """
    pinned = os.environ.get("OPENBLAS_CORETYPE")
    if pinned:
        print(f"note: OPENBLAS_CORETYPE={pinned} pins NumPy's OpenBLAS to that kernel (not "
              "PyTorch's BLAS); for an even comparison run with "
              "'env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE'", file=sys.stderr)


def interleaved_median_ms(fns, steps, repeats, warmup=2, settle=SETTLE_S,
                          clock=time.perf_counter):
    """{name: median over `repeats` of the mean time of `steps` calls of fns[name], in ms}.
    `clock=time.process_time` measures CPU time instead (less swayed by other jobs on a
    shared machine; it counts every thread of this process).

    Example:
        >>> sorted(interleaved_median_ms({'noop': lambda: None}, 1, 1, 0, settle=0))
        ['noop']
    """
    return _run(fns, steps, repeats, warmup, settle, clock)


def _run(fns, steps, repeats, warmup, settle, clock):
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            time.sleep(settle)
            start = clock()
            for _ in range(steps):
                fn()
            times[key].append((clock() - start) / steps * 1e3)
    return {k: statistics.median(v) for k, v in times.items()}
