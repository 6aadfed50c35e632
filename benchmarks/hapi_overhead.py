"""What the high-level API costs: one epoch of the seeds' MNIST model (Adam, batch 64) on
the shipped sample, written as the main job's loop (DataLoader + train_epoch) and as
`Model.fit` with an Accuracy metric, from the same weights. Repeats take turns; medians of
ms per training step, wall clock and CPU time (CPU time is steadier on a shared machine).

Run: python benchmarks/hapi_overhead.py [--repeats 5] [--threads 2]
"""

import argparse
import os
import sys
import time

from timing import set_threads  # this script's folder is on sys.path

ARGS = None
if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    ARGS = p.parse_args()
    set_threads(ARGS.threads)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def contenders():
    """{'main job loop': fn, 'Model.fit': fn}: each call trains one epoch of 125 steps."""
    import dygraph
    from dygraph.examples.mnist_data import load_data
    from dygraph.examples.mnist_train import train_epoch
    from dygraph.hapi import InputSpec, Model
    from dygraph.io import DataLoader, TensorDataset
    from dygraph.vision.models import MNISTNet

    data = load_data(None)
    x, y = data.train_x, data.train_y.reshape(-1, 1).astype(np.int64)
    dygraph.seed(1)
    start = MNISTNet().state_dict()

    def fresh():
        net = MNISTNet()
        net.set_state_dict(start)
        return net, dygraph.optimizer.Adam(1e-3, parameters=net.parameters())

    net_a, opt_a = fresh()
    loader = DataLoader(TensorDataset([x, y]), batch_size=64, shuffle=True, drop_last=True)

    net_b, opt_b = fresh()
    model = Model(net_b, inputs=[InputSpec([None, 1, 28, 28], "float32", "image")],
                  labels=[InputSpec([None, 1], "int64", "label")])
    model.prepare(opt_b, dygraph.nn.CrossEntropyLoss(), dygraph.metric.Accuracy())
    train = TensorDataset([dygraph.to_tensor(x), dygraph.to_tensor(y)])

    return {"main job loop": lambda: train_epoch(net_a, opt_a, loader),
            "Model.fit": lambda: model.fit(train, batch_size=64, epochs=1, verbose=0,
                                           drop_last=True, shuffle=True)}, len(loader)


def main():
    fns, steps = contenders()
    results = {}
    for clock, label in ((time.perf_counter, "wall"), (time.process_time, "cpu")):
        ms = interleaved_median_ms(fns, 1, ARGS.repeats, warmup=1, clock=clock)
        results[label] = {k: v / steps for k, v in ms.items()}
    print(f"ms per step, median of {ARGS.repeats} epochs of {steps} steps "
          f"({ARGS.threads} threads)")
    for label, per_step in results.items():
        base, fit = per_step["main job loop"], per_step["Model.fit"]
        print(f"  {label:4s}: main job loop {base:.2f}  Model.fit {fit:.2f}  "
              f"ratio {fit / base:.3f}")


if __name__ == "__main__":
    main()
