"""Interleaved timing shared by the benchmarks: repeats take turns between the contenders,
with a pause before each timed block (BLAS/OpenMP threads spin for a while after their last
call and would slow whatever runs next on a small machine)."""

import statistics
import time

SETTLE_S = 0.3


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
