"""A training step eager, under paddle.jit.to_static, and in PyTorch eager, in one run:
medians (ms per step) and ratios. Two to_static forms:

  to_static model -- `net = paddle.jit.to_static(net)`: the model's forward and backward run
                     as one program op; the loss, backward call and Adam step stay eager;
  to_static step  -- the whole step (loss, loss.backward(), opt.step(), opt.clear_grad())
                     in one converted function: one program run, whose optimizer calls
                     are the eager ones (dygraph.jit.train_step).

  mlp    -- MLP 64-64-64-10, batch 32, Adam
  mnist  -- the seeds' MNIST model, batch 64, Adam

Repeats take turns between the three, with a pause before each timed block.

Run: python benchmarks/jit.py [--steps 50] [--repeats 7] [--threads 2] [--clock wall|cpu]
(`--clock cpu` times CPU time, less swayed by other jobs on a shared machine.)
"""

import os

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=50, repeats=7)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from static_vs_eager import _data, _net, torch_step  # noqa: E402
from timing import interleaved_median_ms  # noqa: E402


def dygraph_step(name, form):
    """form: "eager", "model" (to_static on the model) or "step" (on the whole step)."""
    import dygraph
    import dygraph.nn.functional as F

    x, y = _data(name)
    net = _net(name)
    if form == "model":
        net = dygraph.jit.to_static(net)
    opt = dygraph.optimizer.Adam(1e-3, parameters=net.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if form == "step":
        step = dygraph.jit.to_static(step)
    return lambda: step(xt, yt)


def main():
    import time

    import static_vs_eager

    static_vs_eager.ARGS = ARGS  # torch_step reads the thread count from there
    clock = time.process_time if ARGS.clock == "cpu" else time.perf_counter
    print(f"ms per training step (Adam), median of {ARGS.repeats} x {ARGS.steps} steps, "
          f"{ARGS.threads} threads, {ARGS.clock} clock")
    print(f"{'model':6s} {'eager':>7s} {'ts model':>9s} {'ts step':>8s} {'torch':>7s} "
          f"{'model/eager':>12s} {'step/eager':>11s} {'step/torch':>11s}")
    for name in ("mlp", "mnist"):
        fns = {"eager": dygraph_step(name, "eager"), "model": dygraph_step(name, "model"),
               "step": dygraph_step(name, "step"), "torch": torch_step(name)}
        steps = ARGS.steps if name == "mlp" else max(ARGS.steps // 5, 5)
        ms = interleaved_median_ms(fns, steps, ARGS.repeats, clock=clock)
        print(f"{name:6s} {ms['eager']:7.3f} {ms['model']:9.3f} {ms['step']:8.3f} "
              f"{ms['torch']:7.3f} {ms['model'] / ms['eager']:12.2f} "
              f"{ms['step'] / ms['eager']:11.2f} {ms['step'] / ms['torch']:11.2f}",
              flush=True)


if __name__ == "__main__":
    main()
