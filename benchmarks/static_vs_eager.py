"""The same training step in DyGraph eager mode, as a static program run by the Executor,
and in PyTorch eager, in one run: medians (ms per step) and ratios.

  mlp    -- MLP 64-64-64-10, batch 32, Adam
  mnist  -- the seeds' MNIST model, batch 64, Adam

Repeats take turns between the three, with a pause before each timed block.

Run: python benchmarks/static_vs_eager.py [--steps 50] [--repeats 5] [--threads 2]
                                          [--clock wall|cpu]
(`--clock cpu` times CPU time, less swayed by other jobs on a shared machine.)
"""

import os

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=50, repeats=5)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def _data(name):
    rng = np.random.default_rng(0)
    if name == "mlp":
        return (rng.standard_normal((32, 64)).astype(np.float32),
                rng.integers(0, 10, (32, 1)).astype(np.int64))
    return (rng.standard_normal((64, 1, 28, 28)).astype(np.float32),
            rng.integers(0, 10, (64, 1)).astype(np.int64))


def _net(name):
    import dygraph
    from dygraph.vision.models import MNISTNet

    dygraph.seed(0)
    if name == "mlp":
        nn = dygraph.nn
        return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                             nn.Linear(64, 10))
    return MNISTNet()


def eager_step(name):
    import dygraph
    import dygraph.nn.functional as F

    x, y = _data(name)
    net = _net(name)
    opt = dygraph.optimizer.Adam(1e-3, parameters=net.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def step():
        loss = F.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()

    return step


def static_step(name):
    import dygraph
    import dygraph.nn.functional as F
    from dygraph import static

    x, y = _data(name)
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        net = _net(name)
        xv = static.data("x", [None] + list(x.shape[1:]))
        yv = static.data("y", [None, 1], "int64")
        loss = F.cross_entropy(net(xv), yv)
        dygraph.optimizer.Adam(1e-3, parameters=net.parameters()).minimize(loss)
    dygraph.disable_static()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": x, "y": y}

    def step():
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)

    return step


def torch_step(name):
    import torch

    torch.set_num_threads(ARGS.threads if ARGS else 2)
    x, y = _data(name)
    if name == "mlp":
        net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                  torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                  torch.nn.Linear(64, 10))
    else:
        net = torch.nn.Sequential(
            torch.nn.Conv2d(1, 20, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(20, 50, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Flatten(), torch.nn.Linear(800, 10))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.reshape(-1))

    def step():
        loss = torch.nn.functional.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        opt.zero_grad()

    return step


def main():
    import time

    clock = time.process_time if ARGS.clock == "cpu" else time.perf_counter
    print(f"ms per training step (Adam), median of {ARGS.repeats} x {ARGS.steps} steps, "
          f"{ARGS.threads} threads, {ARGS.clock} clock")
    print(f"{'model':8s} {'eager':>8s} {'static':>8s} {'torch':>8s} {'static/eager':>13s} "
          f"{'static/torch':>13s}")
    for name in ("mlp", "mnist"):
        fns = {"eager": eager_step(name), "static": static_step(name),
               "torch": torch_step(name)}
        steps = ARGS.steps if name == "mlp" else max(ARGS.steps // 5, 5)
        ms = interleaved_median_ms(fns, steps, ARGS.repeats, clock=clock)
        print(f"{name:8s} {ms['eager']:8.3f} {ms['static']:8.3f} {ms['torch']:8.3f} "
              f"{ms['static'] / ms['eager']:13.2f} {ms['static'] / ms['torch']:13.2f}",
              flush=True)


if __name__ == "__main__":
    main()
