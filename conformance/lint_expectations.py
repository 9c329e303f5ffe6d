"""Checks a candidate's expectations file against every case id the spec generates.

Usage: lint_expectations.py MANIFEST EXPECTATIONS...
Each entry's glob must match at least one case id of the manifest (generators/emit_gtest.py
--suite manifest); an entry matching nothing is stale (a typo, or a row that was renamed or
removed) and fails the check. Also checks the entry format as the harness parses it.
Standard library only; the glob is the harness's (conformance/harness.cc GlobMatch):
'*' matches any run, '?' one character, nothing else is special.
"""

import re
import sys


def glob_to_regex(pattern: str) -> re.Pattern:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern) + r"\Z", re.S)


def lint(manifest: str, path: str) -> list[str]:
    ids = [line.split("\t", 1)[1] for line in open(manifest).read().splitlines() if line and not line.startswith("#")]
    problems = []
    for n, raw in enumerate(open(path).read().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split(None, 2)
        if len(fields) < 3 or fields[1] != "FAIL":
            problems.append(f"{path}:{n}: expected '<case-id glob> FAIL <reason>', got {raw.strip()!r}")
            continue
        rx = glob_to_regex(fields[0])
        matched = sum(1 for i in ids if rx.match(i))
        if matched == 0:
            problems.append(f"{path}:{n}: stale entry: '{fields[0]}' matches no case of the spec")
        else:
            print(f"{path}:{n}: '{fields[0]}' matches {matched} case(s)")
    return problems


if __name__ == "__main__":
    problems = []
    for p in sys.argv[2:]:
        problems += lint(sys.argv[1], p)
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)
