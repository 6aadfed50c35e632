"""The behaviour-parity table: ``python -m tools.paddle_diff.report [--markdown] [ns ...]``.

Per namespace, the share of recorded cases where DyGraph answers as Paddle did, the
differences listed as deliberate or to fix, and the unlisted ones; then every difference
with its reason. ``--markdown`` prints only the table, as in docs/API-COVERAGE.md;
``--unlisted-json`` prints entries for the unlisted differences, grouped by namespace,
variant and difference, to review and add to tests/data/parity/known_differences.json;
``--prune`` removes from that file the listed cases that no longer differ as stated (fixed
since), and the entries left with none.
"""

import argparse
import json
from collections import defaultdict

from . import store
from .replay import KNOWN, Listing, known, replay

# what a variant tests, for the reasons of generated "to fix" entries
VARIANTS = {"0d": "a 0-D input", "0size": "a 0-size input", "bcast": "broadcast inputs",
            "bcast2": "broadcast inputs", "bad_shape": "inputs of mismatched shapes",
            "bad_type": "a string for a tensor", "defaults": "every keyword at its default",
            "grad": "the gradient", "keepdim": "keepdim=True", "f32": "a float32 input",
            # the class cases (tools/paddle_diff/classes.py)
            "state": "the state_dict after construction (keys, dtypes, shapes)",
            "train": "the forward in train mode, and the buffers after it",
            "eval": "the forward in eval mode", "bad": "an invalid construction argument",
            "default": "the default arguments (optimizers: 3 steps and the state_dict keys)"}


def summarize(namespaces=None):
    """Rows ``(namespace, cases, same, deliberate, to_fix, unlisted)`` and the differences
    ``[(case id, reasons, entry or None)]``."""
    listed = Listing(known())
    rows, diffs = [], []
    for ns in namespaces or store.namespaces():
        results = replay(ns)
        counts = {"deliberate": 0, "to fix": 0, None: 0}
        for cid, why in sorted(results.items()):
            if why:
                entry = listed.entry_for(cid, why)
                counts[entry["status"] if entry else None] += 1
                diffs.append((cid, why, entry))
        same = sum(not why for why in results.values())
        rows.append((ns, len(results), same, counts["deliberate"], counts["to fix"],
                     counts[None]))
    return rows, diffs


def table(rows):
    """The rows as a Markdown table.

    >>> print(table([("fft", 10, 9, 1, 0, 0)]).splitlines()[2])
    | fft | 10 | 9 | 90.0% | 1 | 0 | 0 |
    """
    lines = ["| namespace | cases | as Paddle | share | deliberate | to fix | unlisted |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    total = [0] * 5
    for ns, cases, same, deliberate, to_fix, unlisted in rows:
        lines.append(f"| {ns} | {cases} | {same} | {100 * same / max(cases, 1):.1f}% | "
                     f"{deliberate} | {to_fix} | {unlisted} |")
        total = [a + b for a, b in zip(total, (cases, same, deliberate, to_fix, unlisted))]
    if len(rows) > 1:
        lines.append(f"| all | {total[0]} | {total[1]} | {100 * total[1] / max(total[0], 1):.1f}%"
                     f" | {total[2]} | {total[3]} | {total[4]} |")
    return "\n".join(lines)


def unlisted_entries(diffs):
    """``to fix`` entries for the unlisted differences, one per namespace, variant and
    difference.

    >>> unlisted_entries([("fft.fft:f:0d", ["raises IndexError, Paddle ValueError"], None)])[0]
    ... # doctest: +NORMALIZE_WHITESPACE
    {'namespace': 'fft', 'cases': ['fft.fft:f:0d'],
     'difference': 'raises IndexError, Paddle ValueError', 'status': 'to fix',
     'reason': 'a 0-D input'}
    """
    groups = defaultdict(list)
    for cid, why, entry in diffs:
        if entry is None:
            namespace, label = cid.split(":")[0].rsplit(".", 1)[0], cid.split(":")[-1]
            groups[(namespace, label, "; ".join(why))].append(cid)
    return [{"namespace": ns, "cases": ids, "difference": why, "status": "to fix",
             "reason": VARIANTS.get(label, f"the argument {label}" if "=" in label
                                    else f"a {label} input")}
            for (ns, label, why), ids in sorted(groups.items())]


def prune(namespaces=None):
    """Drop the stale case patterns (listed, but no longer differing as stated) from the
    known differences, and entries left without cases; returns how many were dropped."""
    entries = known()
    listing = Listing(entries)
    stale = set()
    for ns in namespaces or store.namespaces():
        _, gone = listing.audit(ns, replay(ns))
        stale.update((ns, key) for key in gone)
    dropped = 0
    for entry in entries:
        label = f" ({entry['difference']})" if "difference" in entry else ""
        keep = [p for p in entry["cases"] if (entry["namespace"], p + label) not in stale]
        dropped += len(entry["cases"]) - len(keep)
        entry["cases"] = keep
    entries = [e for e in entries if e["cases"]]
    KNOWN.write_text("[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]\n")
    return dropped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespaces", nargs="*")
    parser.add_argument("--markdown", action="store_true", help="print only the table")
    parser.add_argument("--unlisted-json", action="store_true",
                        help="print entries for the unlisted differences")
    parser.add_argument("--prune", action="store_true",
                        help="remove the listed cases that no longer differ")
    args = parser.parse_args(argv)
    if args.prune:
        print(f"pruned {prune(args.namespaces)} case patterns from {KNOWN}")
        return
    rows, diffs = summarize(args.namespaces)
    if args.unlisted_json:
        print(json.dumps(unlisted_entries(diffs), indent=1))
        return
    print(table(rows))
    if args.markdown:
        return
    print("\nDifferences:")
    for cid, why, entry in diffs:
        status = f"[{entry['status']}: {entry['reason']}]" if entry else "[unlisted]"
        print(f"  {cid}: {'; '.join(why)} {status}")


if __name__ == "__main__":
    main()
