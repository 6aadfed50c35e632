"""Record Paddle's answers: ``python -m tools.paddle_diff.record [namespace ...]
[--names name ...]`` (``--names``: only those names' cases are recorded again).

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


def _only(cases, names):
    return [case for case in cases if not names or case["name"] in names]


def worker(namespace, start, out_path, names=()):
    """Answer the cases (of ``names`` only, when given) from index ``start`` on, one JSON
    line each, in Paddle."""
    import paddle

    cases = _only(generate(namespace, paddle), names)
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


def drive(namespace, python, names=()):
    """Run workers until every case of the namespace (of ``names``) is answered or left
    out."""
    answered, left_out, start, total = {}, [], 0, None
    while total is None or start < total:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            subprocess.run([python, "-m", "tools.paddle_diff.record", "--worker", namespace,
                            str(start), out.name, "--names", *names], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


def _merge(old, new, names):
    """The recorded cases with those of ``names`` replaced by ``new``, in place of the
    first old case of each name (new names at the end).

    >>> old = [{"id": "a:1", "name": "a"}, {"id": "b:1", "name": "b"}]
    >>> [c["id"] for c in _merge(old, [{"id": "a:2", "name": "a"}], {"a"})]
    ['a:2', 'b:1']
    """
    by_name = {}
    for case in new:
        by_name.setdefault(case["name"], []).append(case)
    out = []
    for case in old:
        if case["name"] not in names:
            out.append(case)
        elif case["name"] in by_name:
            out += by_name.pop(case["name"])
    return out + [case for cases in by_name.values() for case in cases]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespaces", nargs="*")
    parser.add_argument("--paddle-python", default="/tmp/paddle-venv/bin/python")
    parser.add_argument("--worker", nargs=3, metavar=("NAMESPACE", "START", "OUT"))
    parser.add_argument("--names", nargs="*", default=[],
                        help="record only these names' cases, keeping the others recorded")
    args = parser.parse_args(argv)
    if args.worker:
        namespace, start, out = args.worker
        worker(namespace, int(start), out, set(args.names))
        return
    everything = list(FUNCTION_NAMESPACES) + ["Tensor"] + list(CLASS_NAMESPACES)
    for namespace in args.namespaces or everything:
        cases, left_out = drive(namespace, args.paddle_python, args.names)
        if cases and args.names:
            cases = _merge(store.read(namespace), cases, set(args.names))
        if cases:
            store.write(namespace, cases)
        print(f"{namespace}: {len(cases)} cases recorded, {len(left_out)} left out "
              f"(Paddle crashed or hung)", file=sys.stderr)


if __name__ == "__main__":
    main()
