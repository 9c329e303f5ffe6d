"""report.json: building, validating, summarizing, and writing a run's report with its renderings.

report.json is the canonical form; its schema is reports/report.schema.json (versioned).
report.md and report.html are rendered from it by reports/render.py; badge.json (the headline
as a shields.io endpoint badge, badge()) is written beside them by render.write_all, the one
writer of them all.

    /usr/bin/python3 reports/report.py validate report.json   checks a report against its schema
    /usr/bin/python3 reports/report.py summary report.json    prints the text summary

Validation is by a real JSON-schema implementation: Debian's python3-jsonschema, with the
draft the schema declares ($schema: 2020-12). It imports only under Debian's interpreter
(/usr/bin/python3), which the runner, its tests and these tools use. Reports of schema
versions 1 and 2 (report.schema.v1.json, report.schema.v2.json) are still read, for diffs
against older runs. Version 3 adds the conformance score beside the gate (`conformance`,
`summary.headline`, each case's `features`).
"""

from __future__ import annotations

import collections
import datetime
import json
import os
import re
import platform
import socket
import subprocess
import sys
import unicodedata

import cli  # reports/cli.py, beside this file
import families  # reports/families.py, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(HERE, "report.schema.json")
SCHEMA_VERSION = 3
OUTCOMES = ("PASS", "XFAIL", "FAIL", "XPASS", "NOT_SUPPORTED", "CRASH", "TIMEOUT")
UNEXPECTED = ("FAIL", "XPASS", "CRASH", "TIMEOUT")


class ReportError(Exception):
    pass


# ---------------------------------------------------------------- what the tools import
# The Debian packages the report tools import beyond Python's standard library, by module: the
# schema check and the HTML pages' templates. A run checks them before it starts (run.py), so a
# machine without one is told which to install instead of losing the run to a traceback at the end.
LIBRARIES = {"jsonschema": "python3-jsonschema", "jinja2": "python3-jinja2"}


def missing_libraries() -> list[str]:
    """The packages of LIBRARIES whose module this interpreter cannot import."""
    import importlib

    missing = []
    for module, package in LIBRARIES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(package)
    return missing


# ---------------------------------------------------------------- the schema
try:
    import jsonschema
except ImportError:  # not Debian's interpreter, or python3-jsonschema missing
    jsonschema = None

SCHEMA_PATHS = {1: os.path.join(HERE, "report.schema.v1.json"), 2: os.path.join(HERE, "report.schema.v2.json"),
                SCHEMA_VERSION: SCHEMA_PATH}


def schema(version: int = SCHEMA_VERSION) -> dict:
    with open(SCHEMA_PATHS[version], encoding="utf-8") as f:
        return json.load(f)


def _validator(s: dict):
    if jsonschema is None:
        raise ReportError("validating a report needs python3-jsonschema (Debian: apt-get install python3-jsonschema), "
                          f"which {sys.executable} does not see: run the report tools with /usr/bin/python3")
    cls = jsonschema.validators.validator_for(s)  # the draft the schema's $schema names
    cls.check_schema(s)
    return cls(s)


def check_schema(value, s: dict, limit: int = 20) -> list[str]:
    """The ways `value` breaks schema `s`, one line each: where (a JSON path) and what."""
    problems = []
    for e in sorted(_validator(s).iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]):
        where = "report" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
        problems.append(f"{where}: {e.message[:300]}")
        if len(problems) >= limit:
            break
    return problems


# Keywords that say nothing about a value but its JSON type (and words for people).
_TYPE_ONLY = {"type", "description", "title", "$comment"}


def _blanks_strings(s) -> bool:
    """Whether subschema `s` checks nothing of a value but its type, and allows a string: any
    string then meets it as well as another, so a case's shape may hold "" in its place."""
    if not (isinstance(s, dict) and "type" in s and set(s) <= _TYPE_ONLY):
        return False
    return "string" in (s["type"] if isinstance(s["type"], list) else [s["type"]])


_OBJECT_ONLY = _TYPE_ONLY | {"properties", "required", "additionalProperties"}


def _shaper(s):
    """The function that maps a value to its shape under subschema `s`, or None where values are
    kept as they are: each string its subschema checks only by type becomes "", into arrays
    ("items" alone) and objects ("properties"; their keys are kept, so "required" and
    "additionalProperties" judge a shape as they judge the value). Built once per schema."""
    if _blanks_strings(s):
        return lambda v: "" if type(v) is str else v
    if isinstance(s, dict) and set(s) <= _TYPE_ONLY | {"items"} and "items" in s:
        item = _shaper(s["items"])
        return None if item is None else (lambda v: [item(x) for x in v] if type(v) is list else v)
    if isinstance(s, dict) and set(s) <= _OBJECT_ONLY and isinstance(s.get("properties"), dict):
        props = {k: f for k, p in s["properties"].items() if (f := _shaper(p)) is not None}
        if not props:
            return None
        return lambda v: {k: props[k](x) if k in props else x for k, x in v.items()} if type(v) is dict else v
    return None


def _case_shapes(doc: dict, s: dict):
    """The report with its cases replaced by their distinct shapes, or None where the schema's
    form does not allow it. A case's shape is the case with each string that its subschema checks
    only by type (the text fields, a mismatch's texts) replaced by "" (_shaper): a shape meets the
    case schema exactly when its cases do, so jsonschema checks a few hundred shapes in place of
    every case (most of a main job's report-writing time: 15,000 cases of the reference took 5 s;
    the NumPy testee's 7,000 failures, each its own shape while a mismatch's texts were kept, 2 s)."""
    cases_s = s.get("properties", {}).get("cases")
    if not (isinstance(doc, dict) and isinstance(doc.get("cases"), list) and set(s) <= {
            "$schema", "$id", "title", "description", "type", "required", "additionalProperties", "properties"}
            and isinstance(cases_s, dict) and set(cases_s) <= {"type", "items", "description"}
            and isinstance(cases_s.get("items"), dict)):
        return None
    shape_of = _shaper(cases_s["items"]) or (lambda v: v)
    shapes = {}
    for c in doc["cases"]:
        if not isinstance(c, dict):
            return None
        shape = shape_of(c)
        shapes.setdefault(repr(shape), shape)  # equal reprs: equal shapes (1, 1.0 and True differ)
    return {**doc, "cases": list(shapes.values())}


def validate(doc: dict, version: int = SCHEMA_VERSION) -> None:
    s = schema(version)
    shapes = _case_shapes(doc, s)
    # The shapes first; where they break the schema, the cases themselves, for the problems' paths.
    problems = [] if shapes is not None and not check_schema(shapes, s, limit=1) else check_schema(doc, s)
    if not problems and isinstance(doc.get("cases"), list):
        seen: set = set()
        exp = doc.get("expectations")
        reasons = len(exp.get("reasons") or []) if isinstance(exp, dict) else 0
        for i, c in enumerate(doc["cases"]):
            if isinstance(c, dict) and isinstance(c.get("id"), str):
                if c["id"] in seen:
                    problems.append(f"report.cases[{i}].id: {c['id'][:200]!r} is the id of an earlier case")
                    break
                seen.add(c["id"])
            if isinstance(c, dict) and isinstance(c.get("reason_ref"), int) and c["reason_ref"] >= reasons:
                problems.append(f"report.cases[{i}].reason_ref: {c['reason_ref']} is no index of expectations.reasons "
                                f"({reasons} reason(s))")
                break
    if problems:
        name = os.path.basename(SCHEMA_PATHS[version])
        raise ReportError(f"report does not match reports/{name}:\n  " + "\n  ".join(problems))


def _no_constant(name):
    raise ValueError(f"{name} is not JSON (the report tools' files hold no NaN or Infinity)")


def strict_json(text: str):
    """json.loads, refusing NaN and Infinity (Python's json reads them; JSON has no such value):
    ValueError; RecursionError when nested too deeply, as json.loads."""
    return json.loads(text, parse_constant=_no_constant)


def load(path: str) -> dict:
    """A report.json (schema version 1 or 2), validated; ReportError naming the file and the
    problem otherwise (unreadable, not UTF-8, not JSON, nested too deeply, not a report)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(f"cannot read report '{path}': {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ReportError(f"'{path}' is not UTF-8: byte 0x{data[e.start]:02X} at offset {e.start} (line {line})") from None
    try:
        doc = strict_json(text)
    except ValueError as e:
        raise ReportError(f"'{path}' is not JSON: {e}") from None
    except RecursionError:
        raise ReportError(f"'{path}' is nested too deeply to be a report") from None
    if not isinstance(doc, dict) or doc.get("schema") != "tensor-cts/report":
        raise ReportError(f"'{path}' is not a tensor-cts report (no \"schema\": \"tensor-cts/report\")")
    version = doc.get("schema_version")
    if version not in SCHEMA_PATHS or isinstance(version, bool):
        raise ReportError(f"'{path}' has schema_version {version!r}; this tool reads "
                          f"{', '.join(str(v) for v in sorted(SCHEMA_PATHS))}")
    try:
        validate(doc, version)
    except ReportError as e:
        raise ReportError(f"'{path}': {e}") from None
    except RecursionError:
        raise ReportError(f"'{path}' is nested too deeply to be a report") from None
    return doc


def verdict(doc: dict) -> str:
    """The report's verdict; version 1 reports had only `conforms`."""
    s = doc["summary"]
    return s.get("verdict") or ("CONFORMS" if s["conforms"] else "DOES NOT CONFORM")


# ---------------------------------------------------------------- building
def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    return {"hostname": socket.gethostname(), "os": f"{platform.system()} {platform.release()}",
            "cpu": cpu, "cpus": os.cpu_count() or 0, "memory_gib": memory, "python": platform.python_version()}


def tool_commit(where: str | None = None) -> str | None:
    """The tensor-cts commit that ran: the HEAD of the checkout at `where` (default: the
    workspace bazel run names, else this file's). The suite bundle, which has no checkout,
    passes its stamp to the runner instead (conformance/bundle/tcts.in: --suite-commit)."""
    where = where or os.environ.get("BUILD_WORKSPACE_DIRECTORY") or HERE
    try:
        p = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None


_NEEDS = re.compile(r"\(needs ([a-z_]+)\)$")  # a skipped check's text names the feature it needs


def summary(cases: list[dict], stale, features: list[dict], dtypes: list[dict] | None = None) -> dict:
    """The verdict (see report.schema.json summary.verdict) and the reasons for it."""
    counts = collections.Counter(c["outcome"] for c in cases)
    outcomes = {o: counts[o] for o in OUTCOMES}
    required_ns = [{"feature": f["name"], "cases": f["not_supported"]}
                   for f in features if f["level"] == "required" and f["not_supported"]]
    # A required dtype the candidate does not declare costs the verdict once, with its cases.
    missing_dtypes = [{"dtype": d["name"], "cases": d["not_supported"]}
                      for d in dtypes or [] if d["required"] and d["declared"] is False]
    unnamed = sum(1 for c in cases if c["outcome"] == "NOT_SUPPORTED" and not c.get("feature") and not c.get("dtype"))
    # Cases judged without some of their checks: a check that needs a feature the candidate
    # declares unsupported (values, on the meta device) is NOT_SUPPORTED by itself, and the case
    # is judged on the rest. Each such feature, with the cases it left partly judged.
    partly = collections.Counter()
    for c in cases:
        if c["outcome"] == "NOT_SUPPORTED":
            continue
        for feature in {m.group(1) for text in c.get("skipped_checks", []) for m in [_NEEDS.search(text)] if m}:
            partly[feature] += 1
    levels = {f["name"]: f["level"] for f in features}
    partly_judged = [{"feature": name, "cases": n} for name, n in sorted(partly.items())]
    why = []
    if not cases:
        verdict = "DOES NOT CONFORM"
        why.append("no case ran")
    elif any(outcomes[o] for o in UNEXPECTED) or stale:
        verdict = "DOES NOT CONFORM"
        why += [f"{outcomes[o]} {o}" for o in UNEXPECTED if outcomes[o]]
        if stale:
            why.append(f"{len(stale)} stale expectation{'s' if len(stale) != 1 else ''}")
    else:
        why += [f"required feature {r['feature']} answered NotSupported: {r['cases']} case{'s' if r['cases'] != 1 else ''} "
                "not exercised" for r in required_ns]
        why += [f"required feature {p['feature']} declared unsupported: {p['cases']} case{'s' if p['cases'] != 1 else ''} "
                f"judged without the checks that need it" for p in partly_judged if levels.get(p["feature"]) == "required"]
        why += [f"required dtype {m['dtype']} not declared: {m['cases']} case{'s' if m['cases'] != 1 else ''} "
                "not exercised" for m in missing_dtypes]
        if unnamed:
            why.append(f"{unnamed} case{'s' if unnamed != 1 else ''} NOT_SUPPORTED without naming a feature")
        if not outcomes["PASS"] and not outcomes["XFAIL"]:
            why.append(f"no case was exercised: all {len(cases)} NOT_SUPPORTED")
        verdict = "CONFORMS PARTIALLY" if why else "CONFORMS"
    return {"total": len(cases), "outcomes": outcomes, "verdict": verdict, "conforms": verdict == "CONFORMS",
            "why": why, "required_not_supported": required_ns, "missing_dtypes": missing_dtypes,
            "partly_judged": partly_judged}


# ---------------------------------------------------------------- spec coverage
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


# ---------------------------------------------------------------- root causes
DEVIATING = ("FAIL", "XFAIL", "CRASH", "TIMEOUT")
SPEC_TABLES_SKIPPED = ("statements", "sources", "features")  # spec.json tables that state no rule


def spec_derivations(spec: dict) -> dict[str, list]:
    """What each spec row derives from (`derives_from` in spec/*.toml; the generators checked the
    ids and that there is no cycle), from a loaded spec.json: {row id: [[parent row, [checks it
    decides]], ...]}, [] for every check; the tables in the order of their files' names."""
    edges: dict[str, list] = {}

    def walk(value):
        if isinstance(value, dict):
            rid = value.get("id", value.get("id_prefix"))
            if isinstance(rid, str) and isinstance(value.get("derives_from"), list):
                edges[rid] = [[p, c.split(",") if c else []] for p, _, c in
                              (str(d).partition(":") for d in value["derives_from"])]
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for name in sorted(spec["tables"], key=lambda n: n + ".toml"):
        if name not in SPEC_TABLES_SKIPPED:
            walk(spec["tables"][name])
    return edges


_ERROR_KIND = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception))\b")


def _error_kind(text: str) -> str:
    """The error kind a mismatch's text names (its first ...Error), else "no error" (an answer)."""
    m = _ERROR_KIND.search((text or "")[:120])
    return m.group(1) if m else "no error"


def signature(case: dict) -> str:
    """What a deviating case observed, coarsely: per mismatch kind (spec/interface.toml [[check]]),
    an error check as 'error kind EXPECTED → OBSERVED'; a crash or a hang as itself."""
    if case["outcome"] in ("CRASH", "TIMEOUT"):
        return case["outcome"]
    parts = []
    for m in case.get("mismatches", []):
        kind = m.get("kind") or "unknown check"
        want, got = _error_kind(m.get("expected", "")), _error_kind(m.get("observed", ""))
        text = (f"error kind {want} → {got}" if want != got else f"error {want}, message differs") \
            if kind == "error" else f"{kind} differs"
        if text not in parts:
            parts.append(text)
    return " + ".join(sorted(parts)) or "failed outside its checks"


def _operand(token: str) -> tuple[str, str]:
    """An input token (RowMeta::inputs) as (what it holds, its kind): 't_int32' -> ('int32', 't'),
    's_float' -> ('float', 's'), a dtype alone 'int32' -> ('int32', '')."""
    kind, sep, what = token.partition("_")
    return (what, kind) if sep and kind in ("t", "z", "s") else (token, "")


def same_inputs(above: tuple, below: tuple) -> bool:
    """Whether a case of a row above (its inputs, as _operand pairs sorted) is about the same
    inputs as a case below: the same things held (dtypes, scalar kinds) in any order, each pair of
    the same kind, where a dtype alone (promote_types' pairs) stands for a tensor of that dtype,
    zero-dim or not, never for a Python scalar."""
    return len(above) == len(below) and all(
        wa == wb and (ka == kb or (ka == "" and kb != "s") or (kb == "" and ka != "s"))
        for (wa, ka), (wb, kb) in zip(above, below))


def _inputs_key(case: dict) -> tuple | None:
    return tuple(sorted(_operand(t) for t in case["inputs"])) if case.get("inputs") else None


def root_causes(cases: list[dict], edges: dict[str, list], per_case: dict | None = None) -> dict:
    """Root deviations: the deviating cases (FAIL, XFAIL, CRASH, TIMEOUT) traced through what each
    spec row derives from (`edges`, spec_derivations). A case of row R is *derived* when one of R's
    derivations that decides a check the case failed (every derivation, for a crash or a hang
    only those that decide every check) leads, through any rows above, to a row that deviates on
    the case's own inputs; it is R's *own* deviation otherwise. A row deviates on a case's inputs
    when one of its deviating cases is about the same inputs (same_inputs: the same dtypes and
    operand kinds, from the cases' `inputs`); a row none of whose cases name inputs, or a case that
    names none, is compared by row alone (the row deviates somewhere). A root is a row with an own deviation: none of its
    ancestors explains it. Each root explains its own cases and the derived cases below it (a case
    under two roots counts for each; `explained` in the summary counts each case once). Roots that
    explain nothing below them are not listed as roots: their cases are grouped by observed
    signature (signature()), as are any deviating cases without a spec row. `per_case`, when given,
    receives each deviating case's roots by case id (write_expectations.py --by-root)."""
    deviating = [c for c in cases if c["outcome"] in DEVIATING]
    by_row: dict[str, list] = collections.defaultdict(list)
    for c in deviating:
        by_row[c.get("spec_row") or ""].append(c)
    typed_rows = {c.get("spec_row") for c in cases if c.get("inputs")}  # rows whose cases name inputs
    key_of = {c["id"]: _inputs_key(c) for c in deviating}
    deviating_inputs: dict[str, set] = collections.defaultdict(set)
    for c in deviating:
        if key_of[c["id"]] is not None:
            deviating_inputs[c.get("spec_row") or ""].add(key_of[c["id"]])

    def deviates_on(rid: str, c: dict) -> bool:
        """Whether row `rid` deviates on case c's inputs (by row alone where either names none)."""
        if not by_row.get(rid):
            return False
        key = key_of[c["id"]]
        if key is None or rid not in typed_rows:
            return True
        return any(same_inputs(k, key) for k in deviating_inputs.get(rid, ()))

    ancestors_memo: dict[str, set] = {}

    def ancestors(rid: str, trail=()) -> set:
        if rid not in ancestors_memo:
            out = set()
            for p, _ in edges.get(rid, []):
                if p not in trail:
                    out |= {p} | ancestors(p, trail + (rid,))
            ancestors_memo[rid] = out
        return ancestors_memo[rid]

    def above(c: dict) -> set:
        """The rows a deviating case's failed checks lead to."""
        failed = set() if c["outcome"] in ("CRASH", "TIMEOUT") else failing_checks(c)
        out = set()
        for p, checks in edges.get(c.get("spec_row") or "", []):
            if not checks or failed & set(checks):
                out |= {p} | ancestors(p)
        return out

    ups = {c["id"]: above(c) for c in deviating}
    own = {c["id"] for c in deviating if c.get("spec_row") and not any(deviates_on(r, c) for r in ups[c["id"]])}
    explained: dict[str, list] = {r: [] for r in sorted({c.get("spec_row") for c in deviating if c["id"] in own})}

    def nearest_roots(c: dict) -> set:
        """The roots nearest a derived case that deviate on its inputs: up from the rows its failed
        checks lead to, stopping at each such root (a root's own ancestors do not explain what it
        explains); a root that does not deviate on the case's inputs is passed through."""
        failed = set() if c["outcome"] in ("CRASH", "TIMEOUT") else failing_checks(c)
        todo = [p for p, checks in edges.get(c.get("spec_row") or "", []) if not checks or failed & set(checks)]
        seen, out = set(), set()
        while todo:
            r = todo.pop()
            if r in seen:
                continue
            seen.add(r)
            if r in explained and deviates_on(r, c):
                out.add(r)
            else:
                todo += [p for p, _ in edges.get(r, [])]
        return out

    # A derived case whose deviating ancestors lead to no root on its inputs (a row above deviates
    # on them only through a row compared by row alone) is its own row's deviation after all.
    while True:
        nearest = {c["id"]: sorted(nearest_roots(c)) for c in deviating if c["id"] not in own and c.get("spec_row")}
        lost = {cid for cid, found in nearest.items() if not found}
        if not lost:
            break
        own |= lost
        explained.update({c["spec_row"]: [] for c in deviating if c["id"] in lost})
    roots = sorted(explained)
    roots_of: dict[str, list] = {}
    for c in deviating:
        roots_of[c["id"]] = [c["spec_row"]] if c["id"] in own else nearest.get(c["id"], [])
        for r in roots_of[c["id"]]:
            explained[r].append(c)
    if per_case is not None:
        per_case.update(roots_of)
    listed, rest = [], []
    for r in roots:
        mine = [c for c in explained[r] if c.get("spec_row") == r]
        below = [c for c in explained[r] if c.get("spec_row") != r]
        if not below:
            rest += mine
            continue
        first = mine[0]
        sigs = collections.Counter(signature(c) for c in mine)
        listed.append({"row": r, "spec_file": first["spec_file"], "clause": first["clause"], "own": len(mine),
                       "downstream": len(below), "xfail": sum(c["outcome"] == "XFAIL" for c in explained[r]),
                       "rows": sorted({c.get("spec_row") for c in below}),
                       "signatures": [{"signature": k, "cases": n} for k, n in sigs.most_common(5)],
                       "example": first["id"]})
    listed.sort(key=lambda x: (-(x["own"] + x["downstream"]), x["row"]))
    rest += [c for c in deviating if not c.get("spec_row")]
    groups: dict[str, list] = collections.defaultdict(list)
    for c in rest:
        groups[signature(c)].append(c)
    other = [{"signature": k, "cases": len(v), "xfail": sum(c["outcome"] == "XFAIL" for c in v),
              "rows": sorted({c.get("spec_row") or "" for c in v})[:20], "example": v[0]["id"]}
             for k, v in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    under = {c["id"] for r in listed for c in explained[r["row"]]}
    return {"deviations": len(deviating), "xfail": sum(c["outcome"] == "XFAIL" for c in deviating),
            "roots": listed, "explained": len(under),
            "explained_xfail": sum(c["outcome"] == "XFAIL" for c in deviating if c["id"] in under),
            "other": other, "edges": {k: edges[k] for k in sorted(edges)}}



# ---------------------------------------------------------------- the score beside the gate
def _percent(n: int, d: int):
    return round(100.0 * n / d, 1) if d else None


def conformance(cases: list[dict], features: list[dict], dtypes: list[dict] | None = None) -> dict:
    """Of the cases of required features, how many behave as the spec says (raw PASS), in
    all, per spec file, per clause and per required feature; and the required features some
    case exercised. A case is left out when it answered NotSupported for an optional feature
    or its checks used one (a feature spec/features.toml does not name counts as required), or
    when it did not reach its row's operation (it did not run, or only its setup failed) and its
    row is about one (every case of the row that reached it used it; where none did, a case of
    the row answered NotSupported for it), or when it did not run for a dtype
    the library did not declare that is not required (`dtypes`, report.json's: complex32, uint16:
    spec/dtypes.toml `documented = false`), as an optional feature's."""
    level = {f["name"]: f["level"] for f in features}
    optional_dtypes = {d["name"] for d in dtypes or [] if not d.get("required", True)}
    tally = {k: collections.defaultdict(lambda: [0, 0]) for k in ("spec_file", "clause", "feature")}
    total, good, excluded, ran = 0, 0, 0, 0

    def optional(f: str) -> bool:
        return level.get(f, "required") != "required"

    def used_by(c: dict) -> set:
        return set(c.get("features", [])) | ({c["feature"]} if c.get("feature") else set())

    def reached(c: dict) -> bool:
        """Whether the case reached the operation its row is about: it ran, and not only its setup
        failed (a case whose one failed check is `setup` never called the row's operation)."""
        return c["outcome"] != "NOT_SUPPORTED" and c.get("checks") != {"setup": "FAIL"}
    # A case that did not run is about what its row is about: the features every case of its row
    # that ran used (a DLPack case of an undeclared bfloat16, or one whose setup view the candidate
    # lacks, is as optional as the row's float32 case that ran), or, where none of the row ran, the
    # optional features its cases that did not run named (to_dlpack NotSupported: dlpack).
    ran_common: dict[str, set] = {}
    unrun_optional: dict[str, set] = collections.defaultdict(set)
    for c in cases:
        row = c.get("spec_row")
        if not row:
            continue
        if reached(c):
            ran_common[row] = ran_common[row] & used_by(c) if row in ran_common else used_by(c)
        else:
            unrun_optional[row] |= {f for f in used_by(c) if optional(f)}
    for c in cases:
        if c["outcome"] == "NOT_SUPPORTED" and c.get("dtype") in optional_dtypes:
            excluded += 1
            continue
        used = used_by(c)
        if not reached(c) and c.get("spec_row"):
            row = c["spec_row"]
            used = used | (ran_common[row] if row in ran_common else unrun_optional[row])
        if any(optional(f) for f in used):
            excluded += 1
            continue
        ok = c["outcome"] in ("PASS", "XPASS")
        total += 1
        good += ok
        ran += c["outcome"] != "NOT_SUPPORTED"
        keys = {"spec_file": [c["spec_file"]], "clause": [c["clause"]], "feature": sorted(used)}
        for kind, names in keys.items():
            for name in names:
                tally[kind][name][0] += ok
                tally[kind][name][1] += 1

    def rows(kind):
        return [{"name": k, "conformant": n, "cases": d, "percent": _percent(n, d)}
                for k, (n, d) in sorted(tally[kind].items())]

    required = [f for f in features if f["level"] == "required"]
    return {"conformant": good, "cases": total, "percent": _percent(good, total), "optional_excluded": excluded,
            "ran": ran, "percent_of_ran": _percent(good, ran),
            "required_features": {"exercised": sum(1 for f in required if f["cases"] > 0), "total": len(required)},
            "by_spec_file": rows("spec_file"), "by_clause": rows("clause"), "by_feature": rows("feature")}


def denominator_text(score: dict) -> str:
    """What a score is a share of, in words, with the share of the cases that ran beside it:
    "6,300 of 15,190 cases of required features (every one, run or not) behave as the spec says;
    45.3 % of the 13,900 that ran" (`ran`: absent in reports before it existed)."""
    text = (f"{score['conformant']:,} of {score['cases']:,} cases of required features (every one, run or not) "
            "behave as the spec says")
    if score.get("ran") is not None and score["ran"] != score["cases"]:
        text += ("; none ran" if not score["ran"] else f"; {score['percent_of_ran']:.1f} % of the {score['ran']:,} that ran")
    return text


def headline(verdict_text: str, score: dict, xfail: int = 0) -> str:
    """The gate's verdict, told apart from a candidate without deviations: CONFORMS only when
    every counted case behaves as the spec says and no case is a listed deviation (`xfail`:
    the run's XFAIL cases, an optional feature's included); a candidate that conforms to its
    own list of deviations PASSES ITS EXPECTATIONS, with its score."""
    pct = score["percent"]
    if verdict_text == "CONFORMS":
        if score["conformant"] == score["cases"] and not xfail:
            return "CONFORMS"
        return "PASSES ITS EXPECTATIONS" + ("" if pct is None else f" — {pct:.1f} % conformant")
    return verdict_text if pct is None else f"{verdict_text} — {pct:.1f} % conformant"


def headline_of(doc: dict) -> str:
    """A report's headline: summary.headline, or for a report before version 3 the same from
    its verdict and cases. A report whose stored headline says CONFORMS while it lists
    deviations (written before optional features' XFAILs counted) is told as it is."""
    s = doc["summary"]
    xfail = s["outcomes"].get("XFAIL", 0)
    stored = s.get("headline")
    if stored and not (stored == "CONFORMS" and xfail):
        return stored
    score = doc.get("conformance") or conformance(doc["cases"], doc.get("features", []), doc.get("dtypes"))
    return headline(verdict(doc), score, xfail)


def headline_class(doc: dict) -> str:
    """The headline's colour (a class of reports/pages.py CSS): ok (green) only for CONFORMS
    with no listed deviation; bad (red) for DOES NOT CONFORM; partial (amber) otherwise —
    PASSES ITS EXPECTATIONS and CONFORMS PARTIALLY. Never the bare gate verdict's."""
    text = headline_of(doc)
    if text == "CONFORMS" and not doc["summary"]["outcomes"].get("XFAIL", 0):
        return "ok"
    return "bad" if text.startswith("DOES NOT CONFORM") else "partial"


def build(candidate: dict, run: dict, expectations: dict, features: list[dict], cases: list[dict],
          coverage: dict | None = None, dtypes: list[dict] | None = None, commit: str | None = "",
          derivations: dict | None = None) -> dict:
    """report.json's document, validated. `commit`: the tensor-cts commit that ran ("": this
    checkout's, tool_commit()). `derivations`: what each spec row derives from (spec_derivations),
    for the root causes (none without)."""
    doc = {
        "schema": "tensor-cts/report",
        "schema_version": SCHEMA_VERSION,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tool": {"name": "tensor-cts", "commit": commit if commit != "" else tool_commit()},
        "candidate": candidate,
        "machine": machine(),
        "run": run,
        "expectations": expectations,
        "features": features,
        "summary": summary(cases, expectations["stale"], features, dtypes),
        "conformance": conformance(cases, features, dtypes),
        "cases": cases,
        **({"spec_coverage": coverage} if coverage is not None else {}),
    }
    family = promotion_family(cases)
    if family is not None:
        doc["promotion_family"] = family
    if derivations is not None:
        doc["root_causes"] = root_causes(cases, derivations)
    doc["summary"] = {"total": doc["summary"]["total"], "outcomes": doc["summary"]["outcomes"],
                      "headline": headline(doc["summary"]["verdict"], doc["conformance"],
                                           doc["summary"]["outcomes"]["XFAIL"]),
                      **{k: v for k, v in doc["summary"].items() if k not in ("total", "outcomes")}}
    if dtypes is not None:
        doc["dtypes"] = dtypes
    validate(doc)
    return doc


def whole_reason(doc: dict, case: dict) -> str:
    """A case's reason, whole: a reason cut in the case (reason_ref) from expectations.reasons."""
    ref, whole = case.get("reason_ref"), doc["expectations"].get("reasons") or []
    return whole[ref] if isinstance(ref, int) and 0 <= ref < len(whole) else case["reason"]


def is_wording_only(c: dict) -> bool:
    """Whether case `c` is an expected deviation (XFAIL) in an error's wording alone: the message
    check failed and no other (the error's kind is as the spec says). An unexpected FAIL is
    counted as such, never here."""
    return (c["outcome"] == "XFAIL"
            and [k for k, v in (c.get("checks") or {}).items() if v == "FAIL"] == ["message"])


def wording_only(cases: list[dict]) -> int:
    """The deviations in an error's wording alone (is_wording_only)."""
    return sum(1 for c in cases if is_wording_only(c))


def documented_messages(doc: dict) -> set:
    """The statements of the documents that quote an error's message (spec/statements.toml rows
    whose `checks` name 'message'), by id, from the report's spec_coverage."""
    return {s["id"] for s in (doc.get("spec_coverage") or {}).get("statements", [])
            if "message" in (s.get("checks") or ())}


def wording_text(cases: list[dict], documented: set = frozenset()) -> str:
    """The sentence the pages and the terminal show apart from the semantic deviations ("" when
    no deviation is in its wording alone), saying how many of them are of a message the documents
    state (a case of a statement in `documented`, documented_messages) and that the rest are
    PyTorch's wording, which the documents do not state."""
    worded = [c for c in cases if is_wording_only(c)]
    if not worded:
        return ""
    stated = sum(1 for c in worded if documented & set(c.get("statements", ())))
    return (f"{len(worded)} of the expected deviations are in an error's wording alone: the error's kind is as the spec "
            f"says, its message is the library's own (the check 'message'); " +
            (f"{stated} of them of a message the documents state, the rest of PyTorch's wording, which they do not"
             if stated else "every one of PyTorch's wording, which the documents do not state"))


def promotion_family(cases: list[dict]) -> dict | None:
    """The promotion family the candidate's promote_types, result_type and can_cast answers
    follow most closely (reports/families.py, the families under reports/families/)."""
    return families.classify(cases)


# The badge's colour per headline class (headline_class): shields.io's named colours.
BADGE_COLORS = {"ok": "brightgreen", "partial": "yellow", "bad": "red"}


def badge(doc: dict) -> dict:
    """badge.json: the headline as a shields.io endpoint badge
    (https://shields.io/badges/endpoint-badge). Its colour is headline_class's: green only for
    CONFORMS with no listed deviation, yellow for PASSES ITS EXPECTATIONS and CONFORMS
    PARTIALLY, red for DOES NOT CONFORM."""
    return {"schemaVersion": 1, "label": "tensor-cts", "message": headline_of(doc),
            "color": BADGE_COLORS[headline_class(doc)]}


# ---------------------------------------------------------------- the text summary
TERMINAL_TEXT_CHARS = 300  # a field of the text summary, at most


def inert(text, limit: int = TERMINAL_TEXT_CHARS) -> str:
    """Text a candidate controls, made inert for a terminal: control and format characters
    (ESC, CR, newlines, bidirectional overrides...) shown as escapes, cut to `limit`."""
    text = str(text)
    cut = len(text) > limit
    text = text[:limit]
    out = "".join(ch if unicodedata.category(ch)[0] not in "CZ" or ch == " " else
                  (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else
                   f"\\U{ord(ch):08x}") for ch in text)
    return out + ("..." if cut else "")

def per_key(cases: list[dict], key: str) -> dict:
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for c in cases:
        table[c[key]][c["outcome"]] += 1
    return dict(sorted(table.items()))


def text_summary(doc: dict, limit: int = 30) -> str:
    cases = doc["cases"]
    cand = doc["candidate"]
    lines = [f"tensor-cts conformance summary: {inert(cand['name'])} {inert(cand['version'])}".rstrip()]
    table = {inert(k): v for k, v in per_key(cases, "clause").items()}
    width = max([len("clause")] + [len(k) for k in table])
    header = f"{'clause':<{width}}  {'cases':>6}" + "".join(f"  {o:>13}" for o in OUTCOMES)
    lines += [header, "-" * len(header)]
    for clause, cnt in table.items():
        lines.append(f"{clause:<{width}}  {sum(cnt.values()):>6}" + "".join(f"  {cnt[o]:>13}" for o in OUTCOMES))
    lines.append("-" * len(header))
    total = doc["summary"]["outcomes"]
    lines.append(f"{'total':<{width}}  {doc['summary']['total']:>6}" + "".join(f"  {total[o]:>13}" for o in OUTCOMES))
    reasons = collections.Counter(c["reason"] for c in cases if c["outcome"] == "XFAIL")
    if reasons:
        lines.append("\nexpected deviations (from the candidate's expectations file):")
        worded = wording_text(cases, documented_messages(doc))
        if worded:
            lines.append(f"  ({worded})")
        lines += [f"  {n:>5}  {inert(reason)}" for reason, n in reasons.most_common()]
    if doc["expectations"].get("unreviewed"):
        lines.append(f"\n{doc['expectations']['unreviewed']} reason(s) in {inert(doc['expectations']['file'])} start "
                     f"with UNREVIEWED: replace each with the library's rule and its source")
    stale = doc["expectations"]["stale"]
    if stale:
        lines.append(f"\nstale expectations ({doc['expectations']['file']}): entries that match no case, or only "
                     "NOT_SUPPORTED cases")
        lines += [f"  line {s['line']}: {inert(s['pattern'])} {s['outcome']}  ({inert(s['reason'])})"
                  + (f"  [matches only {s['not_supported']} NOT_SUPPORTED case(s)]" if s.get("not_supported") else "")
                  for s in stale]
    unexpected = [c for c in cases if c["outcome"] in UNEXPECTED]
    if unexpected:
        lines.append("\nunexpected outcomes:")
        for c in unexpected[:limit]:
            lines.append(f"  {c['outcome']:<7} {inert(c['id'])}  [{inert(c['clause'])}]")
            lines.append(f"          expected: {inert(c['expected'])}")
            lines.append(f"          observed: {inert(c['observed'])}")
            if c.get("seed"):
                lines.append(f"          seed:     {c['seed']}" + (f" ({c['draws']} checked draws)" if "draws" in c else ""))
            lines.append(f"          rerun:    {inert(c['rerun'], 1000)}")
            if c.get("repro"):
                lines.append(f"          repro:    {inert(c['repro'], 1000)}")
        if len(unexpected) > limit:
            lines.append(f"  ... and {len(unexpected) - limit} more (report.md lists them all)")
    why = doc["summary"].get("why", [])
    if why:
        lines.append(f"\n{verdict(doc).lower()}: " + "; ".join(inert(w) for w in why))
    lines += score_lines(doc)
    # The headline, not the bare verdict: a candidate that conforms only to its own list of
    # deviations does not read like one without any (summary.headline, schema 3).
    lines.append(f"\nresult: {inert(cand['name'])} {headline_of(doc)}: "
                 f"{total['PASS']} pass, {total['XFAIL']} expected deviations, "
                 f"{total['FAIL']} fail, {total['XPASS']} unexpected passes, {total['NOT_SUPPORTED']} not supported, "
                 f"{total['CRASH']} crash, {total['TIMEOUT']} timeout"
                 + (f", {len(stale)} stale expectations" if stale else ""))
    return "\n".join(lines)


def score_lines(doc: dict) -> list[str]:
    """The conformance score beside the gate, for the terminal (none for reports before version 3)."""
    score = doc.get("conformance")
    if not score or score["percent"] is None:
        return []
    rf = score["required_features"]
    lines = [f"\nconformance (beside the verdict): {score['percent']:.1f} % — {denominator_text(score)}; required "
             f"features exercised: {rf['exercised']} of {rf['total']}"
             + (f"; {score['optional_excluded']} cases of optional features not counted" if score["optional_excluded"] else "")]
    width = max(len(r["name"]) for r in score["by_spec_file"])
    lines += [f"  {r['name']:<{width}}  {r['percent']:>5.1f} %  ({r['conformant']} of {r['cases']})"
              for r in score["by_spec_file"]]
    return lines


def main(argv: list[str]) -> int:
    p = cli.parser("report.py", __doc__)
    p.add_argument("command", choices=("validate", "summary"))
    p.add_argument("report", metavar="report.json")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    try:
        doc = load(args.report)
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    if args.command == "validate":
        print(f"{args.report}: valid tensor-cts report (schema_version {doc['schema_version']}, {len(doc['cases'])} cases)")
    else:
        print(text_summary(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
