"""Renders report.json as Markdown and as a self-contained HTML page.

    python3 -m reports.render report.json [--out=DIR]    writes report.md, report.html and badge.json

Both show the same things: the verdict with its reasons; the candidate, machine and run; the
features of the candidate interface with their conformance level, the candidate's
declaration, the cases that used each and the cases NOT_SUPPORTED because of it; a summary per
spec file and per clause; dtype x dtype matrices (promote_types, can_cast, in-place acceptance
per op) coloured by outcome; the deviations grouped by clause, each with its reason; every
unexpected outcome with its rerun command (and seed and counterexample for properties);
NOT_SUPPORTED calls; stale expectations. Standard library only (report_schema.load needs
python3-jsonschema: run it with /usr/bin/python3).
"""

from __future__ import annotations

import collections
import functools
import json
import os
import re
import sys
import tempfile
import urllib.parse

from . import cli
from . import families as families_lib
from . import pages
from . import report_causes
from . import report_schema
from . import report_score
from . import report_terminal
from .pages import COLORS, MARKS, MdRaw

_e, _md, _md_code, _md_table = pages.e, pages.md, pages.md_code, pages.md_table

OUTCOMES = report_schema.OUTCOMES



def _answer(case: dict) -> str:
    """The cell's label: the row's expected answer, carried as data (generators emit it)."""
    return case.get("answer", "?")


# Matrices: a key (the HTML anchor's name), a title, the case-id pattern (row dtype, column
# dtype), and the cell's label: the row's expected answer (the case's 'answer' field).
PROMOTE_TYPES = re.compile(r"promote_types\.(\w+)\.(\w+)\Z")
MATRICES = [
    ("promote_types", "promote_types(row, column)", PROMOTE_TYPES, _answer),
    ("can_cast", "can_cast(from = row, to = column)", re.compile(r"can_cast\.(\w+)\.(\w+)\Z"), _answer),
]
INPLACE = re.compile(r"inplace\.(\w+)\.\w+\.\w+\Z")  # inplace.<op>.<self>.<other>


def all_matrices(cases: list[dict]) -> list:
    """MATRICES, then one in-place acceptance matrix per op the cases name (the ops come from
    the report, not from a list kept here)."""
    ops = sorted({m.group(1) for c in cases if (m := INPLACE.match(c["id"]))})
    return MATRICES + [(f"inplace.{op}", f"in-place acceptance: self (row).{op}_(other (column))",
                        re.compile(rf"inplace\.{op}\.(\w+)\.(\w+)\Z"), _answer) for op in ops]


def matrix(cases: list[dict], pattern) -> tuple[list[str], dict]:
    """(dtypes in the order the cases name them, {(row, col): case}) of the cases whose ids
    `pattern` matches (groups 1 and 2: the row's and the column's dtype)."""
    cells, order = {}, []
    for c in cases:
        m = pattern.match(c["id"])
        if not m:
            continue
        cells[(m[1], m[2])] = c
        for d in (m[1], m[2]):
            if d not in order:
                order.append(d)
    return order, cells


def not_run(case: dict, key: str) -> str | None:
    """Why an in-place (or out=) acceptance cell's operation never ran, or None when it ran: the
    case was NOT_SUPPORTED (the feature or dtype it names), or it made no `error` check (the
    acceptance it shows was never observed: its setup failed first). Such a cell is shown as
    "not run", never in the spec's colour."""
    if not key.startswith(("inplace.", "out.")):
        return None
    if case["outcome"] == "NOT_SUPPORTED":
        what = case.get("feature") or case.get("dtype") or ""
        return f"NOT_SUPPORTED{' (' + what + ')' if what else ''}: {case['observed']}"
    checks = case.get("checks")
    if checks is not None and "error" not in checks:
        failed = ", ".join(k for k, v in checks.items() if v == "FAIL")
        return "the operation never ran" + (f" ({failed} failed first)" if failed else "") + \
            (f": {case['observed']}" if case.get("observed") else "")
    return None


NOT_RUN_COLOR = "#dddddd"


def matrices(cases: list[dict]):
    """Yields (key, title, dtypes, {(row, col): case}, label) for every matrix with cases."""
    for key, title, pattern, label in all_matrices(cases):
        order, cells = matrix(cases, pattern)
        if cells:
            yield key, title, order, cells, label


def anchor(kind: str, name: str) -> str:
    """The id of a part of report.html — kind "spec" (a spec file's summary row), "clause" (a
    clause's summary row), "deviations" or "unexpected" (a clause's list), "matrix" (a dtype
    matrix's key) — so other pages (reports/compare.py) can link to it."""
    return f"{kind}-" + re.sub(r"\s", "_", name)


def fragment(kind: str, name: str) -> str:
    """'#' and anchor(kind, name), escaped for a URL ('#' in a clause name is '%23')."""
    return "#" + urllib.parse.quote(anchor(kind, name), safe="/:@!$&()*+,;=-._~")


def by_clause(cases: list[dict], outcomes: tuple) -> dict:
    groups = collections.defaultdict(list)
    for c in cases:
        if c["outcome"] in outcomes:
            groups[c["clause"]].append(c)
    return dict(sorted(groups.items()))


def not_supported_calls(cases: list[dict]) -> collections.Counter:
    return collections.Counter(c["observed"] for c in cases if c["outcome"] == "NOT_SUPPORTED")


def verdict(doc: dict) -> str:
    return report_score.verdict(doc)


def headline(doc: dict) -> str:
    return report_score.headline_of(doc)


def why(doc: dict) -> list[str]:
    return doc["summary"].get("why", [])


def declared(value) -> str:
    return "unknown" if value is None else "supported" if value else "not supported"


def unused_why(doc: dict, f: dict) -> str:
    """Why no case of the run used feature `f` (its `cases` is 0): said, never left as a bare 0."""
    n = f["not_supported"]
    if n:
        return (f"the candidate declares it unsupported: each of the {n} case{'s' if n != 1 else ''} that needs it "
                "answered NotSupported without running")
    if f["declared"] is False:
        others = [g["name"] for g in doc.get("features", []) if g is not f and g["declared"] is False
                  and g["clause"] == f["clause"] and g["not_supported"]]
        return ("the candidate declares it unsupported, and every case that needs it stopped first at another "
                "unsupported feature" + (f" ({', '.join(others)})" if others else " or dtype"))
    run = doc["run"]
    if run.get("filter") or run.get("replay_file"):
        return f"no case of this run needs it (filter {run.get('filter') or run.get('replay_file')})"
    return f"no case of the suites this run ran ({', '.join(run['suites'])}) needs it"


def feature_rows(doc: dict) -> list[list]:
    """feature, level, declared, cases using it (0: and why), NOT_SUPPORTED because of it, clause, reason."""
    return [[f["name"], f["level"], declared(f["declared"]), f["cases"] or f"0: {unused_why(doc, f)}",
             f["not_supported"] or "", f["clause"], f["reason"]] for f in doc.get("features", [])]


FEATURE_HEADER = ["feature", "level", "declared", "cases using it", "NOT_SUPPORTED because of it", "clause", "why this level"]


def facts(doc: dict) -> list[tuple[str, str]]:
    cand, run, m = doc["candidate"], doc["run"], doc["machine"]
    stale = doc["expectations"]["stale"]
    return [
        ("candidate", f"{cand['name']} {cand['version']}"),
        ("build", cand["build"] or "(not reported)"),
    ] + ([("library versions", ", ".join(f"{k}={v}" for k, v in cand["identity"]["libraries"].items())
           + f" ({cand['identity']['file']})")] if cand.get("identity") else []) + [
        ("machine", f"{m['hostname']}: {m['cpu']}, {m['cpus']} CPUs, {m['memory_gib']} GiB, {m['os']}"),
        ("command", run["command"]),
        ("suites", ", ".join(run["suites"]) + (f" (filter {run['filter']})" if run["filter"] else "")),
        ("tensors on", run["device"]),
        ("RapidCheck seed", run["seed"]),
        ("wall time", f"{run['wall_s']} s, {run['jobs']} jobs, {run['processes']} processes, "
                      f"{run['isolated_processes']} isolated after a crash or hang"),
    ] + ([("facts", f"{run['facts']['used']} requests answered from the testee's facts, "
                    f"{run['facts']['checked']} of them asked anyway and compared (protocol version 3)")]
         if run.get("facts") else []) + [
        ("expectations", f"{doc['expectations']['file']} ({doc['expectations']['entries']} entries, "
                         + (f"{doc['expectations']['unreviewed']} unreviewed reasons, "
                            if doc["expectations"].get("unreviewed") else "")
                         + ("stale check skipped: a filtered, device or replay run" if stale is None else f"{len(stale)} stale") + ")"),
        ("suite commit", doc["tool"]["commit"] or "(unknown)"),
        ("generated", doc["generated"]),
    ] + ([("merged from", "; ".join(f"{m['file']} ({m['cases']} cases, {m['machine']['hostname']}, {m['command']})"
                                     for m in doc["merged"]))] if doc.get("merged") else [])


# ---------------------------------------------------------------- Markdown
def _count_rows(table: dict) -> list[list]:
    return [[k, sum(cnt.values())] + [cnt[o] or "" for o in OUTCOMES] for k, cnt in table.items()]


def score_rows(rows: list[dict]) -> list[list]:
    return [[r["name"], "" if r["percent"] is None else f"{r['percent']:.1f} %", r["conformant"], r["cases"]]
            for r in sorted(rows, key=lambda r: (r["percent"] is None, r["percent"] or 0, r["name"]))]


def score_markdown(doc: dict) -> list[str]:
    """The conformance score beside the gate (report.json `conformance`; none before version 3)."""
    score = doc.get("conformance")
    if not score or score["percent"] is None:
        return []
    rf = score["required_features"]
    out = [f"Conformance beside the gate: **{score['percent']:.1f} %** ({report_score.denominator_text(score)}); "
           f"required features exercised: {rf['exercised']} of {rf['total']}"
           + (f"; {score['optional_excluded']} cases of optional features not counted" if score["optional_excluded"]
              else "") + ".", "", "## Conformance per spec file", ""]
    out += _md_table(["spec file", "conformance", "conformant", "cases"], score_rows(score["by_spec_file"])) + [""]
    out += ["## Conformance per required feature", ""]
    out += _md_table(["feature", "conformance", "conformant", "cases"], score_rows(score["by_feature"])) + [""]
    out += ["## Conformance per clause", ""]
    out += _md_table(["clause", "conformance", "conformant", "cases"], score_rows(score["by_clause"])) + [""]
    return out


def markdown(doc: dict) -> str:
    cases = doc["cases"]
    s = doc["summary"]
    # The first line leads with the headline (summary.headline), never the bare gate verdict: a
    # candidate that passes the gate only by its own list of deviations does not read as one
    # without any.
    name = f"{doc['candidate']['name']} {doc['candidate']['version']}".strip()
    out = [_md(f"# {name}: {headline(doc)}"), "",
           f"tensor-cts conformance report. Gate verdict (nothing unexpected?): **{verdict(doc)}** — {s['total']} cases: "
           + ", ".join(f"{s['outcomes'][o]} {o}" for o in OUTCOMES if s["outcomes"][o]), ""]
    out += score_markdown(doc)
    if why(doc):
        out += [f"- {_md(w)}" for w in why(doc)] + [""]
    out += _md_table(["", ""], [[k, v] for k, v in facts(doc)]) + [""]
    if doc.get("features"):
        out += ["## Features and conformance levels", "",
                "A required feature answered NotSupported makes the verdict CONFORMS PARTIALLY at best; an optional "
                "one costs nothing (levels: spec/features.toml).", ""]
        out += _md_table(FEATURE_HEADER, feature_rows(doc)) + [""]
    out += ["## Summary per spec file", ""]
    out += _md_table(["spec file", "cases", *OUTCOMES], _count_rows(report_terminal.per_key(cases, "spec_file"))) + [""]
    out += ["## Summary per clause", ""]
    out += _md_table(["clause", "cases", *OUTCOMES], _count_rows(report_terminal.per_key(cases, "clause"))) + [""]
    out += ["## dtype matrices", "",
            "Each cell is the spec's answer; a mark after it is the outcome: "
            + ", ".join(f"{m.strip()} {o}" for o, m in MARKS.items() if m) + " (no mark: PASS). In an acceptance "
            "matrix, \"not run\" is a cell whose operation never ran (listed below it with the reason).", ""]
    for key, title, order, cells, label in matrices(cases):
        out += [f"### {title}", ""]
        rows, unrun = [], []
        for r in order:
            row = [pages.md_bold(r)]
            for col in order:
                c = cells.get((r, col))
                why_not = None if c is None else not_run(c, key)
                if why_not:
                    unrun.append((c["id"], why_not))
                row.append("" if c is None else "not run" if why_not else label(c) + MARKS[c["outcome"]])
            rows.append(row)
        out += _md_table(["", *order], rows) + [""]
        if unrun:
            reasons = collections.Counter(w for _, w in unrun)
            out += [f"Not run ({len(unrun)}):", ""] + [f"- {_md(w)} ({n})" for w, n in reasons.most_common(10)] + [""]
    out += family_markdown(doc)
    out += coverage_markdown(doc)
    out += roots_markdown(doc)
    deviations = by_clause(cases, ("XFAIL",))
    out += ["## Expected deviations, by clause", ""]
    worded = report_causes.wording_text(cases, report_causes.documented_messages(doc))
    if worded:
        out += [_md(worded) + ".", ""]
    if not deviations:
        out += ["None.", ""]
    for clause, group in deviations.items():
        out += [f"### {_md(clause)} ({len(group)})", ""]
        for reason, members in _group_by_reason(doc, group):
            out += [f"- **{_md(reason)}** ({len(members)}): " + ", ".join(_md_code(c['id']) for c in members[:12])
                    + (f" … and {len(members) - 12} more" if len(members) > 12 else "")]
            first = members[0]
            out += [f"  - e.g. {_md_code(first['id'])}: expected {_md(first['expected'])}; observed {_md(first['observed'])}"]
        out += [""]
    unexpected = by_clause(cases, report_schema.UNEXPECTED)
    out += ["## Unexpected outcomes, by clause", ""]
    if not unexpected:
        out += ["None.", ""]
    for clause, group in unexpected.items():
        out += [f"### {_md(clause)} ({len(group)})", ""]
        for c in group:
            out += [f"- **{c['outcome']}** {_md_code(c['id'])} — {_md(c['statement'])}"]
            if c.get("spec_row"):
                out += [f"  - spec row: {_md_code(c['spec_row'])}"]
            out += [f"  - expected: {_md(c['expected'])}", f"  - observed: {_md(c['observed'])}"]
            if c["reason"]:
                out += [f"  - note: {_md(c['reason'])}"]
            if c.get("seed"):
                out += [f"  - seed: {c['seed']}" + (f" ({c['draws']} checked draws)" if "draws" in c else "")]
            if c.get("counterexample"):
                out += ["  - counterexample:", "", "    ```", *("    " + _md_code(l)[1:-1] for l in c["counterexample"].splitlines()[:30]),
                        "    ```", ""]
            out += [f"  - rerun: {_md_code(c['rerun'])}"]
            if c.get("trace"):
                out += [f"  - trace: [{_md(c['trace'])}]({urllib.parse.quote(c['trace'])}); replay without Bazel: "
                        f"{_md_code(c['repro'])}"]
        out += [""]
    calls = not_supported_calls(cases)
    if calls:
        out += ["## Not supported (declared by the candidate)", ""]
        out += _md_table(["call", "cases"], [[k, n] for k, n in calls.most_common()]) + [""]
    stale = doc["expectations"]["stale"]
    if stale:
        out += ["## Stale expectations", "",
                f"Entries of {doc['expectations']['file']} that match no case, or only NOT_SUPPORTED cases:", ""]
        out += _md_table(["line", "pattern", "outcome", "reason", "matches"],
                         [[x["line"], MdRaw(_md_code(x["pattern"])), x["outcome"], x["reason"],
                           f"{x['not_supported']} NOT_SUPPORTED" if x.get("not_supported") else "no case"]
                          for x in stale]) + [""]
    return "\n".join(out).rstrip() + "\n"


RESIDUAL_SHOWN = 50  # residual cells listed in report.md / report.html (report.json holds up to 200)
FAMILY_HEADER = ["family", "cells agreeing", "of the cells it states",
                 *(k if k != "operations" else "add, mul (result dtype)" for k in families_lib.KINDS_COMPARED)]
DISAGREEMENTS_SHOWN = 20


def family_rows(fam: dict) -> list[list]:
    def tally(v):
        return f"{v['agree']} of {v['compared']}" if v else "—"  # a report from before the kind existed
    return [[r["name"], r["agree"], r["compared"], *(tally(r["by_kind"].get(k)) for k in families_lib.KINDS_COMPARED)]
            for r in fam["families"]]


def family_intro(fam: dict) -> str:
    closest = next(r for r in fam["families"] if r["key"] == fam["closest"])
    return (f"of the candidate's {fam['cells']} answers (promote_types, result_type and can_cast, and the result dtypes "
            f"of add and mul), {closest['agree']} of the {closest['compared']} it states agree "
            f"(reports/families/{fam['closest']}.toml: {closest['source']}); "
            f"{fam['residual_total']} residual cell{'s' if fam['residual_total'] != 1 else ''}."
            + (f" Its operations disagree with its own result_type in {fam['disagreements_total']} "
               f"cell{'s' if fam['disagreements_total'] != 1 else ''}." if fam.get("disagreements_total") else ""))


def family_markdown(doc: dict) -> list[str]:
    """The promotion family the candidate follows (report.json `promotion_family`)."""
    fam = doc.get("promotion_family")
    if not fam:
        return []
    out = ["## Promotion family", "", f"The candidate follows **{_md(fam['name'])}** most closely: " + _md(family_intro(fam)), ""]
    out += _md_table(FAMILY_HEADER, family_rows(fam)) + [""]
    if fam["residual"]:
        out += [f"Residual cells (answered otherwise than {_md(fam['name'])}):", ""]
        out += [f"- {_md(families_lib.cell_text(r))}" for r in fam["residual"][:RESIDUAL_SHOWN]]
        more = fam["residual_total"] - min(len(fam["residual"]), RESIDUAL_SHOWN)
        out += [f"- … and {more} more (report.json lists {len(fam['residual'])})"] if more > 0 else []
        out += [""]
    if fam.get("disagreements"):
        out += ["Where its operations disagree with its own result_type:", ""]
        out += [f"- {_md(families_lib.disagreement_text(d))}" for d in fam["disagreements"][:DISAGREEMENTS_SHOWN]]
        more = fam["disagreements_total"] - min(len(fam["disagreements"]), DISAGREEMENTS_SHOWN)
        out += [f"- … and {more} more (report.json)"] if more > 0 else []
        out += [""]
    return out


ROOTS_SHOWN, OTHER_SHOWN = 30, 30


def roots_intro(rc: dict) -> str:
    return (f"{rc['deviations']} deviating cases ({rc['xfail']} XFAIL). {len(rc['roots'])} root deviation"
            f"{'s' if len(rc['roots']) != 1 else ''} — deviating spec rows none of whose ancestors (derives_from in "
            f"spec/*.toml) deviate in the checks they decide — explain {rc['explained']} of them "
            "(a root explains a case below it only where it deviates on that case's own inputs: the same dtypes "
            "and operand kinds) "
            f"({rc['explained_xfail']} XFAIL); the other {rc['deviations'] - rc['explained']} are grouped by what was "
            "observed (mismatch kind, and the error kind an error check saw).")


def root_rows(rc: dict) -> list[list]:
    return [[r["row"], r["clause"], r["own"], r["downstream"], r["own"] + r["downstream"], r["xfail"],
             ", ".join(r["rows"][:8]) + (f" … and {len(r['rows']) - 8} more" if len(r["rows"]) > 8 else ""),
             "; ".join(f"{x['signature']} ({x['cases']})" for x in r["signatures"][:3])] for r in rc["roots"][:ROOTS_SHOWN]]


ROOT_HEADER = ["root row", "clause", "own cases", "downstream cases", "explains", "of them XFAIL",
               "rows downstream", "observed (own cases)"]


def other_rows(rc: dict) -> list[list]:
    return [[x["signature"], x["cases"], x["xfail"], ", ".join(x["rows"][:6]) + (" …" if len(x["rows"]) > 6 else ""),
             x["example"]] for x in rc["other"][:OTHER_SHOWN]]


OTHER_HEADER = ["observed signature", "cases", "of them XFAIL", "rows", "e.g."]


def roots_markdown(doc: dict) -> list[str]:
    """Root causes (report.json root_causes; reports/report.py root_causes)."""
    rc = doc.get("root_causes")
    if not rc or not rc["deviations"]:
        return []
    out = ["## Root deviations", "", _md(roots_intro(rc)), ""]
    if rc["roots"]:
        out += _md_table(ROOT_HEADER, root_rows(rc)) + [""]
    if rc["other"]:
        out += ["### Other deviations, by observed signature", ""]
        out += _md_table(OTHER_HEADER, [[_md(x) if isinstance(x, str) else x for x in r] for r in other_rows(rc)]) + [""]
        more = len(rc["other"]) - OTHER_SHOWN
        out += [f"… and {more} more signatures (report.json root_causes)", ""] if more > 0 else []
    return out


def roots_context(doc: dict) -> dict | None:
    rc = doc.get("root_causes")
    if not rc or not rc["deviations"]:
        return None
    return {"intro": roots_intro(rc), "header": ROOT_HEADER, "rows": root_rows(rc), "other_header": OTHER_HEADER,
            "other": other_rows(rc), "more": max(0, len(rc["other"]) - OTHER_SHOWN)}


BROKEN = ("FAIL", "XFAIL", "CRASH", "TIMEOUT")  # a statement whose case had one of these is not met


def coverage(doc: dict) -> dict | None:
    """The spec coverage of a report: its statements split into broken (a case FAILed, XFAILed,
    crashed or hung), met (none broken, one passed), not supported (every case NOT_SUPPORTED),
    not run (rows, but no case in this run) and untested (no rows: the reason), with the counts
    per document. None for a report without it."""
    cov = doc.get("spec_coverage")
    if cov is None:
        return None
    groups = {"broken": [], "met": [], "not supported": [], "not run": [], "untested": []}
    per_doc: dict = collections.defaultdict(collections.Counter)
    for st in cov["statements"]:
        if "untested" in st:
            kind = "untested"
        elif not st["cases"]:
            kind = "not run"
        elif any(st["outcomes"].get(o) for o in BROKEN):
            kind = "broken"
        elif st["outcomes"].get("PASS") or st["outcomes"].get("XPASS"):
            kind = "met"
        elif st["outcomes"].get("NOT_SUPPORTED"):
            kind = "not supported"  # every case NOT_SUPPORTED (or not observing it)
        else:
            kind = "not run"  # cases ran, but none made a check the statement is about
        groups[kind].append(st)
        per_doc[st["clause"].split("#")[0]][kind] += 1
    return {"file": cov["file"], "groups": groups, "per_doc": dict(sorted(per_doc.items()))}


def _outcomes_text(st: dict) -> str:
    return ", ".join([f"{n} {o}" for o, n in st["outcomes"].items()]
                     + ([f"{st['not_observed']} not observed"] if st.get("not_observed") else [])) + \
        (f" (about: {', '.join(st['checks'])})" if st.get("checks") else "")


COVERAGE_RULE = ("A statement is broken only by a case that failed a check the statement is about (its checks in "
                 "spec/statements.toml, else every check but setup and declaration): a case whose only failing checks "
                 "are values breaks no statement about dtypes, and meets it when its dtype check passed. A case that "
                 "made none of those checks (its setup failed, or they were NOT_SUPPORTED) did not observe it.")


def coverage_markdown(doc: dict) -> list[str]:
    cov = coverage(doc)
    if cov is None:
        return []
    g = cov["groups"]
    total = sum(len(v) for v in g.values())
    out = ["## Spec coverage", "",
           f"The documents' statements ({cov['file']}): {total - len(g['untested'])} of {total} are tested by "
           f"spec rows; in this run {len(g['met'])} met, {len(g['broken'])} broken (a case FAIL, XFAIL, CRASH or "
           f"TIMEOUT), {len(g['not supported'])} not supported, {len(g['not run'])} with no case run; "
           f"{len(g['untested'])} untested, each with its reason.", "", COVERAGE_RULE, ""]
    out += _md_table(["document", "statements", *g], [[d, sum(c.values()), *(c[k] for k in g)]
                                                       for d, c in cov["per_doc"].items()]) + [""]
    out += ["### Statements broken", ""]
    out += [f"- `{st['id']}` ({st['clause']}): {_outcomes_text(st)} — “{_md(st['quote'])}”" for st in g["broken"]] \
        or ["None."]
    out += ["", "### Statements untested", ""]
    out += [f"- `{st['id']}` ({st['clause']}): {_md(st['untested'])} — “{_md(st['quote'])}”" for st in g["untested"]] \
        or ["None."]
    if g["not supported"]:
        out += ["", "### Statements not supported (every case NOT_SUPPORTED)", ""]
        out += [f"- `{st['id']}` ({st['clause']}): {st['cases']} cases" for st in g["not supported"]]
    if g["not run"]:
        out += ["", "### Statements with no case in this run", ""]
        out += [f"- `{st['id']}` ({st['clause']}): rows " + ", ".join(f"`{r}`" for r in st["rows"])
                + (f" — {st['not_observed']} cases ran without a check it is about" if st.get("not_observed") else "")
                for st in g["not run"]]
    out += ["", "### Statements met", ""]
    out += _md_table(["statement", "clause", "cases", "outcomes"],
                     [[f"`{st['id']}`", st["clause"], st["cases"], _outcomes_text(st)] for st in g["met"]]) \
        if g["met"] else ["None."]
    return out + [""]


STATUS_COLOR = {"broken": COLORS["FAIL"], "met": COLORS["PASS"], "not supported": COLORS["NOT_SUPPORTED"]}


def coverage_context(doc: dict) -> dict | None:
    """The Spec coverage section of report.html (coverage_markdown's content, for the template
    reports/templates/report.html.j2); None without spec coverage in the report."""
    cov = coverage(doc)
    if cov is None:
        return None
    g = cov["groups"]
    total = sum(len(v) for v in g.values())
    sections = []
    for kind in ("broken", "not supported", "untested", "not run", "met"):
        items = []
        for st in g[kind]:
            color = STATUS_COLOR.get(kind, "")
            if kind == "broken" and not any(st["outcomes"].get(o) for o in ("FAIL", "CRASH", "TIMEOUT")):
                color = COLORS["XFAIL"]  # broken only by expected deviations
            items.append({"id": st["id"], "clause": st["clause"], "quote": st["quote"], "color": color,
                          "why": st.get("untested") or _outcomes_text(st) or "no case ran",
                          "rows": "rows: " + (", ".join(st["rows"]) or "none")})
        if items:
            sections.append({"kind": kind, "title": f"Statements {kind} ({len(items)})", "statements": items})
    return {"file": cov["file"], "total": total, "tested": total - len(g["untested"]),
            "counts": {k: len(v) for k, v in g.items()}, "kinds": list(g),
            "per_doc": [[d, sum(c.values()), *(c[k] for k in g)] for d, c in cov["per_doc"].items()],
            "sections": sections}


def family_context(doc: dict) -> dict | None:
    fam = doc.get("promotion_family")
    if not fam:
        return None
    shown = fam["residual"][:RESIDUAL_SHOWN]
    return {"name": fam["name"], "intro": family_intro(fam), "header": FAMILY_HEADER, "rows": family_rows(fam),
            "closest": [r["key"] == fam["closest"] for r in fam["families"]],
            "residual": [families_lib.cell_text(r) for r in shown], "more": fam["residual_total"] - len(shown),
            "disagreements": [families_lib.disagreement_text(d) for d in fam.get("disagreements", [])[:DISAGREEMENTS_SHOWN]],
            "disagreements_more": fam.get("disagreements_total", 0) - min(len(fam.get("disagreements", [])),
                                                                         DISAGREEMENTS_SHOWN)}


def _group_by_reason(doc: dict, group: list[dict]):
    """(reason, its cases), most cases first: a reason cut in each case (reason_ref) shown once,
    whole (expectations.reasons)."""
    by = collections.defaultdict(list)
    for c in group:
        by[report_causes.whole_reason(doc, c)].append(c)
    return sorted(by.items(), key=lambda kv: -len(kv[1]))


# ---------------------------------------------------------------- HTML
def html(doc: dict) -> str:
    """report.html, from reports/templates/report.html.j2 (autoescaped)."""
    cases = doc["cases"]
    s = doc["summary"]
    matrices_ = []
    for key, title, order, cells, label in matrices(cases):
        rows = []
        for r in order:
            row = []
            for col in order:
                c = cells.get((r, col))
                if c is None:
                    row.append(None)
                    continue
                why_not = not_run(c, key)
                if why_not:
                    row.append({"outcome": c["outcome"], "tip": f"{c['id']}: not run: {why_not}", "label": "not run",
                                "color": NOT_RUN_COLOR, "mark": ""})
                    continue
                tip = f"{c['id']}: {c['statement']}\n{c['outcome']}" + (
                    f": observed {c['observed']}" if c["outcome"] != "PASS" else "") + (
                    f"\n{c['reason']}" if c["reason"] else "")
                row.append({"outcome": c["outcome"], "tip": tip, "label": label(c), "color": COLORS[c["outcome"]],
                            "mark": MARKS[c["outcome"]]})
            rows.append((r, row))
        matrices_.append({"key": key, "title": title, "order": order, "rows": rows})
    deviations = []
    for clause, group in by_clause(cases, ("XFAIL",)).items():
        reasons = [(reason, members[:12], max(0, len(members) - 12)) for reason, members in _group_by_reason(doc, group)]
        deviations.append((clause, {"count": len(group), "reasons": reasons}))
    score = doc.get("conformance") if doc.get("conformance") and doc["conformance"]["percent"] is not None else None
    order = lambda rows: sorted(rows, key=lambda r: (r["percent"] is None, r["percent"] or 0, r["name"]))  # noqa: E731
    per = lambda key: [(k, {"total": sum(cnt.values()), "counts": cnt})  # noqa: E731
                       for k, cnt in report_terminal.per_key(cases, key).items()]
    features = []
    for f, r in zip(doc.get("features") or [], feature_rows(doc)):
        color = (COLORS["FAIL"] if f["level"] == "required" else COLORS["NOT_SUPPORTED"]) if f["not_supported"] else ""
        features.append((color, r))
    context = {
        "name": f"{doc['candidate']['name']} {doc['candidate']['version']}".strip(),
        "verdict": verdict(doc), "headline": headline(doc), "headline_class": report_score.headline_class(doc),
        "summary": s, "why": why(doc), "outcomes": OUTCOMES,
        "counts": ", ".join(f"{s['outcomes'][o]} {o}" for o in OUTCOMES if s["outcomes"][o]),
        "score": score, "score_by": {k: order(score["by_" + k]) for k in ("spec_file", "feature", "clause")} if score
        else {}, "score_denominator": report_score.denominator_text(score) if score else "",
        "facts": facts(doc), "features": features, "feature_header": FEATURE_HEADER,
        "per_spec": per("spec_file"), "per_clause": per("clause"), "anchor": anchor, "matrices": matrices_,
        "deviations": deviations,
        "wording": report_causes.wording_text(cases, report_causes.documented_messages(doc)),
        "unexpected": list(by_clause(cases, report_schema.UNEXPECTED).items()),
        "calls": not_supported_calls(cases).most_common(), "stale": doc["expectations"]["stale"],
        "expectations_file": doc["expectations"]["file"],
        "coverage": coverage_context(doc),
        "family": family_context(doc),
        "roots": roots_context(doc), "coverage_rule": COVERAGE_RULE,
    }
    return pages.templates().get_template("report.html.j2").render(context)


# ---------------------------------------------------------------- writing
REPORT_FILES = ("report.json", "report.md", "report.html", "badge.json")


def report_json(doc: dict) -> str:
    """report.json's text: indented as json.dumps(indent=1) writes it, except that each case is
    one line of its own (a case per line: grep and diff show whole cases). Python indents only
    in pure Python: the whole report so took 0.5 s of a reference run; this, 0.15 s. A JSON
    text has no raw newline inside a string, so re-indenting a member's lines is safe."""
    dump = functools.partial(json.dumps, ensure_ascii=False, allow_nan=False)
    one_line = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
    members = []
    for key, value in doc.items():
        if key == "cases" and isinstance(value, list) and value:
            text = "[\n  " + ",\n  ".join(map(one_line, value)) + "\n ]"
        else:
            text = dump(value, indent=1).replace("\n", "\n ")
        members.append(f" {dump(key)}: {text}")
    return "{\n" + ",\n".join(members) + "\n}\n" if members else "{}\n"


def write_all(doc: dict, out_dir: str, names: tuple = REPORT_FILES) -> list[str]:
    """Writes the report files `names` (default: all of REPORT_FILES: report.json, report.md,
    report.html and badge.json) into out_dir; returns their paths, in that order. The one
    writer of report files: the runner, this file's command line and conformance/tools/merge.py all
    write through it."""
    makers = {"report.json": lambda: report_json(doc),
              "report.md": lambda: markdown(doc), "report.html": lambda: html(doc),
              "badge.json": lambda: json.dumps(report_score.badge(doc), ensure_ascii=False) + "\n"}
    # Rendered first, all of them, so that a rendering that fails writes nothing; report.json
    # last of all (the canonical form: the renderings beside it are never older).
    texts = [(name, makers[name]()) for name in sorted(names, key=lambda n: n == "report.json")]
    # The files together or not at all: each written whole beside its name (flushed), all of
    # them, before any is renamed over its name, report.json last; a failure while writing
    # (a disk full, an exception, an interrupt) leaves every previous file as it was and no temporary.
    # What remains non-atomic: the renames themselves, one after another (a SIGKILL between two
    # leaves the new renderings beside the previous report.json: never a newer report.json
    # beside older renderings), and a temporary of a run killed before its renames, which the
    # next run into the folder removes (conformance/runner/isolation.sweep_abandoned).
    paths, staged = {}, []
    try:
        for name, text in texts:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=out_dir)
            staged.append((name, tmp))
            os.fchmod(fd, 0o666 & ~_umask())
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        while staged:
            name, tmp = staged[0]
            path = os.path.join(out_dir, name)
            os.replace(tmp, path)
            staged.pop(0)
            paths[name] = path
    except BaseException:
        for _, tmp in staged:
            try:
                os.remove(tmp)
            except OSError:
                pass
        raise
    return [paths[n] for n in REPORT_FILES if n in paths]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def main(argv: list[str]) -> int:
    p = cli.parser("render.py", __doc__)
    p.add_argument("report", metavar="report.json")
    p.add_argument("--out", default="", metavar="DIR", help="where report.md, report.html and badge.json go (default: beside it)")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    paths, outs = [args.report], [args.out] if args.out else []
    try:
        doc = report_schema.load(paths[0])
    except report_schema.ReportError as e:
        print(f"render: {e}", file=sys.stderr)
        return 1
    out = cli.user_path(outs[0]) if outs else os.path.dirname(os.path.abspath(paths[0]))
    # Through the one writer of report files (write_all): each file whole or not at all, into a
    # folder made where it is missing.
    try:
        os.makedirs(out, exist_ok=True)
        written = write_all(doc, out, ("report.md", "report.html", "badge.json"))
    except OSError as e:
        print(f"render: cannot write into '{out}': {cli.os_error(e)}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
