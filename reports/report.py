"""report.json: a run's report built (build) and checked, and the command line over a report.

report.json is the canonical form; its schema is reports/report.schema.json (versioned). The
report's parts are computed by the modules beside this one, each of one concern:

    report_schema.py    the schema, the outcomes, reading and validating a report (load)
    report_spec.py      spec.json read; the statements each case observed (spec_coverage)
    report_score.py     the verdict, the conformance score, the headline, the badge
    report_causes.py    root causes, wording-only deviations, the promotion family
    report_machine.py   the machine and the tensor-cts commit that ran
    report_terminal.py  the text summary for the terminal

report.md and report.html are rendered from it by reports/render.py; badge.json (the headline
as a shields.io endpoint badge, report_score.badge) is written beside them by render.write_all,
the one writer of them all.

    /usr/bin/python3 -m reports.report validate report.json   checks a report against its schema
    /usr/bin/python3 -m reports.report summary report.json    prints the text summary
"""

from __future__ import annotations

import datetime
import sys

from . import cli
from .report_causes import promotion_family, root_causes
from .report_machine import machine, tool_commit
from .report_schema import SCHEMA_VERSION, ReportError, load, validate
from .report_score import conformance, headline, summary
from .report_terminal import text_summary

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
