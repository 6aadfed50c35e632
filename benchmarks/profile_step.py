"""Where a training step of one of benchmarks/models.py's models spends its time: cProfile
over a few steps after a warm-up, the functions with the most time of their own first.

Run: python benchmarks/profile_step.py [--model resnet18] [--device cpu|gpu] [--steps 5]
     [--top 25]
"""

import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="resnet18")
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()

    from models import build_dygraph, dygraph_step, make_batch

    import dygraph

    x, y = make_batch(args.model)
    model = build_dygraph(args.model)
    if args.device == "gpu":
        dygraph.set_device("gpu")
        model.to("gpu")
    step, _, _ = dygraph_step(model, x, y, args.device)
    for _ in range(2):
        step()
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.steps):
        step()
    profile.disable()
    stats = pstats.Stats(profile).sort_stats("tottime")
    print(f"{args.model} on {args.device}: {stats.total_tt / args.steps * 1e3:.1f} ms a step "
          "under the profiler")
    stats.print_stats(args.top)


if __name__ == "__main__":
    main()
