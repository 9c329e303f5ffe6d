"""The suite binary's contract, as the runner reads it: conformance/harness/stream.schema.json.

One schema names every stream event and its fields, the case list's columns and the binary's
exit statuses; this module reads them by those names. Checking each event against the whole
schema (jsonschema) would cost the run a validator call per line, so `check_event` checks what
the runner relies on: the schema's required fields of the event's kind, and their types.
Unknown fields and events are ignored (the stream may grow). The full check is the tests'
(contract_test.py).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess

from .options import UsageError

HERE = os.path.dirname(os.path.abspath(__file__))
# In a checkout, the runfiles tree and the suite bundle alike: <root>/conformance/harness/.
SCHEMA_PATH = os.path.join(os.path.dirname(HERE), "harness", "stream.schema.json")

with open(SCHEMA_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

EVENTS = ("begin", "start", "end", "done")
EXIT_CODES = {SCHEMA["x-exit-codes"][code]["name"]: int(code) for code in SCHEMA["x-exit-codes"]}
EXIT_USAGE = EXIT_CODES["usage"]  # the binary refused its arguments: not the candidate's doing
EXIT_FINISHED = (EXIT_CODES["ok"], EXIT_CODES["failed"])  # after its done event
EXIT_TESTEE_DIED = EXIT_CODES["testee_died"]
EXIT_FRESH_PROCESS = EXIT_CODES["fresh_process"]
EXIT_CLEAN_PROCESS = EXIT_CODES["clean_process"]  # a state reset the suite asked for: not isolated

_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool, "integer": int, "null": type(None)}


def _required(definition: dict) -> list[tuple[str, tuple]]:
    """(field, Python types) for each required field of a schema object."""
    out = []
    for name in definition.get("required", []):
        prop = definition["properties"].get(name, {})
        kinds = prop.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds or []
        out.append((name, tuple(_TYPES[k] for k in kinds)))
    return out


REQUIRED = {kind: _required(SCHEMA["$defs"][kind]) for kind in EVENTS}
CASE_REQUIRED = _required(SCHEMA["$defs"]["listed_case"])


class ContractError(ValueError):
    """A line of the stream that is not an event the schema describes."""


def _check_fields(value, required: list, what: str) -> None:
    if not isinstance(value, dict):
        raise ContractError(f"{what} is not an object")
    for name, kinds in required:
        if name not in value:
            raise ContractError(f"{what} has no '{name}'")
        if kinds and (not isinstance(value[name], kinds) or isinstance(value[name], bool) and bool not in kinds):
            raise ContractError(f"{what}'s '{name}' is not a {'/'.join(k.__name__ for k in kinds)}")


def check_event(event) -> str:
    """The kind of a parsed stream line ("" for an event this runner does not know), after
    checking the fields the schema requires of it. ContractError when it breaks the schema."""
    if not isinstance(event, dict):
        raise ContractError("not an object")
    kind = event.get("event")
    if kind not in REQUIRED:
        if "event" not in event:
            raise ContractError("no 'event'")
        return ""
    _check_fields(event, REQUIRED[kind], f"the {kind} event")
    if kind == "begin":
        for c in event["cases"]:
            _check_fields(c, CASE_REQUIRED, "a case of the begin event")
    return kind


# ---------------------------------------------------------------- suites and their cases
@dataclasses.dataclass
class Suite:
    """A binary and the suites it runs: every suite of the run in the candidate's one binary
    (<candidate>_bin, narrowed with --tcts_suites), or the replay runner."""
    name: str
    binary: str
    args: list
    spec_file: str  # "" when each case's suite names its spec file


@dataclasses.dataclass
class ListedCase:
    test: str
    id: str
    kind: str
    clause: str
    basis: str
    statement: str
    rerun: str
    answer: str  # the row's expected answer as data ("int16", "true", "ok"), "" for none
    suite: str  # the conformance suite the case belongs to
    spec_row: str = ""  # the spec/*.toml row the case comes from (RowMeta::spec_row), "" for none
    inputs: str = ""  # the operands the case is about (RowMeta::inputs: "t_int32 s_float"), "" for none
    order: int = -1  # its place among every test of the binary, -1 where the binary does not say


_FIELDS = tuple(f.name for f in dataclasses.fields(ListedCase))
assert set(SCHEMA["$defs"]["listed_case"]["properties"]) == set(_FIELDS), \
    "stream.schema.json's listed_case fields are ListedCase's fields"


def listed_case(fields: dict, default_suite: str) -> ListedCase:
    """A case as a binary lists it (the begin event's, or a case list line's fields by name;
    fields this runner does not know are ignored); a test no suite registered (the replay
    runner's) belongs to the binary's own suite."""
    known = {k: fields[k] for k in _FIELDS if k in fields}
    return ListedCase(**{**known, "suite": fields.get("suite") or default_suite})


LOG_LINE_CHARS = 500  # each line of a binary's output shown on the terminal, at most


def terminal_lines(text: str) -> str:
    """A suite binary's output for the terminal: each line's control characters (ESC, CR, BEL,
    NUL...) shown as escapes (reports/report_terminal.py inert), the line breaks kept."""
    from reports import report_terminal
    return "\n".join(report_terminal.inert(line, LOG_LINE_CHARS + 60) for line in text.split("\n"))


def read_case_list(path: str, default_suite: str) -> list[ListedCase]:
    """The case list a binary wrote (--tcts_list): one listed case, a JSON object, a line."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                fields = json.loads(line)
            except json.JSONDecodeError as e:
                raise UsageError(f"{path}:{n}: the case list's line is not JSON ({e})") from None
            if not isinstance(fields, dict) or not isinstance(fields.get("test"), str):
                raise UsageError(f"{path}:{n}: a case list line is an object with a string 'test'")
            cases.append(listed_case(fields, default_suite))
    return cases


def list_cases(suite: Suite, selection: list, tmp: str, env: dict) -> list[ListedCase]:
    """The cases a selection names (all, when it is empty), asked of the binary without
    running any."""
    path = os.path.join(tmp, f"{suite.name}.list")
    p = subprocess.run([suite.binary, *suite.args, *selection, f"--tcts_list={path}"], capture_output=True, text=True,
                       env=env)
    if p.returncode != 0 or not os.path.exists(path):
        tail = "\n".join("  | " + l for l in terminal_lines(
            (p.stdout + p.stderr)[-64 * 1024:].strip()).splitlines()[-8:])
        raise UsageError(f"{suite.binary} could not list its cases (exit {p.returncode}):\n{tail}")
    return read_case_list(path, suite.name)
