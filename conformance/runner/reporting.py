"""The report call: the run's results handed to the report tools (reports/report.py, junit.py),
the report files written into --out, and this run's logs published beside them."""

from __future__ import annotations

import hashlib
import os

from reports import history
from reports import junit
from reports import render
from reports import report as report_lib
from reports import report_causes
from reports import report_machine
from reports import report_spec
from .options import Options
from .records import Results

LOGS_MANIFEST = ".tcts-logs"  # in <out>/logs: the files the last run wrote there


class IdentityError(Exception):
    pass


def library_identity(path: str) -> dict | None:
    """The candidate's library versions (bazel/versions.bzl writes the file: `key=value` lines,
    `#` comments) as report.json's candidate.identity; None without a file. IdentityError for a
    file that cannot be read or is not in that form."""
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise IdentityError(f"cannot read the library-version file {path}: {e}") from None
    libraries = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not (sep and key.strip()):
            raise IdentityError(f"{path}:{n}: expected key=value, got {line!r}")
        libraries[key.strip()] = value.strip()
    parts = path.replace(os.sep, "/").split("/")
    # Shown by its label when it is the build's file (runfiles: external/tcts_versions/<name>.txt).
    shown = f"@tcts_versions//:{parts[-1]}" if len(parts) >= 2 and parts[-2] == "tcts_versions" else path
    return {"file": shown, "sha256": hashlib.sha256(data).hexdigest(), "libraries": libraries}


def build(o: Options, results: Results, cases: list[dict], *, seed: str, processes: int, started: str, wall: float,
          entries: list, feature_rows: list, spec: dict, stale, identity: dict | None = None) -> dict:
    """report.json's document (validated against its schema by report_lib.build). `identity`:
    library_identity's, the candidate's recorded library versions. `spec`: the loaded spec.json
    (report_spec.load_spec), for the spec coverage and the root causes."""
    candidate = dict(results.candidate or {"name": o.candidate, "version": "", "build": ""})
    if identity is not None:
        candidate["identity"] = identity
    statements, statements_file = report_spec.spec_statements(spec)
    return report_lib.build(
        candidate=candidate,
        run={"command": o.command, "suites": ["replay"] if o.replay else o.suites, "filter": o.filter,
             "device": results.tensor_device or o.device or "cpu", "seed": seed,
             "jobs": o.jobs, "case_timeout_s": o.case_timeout, "processes": processes,
             "isolated_processes": results.isolated, "started": started,
             "wall_s": round(wall, 3), "replay_file": o.replay or None,
             **({"facts": dict(results.facts)} if results.facts["used"] else {})},
        expectations={"file": o.expectations_shown,
                      "entries": len(entries), "stale": stale,
                      "unreviewed": len({e.reason for e in entries if e.unreviewed}),
                      **({"reasons": list(results.reasons.texts)} if results.reasons.texts else {})},
        features=results.feature_table(feature_rows, cases),
        cases=cases, coverage=report_spec.spec_coverage(statements, cases, statements_file),
        dtypes=results.dtype_table(cases),
        # What each spec row derives from (spec.json's tables): the root causes.
        derivations=report_causes.spec_derivations(spec),
        commit=o.suite_commit if o.suite_commit else report_machine.tool_commit(o.workspace or None))


def write(o: Options, doc: dict) -> list[str]:
    """report.json, report.md and report.html into --out (each replaced by rename), then the
    logs. The paths written; OSError when they cannot be."""
    paths = render.write_all(doc, o.out)
    publish_logs(o.log_dir, os.path.join(o.out, "logs"))
    if o.history:  # --history: one JSON line, appended (OSError as for the report)
        history.append(doc, o.user_path(o.history))
        paths.append(o.user_path(o.history))
    return paths


def write_junit(o: Options, doc: dict | None) -> None:
    """Under bazel test, the JUnit XML: one <testcase> per case of `doc`, none for an empty
    shard (None: more shards than cases)."""
    if not o.xml_output:
        return
    if doc is None:
        junit.write_empty(o.xml_output, o.test_target or "tcts")
    else:
        junit.write(o.xml_output, doc, o.test_target or o.target or "tcts")


def publish_logs(stage: str, logs: str) -> None:
    """Moves this run's logs from `stage` into `logs`, replacing only the files the previous
    run wrote there (its manifest); every other file in `logs` is left alone."""
    manifest = os.path.join(logs, LOGS_MANIFEST)
    try:
        with open(manifest, encoding="utf-8") as f:
            old = [n for n in f.read().splitlines() if n and "/" not in n and n not in (".", "..", LOGS_MANIFEST)]
    except (OSError, UnicodeDecodeError):
        old = []
    for name in old:
        try:
            os.remove(os.path.join(logs, name))
        except FileNotFoundError:
            pass
    names = sorted(os.listdir(stage))
    for name in names:
        os.replace(os.path.join(stage, name), os.path.join(logs, name))
    tmp = manifest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))
    os.replace(tmp, manifest)
