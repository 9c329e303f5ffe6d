"""report.json's form: its schema (reports/report.schema.json, versioned), the outcomes a case
may have, and reading a report back (load: UTF-8, strict JSON, validated against the schema of
its version).

Validation is by a real JSON-schema implementation: Debian's python3-jsonschema, with the
draft the schema declares ($schema: 2020-12). It imports only under Debian's interpreter
(/usr/bin/python3), which the runner, its tests and these tools use. Reports of schema
versions 1 and 2 (report.schema.v1.json, report.schema.v2.json) are still read, for diffs
against older runs. Version 3 adds the conformance score beside the gate (`conformance`,
`summary.headline`, each case's `features`).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


SCHEMA_PATH = os.path.join(HERE, "report.schema.json")


SCHEMA_VERSION = 3


OUTCOMES = ("PASS", "XFAIL", "FAIL", "XPASS", "NOT_SUPPORTED", "CRASH", "TIMEOUT")


UNEXPECTED = ("FAIL", "XPASS", "CRASH", "TIMEOUT")


class ReportError(Exception):
    pass


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


def _types(s) -> list:
    return s["type"] if isinstance(s["type"], list) else [s["type"]]


def _patterned(s, cls):
    """The shaper of a string subschema checked by type and pattern, or None: each string becomes
    the first string seen that meets it where it meets it (the draft's own validator `cls`
    decides, once per distinct string), else stays itself."""
    if cls is None or not (isinstance(s, dict) and s.get("type") in ("string", ["string"]) and set(s) <= _TYPE_ONLY | {"pattern"}
                           and isinstance(s.get("pattern"), str)):
        return None
    check, seen, meets = cls(s), {}, []

    def shape(v):
        if type(v) is not str:
            return v
        if v not in seen:
            seen[v] = check.is_valid(v)
            if seen[v] and not meets:
                meets.append(v)
        return meets[0] if seen[v] else v
    return shape


def _leaf(s):
    """The shaper of a subschema that checks a value's JSON type and at most one bound (a string's
    minLength, an integer's minimum), or None. Every value it maps to one stands for a class whose
    values all meet the subschema or all break it: a string becomes "x" repeated its length up
    to minLength ("" where only the type is checked), an integer its minimum or the one below (0
    or -1 where only the type is checked). A bool is no integer to JSON Schema: kept, as is a float."""
    if not (isinstance(s, dict) and "type" in s and set(s) <= _TYPE_ONLY | {"minLength", "minimum"}):
        return None
    types, length, least = _types(s), s.get("minLength", 0), s.get("minimum")
    strings = "string" in types and isinstance(length, int) and (set(s) - _TYPE_ONLY) <= {"minLength"}
    ints = "integer" in types and (least is None or type(least) is int) and (set(s) - _TYPE_ONLY) <= {"minimum"}
    if not (strings or ints):
        return None
    low = 0 if least is None else least

    def shape(v):
        if strings and type(v) is str:
            return "x" * min(len(v), length)
        if ints and type(v) is int:
            return low if v >= low else low - 1
        return v
    return shape


_OBJECT_ONLY = _TYPE_ONLY | {"properties", "required", "additionalProperties"}


def _shaper(s, cls=None):
    """The function that maps a value to its shape under subschema `s`, or None where values are
    kept as they are: each string or integer its subschema checks only by type and one bound
    becomes its class's one value (_leaf), into arrays (one "items" schema: their items' distinct
    shapes), objects whose every key is allowed (one "additionalProperties" schema: their values'
    distinct shapes) and objects of named properties ("properties"; their keys are kept, so
    "required" and "additionalProperties" judge a shape as they judge the value). Built once per
    schema."""
    leaf = _leaf(s) or _patterned(s, cls)
    if leaf is not None:
        return leaf
    if isinstance(s, dict) and set(s) <= _TYPE_ONLY | {"items", "minItems"} and isinstance(s.get("items"), dict):
        # One schema for every item, no bound but minItems: the verdict is each item's and the
        # length's against minItems, so an array long enough keeps its items' distinct shapes
        # (padded to minItems), a shorter one its length.
        item = _shaper(s["items"], cls) or (lambda x: x)
        least = s.get("minItems", 0)
        if not isinstance(least, int):
            return None

        def array(v):
            if type(v) is not list:
                return v
            shapes = _distinct(item(x) for x in v)
            return shapes + shapes[:1] * (least - len(shapes)) if len(v) >= least else [item(x) for x in v]
        return array
    if isinstance(s, dict) and set(s) <= _TYPE_ONLY | {"additionalProperties"} and isinstance(
            s.get("additionalProperties"), dict):
        # Any key, one schema for every value: the values' distinct shapes under keys of their own.
        value = _shaper(s["additionalProperties"], cls) or (lambda x: x)
        return lambda v: {f"k{i}": x for i, x in enumerate(_distinct(value(x) for x in v.values()))} if type(v) is dict else v
    if isinstance(s, dict) and set(s) <= _OBJECT_ONLY and isinstance(s.get("properties"), dict):
        props = {k: f for k, p in s["properties"].items() if (f := _shaper(p, cls)) is not None}
        if not props:
            return None
        return lambda v: {k: props[k](x) if k in props else x for k, x in v.items()} if type(v) is dict else v
    return None


def _distinct(values) -> list:
    """`values` without repeats (by repr: 1, 1.0 and True stay apart), in their order."""
    seen = {}
    for v in values:
        seen.setdefault(repr(v), v)
    return list(seen.values())


def _case_shapes(doc: dict, s: dict):
    """The report with its cases replaced by their distinct shapes, or None where the schema's
    form does not allow it. A case's shape is the case with each string and integer that its
    subschema checks only by type and one bound (the text fields, a mismatch's texts, spec_row,
    statements, duration_ms) replaced by its class's one value (_shaper): a shape meets the
    case schema exactly when its cases do, so jsonschema checks a few hundred shapes in place of
    every case (most of a main job's report-writing time: 15,000 cases of the reference took 5 s;
    the NumPy testee's 7,000 failures, each its own shape while a mismatch's texts were kept, 2 s;
    the reference's 15,557 cases were still 4,247 shapes, 0.52 s, while rows, statements, inputs,
    checks and durations were kept: now 12 shapes, 0.20 s)."""
    cases_s = s.get("properties", {}).get("cases")
    if not (isinstance(doc, dict) and isinstance(doc.get("cases"), list) and set(s) <= {
            "$schema", "$id", "title", "description", "type", "required", "additionalProperties", "properties"}
            and isinstance(cases_s, dict) and set(cases_s) <= {"type", "items", "description"}
            and isinstance(cases_s.get("items"), dict)):
        return None
    cls = jsonschema.validators.validator_for(s) if jsonschema is not None else None
    shape_of = _shaper(cases_s["items"], cls) or (lambda v: v)
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
