"""Checks a candidate's expectations file against every case id the spec generates.

Usage: lint_expectations.py MANIFEST EXPECTATIONS...
Each entry's glob must match at least one case id of the manifest (generators/emit_gtest.py
--suite manifest: suite, case id and spec row, tab-separated, per line); an entry matching nothing is stale (a typo, or a row that was renamed or
removed) and fails the check. The file is read by the one expectations parser
(conformance/runner/expectations.py; grammar: conformance/expectations/FORMAT.md), so a file
the runner rejects fails here too. Standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expectations  # noqa: E402


def case_ids(manifest: str) -> list[str]:
    with open(manifest, encoding="utf-8") as f:
        return [line.split("\t")[1] for line in f.read().splitlines() if line and not line.startswith("#")]


def lint(ids: list[str], path: str) -> list[str]:
    try:
        entries = expectations.load(path)
    except expectations.ExpectationsError as e:
        return [str(e)]
    problems = []
    for e in entries:
        matched = sum(1 for i in ids if e.matches(i))
        if matched == 0:
            problems.append(f"{path}:{e.line}: stale entry: '{e.pattern}' matches no case of the spec")
        else:
            print(f"{path}:{e.line}: '{e.pattern}' {e.outcome} matches {matched} case(s)")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ids = case_ids(argv[0])
    problems = []
    for p in argv[1:]:
        problems += lint(ids, p)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
