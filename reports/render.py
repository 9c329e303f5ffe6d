"""Renders report.json as Markdown and as a self-contained HTML page.

    python3 reports/render.py report.json [--out=DIR]    writes report.md and report.html

Both show the same things: the verdict with its reasons; the candidate, machine and run; the
features of the candidate interface with their conformance level, the candidate's
declaration, the cases that used each and the cases NOT_SUPPORTED because of it; a summary per
spec file and per clause; dtype x dtype matrices (promote_types, can_cast, in-place acceptance
per op) coloured by outcome; the deviations grouped by clause, each with its reason; every
unexpected outcome with its rerun command (and seed and counterexample for properties);
NOT_SUPPORTED calls; stale expectations. Standard library only (report.load needs
python3-jsonschema: run it with /usr/bin/python3).
"""

from __future__ import annotations

import collections
import html as html_lib
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as report_lib  # noqa: E402

OUTCOMES = report_lib.OUTCOMES
COLORS = {"PASS": "#c8e6c9", "XFAIL": "#ffe082", "FAIL": "#ef9a9a", "XPASS": "#ce93d8",
          "NOT_SUPPORTED": "#e0e0e0", "CRASH": "#e57373", "TIMEOUT": "#ffab91"}
MARKS = {"PASS": "", "XFAIL": " ⚠", "FAIL": " ✗", "XPASS": " ✚", "NOT_SUPPORTED": " –", "CRASH": " ☠", "TIMEOUT": " ⌛"}


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
    return report_lib.verdict(doc)


def why(doc: dict) -> list[str]:
    return doc["summary"].get("why", [])


def _declared(value) -> str:
    return "unknown" if value is None else "supported" if value else "not supported"


def feature_rows(doc: dict) -> list[list]:
    """feature, level, declared, cases using it, NOT_SUPPORTED because of it, clause, reason."""
    return [[f["name"], f["level"], _declared(f["declared"]), f["cases"], f["not_supported"] or "", f["clause"],
             f["reason"]] for f in doc.get("features", [])]


FEATURE_HEADER = ["feature", "level", "declared", "cases using it", "NOT_SUPPORTED because of it", "clause", "why this level"]


def facts(doc: dict) -> list[tuple[str, str]]:
    cand, run, m = doc["candidate"], doc["run"], doc["machine"]
    stale = doc["expectations"]["stale"]
    return [
        ("candidate", f"{cand['name']} {cand['version']}"),
        ("build", cand["build"] or "(not reported)"),
        ("machine", f"{m['hostname']}: {m['cpu']}, {m['cpus']} CPUs, {m['memory_gib']} GiB, {m['os']}"),
        ("command", run["command"]),
        ("suites", ", ".join(run["suites"]) + (f" (filter {run['filter']})" if run["filter"] else "")),
        ("tensors on", run["device"]),
        ("RapidCheck seed", run["seed"]),
        ("wall time", f"{run['wall_s']} s, {run['jobs']} jobs, {run['processes']} processes, "
                      f"{run['isolated_processes']} isolated after a crash or hang"),
        ("expectations", f"{doc['expectations']['file']} ({doc['expectations']['entries']} entries, "
                         + ("stale check skipped: a filtered, device or replay run" if stale is None else f"{len(stale)} stale") + ")"),
        ("suite commit", doc["tool"]["commit"] or "(unknown)"),
        ("generated", doc["generated"]),
    ]


# ---------------------------------------------------------------- Markdown
def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_md(x) for x in r) + " |" for r in rows]
    return lines


def _count_rows(table: dict) -> list[list]:
    return [[k, sum(cnt.values())] + [cnt[o] or "" for o in OUTCOMES] for k, cnt in table.items()]


def markdown(doc: dict) -> str:
    cases = doc["cases"]
    s = doc["summary"]
    out = [f"# tensor-cts conformance report: {doc['candidate']['name']} {doc['candidate']['version']}".rstrip(), "",
           f"**{verdict(doc)}** — {s['total']} cases: "
           + ", ".join(f"{s['outcomes'][o]} {o}" for o in OUTCOMES if s["outcomes"][o]), ""]
    if why(doc):
        out += [f"- {_md(w)}" for w in why(doc)] + [""]
    out += _md_table(["", ""], [[k, v] for k, v in facts(doc)]) + [""]
    if doc.get("features"):
        out += ["## Features and conformance levels", "",
                "A required feature answered NotSupported makes the verdict CONFORMS PARTIALLY at best; an optional "
                "one costs nothing (levels: spec/features.toml).", ""]
        out += _md_table(FEATURE_HEADER, feature_rows(doc)) + [""]
    out += ["## Summary per spec file", ""]
    out += _md_table(["spec file", "cases", *OUTCOMES], _count_rows(report_lib.per_key(cases, "spec_file"))) + [""]
    out += ["## Summary per clause", ""]
    out += _md_table(["clause", "cases", *OUTCOMES], _count_rows(report_lib.per_key(cases, "clause"))) + [""]
    out += ["## dtype matrices", "",
            "Each cell is the spec's answer; a mark after it is the outcome: "
            + ", ".join(f"{m.strip()} {o}" for o, m in MARKS.items() if m) + " (no mark: PASS).", ""]
    for _, title, order, cells, label in matrices(cases):
        out += [f"### {title}", ""]
        rows = []
        for r in order:
            row = [f"**{r}**"]
            for col in order:
                c = cells.get((r, col))
                row.append("" if c is None else label(c) + MARKS[c["outcome"]])
            rows.append(row)
        out += _md_table(["", *order], rows) + [""]
    out += coverage_markdown(doc)
    deviations = by_clause(cases, ("XFAIL",))
    out += ["## Expected deviations, by clause", ""]
    if not deviations:
        out += ["None.", ""]
    for clause, group in deviations.items():
        out += [f"### {clause} ({len(group)})", ""]
        for reason, members in _group_by_reason(group):
            out += [f"- **{reason}** ({len(members)}): " + ", ".join(f"`{c['id']}`" for c in members[:12])
                    + (f" … and {len(members) - 12} more" if len(members) > 12 else "")]
            first = members[0]
            out += [f"  - e.g. `{first['id']}`: expected {first['expected']}; observed {first['observed']}"]
        out += [""]
    unexpected = by_clause(cases, report_lib.UNEXPECTED)
    out += ["## Unexpected outcomes, by clause", ""]
    if not unexpected:
        out += ["None.", ""]
    for clause, group in unexpected.items():
        out += [f"### {clause} ({len(group)})", ""]
        for c in group:
            out += [f"- **{c['outcome']}** `{c['id']}` — {c['statement']}"]
            if c.get("spec_row"):
                out += [f"  - spec row: `{c['spec_row']}`"]
            out += [f"  - expected: {_md(c['expected'])}", f"  - observed: {_md(c['observed'])}"]
            if c["reason"]:
                out += [f"  - note: {_md(c['reason'])}"]
            if c.get("seed"):
                out += [f"  - seed: {c['seed']}" + (f" ({c['draws']} checked draws)" if "draws" in c else "")]
            if c.get("counterexample"):
                out += ["  - counterexample:", "", "    ```", *("    " + l for l in c["counterexample"].splitlines()[:30]),
                        "    ```", ""]
            out += [f"  - rerun: `{c['rerun']}`"]
        out += [""]
    calls = not_supported_calls(cases)
    if calls:
        out += ["## Not supported (declared by the candidate)", ""]
        out += _md_table(["call", "cases"], [[k, n] for k, n in calls.most_common()]) + [""]
    stale = doc["expectations"]["stale"]
    if stale:
        out += ["## Stale expectations", "", f"Entries of {doc['expectations']['file']} that match no case:", ""]
        out += _md_table(["line", "pattern", "outcome", "reason"],
                         [[x["line"], f"`{x['pattern']}`", x["outcome"], x["reason"]] for x in stale]) + [""]
    return "\n".join(out).rstrip() + "\n"


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
        else:
            kind = "not supported"  # every case NOT_SUPPORTED
        groups[kind].append(st)
        per_doc[st["clause"].split("#")[0]][kind] += 1
    return {"file": cov["file"], "groups": groups, "per_doc": dict(sorted(per_doc.items()))}


def _outcomes_text(st: dict) -> str:
    return ", ".join(f"{n} {o}" for o, n in st["outcomes"].items())


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
           f"{len(g['untested'])} untested, each with its reason.", ""]
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
                for st in g["not run"]]
    out += ["", "### Statements met", ""]
    out += _md_table(["statement", "clause", "cases", "outcomes"],
                     [[f"`{st['id']}`", st["clause"], st["cases"], _outcomes_text(st)] for st in g["met"]]) \
        if g["met"] else ["None."]
    return out + [""]


STATUS_COLOR = {"broken": COLORS["FAIL"], "met": COLORS["PASS"], "not supported": COLORS["NOT_SUPPORTED"]}


def coverage_html(doc: dict) -> str:
    """The Spec coverage section of report.html (coverage_markdown's content); "" without it."""
    cov = coverage(doc)
    if cov is None:
        return ""
    g = cov["groups"]
    total = sum(len(v) for v in g.values())
    parts = [f"<h2 id='{_e(anchor('coverage', 'statements'))}'>Spec coverage</h2>",
             f"<p>The documents' statements ({_e(cov['file'])}): {total - len(g['untested'])} of {total} are tested by "
             f"spec rows; in this run {len(g['met'])} met, {len(g['broken'])} broken (a case FAIL, XFAIL, CRASH or "
             f"TIMEOUT), {len(g['not supported'])} not supported, {len(g['not run'])} with no case run; "
             f"{len(g['untested'])} untested, each with its reason. Hover over a statement for its rows.</p>",
             _html_table(["document", "statements", *g], [[d, sum(c.values()), *(c[k] for k in g)]
                                                          for d, c in cov["per_doc"].items()])]
    for kind in ("broken", "not supported", "untested", "not run", "met"):
        if not g[kind]:
            continue
        items = []
        for st in g[kind]:
            why = st.get("untested") or _outcomes_text(st) or "no case ran"
            color = STATUS_COLOR.get(kind)
            if kind == "broken" and not any(st["outcomes"].get(o) for o in ("FAIL", "CRASH", "TIMEOUT")):
                color = COLORS["XFAIL"]  # broken only by expected deviations
            style = f" style='background:{color}'" if color else ""
            items.append(f"<li{style} title='{_e('rows: ' + (', '.join(st['rows']) or 'none'))}'>"
                         f"<code>{_e(st['id'])}</code> ({_e(st['clause'])}): {_e(why)}<br><q>{_e(st['quote'])}</q></li>")
        body = f"<ul>{''.join(items)}</ul>"
        title = f"Statements {kind} ({len(g[kind])})"
        parts.append(f"<details><summary>{_e(title)}</summary>{body}</details>" if kind == "met" else
                     f"<h3>{_e(title)}</h3>{body}")
    return "\n".join(parts)


def _group_by_reason(group: list[dict]):
    by = collections.defaultdict(list)
    for c in group:
        by[c["reason"]].append(c)
    return sorted(by.items(), key=lambda kv: -len(kv[1]))


# ---------------------------------------------------------------- HTML
CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.matrix td { text-align: center; font-size: 12px; min-width: 56px; }
.verdict { font-size: 18px; font-weight: bold; padding: 6px 10px; display: inline-block; border-radius: 4px; }
.ok { background: #c8e6c9; } .bad { background: #ef9a9a; } .partial { background: #ffe082; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
pre { background: #f5f5f5; padding: 6px; overflow-x: auto; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border: 1px solid #bbb; }
"""


def _e(text) -> str:
    return html_lib.escape(str(text))


def _html_table(header: list[str], rows: list[list], numeric_from: int = 1, ids: list[str] | None = None) -> str:
    """A table; ids, when given, are the rows' HTML ids."""
    h = "".join(f"<th>{_e(x)}</th>" for x in header)
    body = []
    for n, r in enumerate(rows):
        cells = []
        for i, x in enumerate(r):
            color = f' style="background:{COLORS[header[i]]}"' if header[i] in COLORS and x else ""
            cls = ' class="n"' if i >= numeric_from else ""
            cells.append(f"<td{cls}{color}>{_e(x)}</td>")
        body.append((f"<tr id='{_e(ids[n])}'>" if ids else "<tr>") + "".join(cells) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _summary_html(title: str, kind: str, table: dict) -> str:
    """A summary table per spec file (kind "spec") or per clause ("clause"), each row with its anchor."""
    return _html_table([title, "cases", *OUTCOMES], _count_rows(table), ids=[anchor(kind, k) for k in table])


VERDICT_CLASS = {"CONFORMS": "ok", "CONFORMS PARTIALLY": "partial", "DOES NOT CONFORM": "bad"}


def _features_html(doc: dict) -> str:
    if not doc.get("features"):
        return ""
    rows = []
    for f, r in zip(doc["features"], feature_rows(doc)):
        color = (COLORS["FAIL"] if f["level"] == "required" else COLORS["NOT_SUPPORTED"]) if f["not_supported"] else ""
        style = f" style='background:{color}'" if color else ""
        rows.append(f"<tr{style}>" + "".join(f"<td{' class=n' if i in (3, 4) else ''}>{_e(x)}</td>"
                                             for i, x in enumerate(r)) + "</tr>")
    head = "".join(f"<th>{_e(h)}</th>" for h in FEATURE_HEADER)
    return ("<h2>Features and conformance levels</h2><p>A required feature answered NotSupported makes the verdict "
            "CONFORMS PARTIALLY at best; an optional one costs nothing (levels: spec/features.toml).</p>"
            f"<table><tr>{head}</tr>{''.join(rows)}</table>")


def html(doc: dict) -> str:
    cases = doc["cases"]
    s = doc["summary"]
    name = f"{doc['candidate']['name']} {doc['candidate']['version']}".strip()
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>tensor-cts: {_e(name)}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>tensor-cts conformance report: {_e(name)}</h1>",
             f"<p><span class='verdict {VERDICT_CLASS[verdict(doc)]}'>{verdict(doc)}</span> "
             f"{s['total']} cases: " + ", ".join(f"{s['outcomes'][o]} {o}" for o in OUTCOMES if s["outcomes"][o]) + "</p>",
             ("<ul>" + "".join(f"<li>{_e(w)}</li>" for w in why(doc)) + "</ul>") if why(doc) else "",
             "<table>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in facts(doc)) + "</table>",
             _features_html(doc),
             "<p class=legend>" + "".join(f"<span style='background:{COLORS[o]}'>{o}</span>" for o in OUTCOMES) + "</p>",
             "<h2>Summary per spec file</h2>",
             _summary_html("spec file", "spec", report_lib.per_key(cases, "spec_file")),
             "<h2>Summary per clause</h2>",
             _summary_html("clause", "clause", report_lib.per_key(cases, "clause")),
             "<h2>dtype matrices</h2><p>Each cell is the spec's answer, coloured by the candidate's outcome; "
             "hover for the row, what was observed and why.</p>"]
    for key, title, order, cells, label in matrices(cases):
        rows = []
        for r in order:
            tds = []
            for col in order:
                c = cells.get((r, col))
                if c is None:
                    tds.append("<td></td>")
                    continue
                tip = f"{c['id']}: {c['statement']}\n{c['outcome']}" + (
                    f": observed {c['observed']}" if c["outcome"] != "PASS" else "") + (
                    f"\n{c['reason']}" if c["reason"] else "")
                tds.append(f"<td style='background:{COLORS[c['outcome']]}' title='{_e(tip)}'>"
                           f"{_e(label(c))}{_e(MARKS[c['outcome']])}</td>")
            rows.append(f"<tr><th>{_e(r)}</th>{''.join(tds)}</tr>")
        head = "".join(f"<th>{_e(d)}</th>" for d in order)
        parts.append(f"<h3 id='{_e(anchor('matrix', key))}'>{_e(title)}</h3><table class=matrix><tr><th></th>{head}</tr>{''.join(rows)}</table>")
    parts.append(coverage_html(doc))
    parts.append("<h2>Expected deviations, by clause</h2>")
    deviations = by_clause(cases, ("XFAIL",))
    if not deviations:
        parts.append("<p>None.</p>")
    for clause, group in deviations.items():
        parts.append(f"<h3 id='{_e(anchor('deviations', clause))}'>{_e(clause)} ({len(group)})</h3><ul>")
        for reason, members in _group_by_reason(group):
            ids = ", ".join(f"<code>{_e(c['id'])}</code>" for c in members[:12])
            more = f" … and {len(members) - 12} more" if len(members) > 12 else ""
            first = members[0]
            parts.append(f"<li><b>{_e(reason)}</b> ({len(members)}): {ids}{more}<br>e.g. <code>{_e(first['id'])}</code>: "
                         f"expected {_e(first['expected'])}; observed {_e(first['observed'])}</li>")
        parts.append("</ul>")
    parts.append("<h2>Unexpected outcomes, by clause</h2>")
    unexpected = by_clause(cases, report_lib.UNEXPECTED)
    if not unexpected:
        parts.append("<p>None.</p>")
    for clause, group in unexpected.items():
        parts.append(f"<h3 id='{_e(anchor('unexpected', clause))}'>{_e(clause)} ({len(group)})</h3><ul>")
        for c in group:
            row = f"<br>spec row: <code>{_e(c['spec_row'])}</code>" if c.get("spec_row") else ""
            extra = f"<br>note: {_e(c['reason'])}" if c["reason"] else ""
            extra += f"<br>seed: <code>{_e(c['seed'])}</code>" if c.get("seed") else ""
            extra += f" ({c['draws']} checked draws)" if c.get("seed") and "draws" in c else ""
            extra += f"<pre>{_e(c['counterexample'])}</pre>" if c.get("counterexample") else ""
            parts.append(f"<li style='background:{COLORS[c['outcome']]}'><b>{c['outcome']}</b> <code>{_e(c['id'])}</code> — "
                         f"{_e(c['statement'])}{row}<br>expected: {_e(c['expected'])}<br>observed: {_e(c['observed'])}"
                         f"{extra}<br>rerun: <code>{_e(c['rerun'])}</code></li>")
        parts.append("</ul>")
    calls = not_supported_calls(cases)
    if calls:
        parts.append("<h2>Not supported (declared by the candidate)</h2>")
        parts.append(_html_table(["call", "cases"], [[k, n] for k, n in calls.most_common()]))
    stale = doc["expectations"]["stale"]
    if stale:
        parts.append(f"<h2>Stale expectations</h2><p>Entries of {_e(doc['expectations']['file'])} that match no case:</p>")
        parts.append(_html_table(["line", "pattern", "outcome", "reason"],
                                 [[x["line"], x["pattern"], x["outcome"], x["reason"]] for x in stale], numeric_from=9))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    paths = [a for a in argv if not a.startswith("--out=")]
    outs = [a.split("=", 1)[1] for a in argv if a.startswith("--out=")]
    if len(paths) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        doc = report_lib.load(paths[0])
    except report_lib.ReportError as e:
        print(f"render: {e}", file=sys.stderr)
        return 1
    out = outs[0] if outs else os.path.dirname(os.path.abspath(paths[0]))
    for name, text in (("report.md", markdown(doc)), ("report.html", html(doc))):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)
        print(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
