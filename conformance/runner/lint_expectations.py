"""Checks a candidate's expectations file against every case id the spec generates.

Usage: lint_expectations.py MANIFEST EXPECTATIONS...
Each entry's glob must match at least one case id of the manifest (generators/emit_gtest.py
--suite manifest); an entry matching nothing is stale (a typo, or a row that was renamed or
removed) and fails the check. The format is checked as the harness parses it
(conformance/expectations.py). Standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expectations  # noqa: E402


def lint(manifest: str, path: str) -> list[str]:
    ids = [line.split("\t", 1)[1] for line in open(manifest).read().splitlines() if line and not line.startswith("#")]
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


if __name__ == "__main__":
    problems = []
    for p in sys.argv[2:]:
        problems += lint(sys.argv[1], p)
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)
