"""The multi-tensor (foreach) optimizer step against the per-parameter loop, in one process.

Part 1: `opt.step()` alone on the MLP 64-64-64-10 (gradients fixed), for Adam, AdamW and
Momentum, per-parameter vs foreach.
Part 2: whole training steps (forward, loss, backward, Adam step, clear_grad) on the MLP
(batch 32) and the seeds' MNIST model (batch 64): eager and to_static, each with the
per-parameter and with the foreach optimizer step, and PyTorch eager.

Repeats take turns between the contenders (a pause before each timed block); a ratio is
taken within each repeat, between blocks run seconds apart, so load from other processes on
a shared machine mostly cancels. Shown: median [min - max] over the repeats.

Run: python benchmarks/optimizer_foreach.py [--steps 50] [--repeats 9] [--threads 2]
"""

import os
import statistics
import sys
import time

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=50, repeats=9)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from static_vs_eager import _data, _net, torch_step  # noqa: E402


def _per_parameter(opt):
    opt._foreach_step = lambda group, pairs, *rest: pairs  # the loop over parameters, as before
    return opt


def optimizer_only(kind, foreach):
    import numpy as np

    import dygraph

    x, _ = _data("mlp")
    net = _net("mlp")
    make = getattr(dygraph.optimizer, kind)
    opt = make(1e-3, parameters=net.parameters())
    if not foreach:
        _per_parameter(opt)
    net(dygraph.to_tensor(np.asarray(x))).sum().backward()
    return opt.step


def train_step(name, static, foreach):
    import dygraph
    import dygraph.nn.functional as F

    x, y = _data(name)
    net = _net(name)
    if static:
        net = dygraph.jit.to_static(net)
    opt = dygraph.optimizer.Adam(1e-3, parameters=net.parameters())
    if not foreach:
        _per_parameter(opt)
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def step():
        loss = F.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()

    return step


def timed(fns, steps, repeats, settle=0.2):
    """{name: [ms per call, one per repeat]}, the repeats taking turns."""
    for fn in fns.values():
        fn()
        fn()
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            time.sleep(settle)
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            times[key].append((time.perf_counter() - start) / steps * 1e3)
    return times


def _spread(values, fmt="{:.3f}"):
    return (f"{fmt.format(statistics.median(values))} "
            f"[{fmt.format(min(values))} - {fmt.format(max(values))}]")


def _ratio(times, a, b):
    return _spread([x / y for x, y in zip(times[a], times[b])], "{:.2f}")


def main():
    import static_vs_eager

    static_vs_eager.ARGS = ARGS  # torch_step reads the thread count from there
    print(f"{ARGS.threads} threads, {ARGS.repeats} repeats; median [min - max]")
    print("opt.step() on the MLP, us per step: per-parameter, foreach, foreach/per-parameter")
    for kind in ("Adam", "AdamW", "Momentum"):
        t = timed({"loop": optimizer_only(kind, False), "foreach": optimizer_only(kind, True)},
                  ARGS.steps * 4, ARGS.repeats, settle=0.05)
        us = {k: [v * 1e3 for v in vs] for k, vs in t.items()}
        print(f"  {kind:9s} {_spread(us['loop'], '{:.1f}')}  {_spread(us['foreach'], '{:.1f}')}"
              f"  {_ratio(t, 'foreach', 'loop')}", flush=True)
    for name in ("mlp", "mnist"):
        fns = {"eager": train_step(name, False, False),
               "eager+foreach": train_step(name, False, True),
               "to_static": train_step(name, True, False),
               "to_static+foreach": train_step(name, True, True),
               "torch": torch_step(name)}
        steps = ARGS.steps if name == "mlp" else max(ARGS.steps // 5, 5)
        t = timed(fns, steps, ARGS.repeats)
        print(f"{name}: ms per training step (Adam)")
        for key in fns:
            print(f"  {key:18s} {_spread(t[key])}")
        for a, b in (("eager+foreach", "eager"), ("to_static", "eager"),
                     ("to_static+foreach", "eager+foreach"), ("eager", "torch"),
                     ("eager+foreach", "torch")):
            print(f"  {a + '/' + b:34s} {_ratio(t, a, b)}", flush=True)


if __name__ == "__main__":
    main()
