"""The spec in a report: the generated spec.json read (load_spec), its statements, and what
each case observed of the statements its spec row tests (spec_coverage)."""

from __future__ import annotations

import collections
import json
import os

from .report_schema import OUTCOMES, ReportError


# The spec as the runner reads it: spec.json (//spec:spec.json, generators/emit_json.py), which the
# generators write only after every table, statement and derivation passed their checks; so
# nothing here validates a row again.
SPEC_JSON_VERSION = 2  # the spec.json schema_version read here (emit_json.SCHEMA_VERSION)


def load_spec(path: str) -> dict:
    """The generated spec.json at `path`; ReportError naming it where it cannot be read or is no
    spec.json of the version read here."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError(f"spec '{path}': cannot read: {e.strerror}") from None
    except ValueError as e:
        raise ReportError(f"spec '{path}': not valid JSON: {e}") from None
    if not (isinstance(doc, dict) and doc.get("schema_version") == SPEC_JSON_VERSION
            and isinstance(doc.get("tables"), dict)
            and all(isinstance(doc["tables"].get(t), dict) for t in ("statements", "features"))
            and isinstance(doc.get("generated_from"), list)):
        raise ReportError(f"spec '{path}': not a generated spec.json of schema_version {SPEC_JSON_VERSION} "
                          "with tables (bazel build //spec:spec.json)")
    return doc


def spec_statements(spec: dict) -> tuple[list[dict], str]:
    """The statement table of a loaded spec.json: each statement's id, clause, quote, the spec rows
    that test it or why none does, and the checks it is about; and the spec file it comes from
    (spec/statements.toml, as spec.json's generated_from names it)."""
    out = [{"id": s["id"], "clause": s["clause"], "quote": s["quote"], "rows": list(s.get("rows", [])),
            **({"untested": s["untested"]} if "untested" in s else {}),
            **({"checks": list(s["checks"])} if "checks" in s else {})}
           for s in spec["tables"]["statements"].get("statement", [])]
    source = next((f for f in spec["generated_from"] if os.path.basename(f) == "statements.toml"), "statements.toml")
    return out, source


# Checks about the candidate's harness, not about what a statement says: a call made before the
# operation under test (setup), and whether a NotSupported answer agrees with the declaration.
HARNESS_CHECKS = ("setup", "declaration")


# An error's wording (the check 'message') is what a statement says only where it names the check
# (spec/statements.toml `checks`: the documents quote the message, as 002's cast error); a
# statement about every check is not broken by a library's own words.
STATED_ONLY_CHECKS = ("message",)


def failing_checks(case: dict) -> set:
    """The checks a case failed: its `checks` FAIL entries, else its mismatches' kinds."""
    got = {k for k, v in (case.get("checks") or {}).items() if v == "FAIL"}
    return got or {m["kind"] for m in case.get("mismatches", []) if m.get("kind")}


def statement_outcome(case: dict, about) -> str | None:
    """What a case observed of a statement about the checks `about` (None: every check but
    HARNESS_CHECKS and STATED_ONLY_CHECKS). Say only what was observed: a case FAILs or XFAILs a
    statement only by failing one of those checks; a case that failed others but passed one of those
    meets it (PASS); one that made none of them (its setup failed, the check was NOT_SUPPORTED) did
    not observe it (None).
    CRASH, TIMEOUT and NOT_SUPPORTED are the case's own; a case without per-check verdicts (a report
    before them, a property) is judged by its outcome."""
    o = case["outcome"]
    checks = case.get("checks")
    if o in ("NOT_SUPPORTED", "CRASH", "TIMEOUT") or not checks:
        return o
    wanted = (lambda k: k in about) if about is not None else \
        (lambda k: k not in HARNESS_CHECKS and k not in STATED_ONLY_CHECKS)  # noqa: E731
    if any(wanted(k) for k in failing_checks(case)):
        return o if o in ("FAIL", "XFAIL") else "FAIL"
    if any(wanted(k) and v == "PASS" for k, v in checks.items()):
        return "XPASS" if o == "XPASS" else "PASS"
    return None


def spec_coverage(statements: list[dict], cases: list[dict], source: str) -> dict:
    """Names in each case the statements its spec row tests (case["statements"]) and returns
    the report's spec_coverage: per statement, its rows or why none, and the outcomes of its
    cases in this run."""
    of_row: dict[str, list[str]] = {}
    for s in statements:
        for r in s["rows"]:
            of_row.setdefault(r, []).append(s["id"])
    outcomes: dict[str, collections.Counter] = {s["id"]: collections.Counter() for s in statements}
    about = {s["id"]: s.get("checks") for s in statements}
    for c in cases:
        ids = of_row.get(c.get("spec_row", ""))
        if ids:
            c["statements"] = ids
            for sid in ids:
                outcomes[sid][statement_outcome(c, about[sid]) or "not_observed"] += 1
    return {"file": source, "statements": [
        {**s, "cases": sum(outcomes[s["id"]].values()),
         "outcomes": {o: outcomes[s["id"]][o] for o in OUTCOMES if outcomes[s["id"]][o]},
         **({"not_observed": outcomes[s["id"]]["not_observed"]} if outcomes[s["id"]]["not_observed"] else {})}
        for s in statements]}
