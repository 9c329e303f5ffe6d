"""Checks a candidate's expectations file against every case id the spec generates.

Usage: lint_expectations.py [--reviewed] MANIFEST EXPECTATIONS...
       (from the bundle: tcts lint [--reviewed] EXPECTATIONS..., which passes the bundle's
       conformance/case_manifest.txt as MANIFEST)
Each entry's glob must match at least one case id of the manifest (generators/emit_gtest.py
--suite manifest: suite, case id and spec row, tab-separated, per line); an entry matching
nothing is stale (a typo, or a row that was renamed or removed) and fails the check. A pattern
listed twice (in one file or across a file and the files it includes) fails it too: the
second one can never apply. Reasons that start with 'UNREVIEWED:' (what the runner's
--write-expectations writes) are counted; with --reviewed (the project's own files) any such
reason fails the check. The file is read by the one expectations parser
(conformance/runner/expectations.py; grammar: conformance/expectations/FORMAT.md), so a file
the runner rejects fails here too. Standard library only.
"""

import collections
import sys

from conformance.runner import expectations


def case_ids(manifest: str) -> list[str]:
    with open(manifest, encoding="utf-8") as f:
        return [line.split("\t")[1] for line in f.read().splitlines() if line and not line.startswith("#")]


def lint(ids: list[str], path: str, reviewed: bool = False) -> list[str]:
    try:
        entries = expectations.load(path)
    except expectations.ExpectationsError as e:
        return [str(e)]
    problems = []
    first: dict[tuple, expectations.Entry] = {}
    unreviewed = 0
    index = expectations.Index(entries)
    counts = collections.Counter(k for i in ids for k in index.matching(i))
    for k, e in enumerate(entries):
        key = (e.pattern, expectations.is_wording_rule(e))  # a wording rule never shadows an entry
        if key in first:
            problems.append(f"{e.where}: '{e.pattern}' repeats the entry at {first[key].where} "
                            f"(the first matching entry decides: this one never applies)")
            continue
        first[key] = e
        if e.unreviewed:
            unreviewed += 1
            if reviewed:
                problems.append(f"{e.where}: '{e.pattern}' has an unreviewed reason ({e.reason[:80]}): replace it "
                                f"with the library's rule and its source")
        matched = counts[k]
        if matched == 0:
            problems.append(f"{e.where}: stale entry: '{e.pattern}' matches no case of the spec")
        else:
            print(f"{e.where}: '{e.pattern}' {e.outcome} matches {matched} case(s)")
    reasons = len({e.reason for e in entries})
    print(f"{path}: {len(entries)} entries, {reasons} distinct reasons, {unreviewed} unreviewed")
    return problems


def main(argv: list[str]) -> int:
    reviewed = "--reviewed" in argv
    argv = [a for a in argv if a != "--reviewed"]
    if len(argv) < 2 or any(a.startswith("--") for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    ids = case_ids(argv[0])
    problems = []
    for p in argv[1:]:
        problems += lint(ids, p, reviewed)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
