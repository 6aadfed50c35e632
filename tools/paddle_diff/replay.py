"""Replay the recorded cases against DyGraph and sort the differences against the list
of known ones (tests/data/parity/known_differences.json).

A known difference names its cases by case ids (``linalg.inv:f:int32``) or globs over
them (``fft.*:f:bool``), optionally the exact difference, a ``status`` (``deliberate``: a
Paddle behaviour we do not copy; ``to fix``) and a ``reason``, under its ``namespace``.
"""

import fnmatch
import json

from . import store
from .compare import differences
from .record import run_case

KNOWN = store.DATA / "known_differences.json"


def replay(namespace, fw=None):
    """``{case id: [reasons]}`` for every recorded case of a namespace (empty list: same).

    >>> import dygraph
    >>> results = replay("fft", dygraph)
    >>> sum(not reasons for reasons in results.values()) > 0
    True
    """
    if fw is None:
        import dygraph as fw
    results = {}
    for case in store.read(namespace):
        try:
            got = run_case(namespace, case, fw)
        except Exception as exc:  # noqa: BLE001 - a harness failure is a difference too
            results[case["id"]] = [f"the case could not run: {type(exc).__name__}: {exc}"]
            continue
        results[case["id"]] = differences(case["expect"], got, case.get("random", False))
    return results


def known():
    """The known differences: a list of entries ``{"namespace", "cases", "difference",
    "status", "reason"}``."""
    if not KNOWN.exists():
        return []
    return json.loads(KNOWN.read_text())


def _is_glob(pattern):
    return any(c in pattern for c in "*?[")


def _states(entry, reasons):
    return "difference" not in entry or entry["difference"] == "; ".join(reasons)


class Listing:
    """The known differences, indexed: case ids directly, globs in order.

    >>> entry = {"namespace": "fft", "cases": ["fft.*:f:bool"],
    ...          "difference": "returns, Paddle raises RuntimeError"}
    >>> found = Listing([entry]).entry_for("fft.fft:f:bool",
    ...                                    ["returns, Paddle raises RuntimeError"])
    >>> found is entry
    True
    """

    def __init__(self, entries):
        self.by_id, self.globs = {}, []
        for entry in entries:
            for pattern in entry["cases"]:
                if _is_glob(pattern):
                    self.globs.append((pattern, entry))
                else:
                    self.by_id.setdefault(pattern, []).append(entry)
        self.entries = entries

    def entry_for(self, case_id, reasons):
        """The entry that covers a differing case (by id first, then by glob), or None."""
        for entry in self.by_id.get(case_id, []):
            if _states(entry, reasons):
                return entry
        for pattern, entry in self.globs:
            if fnmatch.fnmatchcase(case_id, pattern) and _states(entry, reasons):
                return entry
        return None

    def audit(self, namespace, results):
        """The differences not listed, and the listed cases of this namespace that no
        longer differ as stated (fixed since, or never true): both fail the test."""
        unlisted = {cid: why for cid, why in results.items()
                    if why and self.entry_for(cid, why) is None}
        stale = []
        for entry in self.entries:
            if entry["namespace"] != namespace:
                continue
            for pattern in entry["cases"]:
                if _is_glob(pattern):
                    alive = any(why and fnmatch.fnmatchcase(cid, pattern) and
                                _states(entry, why) for cid, why in results.items())
                else:
                    alive = bool(results.get(pattern)) and _states(entry, results[pattern])
                if not alive:
                    stale.append(pattern + (f" ({entry['difference']})"
                                            if "difference" in entry else ""))
        return unlisted, stale
