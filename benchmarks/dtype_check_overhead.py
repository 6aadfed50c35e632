"""What the refused-dtype check at the public names costs (dygraph/framework/
kernel_dtypes.py): per call of a few checked names, and per training step of the seeds'
MNIST model, with the checks and with the same functions unwrapped. Repeats take turns;
medians.

The step contenders both swap the public functions in before each step (the checked ones,
or the functions under them), so the swap costs both the same and the difference is the
check.

Run: python benchmarks/dtype_check_overhead.py [--repeats 7] [--threads 2]
"""

import inspect
import os
import sys

from timing import parser, set_threads  # this script's folder is on sys.path

ARGS = None
if __name__ == "__main__":
    ARGS = parser(__doc__, steps=20, repeats=7).parse_args()
    set_threads(ARGS.threads)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def _checked_functions():
    """[(module, name, checked function, the function under it)] of the public modules."""
    import dygraph
    import dygraph.nn.functional as F

    out = []
    for module in (dygraph, F, dygraph.linalg):
        for name, value in vars(module).items():
            if getattr(value, "refused_dtypes", None) is not None:
                out.append((module, name, value, inspect.unwrap(value)))
    return out


def per_call(steps, repeats):
    """{name: (checked us, unchecked us)} for a few checked names on a [4, 4] input."""
    import dygraph
    import dygraph.nn.functional as F

    x, w = dygraph.randn([4, 4]), dygraph.randn([4, 4])
    calls = {"F.relu": (F.relu, (x,)), "F.softmax": (F.softmax, (x,)),
             "F.linear": (F.linear, (x, w)), "dygraph.matmul": (dygraph.matmul, (x, w)),
             "dygraph.max": (dygraph.max, (x,))}
    out = {}
    for label, (fn, args) in calls.items():
        bare = inspect.unwrap(fn)
        times = interleaved_median_ms({"checked": lambda f=fn, a=args: f(*a),
                                       "unchecked": lambda f=bare, a=args: f(*a)},
                                      steps * 500, repeats)
        out[label] = (times["checked"] * 1e3, times["unchecked"] * 1e3)
    return out


def per_step(steps, repeats):
    """(checked ms, unchecked ms) per training step of the seeds' MNIST model, batch 64."""
    import dygraph
    from dygraph.vision.models import MNISTNet

    dygraph.seed(0)
    model = MNISTNet()
    opt = dygraph.optimizer.Adam(1e-3, parameters=model.parameters())
    rng = np.random.default_rng(0)
    images = dygraph.to_tensor(rng.standard_normal((64, 1, 28, 28)).astype(np.float32))
    labels = dygraph.to_tensor(rng.integers(0, 10, (64, 1)))
    functions = _checked_functions()

    def step(which):
        for module, name, checked, bare in functions:
            setattr(module, name, checked if which == "checked" else bare)
        loss = dygraph.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        opt.clear_grad()

    try:
        times = interleaved_median_ms({"checked": lambda: step("checked"),
                                       "unchecked": lambda: step("unchecked")},
                                      steps, repeats)
    finally:
        for module, name, checked, _ in functions:
            setattr(module, name, checked)
    return times["checked"], times["unchecked"], len(functions)


def main():
    print(f"threads {ARGS.threads}, repeats {ARGS.repeats} (medians)")
    for label, (checked, bare) in per_call(ARGS.steps, ARGS.repeats).items():
        print(f"{label:16s} checked {checked:6.2f} us  unchecked {bare:6.2f} us  "
              f"check {1e3 * (checked - bare):+5.0f} ns")
    checked, bare, count = per_step(ARGS.steps, ARGS.repeats)
    print(f"MNIST step (batch 64, Adam; {count} checked names swapped in per step): "
          f"checked {checked:.3f} ms  unchecked {bare:.3f} ms  ratio {checked / bare:.3f}")


if __name__ == "__main__":
    main()
