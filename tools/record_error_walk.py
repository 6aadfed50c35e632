"""Record what every error-walk case must do, with Paddle as the oracle.

tests/op_specs/test_error_walk.py gives every spec-table op a misshaped input and inputs of
the wrong dtype (tests/op_specs/error_walk_cases.py builds the cases). This script runs each
case through Paddle and through DyGraph and writes tests/data/error_walk_expectations.json,
which the test replays without Paddle:

- where both refuse the case: DyGraph must raise an exception of the recorded type;
- where both compute it: DyGraph's result must have the recorded dtypes and equal the
  recorded reference (see tests/op_specs/error_walk_cases.py);
- where they disagree (one refuses, or the dtypes or values differ), or where Paddle cannot
  run the spec entry at all: DyGraph's behaviour is recorded as above, marked with a
  reason from REASONS. A disagreement that no rule below explains stops the script, so
  every difference in the file has been looked at.

Run it in DyGraph's environment, naming a Python that has paddlepaddle, such as a separate
virtual environment (Paddle runs in child processes; one that crashes or hangs on a case is
restarted after it):

    python3 -m venv /tmp/paddle-venv && /tmp/paddle-venv/bin/pip install paddlepaddle numpy
    python tools/record_error_walk.py --paddle-python /tmp/paddle-venv/bin/python

A new or changed spec entry needs a new recording: the test fails on a case it has no
outcome for.
"""

import argparse
import importlib
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import types
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.op_specs.error_walk_cases import (  # noqa: E402 - after the path above
    VARIANTS,
    case_inputs,
    case_key,
    digest,
    digests_match,
    entry_label,
    matches,
    reference,
    results,
    tensors,
)

OUT = ROOT / "tests" / "data" / "error_walk_expectations.json"
# The Paddle worker runs the entry's own inputs first: if Paddle cannot run those, it is no
# oracle for the entry's wrong ones.
GOOD = "good"
STEPS = (GOOD,) + VARIANTS
HANG_SECONDS = 60

REASONS = {
    "no-oracle": "Paddle cannot run this spec entry even with its own inputs (see "
                 "no_oracle), so DyGraph's behaviour is recorded as it is",
    "paddle-no-kernel": "Paddle registers no kernel of this op for the dtype; DyGraph "
                        "computes it (bool and integer inputs in the default float dtype "
                        "or kept where the op is exact in them, complex inputs in complex "
                        "arithmetic)",
    "paddle-no-promotion": "Paddle refuses to combine an integer or bool tensor with a "
                           "float one (or a float attribute); DyGraph promotes as NumPy "
                           "does",
    "paddle-float-only": "Paddle's Python API checks for float32/float64 (or real) inputs; "
                         "DyGraph promotes integer and bool inputs to the default float "
                         "dtype and computes complex ones",
    "paddle-keeps-int": "Paddle computes in the input's integer or bool dtype (truncating "
                        "the result); DyGraph promotes to the default float dtype",
    "paddle-bool-divide": "Paddle divides bool by bool into bool; DyGraph's true division "
                          "gives the default float dtype",
    "atan2-int": "Paddle gives float64 for integer inputs; DyGraph the default float dtype",
    "clip-int": "Paddle gives float32 for an int64 input with float bounds; DyGraph keeps "
                "int64 with the bounds truncated, as paddle.clip documents for integers",
    "paddle-complex128": "Paddle promotes this complex64 loss to complex128; DyGraph keeps "
                         "complex64",
    "rng": "a random op: Paddle's random stream differs from DyGraph's, so the values do",
    "eig-order": "a general matrix's eigenvalues come in no specified order; Paddle's "
                 "LAPACK returns these in another one than DyGraph's",
    "tie-order": "equal values: which of the tied indices topk returns is unspecified; "
                 "DyGraph returns the lowest (NumPy's stable order), Paddle others",
    "paddle-as-strided-complex": "Paddle 3.3 reads complex64 elements of as_strided at "
                                 "wrong offsets (garbage values); DyGraph views the input",
    "paddle-index-bounds": "Paddle does not bounds-check index_put's indices (it writes "
                           "out of bounds and may crash); DyGraph raises IndexError",
    "paddle-short-perm": "Paddle 3.3 accepts a perm shorter than the rank; DyGraph requires "
                         "a permutation of every dim, as Paddle documents",
    "multigammaln-domain": "Paddle returns NaN outside x > (p - 1) / 2; DyGraph raises",
    "lu-unpack-pivots": "Paddle does not check the pivots' length against the matrix; "
                        "DyGraph raises",
    "label-smooth-prior": "Paddle does not check prior_dist's size against the classes; "
                          "DyGraph raises",
    "zeropad2d-rank": "Paddle pads the last two dims of a 5-D input; DyGraph requires the "
                      "documented 4-D input",
    "complex-remainder": "Paddle computes a complex remainder; DyGraph refuses it, as NumPy "
                         "does",
    "bool-negative": "Paddle negates a bool tensor into bool; DyGraph refuses it, as NumPy "
                     "does (use logical_not)",
    "ldexp-complex": "Paddle takes ldexp of a complex input; DyGraph refuses complex inputs",
    "int-remainder-by-zero": "not aligned yet: Paddle raises on an integer remainder by "
                             "zero; DyGraph returns 0 as NumPy does (a check in "
                             "Remainder.forward must let static build-time stand-ins pass)",
    "cov-zero-weights": "not aligned yet: Paddle raises when the weights sum to zero; "
                        "DyGraph returns NaN (a data-dependent check must let static "
                        "build-time stand-ins pass)",
    "lstsq-rank": "not aligned yet: Paddle requires x and y of the same rank; DyGraph "
                  "broadcasts a 2-D y against a batched x",
    "split-sections": "not aligned yet: Paddle requires the known sections to sum to less "
                      "than the dim when one is -1; DyGraph gives the -1 section size 0",
}

# (key pattern, what differs, Paddle message pattern or None, reason). What differs:
# 'computes' (DyGraph computes, Paddle refuses), 'refuses' (DyGraph refuses, Paddle
# computes or crashes), 'result' (both compute; dtypes or values differ).
RULES = [
    (r"^(remainder|mod|floor_mod)\|int64$", "computes", "division by zero",
     "int-remainder-by-zero"),
    (r"^linalg\.cov\[weights\]\|", "computes", "sum of weights is zero", "cov-zero-weights"),
    (r"^linalg\.lstsq\|shape$", "computes", "same dimension", "lstsq-rank"),
    (r"^split(\[sq\])?\|shape$", "computes", "num_or_sections", "split-sections"),
    (r"", "computes", "not registered", "paddle-no-kernel"),
    (r"", "computes", "Type promotion only|type of data we are trying to retrieve",
     "paddle-no-promotion"),
    (r"", "computes", "dtype should be one of|must be 'float32' or 'float64'|dtype must "
                      "be float32 or float64|data type of input must be one of|same dtype",
     "paddle-float-only"),
    (r"^index_put(\[\w+\])?\|shape$", "refuses", None, "paddle-index-bounds"),
    (r"^(permute|transpose)(\[sq\])?\|shape$", "refuses", None, "paddle-short-perm"),
    (r"^multigammaln\|shape$", "refuses", None, "multigammaln-domain"),
    (r"^linalg\.lu_unpack\|shape$", "refuses", None, "lu-unpack-pivots"),
    (r"^nn\.functional\.label_smooth\[prior\]\|shape$", "refuses", None,
     "label-smooth-prior"),
    (r"^nn\.functional\.zeropad2d\|shape$", "refuses", None, "zeropad2d-rank"),
    (r"^(remainder|mod|floor_mod)\|complex64$", "refuses", None, "complex-remainder"),
    (r"^neg\|bool$", "refuses", None, "bool-negative"),
    (r"^ldexp\|complex64$", "refuses", None, "ldexp-complex"),
    (r"^(divide|true_divide|div)\|bool$", "result", None, "paddle-bool-divide"),
    (r"^atan2\|int64$", "result", None, "atan2-int"),
    (r"^clip(\[[\w-]+\])?\|int64$", "result", None, "clip-int"),
    (r"^nn\.functional\.multi_label_soft_margin_loss\|complex64$", "result", None,
     "paddle-complex128"),
    (r"^as_strided(\[sq\])?\|complex64$", "result", None, "paddle-as-strided-complex"),
    (r"^topk(\[[\w=]+\])?\|", "result", None, "tie-order"),
    (r"(dropout|gumbel_softmax)[\w\[\]-]*\|(shape|complex64)$", "result", None, "rng"),
    (r"^linalg\.eigvals\|complex64$", "result", None, "eig-order"),
    (r"\|(bool|int64)$", "result", None, "paddle-keeps-int"),
]


# -- the Paddle side (runs in Paddle's environment) -----------------------------------------
def _paddle_as_dygraph():
    """Import Paddle under DyGraph's module names, so the spec table's callables call it."""
    import paddle

    paddle.set_device("cpu")
    random = types.ModuleType("dygraph.framework.random")

    def rng():
        raise NotImplementedError("only the spec references draw from DyGraph's generator")

    random.rng = rng
    sys.modules.update({"dygraph": paddle, "dygraph.nn": paddle.nn,
                        "dygraph.nn.functional": paddle.nn.functional,
                        "dygraph.framework": types.ModuleType("dygraph.framework"),
                        "dygraph.framework.random": random})
    return paddle


def _paddle_worker(out_path, todo_path):
    """Append one JSON line per case to out_path, for the flat case indices listed in the
    JSON file todo_path, in that order."""
    paddle = _paddle_as_dygraph()
    warnings.filterwarnings("ignore")
    specs = importlib.import_module("tests.op_specs").all_specs()
    with open(out_path, "a") as out:
        for index in json.loads(pathlib.Path(todo_path).read_text()):
            spec, step = specs[index // len(STEPS)], STEPS[index % len(STEPS)]
            arrays = spec.make_inputs() if step == GOOD else case_inputs(spec, step)
            record = {"index": index}
            if arrays is not None:
                try:
                    arrays = results(spec.fn(*tensors(paddle, arrays)))
                    record["out"] = [[a.dtype.name, digest(a)] for a in arrays]
                except Exception as exc:  # any refusal is an outcome
                    record["raise"] = type(exc).__name__
                    record["message"] = " ".join(str(exc).split())[:300]
            print(json.dumps(record), file=out, flush=True)


def _run_worker(python, out_path, todo_path):
    """Run a Paddle worker; its exit status (killed when it writes nothing for
    HANG_SECONDS)."""
    worker = subprocess.Popen([python, __file__, "--paddle-worker", str(out_path),
                               str(todo_path)], stderr=subprocess.DEVNULL)
    size, idle = -1, 0.0
    while worker.poll() is None:
        time.sleep(1.0)
        now = out_path.stat().st_size
        idle = idle + 1.0 if now == size else 0.0
        size = now
        if idle >= HANG_SECONDS:
            worker.kill()
            worker.wait()
    return worker.returncode


def _run_paddle(python, total, alone):
    """Paddle's outcome of every case, by flat index.

    The cases in `alone` (those that index out of bounds: Paddle may write there without
    a check and damage the data of later cases) each run in a fresh worker; the others run
    in one. A case that kills or hangs a worker runs again alone (damage left by an earlier
    case may have killed it); if that dies too, it is recorded as {'crash': status}, and
    the cases after it run in a fresh worker."""
    outcomes = {}
    with tempfile.TemporaryDirectory() as tmp:
        out_path, todo_path = pathlib.Path(tmp) / "out.jsonl", pathlib.Path(tmp) / "todo"
        out_path.touch()

        def run(indices):
            todo_path.write_text(json.dumps(indices))
            status = _run_worker(python, out_path, todo_path)
            for line in out_path.read_text().splitlines():
                record = json.loads(line)
                outcomes[record.pop("index")] = record
            if status != 0 and len(indices) == 1:
                outcomes.setdefault(indices[0], {"crash": status})
                print(f"paddle dies on case {indices[0]} alone", file=sys.stderr)
            return status

        pending = [i for i in range(total) if i not in alone]
        while pending:
            if run(pending) != 0:
                run([next(i for i in pending if i not in outcomes)])
            pending = [i for i in pending if i not in outcomes]
        for index in sorted(alone):
            run([index])
    return outcomes


# -- the DyGraph side ------------------------------------------------------------------------
def _dygraph_outcome(spec, variant):
    """('raise', type name) or ('value', reference kind, dtypes, arrays)."""
    import dygraph

    try:
        got = results(spec.fn(*tensors(dygraph, case_inputs(spec, variant))))
    except Exception as exc:  # the test names the type
        return ("raise", type(exc).__name__)
    dtypes = [a.dtype.name for a in got]
    kinds = ("numpy",) if variant == "shape" else ("numpy", "cast")
    for kind in kinds:
        try:
            if matches(got, reference(kind, spec, variant, dygraph)):
                return ("value", kind, dtypes, got)
        except Exception:  # a reference that does not apply to this case
            continue
    return ("value", "pinned", dtypes, got)


def _difference_reason(key, what, message, unexplained):
    """The reason of the first rule that explains a difference; otherwise None, and the
    case is added to `unexplained`."""
    for pattern, kind, text, reason in RULES:
        if kind == what and re.search(pattern, key) and (
                text is None or re.search(text, message or "")):
            return reason
    unexplained.append(f"{key}: DyGraph {what}; Paddle: {message or 'see the digests'}")
    return None


def _dump(data):
    """JSON with one line per entry of each table, so that a change shows as a line."""
    parts = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            parts.append(f"{json.dumps(key)}: {{\n{rows}\n}}")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _record(paddle_python):
    """Run every case through Paddle and DyGraph and write OUT."""
    import dygraph  # noqa: F401 - fail early when run outside DyGraph's environment

    warnings.filterwarnings("ignore")
    specs = importlib.import_module("tests.op_specs").all_specs()
    ours_by_index = {i * len(STEPS) + j: _dygraph_outcome(spec, variant)
                     for i, spec in enumerate(specs)
                     for j, variant in enumerate(VARIANTS, start=1)
                     if case_inputs(spec, variant) is not None}
    alone = {index for index, ours in ours_by_index.items() if ours == ("raise", "IndexError")}
    paddle = _run_paddle(paddle_python, len(specs) * len(STEPS), alone)
    version = subprocess.run([paddle_python, "-c", "import paddle; print(paddle.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    cases, pinned, no_oracle, unexplained = {}, {}, {}, []
    for i, spec in enumerate(specs):
        good = paddle[i * len(STEPS)]
        label = entry_label(spec)
        if label in cases:
            raise SystemExit(f"two spec entries are named {label}; give one an id")
        if "out" not in good:
            no_oracle[label] = good.get("message") or f"crashed ({good.get('crash')})"
        for j, variant in enumerate(VARIANTS, start=1):
            if case_inputs(spec, variant) is None:
                continue
            key = case_key(spec.name, spec.id, variant)
            theirs = paddle[i * len(STEPS) + j]
            ours = ours_by_index[i * len(STEPS) + j]
            reason = None
            if label in no_oracle:
                reason = "no-oracle"
            elif ours[0] == "raise" and "raise" in theirs:
                pass
            elif ours[0] == "raise":  # Paddle computes or crashes
                reason = _difference_reason(key, "refuses", None, unexplained)
            elif "out" not in theirs:
                reason = _difference_reason(key, "computes", theirs.get("message"),
                                           unexplained)
            elif ([d for d, _ in theirs["out"]] != ours[2]
                  or not digests_match(ours[3], [p for _, p in theirs["out"]])):
                reason = _difference_reason(key, "result", None, unexplained)
            if ours[0] == "raise":
                entry = f"raise {ours[1]}"
            else:
                entry = f"{ours[1]} {','.join(ours[2])}"
                if ours[1] == "pinned":
                    pinned[key] = [digest(a) for a in ours[3]]
            cases.setdefault(label, [None] * len(VARIANTS))[j - 1] = entry + (
                f" ! {reason}" if reason else "")
    if unexplained:
        raise SystemExit("DyGraph and Paddle differ where no rule in RULES explains it; look "
                         "at each case and add a rule:\n" + "\n".join(unexplained))
    entries = [entry for row in cases.values() for entry in row if entry is not None]
    used = {entry.partition(" ! ")[2] for entry in entries} - {""}
    data = {
        "about": "What each case of tests/op_specs/test_error_walk.py must do. cases: per spec "
                 "entry, one item per variant (" + ", ".join(VARIANTS) + "; null where the "
                 "entry has no such case): 'raise <type>', or '<reference> <result "
                 "dtypes>' (reference: numpy, cast or pinned, see "
                 "tests/op_specs/error_walk_cases.py); ' ! <reason>' marks a case where DyGraph "
                 "differs from Paddle or Paddle is no oracle. Written by "
                 "tools/record_error_walk.py; do not edit by hand.",
        "variants": list(VARIANTS),
        "paddle": version,
        "reasons": {code: text for code, text in REASONS.items() if code in used},
        "no_oracle": no_oracle,
        "cases": cases,
        "pinned": pinned,
    }
    OUT.write_text(_dump(data))
    counts = {"raise": sum(e.startswith("raise") for e in entries),
              "value": sum(not e.startswith("raise") for e in entries),
              "differences": sum(" ! " in e for e in entries)}
    print(f"wrote {OUT.relative_to(ROOT)}: {len(entries)} cases {counts}, Paddle {version}")


def main():
    """Parse the command line and record, or run as Paddle's worker.

    Example (a shell command; it takes a few minutes):
        python tools/record_error_walk.py --paddle-python /tmp/paddle-venv/bin/python
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paddle-python", help="a Python with paddlepaddle installed")
    parser.add_argument("--paddle-worker", nargs=2, metavar=("OUT", "TODO"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.paddle_worker:
        _paddle_worker(*args.paddle_worker)
    elif args.paddle_python:
        _record(args.paddle_python)
    else:
        parser.error("give --paddle-python")


if __name__ == "__main__":
    main()
