"""A candidate's expectations file: the known deviations, one entry per line.

    <case-id glob> <OUTCOME> <reason...>      '#' starts a comment

OUTCOME is what the case does instead of passing: FAIL (it deviates from the spec), CRASH
(it takes the process down) or TIMEOUT (it does not finish). '*' in the glob matches any
run, '?' one character, nothing else is special. The harness parses the same format
(conformance/harness.cc Expectations::Parse) for the in-process FAIL/XFAIL decision; the
runner (run.py) uses this module for CRASH and TIMEOUT and for stale entries, and the lint
(lint_expectations.py) for entries that match no case of the spec.
Standard library only.
"""

from __future__ import annotations

import dataclasses
import re

OUTCOMES = ("FAIL", "CRASH", "TIMEOUT")


class ExpectationsError(Exception):
    pass


@dataclasses.dataclass
class Entry:
    pattern: str
    outcome: str
    reason: str
    line: int
    regex: re.Pattern = dataclasses.field(repr=False, compare=False, default=None)

    def matches(self, case_id: str) -> bool:
        return bool(self.regex.match(case_id))


def glob_to_regex(pattern: str) -> re.Pattern:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern) + r"\Z", re.S)


def parse(path: str, text: str) -> list[Entry]:
    """The entries of `text` (read from `path`); ExpectationsError naming the line on bad input."""
    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split(None, 2)
        if len(fields) < 2:
            raise ExpectationsError(f"{path}:{n}: '{fields[0]}' has no outcome (expected {', '.join(OUTCOMES)})")
        if fields[1] not in OUTCOMES:
            raise ExpectationsError(f"{path}:{n}: unknown outcome '{fields[1]}' (expected {', '.join(OUTCOMES)})")
        if len(fields) < 3:
            raise ExpectationsError(f"{path}:{n}: '{fields[0]}' needs a reason")
        entries.append(Entry(fields[0], fields[1], fields[2], n, glob_to_regex(fields[0])))
    return entries


def load(path: str) -> list[Entry]:
    try:
        with open(path, encoding="utf-8") as f:
            return parse(path, f.read())
    except OSError as e:
        raise ExpectationsError(f"cannot read expectations file '{path}': {e.strerror}") from None


def match(entries: list[Entry], case_id: str) -> Entry | None:
    """The first entry whose glob matches `case_id` (the harness's rule)."""
    for e in entries:
        if e.matches(case_id):
            return e
    return None
