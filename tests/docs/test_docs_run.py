"""The documentation runs: every ```python block of README.md and docs/*.md is executed, each
in a fresh interpreter whose working directory is a temporary folder (so a block writes
nothing into the checkout), with the data home pointed there too (no download, no user
cache). A ```text block right after a python block (blank lines between at most) is the
output the block prints, and must match it line for line.

A block that needs what a test machine lacks says so in its first line:
    # docs-test: skip gpu: needs a CUDA GPU and CuPy      (skipped, with that reason)
    # docs-test: needs onnx, onnxruntime                  (skipped where one is missing)

Shell blocks (```bash, ```sh) are not run; the commands they name must exist (`python -m
module`, and scripts named by a path inside the repository). Relative links between the
documents, and their #anchors, must resolve.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PYTHON = ("python", "py")
SHELL = ("bash", "sh", "shell")
MARKER = re.compile(r"#\s*docs-test:\s*(skip|needs)\b:?\s*(.*)")
TIMEOUT_S = 180


class Block:
    """One fenced code block: its file, the line of its opening fence, its language, its
    text, and the expected output (a ```text block right after it), if any."""

    def __init__(self, path, line, lang, after):
        self.path, self.line, self.lang, self.after = path, line, lang, after
        self.text, self.expected = "", None

    @property
    def id(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path):
    """The fenced blocks of a Markdown file, in order. `after` is the block just before,
    where only blank lines stand between the two."""
    found, current, body, adjacent = [], None, [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = re.match(r"^\s*```\s*([\w+-]*)\s*$", line)
        if current is None:
            if fence:
                previous = found[-1] if found and adjacent else None
                current, body = Block(path, number, fence.group(1).lower(), previous), []
            elif line.strip():
                adjacent = False
            continue
        if fence and not fence.group(1):
            current.text = "\n".join(body) + "\n"
            if current.lang == "text" and current.after and current.after.lang in PYTHON:
                current.after.expected = current.text
            found.append(current)
            current, adjacent = None, True
            continue
        body.append(line)
    return found


ALL_BLOCKS = [b for path in DOCS for b in blocks_of(path)]
PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.lang in PYTHON]
SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.lang in SHELL]


def marker(block):
    """('skip', reason), ('needs', [modules]) or None, from the block's first line."""
    first = block.text.lstrip("\n").split("\n", 1)[0]
    match = MARKER.match(first.strip())
    if not match:
        return None
    kind, rest = match.groups()
    if kind == "needs":
        return kind, [m.strip() for m in rest.split(",") if m.strip()]
    return kind, rest.strip() or "marked in the document"


def lines(text):
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[b.id for b in PYTHON_BLOCKS])
def test_python_block_runs(block, tmp_path):
    mark = marker(block)
    if mark and mark[0] == "skip":
        pytest.skip(f"{block.id}: {mark[1]}")
    if mark and mark[0] == "needs":
        for module in mark[1]:
            pytest.importorskip(module, reason=f"{block.id} needs {module}")
    script = tmp_path / "block.py"
    script.write_text(block.text, encoding="utf-8")
    env = dict(os.environ, DYGRAPH_HOME=str(tmp_path / "dygraph_home"), MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT_S)
    assert run.returncode == 0, (
        f"{block.id} failed (exit {run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    if block.expected is not None:
        assert lines(run.stdout) == lines(block.expected), (
            f"{block.id} printed something else than the output shown after it:\n{run.stdout}")


def named_commands(text):
    """(kind, name) for each module run with `python -m` and each repository script run
    with python or bash in a shell block."""
    for line in text.splitlines():
        line = line.split(" #", 1)[0]
        for module in re.findall(r"\bpython3?\s+-m\s+([\w.]+)", line):
            yield "module", module
        for script in re.findall(r"\b(?:python3?|bash)\s+((?:\.?[\w-]+/)+[\w.-]+)", line):
            yield "path", script


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[b.id for b in SHELL_BLOCKS])
def test_shell_block_names_what_exists(block):
    missing = []
    for kind, name in named_commands(block.text):
        if kind == "module" and importlib.util.find_spec(name) is None:
            missing.append(f"python -m {name}: no such module")
        if kind == "path" and not (ROOT / name).exists():
            missing.append(f"{name}: no such file in the repository")
    assert not missing, f"{block.id}: " + "; ".join(missing)


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*]|<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    seen, result = {}, set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        match = re.match(r"^#{1,6}\s+(.*)", line)
        if match:
            base = slug(match.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
    return result


def links(path):
    """(line number, target) of each relative Markdown link outside code blocks."""
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if not re.match(r"^[a-z]+:", target):
                yield number, target


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_links_resolve(path):
    broken = []
    for number, target in links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"line {number}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"line {number}: {target} (no such heading)")
    assert not broken, f"{path.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_no_reference_outside_the_clone(path):
    """A clone has no ../shared/ beside it: the documents must not send readers there."""
    hits = [str(n) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "../shared" in line]
    assert not hits, f"{path.relative_to(ROOT)} refers to ../shared on lines {', '.join(hits)}"
