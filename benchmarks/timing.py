"""Interleaved timing shared by the benchmarks: repeats take turns between the contenders,
with a pause before each timed block (BLAS/OpenMP threads spin for a while after their last
call and would slow whatever runs next on a small machine)."""

import statistics
import time

SETTLE_S = 0.3


def interleaved_median_ms(fns, steps, repeats, warmup=2, settle=SETTLE_S):
    """{name: median over `repeats` of the mean time of `steps` calls of fns[name], in ms}.

    Example:
        >>> sorted(interleaved_median_ms({'noop': lambda: None}, 1, 1, 0, settle=0))
        ['noop']
    """
    return _run(fns, steps, repeats, warmup, settle)


def _run(fns, steps, repeats, warmup, settle):
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            time.sleep(settle)
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            times[key].append((time.perf_counter() - start) / steps * 1e3)
    return {k: statistics.median(v) for k, v in times.items()}
