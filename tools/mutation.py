"""Mutation testing of the core modules: do their tests notice a wrong line?

Each mutant changes one small thing in one module (a flipped comparison, a swapped
operator, a changed constant, a dropped return value or call, a negated ``if``). The
module's mapped tests then run against the mutant; a mutant the tests fail on is *killed*,
one they pass on *survives* and points at a test gap (or is equivalent to the original).

The working tree is never touched: other people edit it while this runs. The package,
the tests and the pytest configuration are copied to a temporary directory and each
mutant is written there, tested, and the original put back before the next one.

Mutants are generated from the ``ast`` of the module and spliced into its text, so the
rest of the file (comments, layout, line numbers) stays as it is. With a budget
(``--max-mutants``) a seeded, deterministic sample of them runs per module.

Usage::

    python tools/mutation.py                      # every module in MODULES, 15 each
    python tools/mutation.py --max-mutants 25 --seed 1 --module dygraph/amp/grad_scaler.py
    python tools/mutation.py --list               # show the sampled mutants, run nothing
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Module -> the pytest arguments that cover it. Each set runs in well under a minute on
# two cores; `-k` narrows the spec-table tests to the module's ops. The module's own
# docstring examples run too (added by `module_args`: pytest's addopts has
# --doctest-modules).
MODULES: dict[str, list[str]] = {
    "dygraph/autograd/engine.py": ["tests/autograd/test_autograd.py",
                                   "tests/mutation/test_mutation_survivors.py"],
    "dygraph/ops/loss/cross_entropy.py": [
        "tests/ops/loss/test_loss_behaviour.py",
        "tests/ops/loss/test_soft_label_cross_entropy.py",
        "tests/mutation/test_mutation_survivors.py",
        "tests/op_specs/test_op_specs.py",
        # The static-program op (LabelInputCrossEntropy) only runs in these.
        "tests/op_specs/test_cross_mode.py",
        "-k",
        "cross_entropy or nll",
    ],
    # print_op's docstring examples are the runs of a program with Print (an effect op).
    "dygraph/static/executor.py": ["tests/static/", "dygraph/static/print_op.py",
                                   "tests/mutation/test_mutation_survivors.py"],
    "dygraph/optimizer/adam.py": ["tests/optimizer/", "tests/mutation/test_mutation_survivors.py"],
    "dygraph/io/checkpoint.py": ["tests/io/test_checkpoint.py", "tests/io/test_checkpoint_fuzz.py"],
    "dygraph/amp/grad_scaler.py": ["tests/amp/test_amp.py", "tests/amp/test_o2_float16.py",
                                   "tests/mutation/test_mutation_survivors.py"],
}

# What the temporary copy needs to run the tests as the repository does.
COPIED = ["dygraph", "tests", "conftest.py", "pyproject.toml"]

# Call statements on these names are logging: removing them changes nothing a test
# should pin down, so they (and everything inside them) are not mutated.
LOGGING_ROOTS = {"logging", "logger", "_logger", "log", "_log"}

COMPARE_FLIPS = {
    ast.Lt: "<=",
    ast.LtE: "<",
    ast.Gt: ">=",
    ast.GtE: ">",
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
COMPARE_TOKENS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
ARITH_SWAPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*")}


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One change to one module: where, what, and the whole mutated text."""

    path: str
    lineno: int
    operator: str  # compare, arith, constant, return, call, if
    description: str
    source: str = dataclasses.field(repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.path}:{self.lineno} [{self.operator}] {self.description}"


class _Text:
    """The module's text with ast positions (line, UTF-8 byte column) -> str offsets."""

    def __init__(self, source: str):
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode()[:col].decode())

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)
        return start, self.offset(node.end_lineno, node.end_col_offset)

    def replace(self, start: int, end: int, new: str) -> str:
        return self.source[:start] + new + self.source[end:]


def _operator_span(text: _Text, left: ast.AST, right: ast.AST, token: str) -> tuple[int, int]:
    """Where `token` sits between two operands (only brackets, space, comments around it)."""
    start = text.span(left)[1]
    end = text.span(right)[0]
    between = text.source[start:end]
    # Blank out comments (keep their length) so a `#` note cannot hold a false match.
    between = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), between)
    words = r"\s+".join(re.escape(w) for w in token.split())
    # Symbols must not be part of a longer one (`<` in `<=`); words must stand alone.
    pattern = rf"(?<![\w<>=!*/+-]){words}(?![\w<>=!*/+-])"
    match = re.search(pattern, between)
    if match is None:
        raise ValueError(f"operator {token!r} not found in {between!r}")
    return start + match.start(), start + match.end()


def _call_root(node: ast.AST) -> str | None:
    """The leftmost name of a call's function: `logger` for `logger.debug(...)`."""
    func = node.func if isinstance(node, ast.Call) else node
    while isinstance(func, (ast.Attribute, ast.Call)):
        func = func.value if isinstance(func, ast.Attribute) else func.func
    return func.id if isinstance(func, ast.Name) else None


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Ids of nodes not to mutate: docstrings, logging calls and what they contain."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skipped.update(id(n) for n in ast.walk(body[0]))
        call = node.value if isinstance(node, ast.Expr) else node
        if isinstance(call, ast.Call) and _call_root(call) in LOGGING_ROOTS:
            # The statement too: removing a logging call is no behaviour change.
            skipped.update(id(n) for n in ast.walk(node))
    return skipped


def _snippet(text: _Text, node: ast.AST, limit: int = 50) -> str:
    start, end = text.span(node)
    snippet = " ".join(text.source[start:end].split())
    return snippet if len(snippet) <= limit else snippet[: limit - 3] + "..."


def generate_mutants(source: str, path: str = "<module>") -> list[Mutant]:
    """Every mutant of `source`, in source order. Each one still parses."""
    tree = ast.parse(source)
    text = _Text(source)
    skipped = _skipped_nodes(tree)
    found: list[tuple[int, int, Mutant]] = []

    def add(node: ast.AST, operator: str, description: str, start: int, end: int, new: str):
        mutated = text.replace(start, end, new)
        try:
            ast.parse(mutated)
        except SyntaxError:  # a splice that does not fit its context is no mutant
            return
        if mutated != source:
            mutant = Mutant(path, node.lineno, operator, description, mutated)
            found.append((start, len(found), mutant))

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                token, flipped = COMPARE_TOKENS[type(op)], COMPARE_FLIPS[type(op)]
                start, end = _operator_span(text, operands[i], operands[i + 1], token)
                add(node, "compare", f"`{token}` -> `{flipped}`", start, end, flipped)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH_SWAPS:
            token, swapped = ARITH_SWAPS[type(node.op)]
            if isinstance(node, ast.AugAssign):
                token, swapped = token + "=", swapped + "="
                left, right = node.target, node.value
            else:
                left, right = node.left, node.right
            start, end = _operator_span(text, left, right, token)
            add(node, "arith", f"`{token}` -> `{swapped}`", start, end, swapped)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (str, bytes)):
            value = node.value
            if isinstance(value, bool):
                new = repr(not value)
            elif isinstance(value, (int, float)) and value in (0, 1):
                new = repr(type(value)(1 - value))
            else:
                continue
            add(node, "constant", f"`{value!r}` -> `{new}`", *text.span(node), new)
        elif isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue
            what = f"`return {_snippet(text, node.value)}` -> `return None`"
            add(node, "return", what, *text.span(node), "return None")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            what = f"removed call `{_snippet(text, node.value)}`"
            add(node, "call", what, *text.span(node), "pass")
        elif isinstance(node, ast.If):
            start, end = text.span(node.test)
            what = f"`if {_snippet(text, node.test)}` -> `if not (...)`"
            add(node, "if", what, start, end, f"not ({source[start:end]})")

    found.sort(key=lambda item: (item[0], item[1]))
    return [mutant for _, _, mutant in found]


def sample_mutants(mutants: list[Mutant], budget: int | None, seed: int) -> list[Mutant]:
    """A deterministic sample of at most `budget` mutants, kept in source order.

    The generator is seeded with the seed and the module path, so one module's sample
    does not change when another module is added or edited.
    """
    if budget is None or len(mutants) <= budget:
        return list(mutants)
    path = mutants[0].path if mutants else ""
    rng = random.Random(f"{seed}:{path}")
    return [mutants[i] for i in sorted(rng.sample(range(len(mutants)), budget))]


# --- running ------------------------------------------------------------------------------


def _child_env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The suite's documented command runs without these OpenBLAS overrides.
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    # The copy, not the editable install of the working tree, is what gets imported.
    env["PYTHONPATH"] = str(workdir)
    env["PYTHONHASHSEED"] = "0"
    return env


def read_source(path: str, rev: str | None) -> str:
    """The module's text in the working tree, or at `rev` (what the copy will hold)."""
    if rev is None:
        return (REPO / path).read_text()
    show = ["git", "-C", str(REPO), "show", f"{rev}:{path}"]
    return subprocess.run(show, check=True, capture_output=True, text=True).stdout


def make_workdir(rev: str | None) -> Path:
    """A temporary copy of the package and tests: the working tree's, or `rev`'s."""
    workdir = Path(tempfile.mkdtemp(prefix="dygraph-mutation-"))
    try:
        _fill_workdir(workdir, rev)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return workdir


def _fill_workdir(workdir: Path, rev: str | None) -> None:
    if rev is None:
        for name in COPIED:
            src = REPO / name
            if src.is_dir():
                # __pycache__ comes along: bytecode and Numba's caches save minutes.
                shutil.copytree(src, workdir / name, symlinks=True)
            else:
                shutil.copy2(src, workdir / name)
    else:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, *COPIED],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(workdir)], input=archive, check=True)


def run_tests(workdir: Path, args: list[str], timeout: float) -> tuple[str, float]:
    """('passed' | 'failed' | 'timeout' | 'no tests', seconds) of one pytest run."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args]
    began = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=workdir,
            env=_child_env(workdir),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - began
    elapsed = time.monotonic() - began
    outcome = {0: "passed", 5: "no tests"}.get(done.returncode, "failed")
    return outcome, elapsed


def _drop_bytecode(module: Path) -> None:
    # A same-size edit within the same second would leave a valid-looking stale .pyc.
    for pyc in (module.parent / "__pycache__").glob(f"{module.stem}.*.pyc"):
        pyc.unlink()


def check_imports_copy(workdir: Path) -> None:
    code = "import dygraph, sys; sys.stdout.write(dygraph.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=workdir,
        env=_child_env(workdir),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if not Path(out).resolve().is_relative_to(workdir.resolve()):
        raise RuntimeError(f"the tests would import {out}, not the copy in {workdir}")


def module_args(path: str) -> list[str]:
    """The pytest arguments for `path`: its mapped tests, then its own doctests."""
    args = MODULES[path]
    split = args.index("-k") if "-k" in args else len(args)
    return [*args[:split], path, *args[split:]]


def mutate_module(workdir: Path, path: str, args: list[str], mutants, timeout, log) -> dict:
    module = workdir / path
    original = module.read_text()
    outcome, baseline = run_tests(workdir, args, timeout=600)
    log(f"{path}: baseline {outcome} in {baseline:.1f}s, {len(mutants)} mutants")
    result = {"module": path, "tests": args, "baseline": outcome, "mutants": []}
    if outcome != "passed":
        return result
    # A mutant that loops forever counts as killed once it takes far longer than normal.
    limit = timeout if timeout else max(30.0, 3 * baseline + 10)
    try:
        for mutant in mutants:
            module.write_text(mutant.source)
            _drop_bytecode(module)
            outcome, elapsed = run_tests(workdir, args, limit)
            # "no tests" (everything deselected) is neither: reported, not counted as killed.
            status = {"passed": "survived", "failed": "killed", "timeout": "timeout"}.get(
                outcome, "error"
            )
            log(f"  {status:8} {elapsed:5.1f}s  {mutant.label}")
            entry = {"status": status, "line": mutant.lineno, "operator": mutant.operator}
            result["mutants"].append({**entry, "description": mutant.description})
    finally:
        module.write_text(original)
        _drop_bytecode(module)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", help="a key of MODULES (repeatable)")
    parser.add_argument("--max-mutants", type=int, default=15, help="per module; 0: all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=0, help="per mutant, seconds")
    parser.add_argument("--rev", help="mutate this git revision instead of the working tree")
    parser.add_argument("--list", action="store_true", help="print the sample, run nothing")
    parser.add_argument("--json", type=Path, help="write the results here")
    opts = parser.parse_args(argv)

    paths = opts.module or list(MODULES)
    unknown = [p for p in paths if p not in MODULES]
    if unknown:
        parser.error(f"not in MODULES: {unknown}")
    budget = opts.max_mutants or None

    def log(message: str) -> None:
        print(message, flush=True)

    samples = {}
    for path in paths:
        mutants = generate_mutants(read_source(path, opts.rev), path)
        samples[path] = sample_mutants(mutants, budget, opts.seed)
        if opts.list:
            log(f"{path}: {len(samples[path])} of {len(mutants)} mutants")
            for mutant in samples[path]:
                log(f"  {mutant.label}")
    if opts.list:
        return 0

    # A plain `kill` still removes the copy and ends the running pytest (finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    began = time.monotonic()
    workdir = make_workdir(opts.rev)
    results = []
    try:
        check_imports_copy(workdir)
        for path in paths:
            results.append(
                mutate_module(workdir, path, module_args(path), samples[path], opts.timeout, log)
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    log("\nmodule                                killed/total  score")
    for result in results:
        total = len(result["mutants"])
        killed = sum(m["status"] in ("killed", "timeout") for m in result["mutants"])
        score = f"{100 * killed / total:.0f}%" if total else result["baseline"]
        log(f"{result['module']:38} {killed:>5}/{total:<5}  {score}")
        for m in result["mutants"]:
            if m["status"] in ("survived", "error"):
                log(f"    {m['status']} {result['module']}:{m['line']} {m['description']}")
    log(f"({time.monotonic() - began:.0f}s)")
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
