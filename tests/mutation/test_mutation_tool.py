"""tools/mutation.py: its mutants are the intended one-token edits, its sample is stable.

Only the generator and the sampler are tested here; no mutant's tests are run.
"""

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "tools" / "mutation.py"
_spec = importlib.util.spec_from_file_location("dygraph_mutation_tool", _PATH)
mutation = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mutation  # dataclasses look their module up there
_spec.loader.exec_module(mutation)

SOURCE = '''\
"""Module docstring: 0 and 1 in here are never mutated."""
import logging

logger = logging.getLogger(__name__)


def clamp(x, low=0, high=1):
    """Docstring."""
    logger.debug("clamp %d", 1)
    if x < low:  # a comment with < and + in it
        return low
    total = (x + 2) * 3 / 4
    total -= 1
    notify(total)
    return x is None or total != high or x in (True,)
'''


def _edits(source):
    """{(operator, line): [the changed lines, stripped]} for each mutant of `source`."""
    old = source.splitlines()
    edits = {}
    for mutant in mutation.generate_mutants(source, "m.py"):
        new = mutant.source.splitlines()
        assert len(new) == len(old), "a mutant keeps every other line where it was"
        changed = [n.strip() for o, n in zip(old, new) if o != n]
        assert changed, mutant.label
        edits.setdefault((mutant.operator, mutant.lineno), []).append("\n".join(changed))
    return edits


def test_each_operator_makes_its_one_token_edit():
    edits = _edits(SOURCE)
    assert edits[("compare", 10)] == ["if x <= low:  # a comment with < and + in it"]
    assert edits[("if", 10)] == ["if not (x < low):  # a comment with < and + in it"]
    assert edits[("return", 11)] == ["return None"]
    assert sorted(edits[("arith", 12)]) == sorted(
        ["total = (x - 2) * 3 / 4", "total = (x + 2) / 3 / 4", "total = (x + 2) * 3 * 4"]
    )
    assert edits[("arith", 13)] == ["total += 1"]
    assert edits[("constant", 13)] == ["total -= 0"]
    assert edits[("call", 14)] == ["pass"]
    assert sorted(edits[("compare", 15)]) == sorted(
        [
            "return x is not None or total != high or x in (True,)",
            "return x is None or total == high or x in (True,)",
            "return x is None or total != high or x not in (True,)",
        ]
    )
    assert edits[("constant", 15)] == ["return x is None or total != high or x in (False,)"]
    assert edits[("constant", 7)] == [
        "def clamp(x, low=1, high=1):",
        "def clamp(x, low=0, high=0):",
    ]


def test_docstrings_and_logging_are_left_alone():
    edits = _edits(SOURCE)
    assert not [key for key in edits if key[1] in (1, 8, 9)]


def test_every_mutant_parses_and_is_in_source_order():
    mutants = mutation.generate_mutants(SOURCE, "m.py")
    assert len(mutants) == 16
    for mutant in mutants:
        ast.parse(mutant.source)
        assert mutant.source != SOURCE
    assert [m.lineno for m in mutants] == sorted(m.lineno for m in mutants)


def test_multiline_and_unicode_positions():
    # ast columns are UTF-8 byte offsets: the é before the operator must not shift it.
    source = 'x = ("é" ==\n     y)\nif (a and\n        b):\n    pass\n'
    edits = _edits(source)
    assert edits[("compare", 1)] == ['x = ("é" !=']
    assert edits[("if", 3)] == ["if (not (a and\nb)):"]


def test_sampling_is_deterministic_and_per_module():
    mutants = mutation.generate_mutants(SOURCE, "m.py")
    first = mutation.sample_mutants(mutants, 5, seed=3)
    assert len(first) == 5
    assert [m.label for m in first] == [m.label for m in mutation.sample_mutants(mutants, 5, 3)]
    assert [m.lineno for m in first] == sorted(m.lineno for m in first)
    seeds = {tuple(m.label for m in mutation.sample_mutants(mutants, 5, s)) for s in range(6)}
    assert len(seeds) > 1, "the seed changes the sample"
    assert mutation.sample_mutants(mutants, None, 0) == mutants
    assert mutation.sample_mutants(mutants, 100, 0) == mutants


@pytest.mark.parametrize("path", sorted(mutation.MODULES))
def test_mapped_modules_and_tests_exist(path):
    root = _PATH.parent.parent
    assert (root / path).is_file()
    args = mutation.module_args(path)
    assert path in args, "the module's own doctests run too"
    if "-k" in args:  # the filter stays last, after every path
        assert args.index("-k") == len(args) - 2
    for arg in args:
        if arg.startswith(("tests/", "dygraph/")):
            assert (root / arg).exists(), arg
