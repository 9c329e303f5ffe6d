"""Writes or updates a candidate's expectations file from a run's report (the expectations
writer, conformance/runner/expectations_writer.py, says how).

    python3 -m conformance.tools.write_expectations --from-report=REPORT (--write=FILE | --update=FILE) [--manifest=FILE]
    python3 -m conformance.tools.write_expectations --from-report=A.json --update=A.txt --from-report=B.json
                                                    --update=B.txt --shared=SHARED [--manifest=FILE]
    python3 -m conformance.tools.write_expectations --shared=SHARED --manifest=FILE A.txt B.txt...
    python3 -m conformance.tools.write_expectations --from-report=REPORT --write=FILE --by-root
    bazel run //conformance:run -- ... --write-expectations=FILE | --update-expectations=FILE

(from the repository's root, or the suite bundle's.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from conformance.runner import expectations as ex
from conformance.runner import expectations_writer as wx
from conformance.runner.expectations_writer import WriteError
from reports import report_schema

__doc__ += "\n" + wx.__doc__

def manifest_ids(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.split("\t")[1] for line in f.read().splitlines() if line and not line.startswith("#")]


REPORT_OUTCOMES = ("PASS", "FAIL", "XFAIL", "XPASS", "NOT_SUPPORTED", "CRASH", "TIMEOUT")
_CASE_STRINGS = ("observed", "expected", "statement", "reason", "clause", "spec_file", "spec_row", "isolated")


def check_report(doc, path: str) -> dict:
    """`doc` (a report.json a stranger may have sent) when every field this tool reads has the
    type it needs; WriteError naming the first field that does not."""
    def bad(field: str, want: str, got) -> WriteError:
        shown = type(got).__name__ if not isinstance(got, (str, int, float, bool)) else json.dumps(got)[:80]
        return WriteError(f"report '{path}': {field} must be {want}, not {shown}")

    if not isinstance(doc, dict):
        raise bad("the report", "a JSON object", doc)
    for key in ("run", "candidate", "expectations"):
        if key in doc and not isinstance(doc[key], dict):
            raise bad(key, "an object", doc[key])
    for key in ("filter", "replay_file"):
        if doc.get("run", {}).get(key) not in (None, "") and not isinstance(doc["run"][key], str):
            raise bad(f"run.{key}", "a string", doc["run"][key])
    for key in ("name", "version"):
        if not isinstance(doc.get("candidate", {}).get(key, ""), str):
            raise bad(f"candidate.{key}", "a string", doc["candidate"][key])
    if not isinstance(doc.get("cases"), list):
        raise bad("cases", "a list", doc.get("cases"))
    for k, c in enumerate(doc["cases"]):
        where = f"cases[{k}]"
        if not isinstance(c, dict):
            raise bad(where, "an object", c)
        if not isinstance(c.get("id"), str) or not c["id"]:
            raise bad(f"{where}.id", "a non-empty string", c.get("id"))
        if c.get("outcome") not in REPORT_OUTCOMES:
            raise bad(f"{where}.outcome", "one of " + ", ".join(REPORT_OUTCOMES), c.get("outcome"))
        for key in _CASE_STRINGS:
            if c.get(key) is not None and not isinstance(c[key], str):
                raise bad(f"{where}.{key}", "a string", c[key])
        if c.get("checks") is not None and not (isinstance(c["checks"], dict)
                                                and all(isinstance(v, str) for v in c["checks"].values())):
            raise bad(f"{where}.checks", "an object of strings", c["checks"])
        if not isinstance(c.get("mismatches", []), list):
            raise bad(f"{where}.mismatches", "a list", c["mismatches"])
        for j, m in enumerate(c.get("mismatches", [])):
            if not isinstance(m, dict) or not all(isinstance(m.get(f, ""), str) for f in ("kind", "observed")):
                raise bad(f"{where}.mismatches[{j}]", "an object with string kind and observed", m)
    return doc


def read_report(path: str) -> dict:
    """The report at `path`, read and checked as report.py reads and checks one (NaN and
    Infinity refused, the schema its "schema_version" names: a report without its summary, or
    a document that is no tensor-cts report, is refused as the other tools refuse it), then the
    fields this tool reads checked once more (check_report)."""
    try:
        doc = report_schema.load(path)
    except report_schema.ReportError as e:
        raise WriteError(str(e)) from None
    return check_report(doc, path)


def write_shared(paths: list[str], shared: str, ids) -> list[str]:
    """share(), then the files written (each whole: beside its name, then renamed)."""
    new = wx.share(paths, shared, ids)
    os.makedirs(os.path.dirname(os.path.abspath(shared)), exist_ok=True)
    for path, text in new.items():
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    n = len(ex.load(shared))
    return [f"{shared}: {n} entries {', '.join(paths)} share; each includes it, and decides every one of "
            f"{len(set(ids))} case ids as before"]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python3 -m conformance.tools.write_expectations", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    p.add_argument("--from-report", action="append", default=[], metavar="REPORT",
                   help="a report.json of the run; several (one per --write/--update, in order) for one library's "
                        "platforms with --shared")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--write", action="append", default=[], metavar="FILE", help="write a fresh expectations file")
    which.add_argument("--update", action="append", default=[], metavar="FILE", help="update this expectations file")
    p.add_argument("--manifest", default="", metavar="FILE",
                   help="every case id (//conformance:case_manifest.txt); needed when the run did not run every case")
    p.add_argument("--shared", default="", metavar="SHARED",
                   help="after writing or updating the files (or, without --from-report, on the FILEs given), move "
                        "the entries they all have alike into SHARED, which each includes (no entry copied); every "
                        "case id of the reports and the manifest is checked to be decided as before")
    p.add_argument("--by-root", action="store_true",
                   help="with --write: one rule per root deviation (the report's root_causes) and outcome, instead of "
                        "one per spec row")
    p.add_argument("files", nargs="*", metavar="FILE", help="with --shared and no report: one library's files")
    a = p.parse_args(argv)
    targets = a.write or a.update
    try:
        if not a.from_report:
            if not (a.shared and len(a.files) >= 2 and not targets):
                raise WriteError("give --from-report=REPORT with --write or --update, or --shared=SHARED FILE FILE... "
                                 "(with --manifest)")
            if not a.manifest:
                raise WriteError("--shared without reports needs --manifest=FILE: the case ids to check every "
                                 "decision on")
            for line in write_shared(a.files, a.shared, manifest_ids(a.manifest)):
                print(line)
            return 0
        if len(a.from_report) != len(targets) or a.files:
            raise WriteError(f"give one --write or --update FILE per --from-report (got {len(a.from_report)} "
                             f"report(s), {len(targets)} file(s){', and stray ' + ' '.join(a.files) if a.files else ''})")
        if len(targets) > 1 and not a.shared:
            raise WriteError("several reports are one library's platforms: give --shared=SHARED for what they share")
        manifest = manifest_ids(a.manifest) if a.manifest else []
        universe = list(manifest)
        for report_path, target in zip(a.from_report, targets):
            doc = read_report(report_path)
            cases, run_info = doc["cases"], doc.get("run", {})
            ids = [c["id"] for c in cases] + manifest
            universe += [c["id"] for c in cases]
            if not a.manifest and (run_info.get("filter") or run_info.get("replay_file")
                                   or doc.get("expectations", {}).get("stale") is None):
                raise WriteError(f"{report_path} is not a run of every case (filtered, sharded or replayed): give "
                                 f"--manifest=FILE so that no glob matches a case that was not run")
            if a.by_root and not a.write:
                raise WriteError("--by-root writes a fresh file: give --write=FILE")
            for line in wx.run(cases, doc.get("candidate", {}), ids, target if a.write else "",
                            target if a.update else "", report_path, wx.case_roots(doc) if a.by_root else None):
                print(line)
        if a.shared:
            for line in write_shared(targets, a.shared, universe):
                print(line)
    except OSError as e:
        print(f"write_expectations: cannot read '{e.filename}': {e.strerror}", file=sys.stderr)
        return 2
    except IndexError:
        print(f"write_expectations: cannot read manifest '{a.manifest}'", file=sys.stderr)
        return 2
    except (WriteError, ex.ExpectationsError) as e:
        print(f"write_expectations: {e}", file=sys.stderr)
        return 2
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
