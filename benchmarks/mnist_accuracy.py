"""The MNIST accuracy bar: the seeds' model and hyper-parameters (Adam, lr 1e-3, batch 64,
images scaled to [-1, 1], last incomplete batch dropped) trained with DyGraph and, side by
side, with PyTorch and PaddlePaddle when they are installed.

Every framework starts from the same initial weights (DyGraph's MNISTNet initialisation,
copied over) and sees the same batches in the same order (one NumPy permutation per epoch),
so the runs differ only in the frameworks' arithmetic. Reported: test accuracy after each
epoch and the training time per epoch (evaluation excluded).

Tasks (folders under --data-dir, default ../shared/data):
  mnist-10k      images-idx3-ubyte.gz + labels-idx1-ubyte.gz, first 8,000 train, last 2,000
                 test, 3 epochs, bar 96%
  fashion-mnist  the standard train/t10k files, 1 epoch, bar 84.5%

    python benchmarks/mnist_accuracy.py --data-dir ../shared/data [--repeat 3]
        [--frameworks dygraph,torch,paddle] [--tasks mnist-10k,fashion-mnist] [--threads 1]
        [--json out]

`--threads` (default 1) caps every framework's thread pools (OpenBLAS under NumPy, OpenMP
and MKL, torch.set_num_threads): on a shared machine, multi-threaded pools that spin while
other processes hold the cores make timings erratic (PyTorch ran 8x slower per step with 2
threads than with 1 on this 2-core machine under load).

Example:
    >>> TASKS['mnist-10k'].epochs, TASKS['fashion-mnist'].bar
    (3, 0.845)
"""

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass

from timing import set_threads  # this script's folder is on sys.path


def _thread_option(argv):
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return "1"


# Thread pools read these when their library loads, so they are set before NumPy, PyTorch
# and PaddlePaddle are imported (a later --threads given to main() cannot change them).
THREADS = _thread_option(sys.argv[1:])
set_threads(THREADS)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dygraph  # noqa: E402
from dygraph.examples.mnist_data import load_data  # noqa: E402
from dygraph.examples.mnist_train import evaluate, train_epoch  # noqa: E402
from dygraph.vision.models import MNISTNet  # noqa: E402

BATCH_SIZE = 64
LEARNING_RATE = 1e-3


@dataclass
class Task:
    """One accuracy check: data folder, dataset kind, epochs and the accuracy to reach."""

    folder: str
    dataset: str
    epochs: int
    bar: float


TASKS = {"mnist-10k": Task("mnist-10k", "mnist", 3, 0.96),
         "fashion-mnist": Task("fashion-mnist", "fashion-mnist", 1, 0.845)}


def batch_orders(n, epochs, seed):
    """One list of index batches per epoch (shuffled, incomplete last batch dropped)."""
    rng = np.random.default_rng(seed)
    orders = []
    for _ in range(epochs):
        perm = rng.permutation(n)
        whole = n // BATCH_SIZE * BATCH_SIZE
        orders.append(perm[:whole].reshape(-1, BATCH_SIZE))
    return orders


def initial_weights(seed):
    """DyGraph MNISTNet's initial parameters as NumPy arrays, keyed by role.

    Linear weights are stored [in, out] (Paddle's layout); conv weights [out, in, kh, kw].
    """
    dygraph.seed(seed)
    state = {k: v.numpy() for k, v in MNISTNet().state_dict().items()}
    names = sorted(state)
    conv1 = [k for k in names if "_simple_img_conv_pool_1" in k]
    conv2 = [k for k in names if "_simple_img_conv_pool_2" in k]
    fc = [k for k in names if k.startswith("_fc")]

    def pick(keys, kind):
        return state[next(k for k in keys if k.endswith(kind))]

    return {"conv1.w": pick(conv1, "weight"), "conv1.b": pick(conv1, "bias"),
            "conv2.w": pick(conv2, "weight"), "conv2.b": pick(conv2, "bias"),
            "fc.w": pick(fc, "weight"), "fc.b": pick(fc, "bias")}


# -- DyGraph -----------------------------------------------------------------------------
def run_dygraph(data, orders, seed):
    """Train with DyGraph; returns (per-epoch accuracies, per-epoch seconds)."""
    dygraph.seed(seed)
    model = MNISTNet()
    opt = dygraph.optimizer.Adam(learning_rate=LEARNING_RATE, parameters=model.parameters())
    accs, times = [], []
    for order in orders:
        batches = ((data.train_x[idx], data.train_y[idx]) for idx in order)
        start = time.perf_counter()
        train_epoch(model, opt, batches)
        times.append(time.perf_counter() - start)
        model.eval()
        accs.append(evaluate(model, data.test_x, data.test_y)[1])
        model.train()
    return accs, times


# -- PyTorch -----------------------------------------------------------------------------
def run_torch(data, orders, seed):
    """Train the same model with PyTorch from the same initial weights."""
    import torch
    from torch import nn

    torch.set_num_threads(int(THREADS))
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                          nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                          nn.Flatten(), nn.Linear(800, 10))
    w = initial_weights(seed)
    with torch.no_grad():
        for layer, key in ((model[0], "conv1"), (model[3], "conv2")):
            layer.weight.copy_(torch.from_numpy(w[key + ".w"]))
            layer.bias.copy_(torch.from_numpy(w[key + ".b"]))
        model[7].weight.copy_(torch.from_numpy(w["fc.w"].T.copy()))
        model[7].bias.copy_(torch.from_numpy(w["fc.b"]))
    opt = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.CrossEntropyLoss()
    train_x, train_y = torch.from_numpy(data.train_x), torch.from_numpy(data.train_y)
    test_x = torch.from_numpy(data.test_x)
    accs, times = [], []
    for order in orders:
        start = time.perf_counter()
        for idx in order:
            idx = torch.from_numpy(idx)
            loss = loss_fn(model(train_x[idx]), train_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - start)
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(test_x[i:i + 500]).argmax(1)
                              for i in range(0, len(test_x), 500)]).numpy()
        model.train()
        accs.append(float((pred == data.test_y).mean()))
    return accs, times


# -- PaddlePaddle ------------------------------------------------------------------------
def run_paddle(data, orders, seed):
    """Train the same model with PaddlePaddle (2.x API) from the same initial weights."""
    import paddle
    from paddle import nn

    paddle.set_device("cpu")
    paddle.seed(seed)
    model = nn.Sequential(nn.Conv2D(1, 20, 5), nn.ReLU(), nn.MaxPool2D(2, 2),
                          nn.Conv2D(20, 50, 5), nn.ReLU(), nn.MaxPool2D(2, 2),
                          nn.Flatten(), nn.Linear(800, 10))
    w = initial_weights(seed)
    for layer, key in ((model[0], "conv1"), (model[3], "conv2"), (model[7], "fc")):
        layer.weight.set_value(w[key + ".w"])
        layer.bias.set_value(w[key + ".b"])
    opt = paddle.optimizer.Adam(learning_rate=LEARNING_RATE, parameters=model.parameters())
    accs, times = [], []
    for order in orders:
        start = time.perf_counter()
        for idx in order:
            x = paddle.to_tensor(data.train_x[idx])
            y = paddle.to_tensor(data.train_y[idx])
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        times.append(time.perf_counter() - start)
        model.eval()
        with paddle.no_grad():
            pred = np.concatenate([model(paddle.to_tensor(data.test_x[i:i + 500]))
                                   .numpy().argmax(1) for i in range(0, len(data.test_x), 500)])
        model.train()
        accs.append(float((pred == data.test_y).mean()))
    return accs, times


RUNNERS = {"dygraph": run_dygraph, "torch": run_torch, "paddle": run_paddle}
IMPORTS = {"dygraph": "dygraph", "torch": "torch", "paddle": "paddle"}


def available(name):
    """Whether framework `name` can be imported here."""
    try:
        __import__(IMPORTS[name])
    except ImportError:
        return False
    return True


def run_task(name, data_dir, frameworks, repeat, seed):
    """Rows of results (one per framework, medians over `repeat` runs) for one task."""
    task = TASKS[name]
    data = load_data(os.path.join(data_dir, task.folder), task.dataset)
    print(f"\n{name}: {data.source}; {len(data.train_y):,} train / {len(data.test_y):,} test, "
          f"{task.epochs} epoch(s), batch {BATCH_SIZE}, Adam lr {LEARNING_RATE}", flush=True)
    rows = []
    for framework in frameworks:
        finals, epoch_times, curves = [], [], []
        for run in range(repeat):
            orders = batch_orders(len(data.train_y), task.epochs, seed + run)
            accs, times = RUNNERS[framework](data, orders, seed + run)
            finals.append(accs[-1])
            epoch_times.append(statistics.median(times))
            curves.append(accs)
            print(f"  {framework:8s} run {run + 1}: accuracy per epoch "
                  f"{', '.join(f'{a:.2%}' for a in accs)}; epoch time "
                  f"{', '.join(f'{t:.1f}s' for t in times)}", flush=True)
        rows.append({"task": name, "framework": framework, "epochs": task.epochs,
                     "accuracy": statistics.median(finals),
                     "epoch_seconds": statistics.median(epoch_times), "runs": repeat,
                     "bar": task.bar, "all_accuracies": curves})
    return rows


def table(rows):
    """The results as a Markdown table."""
    lines = ["| task | framework | epochs | test accuracy | epoch time (s) | bar |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        passed = "pass" if r["accuracy"] >= r["bar"] else "FAIL"
        lines.append(f"| {r['task']} | {r['framework']} | {r['epochs']} | "
                     f"{r['accuracy']:.2%} | {r['epoch_seconds']:.1f} | "
                     f">= {r['bar']:.1%}: {passed} |")
    return "\n".join(lines)


def main(argv=None):
    """Parse options, run the tasks and print the table; exit status 1 if DyGraph misses
    a bar."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=os.path.join(root, "..", "shared", "data"))
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--frameworks", default="dygraph,torch,paddle")
    p.add_argument("--repeat", type=int, default=1, help="runs per framework (medians)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", default=THREADS,
                   help="threads per framework (read at start-up; default 1)")
    p.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = p.parse_args(argv)
    frameworks = []
    for name in args.frameworks.split(","):
        if name not in RUNNERS:
            p.error(f"unknown framework {name!r}; choose from {sorted(RUNNERS)}")
        if available(name):
            frameworks.append(name)
        else:
            print(f"{name} is not installed: skipped")
    rows = []
    for name in args.tasks.split(","):
        if name not in TASKS:
            p.error(f"unknown task {name!r}; choose from {sorted(TASKS)}")
        rows += run_task(name, args.data_dir, frameworks, args.repeat, args.seed)
    print(f"\nthreads per framework: {THREADS}; medians of {args.repeat} run(s)")
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    missed = [r for r in rows if r["framework"] == "dygraph" and r["accuracy"] < r["bar"]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
