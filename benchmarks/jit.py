"""A training step with the model eager, wrapped in paddle.jit.to_static, and in PyTorch
eager, in one run: medians (ms per step) and ratios. The loss, backward and Adam step are
the same eager code in both DyGraph columns; to_static runs the model's forward and
backward as one program op.

  mlp    -- MLP 64-64-64-10, batch 32, Adam
  mnist  -- the seeds' MNIST model, batch 64, Adam

Repeats take turns between the three, with a pause before each timed block.

Run: python benchmarks/jit.py [--steps 50] [--repeats 7] [--threads 2]
"""

import argparse
import os


def _parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = str(ARGS.threads)

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from static_vs_eager import _data, _net, torch_step  # noqa: E402
from timing import interleaved_median_ms  # noqa: E402


def dygraph_step(name, static):
    import dygraph
    import dygraph.nn.functional as F

    x, y = _data(name)
    net = _net(name)
    if static:
        net = dygraph.jit.to_static(net)
    opt = dygraph.optimizer.Adam(1e-3, parameters=net.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def step():
        loss = F.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()

    return step


def main():
    import static_vs_eager

    static_vs_eager.ARGS = ARGS  # torch_step reads the thread count from there
    print(f"ms per training step (Adam), median of {ARGS.repeats} x {ARGS.steps} steps, "
          f"{ARGS.threads} threads")
    print(f"{'model':8s} {'eager':>8s} {'to_static':>10s} {'torch':>8s} "
          f"{'to_static/eager':>16s} {'to_static/torch':>16s}")
    for name in ("mlp", "mnist"):
        fns = {"eager": dygraph_step(name, False), "to_static": dygraph_step(name, True),
               "torch": torch_step(name)}
        steps = ARGS.steps if name == "mlp" else max(ARGS.steps // 5, 5)
        ms = interleaved_median_ms(fns, steps, ARGS.repeats)
        print(f"{name:8s} {ms['eager']:8.3f} {ms['to_static']:10.3f} {ms['torch']:8.3f} "
              f"{ms['to_static'] / ms['eager']:16.2f} {ms['to_static'] / ms['torch']:16.2f}",
              flush=True)


if __name__ == "__main__":
    main()
