"""CuPy calls per training step of the benchmark models, counted on the CuPy stand-in.

On a GPU a small model's step is bound by host time, and DyGraph's host time is mostly
CuPy's: each call costs microseconds whatever its size (about 19 us for an add on the
H200 machine, benchmarks/results/2026-11-28-gpu-op-overhead.txt). So the calls a step
makes are the figure the GPU work reduces, and they can be counted without a GPU: the
CuPy stand-in (tools/cupy_standin/) runs DyGraph's GPU code paths on NumPy and counts
every call into CuPy and its arrays (views included; a CUDA graph launch counts one).

For each model (benchmarks/models.py, at its benchmark batch) and mode (eager; to_static,
whose step runs as CUDA graphs on a GPU), the table gives the calls of the fourth step
(after a warm-up step, the capture and one replay), its reads of device values on the host
(each one waits for the GPU), and whether that step replayed graphs; for to_static also
the calls its graphs ran on the device (the kernels and copies a GPU replays), with the
element-wise chains fused (dygraph/static/fuse_elementwise.py) and with DYGRAPH_FUSION=0;
and the calls of an eager inference forward (eval mode, no gradients).

Convolutions and batch norm take DyGraph's cuDNN path, as on a GPU with cuDNN: the
stand-in of NVIDIA's cuDNN frontend (tools/cupy_standin/cudnn_frontend.py) runs each graph
as one call. `--no-cudnn` counts their CuPy paths instead. Not counted: the kernels' own
time.

With --by-op MODEL it attributes the calls of one eager training step of MODEL to the op
(class and forward or backward method) or else the DyGraph function that made them, and
counts apart the launches: the calls other than views and allocations.

With --amp bfloat16 (or float16) the steps' forward and loss, and the inference forward,
run under auto_cast of that dtype, as benchmarks/models.py --amp runs them.

Run: python benchmarks/gpu_calls.py [--models resnet18,lstm] [--by-op transformer] [--no-cudnn]
         [--amp bfloat16] [--out FILE]
"""

import argparse
import contextlib
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODES = ("eager", "to_static")
# Whether counts take the cuDNN path (the frontend's stand-in); --no-cudnn clears it.
CUDNN = [True]
# The auto_cast dtype of the counted steps ("none": float32 throughout); --amp sets it.
AMP = ["none"]


def count(name, mode, steps=4):
    """(calls of the last step, its host reads, whether it replayed CUDA graphs, fallback
    warnings, the calls its graphs ran)."""
    import models

    import dygraph
    from dygraph.jit import cuda_graph
    from tools import cupy_standin

    x, y = models.make_batch(name)
    with cupy_standin.installed(cudnn=CUDNN[0]), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        dygraph.set_device("gpu:0")
        try:
            model = models.build_dygraph(name)
            _, _, train = models.dygraph_step(model, x, y, device="gpu", mode=mode,
                                                  amp=AMP[0])
            for _ in range(steps - 1):
                train()
            before, replays = cupy_standin.stats["calls"], cuda_graph.stats["replays"]
            reads = cupy_standin.stats["host_reads"]
            in_graphs = cupy_standin.stats["graph_calls"]
            train()
            calls = cupy_standin.stats["calls"] - before
            in_graphs = cupy_standin.stats["graph_calls"] - in_graphs
            reads = cupy_standin.stats["host_reads"] - reads
            replayed = cuda_graph.stats["replays"] > replays
        finally:
            dygraph.set_device("cpu")
    fallbacks = sorted({str(w.message).split(" (")[0] for w in caught
                        if "CUDA graph" in str(w.message)})
    return calls, reads, replayed, fallbacks, in_graphs


def count_inference(name):
    """Calls of one eager forward in eval mode without gradients (after a first one)."""
    import models

    import dygraph
    from tools import cupy_standin

    x, _ = models.make_batch(name)
    with cupy_standin.installed(cudnn=CUDNN[0]):
        dygraph.set_device("gpu:0")
        try:
            model = models.build_dygraph(name)
            model.eval()
            xt = dygraph.to_tensor(x)
            low = (dygraph.amp.auto_cast(dtype=AMP[0]) if AMP[0] != "none"
                   else contextlib.nullcontext())
            with dygraph.no_grad(), low:
                model(xt)
                before = cupy_standin.stats["calls"]
                model(xt)
                return cupy_standin.stats["calls"] - before
        finally:
            dygraph.set_device("cpu")


# Calls that launch nothing on the device: views and allocations (from CuPy's pool).
_NOT_LAUNCHES = frozenset({"view", "reshape", "transpose", "swapaxes", "broadcast_to",
                           "as_strided", "expand_dims", "squeeze", "empty", "empty_like",
                           "may_share_memory"})


def _launches(call):
    """Whether a call launches work on the device: not a view, an allocation, or a
    conversion that gave its array back (the stand-in names those '... (no copy)')."""
    return call not in _NOT_LAUNCHES and not call.endswith("(no copy)")


def _maker(package):
    """The op (class.method) or else the function of `package` whose code made the call
    being counted (the innermost such frame)."""
    from dygraph.autograd.function import Op

    frame, first = sys._getframe(2), None
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(package):
            owner = frame.f_locals.get("self")
            if isinstance(owner, Op):
                return f"{type(owner).__name__}.{code.co_name}"
            if first is None:
                where = os.path.relpath(code.co_filename, os.path.dirname(package))
                first = f"{where}:{code.co_name}"
        frame = frame.f_back
    return first or "(outside dygraph)"


def count_by_op(name, steps=4):
    """{maker: Counter of call names} for the last of `steps` eager training steps."""
    import collections

    import models

    import dygraph
    from tools import cupy_standin

    package = os.path.dirname(os.path.abspath(dygraph.__file__)) + os.sep
    made = collections.defaultdict(collections.Counter)

    def observe(call):
        made[_maker(package)][call] += 1

    x, y = models.make_batch(name)
    with cupy_standin.installed(cudnn=CUDNN[0]), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dygraph.set_device("gpu:0")
        try:
            model = models.build_dygraph(name)
            _, _, train = models.dygraph_step(model, x, y, device="gpu", mode="eager",
                                                  amp=AMP[0])
            for _ in range(steps - 1):
                train()
            cupy_standin.observers.append(observe)
            try:
                train()
            finally:
                cupy_standin.observers.remove(observe)
        finally:
            dygraph.set_device("cpu")
    return made


def _amp_note():
    return "" if AMP[0] == "none" else f"; forward and loss under auto_cast({AMP[0]})"


def by_op_lines(name):
    made = count_by_op(name)
    lines = [f"CuPy calls of one eager training step of {name} (Adam{_amp_note()}) by the op or "
             "function that made them, counted on the CuPy stand-in "
             f"({'with' if CUDNN[0] else 'without'} cuDNN); launches: the calls other than "
             "views and allocations",
             f"{'made by':<48}{'calls':>7}{'launches':>10}  calls by name"]
    rows = sorted(made.items(), key=lambda item: -sum(item[1].values()))
    for maker, calls in rows:
        launches = sum(n for call, n in calls.items() if _launches(call))
        names = " ".join(f"{call}:{n}" for call, n in calls.most_common(6))
        lines.append(f"{maker:<48}{sum(calls.values()):>7}{launches:>10}  {names}")
    total = sum(sum(c.values()) for c in made.values())
    launches = sum(n for c in made.values() for call, n in c.items() if _launches(call))
    lines.append(f"{'total':<48}{total:>7}{launches:>10}")
    return lines


def _unfused_graph_calls(name):
    os.environ["DYGRAPH_FUSION"] = "0"
    try:
        return count(name, "to_static")[4]
    finally:
        del os.environ["DYGRAPH_FUSION"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet18,mobilenetv2,lstm,gru,transformer")
    parser.add_argument("--by-op", default=None, metavar="MODEL")
    parser.add_argument("--no-cudnn", action="store_true",
                        help="count the CuPy paths of convolutions and batch norm")
    parser.add_argument("--amp", choices=("none", "bfloat16", "float16"), default="none",
                        help="count steps whose forward and loss run under auto_cast")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    CUDNN[0] = not args.no_cudnn
    AMP[0] = args.amp
    cudnn_note = "cuDNN's stand-in" if CUDNN[0] else "without cuDNN"
    if args.by_op:
        _write("\n".join(by_op_lines(args.by_op)), args.out)
        return
    lines = [f"CuPy calls per training step (Adam{_amp_note()}), counted on the CuPy stand-in "
             f"(tools/cupy_standin/), {cudnn_note}",
             f"{'model':<17}{'eager':>8}{'reads':>7}{'to_static':>11}{'reads':>7}"
             f"{'in graphs':>11}{'unfused':>9}{'inference':>11}  to_static replays graphs"]
    for name in args.models.split(","):
        eager, eager_reads, _, _, _ = count(name, "eager")
        static, static_reads, replayed, fallbacks, in_graphs = count(name, "to_static")
        unfused = _unfused_graph_calls(name)
        inference = count_inference(name)
        note = "yes" if replayed else "no: " + "; ".join(fallbacks)
        lines.append(f"{name:<17}{eager:>8}{eager_reads:>7}{static:>11}{static_reads:>7}"
                     f"{in_graphs:>11}{unfused:>9}{inference:>11}  {note}")
    _write("\n".join(lines), args.out)


def _write(text, out):
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
