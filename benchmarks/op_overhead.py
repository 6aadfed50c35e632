"""Per-op overhead, side by side with PyTorch and PaddlePaddle (when installed), in one run.

Three measurements on 4x4 float32, each as microseconds per iteration, the median of
repeated timings (the repeats take turns between the frameworks):
  (a) one add without gradients;
  (b) the same add with gradients recorded;
  (c) a 30-op chain `x = tanh(x * b + a)` repeated 10 times, then `x.sum().backward()`.
Also the time of `python -c "import <framework>"` (median of fresh processes).

With --device gpu the tensors are on the first CUDA GPU (DyGraph through CuPy, PyTorch
CUDA), each timed block ends by waiting for the GPU, and the import rows are left out: the
figures are then the host time each op costs, which bounds a small GPU step. A last line
gives the host time of CuPy's calls alone, by kind, on 4x4 float32 (what DyGraph's ops are
made of): a ufunc (`cupy.add`), the same into a given output, an ElementwiseKernel
(DyGraph's relu_grad) and a RawKernel (DyGraph's softmax row kernel) into given outputs, an
allocation and a view: whether launching its own compiled kernels instead of CuPy's ufuncs
would cut DyGraph's host time per op.

Run: python benchmarks/op_overhead.py [--repeats 7] [--device cpu|gpu]
"""

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np


def _time_once(fn, number, sync=None):
    """Mean time of `number` calls, in microseconds (the GPU waited for at the end)."""
    start = time.perf_counter()
    for _ in range(number):
        fn()
    if sync is not None:
        sync()
    return (time.perf_counter() - start) / number * 1e6


def _cases(lib, make):
    """The three measured callables for framework `lib`; `make(array, grad)` makes a
    tensor that requires gradients when `grad` is true."""
    a_np = np.random.rand(4, 4).astype(np.float32)
    x, y = make(a_np, False), make(a_np, False)
    xg, a, b = make(a_np, True), make(a_np, True), make(a_np, True)

    def chain():
        h = xg
        for _ in range(10):
            h = lib.tanh(h * b + a)
        h.sum().backward()

    return {"a": lambda: x + y, "b": lambda: xg + y, "c": chain}


def _cases_dygraph(gpu):
    import dygraph

    place = "gpu" if gpu else "cpu"
    cases = _cases(dygraph, lambda v, g: dygraph.to_tensor(v, place=place,
                                                           stop_gradient=not g))
    return cases, dygraph.device.cuda.synchronize if gpu else None


def _cases_torch(gpu):
    import torch

    torch.set_num_threads(2)
    device = "cuda" if gpu else "cpu"
    cases = _cases(torch, lambda v, g: torch.tensor(v, device=device, requires_grad=g))
    return cases, torch.cuda.synchronize if gpu else None


def _cases_paddle(gpu):
    import paddle

    if gpu:
        raise ImportError("PaddlePaddle's GPU build is not measured here")
    return _cases(paddle, lambda v, g: paddle.to_tensor(v, stop_gradient=not g)), None


def _cupy_calls():
    """{kind of CuPy call: a callable making one}, on 4x4 float32 device arrays."""
    from dygraph.backend import _import_cupy
    from dygraph.kernels.cuda import registry

    cp = _import_cupy()
    x = cp.asarray(np.random.rand(4, 4).astype(np.float32))
    y, out = x.copy(), cp.empty_like(x)
    relu_grad = registry.kernel("relu_grad")
    softmax = registry.row_kernel("softmax_rows", x.dtype)
    width, log = np.int64(4), np.int32(0)
    return {"ufunc": lambda: cp.add(x, y), "ufunc into out": lambda: cp.add(x, y, out=out),
            "ElementwiseKernel into out": lambda: relu_grad(x, y, out),
            "RawKernel into out": lambda: softmax((4,), (32,), (x, out, width, log)),
            "empty": lambda: cp.empty((4, 4), cp.float32), "view": lambda: x.reshape(16)}


def _numpy_forward_chain():
    a = np.random.rand(4, 4).astype(np.float32)
    b = a.copy()
    x = a.copy()

    def chain():
        h = x
        for _ in range(10):
            h = np.tanh(h * b + a)
        return h.sum()

    return chain


# What a first training step imports besides the package (DyGraph's compiled kernels load
# Numba at the first conv; `import torch` loads everything up front): a conv forward and
# backward after the import, timed with it.
_FIRST_STEP = {
    "dygraph": "x = {m}.randn([1, 1, 8, 8]); x.stop_gradient = False; "
               "{m}.nn.functional.conv2d(x, {m}.randn([2, 1, 3, 3])).sum().backward()",
    "paddle": "x = {m}.randn([1, 1, 8, 8]); x.stop_gradient = False; "
              "{m}.nn.functional.conv2d(x, {m}.randn([2, 1, 3, 3])).sum().backward()",
    "torch": "x = {m}.randn(1, 1, 8, 8, requires_grad=True); "
             "{m}.nn.functional.conv2d(x, {m}.randn(2, 1, 3, 3)).sum().backward()",
}


def _import_time(module, repeats, first_step=False):
    step = "; " + _FIRST_STEP[module].format(m=module) if first_step else ""
    samples = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c",
             f"import time; t = time.perf_counter(); import {module}{step}; "
             "print(time.perf_counter() - t)"],
            capture_output=True, text=True, check=True)
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    args = parser.parse_args()
    gpu = args.device == "gpu"
    frameworks = [("dygraph", _cases_dygraph), ("torch", _cases_torch),
                  ("paddle", _cases_paddle)]
    numbers = {"a": 20000, "b": 10000, "c": 300}
    cases, syncs = {}, {}
    for name, make in frameworks:
        try:
            cases[name], syncs[name] = make(gpu)
        except ImportError as exc:
            print(f"{name}: skipped ({exc})")
    numpy_chain = _numpy_forward_chain()
    samples = {name: {k: [] for k in numbers} for name in cases}
    numpy_samples = []
    cupy_calls = _cupy_calls() if gpu and "dygraph" in cases else {}
    cupy_samples = {kind: [] for kind in cupy_calls}
    # Repeats take turns between the frameworks, so load from other processes on a shared
    # machine falls on all of them alike; the median of each is reported.
    for _ in range(args.repeats):
        for name, fns in cases.items():
            for key, fn in fns.items():
                fn()
                samples[name][key].append(_time_once(fn, numbers[key], syncs[name]))
        numpy_samples.append(_time_once(numpy_chain, 2000))
        for kind, fn in cupy_calls.items():
            fn()
            cupy_samples[kind].append(_time_once(fn, 20000, syncs["dygraph"]))
    results = {name: {k: statistics.median(v) for k, v in per.items()}
               for name, per in samples.items()}
    for name in results if not gpu else ():
        results[name]["import"] = _import_time(name, max(3, args.repeats // 2)) * 1e6
        results[name]["first"] = _import_time(name, max(3, args.repeats // 2), True) * 1e6
    numpy_chain = statistics.median(numpy_samples)

    labels = {"a": "(a) add, no grad [us]", "b": "(b) add, with grad [us]",
              "c": "(c) 30-op chain + backward [us]", "import": "import time [ms]",
              "first": "import + first conv step [ms]"}
    names = list(results)
    header = f"{'measure':34}" + "".join(f"{n:>12}" for n in names)
    ratio_cols = [n for n in names if n != "dygraph"]
    header += "".join(f"{'dy/' + n:>12}" for n in ratio_cols)
    print(header)
    for key, label in labels.items():
        if gpu and key in ("import", "first"):
            continue
        scale = 1e-3 if key in ("import", "first") else 1.0
        row = f"{label:34}" + "".join(f"{results[n][key] * scale:12.2f}" for n in names)
        if "dygraph" in results:
            row += "".join(f"{results['dygraph'][key] / results[n][key]:12.2f}"
                           for n in ratio_cols)
        print(row)
    print(f"NumPy alone, forward of the chain: {numpy_chain:.1f} us")
    if cupy_samples:
        print("CuPy alone, host time per call [us]: " + ", ".join(
            f"{kind} {statistics.median(t):.2f}" for kind, t in cupy_samples.items()))


if __name__ == "__main__":
    main()
