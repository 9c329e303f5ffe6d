"""Lists the cases whose outcome changed between two reports (two runs, or two candidates).

    bazel run //reports:diff -- A.json B.json [--all]

Prints one line per case whose outcome differs (A -> B), grouped by the kind of change,
then cases only in A and only in B, the verdicts when they differ, and a count line. --all
also prints unchanged counts per outcome. Reads reports of schema version 1, 2 and 3.

Exit status: 0 when nothing changed, 1 when something did, 2 on bad input — a file that
cannot be read, is not UTF-8, is not JSON, is nested too deeply, or is not a tensor-cts
report; the message names the file and the problem. Needs python3-jsonschema
(/usr/bin/python3).
"""

from __future__ import annotations

import collections
import os
import sys

from . import cli
from . import report_schema
from . import report_score
from . import report_terminal


def outcomes(doc: dict) -> dict[str, dict]:
    """Case id -> case. Ids are unique within a report (the runner writes each case once)."""
    return {c["id"]: c for c in doc["cases"]}


def diff(a: dict, b: dict) -> tuple[dict, list, list, collections.Counter]:
    """(changes grouped by (outcome in A, outcome in B), ids only in A, ids only in B, unchanged counts)."""
    ca, cb = outcomes(a), outcomes(b)
    changes: dict[tuple, list] = collections.defaultdict(list)
    same: collections.Counter = collections.Counter()
    for case_id in sorted(ca.keys() & cb.keys()):
        oa, ob = ca[case_id]["outcome"], cb[case_id]["outcome"]
        if oa != ob:
            changes[(oa, ob)].append(case_id)
        else:
            same[oa] += 1
    return dict(sorted(changes.items())), sorted(ca.keys() - cb.keys()), sorted(cb.keys() - ca.keys()), same


def load(path: str, where: str) -> dict:
    """The report at `path` (relative to `where`), validated; report_schema.ReportError naming the
    file and the problem otherwise, a report nested too deeply for the parser included."""
    try:
        return report_schema.load(os.path.join(where, path))
    except RecursionError:  # anything report_schema.load did not foresee: still bad input, not "changed"
        raise report_schema.ReportError(f"'{path}' is nested too deeply to be a report") from None


def label(doc: dict, path: str) -> str:
    c = doc["candidate"]
    return report_terminal.inert(f"{path} ({c['name']} {c['version']}, {doc['generated']})", 600)


def main(argv: list[str]) -> int:
    p = cli.parser("diff.py", __doc__)
    p.add_argument("a", metavar="A.json")
    p.add_argument("b", metavar="B.json")
    p.add_argument("--all", action="store_true", help="also print unchanged counts per outcome")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    show_all, paths = args.all, [args.a, args.b]
    where = cli.working_directory()
    docs = []
    for p in paths:
        try:
            docs.append(load(p, where))
        except report_schema.ReportError as e:
            print(f"diff: bad input: {e}", file=sys.stderr)
            return 2
    a, b = docs
    changes, only_a, only_b, same = diff(a, b)
    print(f"A: {label(a, paths[0])}\nB: {label(b, paths[1])}")
    cases_b = outcomes(b)
    cases_a = outcomes(a)
    for (oa, ob), ids in changes.items():
        print(f"\n{report_terminal.inert(oa)} -> {report_terminal.inert(ob)} ({len(ids)}):")
        for i in ids:
            c = cases_b[i] if ob not in ("PASS",) else cases_a[i]
            detail = c["observed"] if c["outcome"] != "PASS" else ""
            # Every field is the candidate's to write: ESC, CR, BEL, NUL shown as escapes.
            print(f"  {report_terminal.inert(i)}  [{report_terminal.inert(c['clause'])}]"
                  + (f"  {report_terminal.inert(detail)}" if detail else ""))
    for title, ids in (("only in A", only_a), ("only in B", only_b)):
        if ids:
            print(f"\n{title} ({len(ids)}):")
            for i in ids[:200]:
                print(f"  {report_terminal.inert(i)}")
            if len(ids) > 200:
                print(f"  ... and {len(ids) - 200} more")
    va, vb = report_score.verdict(a), report_score.verdict(b)
    if va != vb:
        print(f"\nverdict: {va} -> {vb}")
    if show_all:
        print("\nunchanged: " + ", ".join(f"{n} {o}" for o, n in same.most_common()))
    changed = sum(len(v) for v in changes.values())
    print(f"\n{changed} changed, {len(only_a)} only in A, {len(only_b)} only in B, {sum(same.values())} unchanged")
    return 1 if changed or only_a or only_b else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
