"""Device time of one eager training step on a GPU, by op: where a compute-bound step's
milliseconds go.

A compute-bound step (ResNet-50 at batch 64 on 224x224 images, a d=1024 Transformer) is
bound by its kernels, not by host time: where DyGraph lags PyTorch there
(benchmarks/results/2026-11-28-gpu-compute-bound.txt), a launch count cannot show why.
This times every op's forward and backward on the device with CUDA events recorded on the
current stream before and after each call (each Op subclass's forward and backward wrapped
for the measured step only), and reports, per op and phase, the calls, the milliseconds
and their share of the step; what no op covers (the optimizer step, gradient
accumulation, allocations' waits) is the rest.

The events add a few microseconds of host time per op, nothing on the device; kernels of
one stream run in order, so an op's span is its kernels' time plus any gap the host left
before the next launch (small for a compute-bound step, large for a host-bound one: read
the small models with benchmarks/profile_step.py instead).

Run: python benchmarks/gpu_op_times.py [--models resnet50_b64,transformer_big] [--top 25]
         [--out FILE]
"""

import argparse
import collections
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _op_classes():
    """Every Op subclass that defines its own forward or backward."""
    from dygraph.autograd.function import Op

    found, todo = [], list(Op.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if "forward" in vars(cls) or "backward" in vars(cls):
            found.append(cls)
    return found


class _EventLog:
    """Events recorded around op calls: (op class name, phase, start, end)."""

    def __init__(self, cupy):
        self.cupy, self.spans, self.saved = cupy, [], []

    def _timed(self, name, phase, method):
        cupy, spans = self.cupy, self.spans

        def timed(*args, **kwargs):
            start = cupy.cuda.Event()
            start.record()
            try:
                return method(*args, **kwargs)
            finally:
                end = cupy.cuda.Event()
                end.record()
                spans.append((name, phase, start, end))
        return timed

    def install(self):
        for cls in _op_classes():
            for phase in ("forward", "backward"):
                method = vars(cls).get(phase)
                if method is not None:
                    self.saved.append((cls, phase, method))
                    setattr(cls, phase, self._timed(cls.__name__, phase, method))

    def remove(self):
        for cls, phase, method in self.saved:
            setattr(cls, phase, method)
        self.saved = []


def op_times(name, warmup=2):
    """(step ms, {(op, phase): [calls, ms]}) of one eager training step of model `name`,
    on the device, after `warmup` steps."""
    import models

    import dygraph
    from dygraph import backend

    x, y = models.make_batch(name)
    dygraph.set_device("gpu:0")
    try:
        model = models.build_dygraph(name)
        _, _, train = models.dygraph_step(model, x, y, device="gpu", mode="eager")
        for _ in range(warmup):
            train()
        cupy = backend._cupy
        cupy.cuda.get_current_stream().synchronize()
        log = _EventLog(cupy)
        log.install()
        try:
            begin = cupy.cuda.Event()
            begin.record()
            train()
            done = cupy.cuda.Event()
            done.record()
            done.synchronize()
        finally:
            log.remove()
        step = cupy.cuda.get_elapsed_time(begin, done)
        table = collections.defaultdict(lambda: [0, 0.0])
        for op, phase, start, end in log.spans:
            table[(op, phase)][0] += 1
            table[(op, phase)][1] += cupy.cuda.get_elapsed_time(start, end)
        return step, dict(table)
    finally:
        dygraph.set_device("cpu")


def lines_for(name, top):
    step, table = op_times(name)
    covered = sum(ms for _, ms in table.values())
    share = (lambda ms: ms / step) if step else (lambda ms: 0.0)
    out = [f"{name}: one eager training step, {step:.2f} ms on the device; by op (CUDA events "
           f"around each forward and backward; nested ops counted in their caller too)",
           f"{'op':<34}{'phase':<10}{'calls':>7}{'ms':>10}{'share':>8}"]
    rows = sorted(table.items(), key=lambda item: -item[1][1])
    for (op, phase), (calls, ms) in rows[:top]:
        out.append(f"{op:<34}{phase:<10}{calls:>7}{ms:>10.2f}{share(ms):>8.1%}")
    out.append(f"{'(all ops)':<44}{sum(c for c, _ in table.values()):>7}{covered:>10.2f}"
               f"{share(covered):>8.1%}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50_b64,transformer_big")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    lines = []
    for name in args.models.split(","):
        lines += lines_for(name, args.top) + [""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
