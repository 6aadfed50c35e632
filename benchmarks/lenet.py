"""LeNet training and inference speed: DyGraph side by side with PyTorch and PaddlePaddle.

The model is the seeds' MNIST model: conv 20@5x5, relu, max-pool 2, conv 50@5x5, relu,
max-pool 2, linear 800 -> 10; cross-entropy loss, Adam, batch 64. All frameworks start
from the same weights and data (their first losses are printed as a check) and use the same
number of threads. Reported per batch, in milliseconds, as the median (and the best) over
repeats of the mean over `steps` steps after a warm-up:
  train  -- forward, loss, backward, optimizer step, clear gradients;
  infer  -- forward in eval mode without gradients.
The repeats take turns between the frameworks, so load from other processes on a shared
machine falls on all of them alike.
Peak memory: the growth of the process's resident set over building the model and three
train steps (VmHWM reset through /proc/self/clear_refs; ru_maxrss growth where that is
unavailable), and for DyGraph also the peak of NumPy/Python allocations seen by tracemalloc.
Page faults per train step (ru_minflt) are shown because fresh multi-MB arrays cost one
fault per 4 KB page when the allocator returns freed memory to the OS.

Run: python benchmarks/lenet.py [--steps 30] [--repeats 5] [--threads 2]
     [--frameworks dygraph,torch,paddle] [--retain-freed-memory]
"""

import sys

from timing import parser, set_threads  # this script's folder is on sys.path


def _parse():
    p = parser(__doc__, steps=30, repeats=5)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--frameworks", default="dygraph,torch,paddle")
    p.add_argument("--retain-freed-memory", action="store_true",
                   help="ask glibc malloc to keep freed memory (mallopt) before any framework "
                        "is imported, to show what page faults cost")
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    # Thread pools read these when the libraries load, so they are set before any import.
    set_threads(ARGS.threads)
    if ARGS.retain_freed_memory:
        import ctypes

        _libc = ctypes.CDLL("libc.so.6")
        _libc.mallopt(-3, 256 << 20)  # M_MMAP_THRESHOLD: big arrays from the heap
        _libc.mallopt(-1, 512 << 20)  # M_TRIM_THRESHOLD: do not give the heap back

import gc  # noqa: E402 - after the thread settings above
import resource  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402


def make_data(batch, seed=0):
    """Weights (PyTorch/Paddle conv layout, Linear weight as [in, out]) and one batch."""
    rng = np.random.default_rng(seed)

    def uniform(shape, fan_in):
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    weights = {"w1": uniform((20, 1, 5, 5), 25), "b1": uniform((20,), 25),
               "w2": uniform((50, 20, 5, 5), 500), "b2": uniform((50,), 500),
               "w3": uniform((800, 10), 800), "b3": uniform((10,), 800)}
    x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    return weights, x, y


# -- one module per framework: build(weights, x, y) -> (train_step, infer, first_loss) -------

def build_dygraph(weights, x, y):
    import dygraph
    import dygraph.nn as nn
    import dygraph.nn.functional as F

    class LeNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2D(1, 20, 5), nn.Conv2D(20, 50, 5)
            self.pool = nn.MaxPool2D(2)
            self.fc = nn.Linear(800, 10)

        def forward(self, t):
            t = self.pool(F.relu(self.conv1(t)))
            t = self.pool(F.relu(self.conv2(t)))
            return self.fc(dygraph.flatten(t, 1))

    model = LeNet()
    for layer, (wk, bk) in ((model.conv1, ("w1", "b1")), (model.conv2, ("w2", "b2")),
                            (model.fc, ("w3", "b3"))):
        layer.weight.set_value(weights[wk])
        layer.bias.set_value(weights[bk])
    opt = dygraph.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = dygraph.to_tensor(x), dygraph.to_tensor(y)

    def train_step():
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def infer():
        with dygraph.no_grad():
            return model(xt)

    return train_step, infer, float(F.cross_entropy(model(xt), yt)), model


def build_torch(weights, x, y):
    import torch

    torch.set_num_threads(ARGS.threads if ARGS else 2)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 20, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(20, 50, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(800, 10))
    with torch.no_grad():
        for layer, (wk, bk) in ((model[0], ("w1", "b1")), (model[3], ("w2", "b2"))):
            layer.weight.copy_(torch.from_numpy(weights[wk]))
            layer.bias.copy_(torch.from_numpy(weights[bk]))
        model[7].weight.copy_(torch.from_numpy(weights["w3"].T.copy()))
        model[7].bias.copy_(torch.from_numpy(weights["b3"]))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = torch.nn.functional.cross_entropy

    def train_step():
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    def infer():
        with torch.no_grad():
            return model(xt)

    with torch.no_grad():
        first = float(loss_fn(model(xt), yt))
    return train_step, infer, first, model


def build_paddle(weights, x, y):
    import paddle

    paddle.set_device("cpu")
    model = paddle.nn.Sequential(
        paddle.nn.Conv2D(1, 20, 5), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2),
        paddle.nn.Conv2D(20, 50, 5), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2),
        paddle.nn.Flatten(), paddle.nn.Linear(800, 10))
    for layer, (wk, bk) in ((model[0], ("w1", "b1")), (model[3], ("w2", "b2")),
                            (model[7], ("w3", "b3"))):
        layer.weight.set_value(weights[wk])
        layer.bias.set_value(weights[bk])
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)
    loss_fn = paddle.nn.functional.cross_entropy

    def train_step():
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def infer():
        with paddle.no_grad():
            return model(xt)

    with paddle.no_grad():
        first = float(loss_fn(model(xt), yt))
    return train_step, infer, first, model


BUILDERS = {"dygraph": build_dygraph, "torch": build_torch, "paddle": build_paddle}
MODULES = {"dygraph": "dygraph", "torch": "torch", "paddle": "paddle"}


# -- measurement ---------------------------------------------------------------------------

_SETTLE_S = 0.3


def interleaved_ms(fns, steps, repeats, warmup):
    """Per framework, (median, best) over repeats of the mean time of `steps` calls (ms).

    Repeats take turns between the frameworks, so a change in machine load during the run
    (a shared machine) affects all of them alike instead of whichever ran at that moment.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            # Idle worker threads of the previous framework's BLAS/OpenMP pools spin for a
            # while (OpenBLAS up to ~0.1 s) before sleeping; let them settle first.
            time.sleep(_SETTLE_S)
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            samples[name].append((time.perf_counter() - start) / steps * 1e3)
    return {name: (statistics.median(v), min(v)) for name, v in samples.items()}


def _status_kb(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak_rss():
    """Reset VmHWM to the current RSS (Linux); False where not supported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_kb("VmHWM") is not None
    except OSError:
        return False


def build_measured(name, weights, x, y, steps=3):
    """Build `name`'s model and run `steps` train steps, measuring the memory that takes.

    Returns (train, infer, first_loss, model, rss_mb, rss_method, traced_mb): the rise of the
    resident set above its level before the build (VmHWM, reset through
    /proc/self/clear_refs; ru_maxrss growth where that is unavailable) and, for DyGraph, the
    peak of the NumPy/Python allocations tracemalloc sees (None for the others, whose
    allocations it cannot see).
    """
    gc.collect()
    exact = _reset_peak_rss()
    start = _status_kb("VmRSS") if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    traced = name == "dygraph"
    if traced:
        tracemalloc.start()
    train, infer, first, model = BUILDERS[name](weights, x, y)
    for _ in range(steps):
        train()
    traced_mb = tracemalloc.get_traced_memory()[1] / 2 ** 20 if traced else None
    if traced:
        tracemalloc.stop()
    peak = _status_kb("VmHWM") if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (train, infer, first, model, (peak - start) / 1024,
            "VmHWM" if exact else "ru_maxrss", traced_mb)


def faults_per_step(fn, steps):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / steps


def measure(names, weights, x, y, args):
    results, built = [], {}
    for name in names:
        try:
            __import__(MODULES[name])
        except ImportError as exc:
            results.append({"name": name, "skipped": f"not installed ({exc})"})
            continue
        train, infer, first, model, rss, method, traced = build_measured(name, weights, x, y)
        built[name] = (train, infer, model)
        results.append({"name": name, "first_loss": first, "rss_mb": rss, "rss_method": method,
                         "traced_mb": traced})
    trains = {n: b[0] for n, b in built.items()}
    train_ms = interleaved_ms(trains, args.steps, args.repeats, args.warmup)
    for r in results:
        if "skipped" in r:
            continue
        train, infer, model = built[r["name"]]
        r["train_ms"], r["train_best"] = train_ms[r["name"]]
        r["faults"] = faults_per_step(train, args.steps)
        model.eval()
    infer_ms = interleaved_ms({n: b[1] for n, b in built.items()}, args.steps, args.repeats,
                              args.warmup)
    for r in results:
        if "skipped" not in r:
            r["infer_ms"], r["infer_best"] = infer_ms[r["name"]]
    return results


def report(results):
    by_name = {r["name"]: r for r in results}
    ours = by_name.get("dygraph")
    print(f"{'framework':10s} {'train ms':>9s} {'(best)':>8s} {'infer ms':>9s} {'(best)':>8s} "
          f"{'first loss':>11s} {'faults/step':>12s} {'peak RSS +MB':>13s}")
    for r in results:
        if "skipped" in r:
            print(f"{r['name']:10s} skipped: {r['skipped']}")
            continue
        print(f"{r['name']:10s} {r['train_ms']:9.2f} {r['train_best']:8.2f} "
              f"{r['infer_ms']:9.2f} {r['infer_best']:8.2f} {r['first_loss']:11.5f} "
              f"{r['faults']:12.0f} {r['rss_mb']:13.1f}")
    if ours is None or "skipped" in ours:
        return
    print(f"peak RSS +MB: resident set growth over building the model and 3 train steps "
          f"({ours['rss_method']}); frameworks run in turn in one process, so the later ones "
          "can reuse memory the earlier ones freed")
    print(f"DyGraph peak of traced NumPy/Python allocations over the same: "
          f"{ours['traced_mb']:.1f} MB (tracemalloc)")
    for other in ("torch", "paddle"):
        r = by_name.get(other)
        if r and "skipped" not in r:
            print(f"DyGraph / {other} (medians): train {ours['train_ms'] / r['train_ms']:.2f}x, "
                  f"infer {ours['infer_ms'] / r['infer_ms']:.2f}x")


def main(args):
    weights, x, y = make_data(args.batch)
    print(f"LeNet, batch {args.batch}, {args.threads} threads, {args.steps} steps x "
          f"{args.repeats} repeats (median), NumPy {np.__version__}, "
          f"malloc keeps freed memory: {args.retain_freed_memory}")
    names = [name.strip() for name in args.frameworks.split(",") if name.strip()]
    results = measure(names, weights, x, y, args)
    report(results)
    return results


if __name__ == "__main__":
    sys.exit(0 if main(ARGS) else 1)
