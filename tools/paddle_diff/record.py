"""Record Paddle's answers: ``python -m tools.paddle_diff.record [namespace ...]``.

The driver (any Python) starts a worker in the Paddle environment (``--paddle-python``,
default /tmp/paddle-venv/bin/python) per namespace. The worker generates the cases, runs
them one by one and writes one JSON line per answered case; a case that kills the worker
(Paddle aborts on some inputs) or runs past ``TIMEOUT_S`` is left out, and the driver starts
a new worker after it. The answers go to tests/data/parity/ through ``store``.
"""

import argparse
import base64
import io
import json
import pathlib
import signal
import subprocess
import sys
import tempfile

import numpy as np

from . import store
from .classes import CLASS_NAMESPACES
from .names import FUNCTION_NAMESPACES

ROOT = pathlib.Path(__file__).resolve().parents[2]
TIMEOUT_S = 20


def generate(namespace, fw):
    """The cases of a namespace, generated from framework ``fw``'s signatures."""
    from . import cases, names

    if namespace in CLASS_NAMESPACES:
        from . import datasets, layers, optimizers
        return {"nn.Layer": lambda: layers.cases(fw), "optimizer": optimizers.optimizer_cases,
                "optimizer.lr": optimizers.lr_cases, "io": datasets.cases}[namespace]()
    if namespace == "Tensor":
        out = []
        for name in names.public_functions(fw):
            if hasattr(fw.Tensor, name):
                out += cases.function_cases("Tensor", name, getattr(fw, name), "method",
                                            labels={"f32", "int64", "0d", "axis=-1",
                                                    "defaults", "grad"})
        return out
    module = names.resolve(fw, FUNCTION_NAMESPACES[namespace])
    return [case for name in names.public_functions(module)
            for case in cases.function_cases(namespace, name, getattr(module, name))]


def run_case(namespace, case, fw):
    """Paddle's or DyGraph's answer to one case (a class case may write into the case
    what only Paddle can give, when it is recorded)."""
    from . import execute, names

    if namespace in CLASS_NAMESPACES:
        from . import classes
        return classes.run(namespace, case, fw)
    kind = case.get("kind", "function")
    function = None if kind == "method" else names.lookup(namespace, case["name"], fw)
    if kind == "function" and function is None:
        return {"missing": True}
    return execute.run(case, fw, function)


def _encode(obj):
    if isinstance(obj, np.ndarray):
        buffer = io.BytesIO()
        np.save(buffer, obj, allow_pickle=False)
        return {"npy": base64.b64encode(buffer.getvalue()).decode()}
    if isinstance(obj, dict):
        return {k: _encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    return obj


def _decode(obj):
    if isinstance(obj, dict):
        if set(obj) == {"npy"}:
            return np.load(io.BytesIO(base64.b64decode(obj["npy"])), allow_pickle=False)
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def _timeout(signum, frame):
    raise TimeoutError("case ran too long")


def worker(namespace, start, out_path):
    """Answer the cases from index ``start`` on, one JSON line each, in Paddle."""
    import paddle

    cases = generate(namespace, paddle)
    signal.signal(signal.SIGALRM, _timeout)
    with open(out_path, "a") as out:
        out.write(json.dumps({"total": len(cases)}) + "\n")
        for index in range(start, len(cases)):
            case = cases[index]
            signal.alarm(TIMEOUT_S)
            try:
                answer = run_case(namespace, case, paddle)
            except TimeoutError:
                continue
            finally:
                signal.alarm(0)
            line = _encode(dict(case, expect=answer))
            out.write(json.dumps({"index": index, "case": line}) + "\n")
            out.flush()


def drive(namespace, python):
    """Run workers until every case of the namespace is answered or left out."""
    answered, left_out, start, total = {}, [], 0, None
    while total is None or start < total:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            subprocess.run([python, "-m", "tools.paddle_diff.record", "--worker", namespace,
                            str(start), out.name], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
            last = start - 1
            for raw in out.read().splitlines():
                line = json.loads(raw)
                if "total" in line:
                    total = line["total"]
                    continue
                answered[line["index"]] = _decode(line["case"])
                last = line["index"]
        if total is None:
            raise RuntimeError(f"the Paddle worker for {namespace} did not start")
        if last + 1 < total:
            left_out.append(last + 1)
        start = last + 2 if last + 1 < total else total
    return [answered[i] for i in sorted(answered)], left_out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespaces", nargs="*")
    parser.add_argument("--paddle-python", default="/tmp/paddle-venv/bin/python")
    parser.add_argument("--worker", nargs=3, metavar=("NAMESPACE", "START", "OUT"))
    args = parser.parse_args(argv)
    if args.worker:
        namespace, start, out = args.worker
        worker(namespace, int(start), out)
        return
    everything = list(FUNCTION_NAMESPACES) + ["Tensor"] + list(CLASS_NAMESPACES)
    for namespace in args.namespaces or everything:
        cases, left_out = drive(namespace, args.paddle_python)
        if cases:
            store.write(namespace, cases)
        print(f"{namespace}: {len(cases)} cases recorded, {len(left_out)} left out "
              f"(Paddle crashed or hung)", file=sys.stderr)


if __name__ == "__main__":
    main()
