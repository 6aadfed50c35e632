"""Replay Paddle 3.3's recorded answers against DyGraph (issue 28): no Paddle needed.

The cases and answers were recorded by tools/paddle_diff (``python -m
tools.paddle_diff.record`` reruns them in Paddle). Every difference must be listed in
tests/data/parity/known_differences.json, and every listed difference must still differ,
so the list stays honest. ``python -m tools.paddle_diff.report`` prints the table.
"""

import pytest

from tools.paddle_diff import store
from tools.paddle_diff.replay import Listing, known, replay


@pytest.mark.parametrize("namespace", store.namespaces())
def test_dygraph_answers_the_recorded_cases_as_paddle(namespace):
    results = replay(namespace)
    unlisted, stale = Listing(known()).audit(namespace, results)
    lines = [f"{cid}: {'; '.join(why)}" for cid, why in sorted(unlisted.items())]
    lines += [f"listed but no longer differs: {key}" for key in stale]
    assert not lines, f"{len(unlisted)} unlisted differences, {len(stale)} stale entries:\n" \
        + "\n".join(lines[:200])


def test_the_known_differences_have_a_status_and_a_reason():
    for entry in known():
        assert entry.get("status") in ("deliberate", "to fix"), entry
        assert entry.get("reason") and entry.get("cases"), entry
        assert entry.get("namespace") in store.namespaces(), entry
