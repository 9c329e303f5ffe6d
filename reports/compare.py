"""Compares candidates side by side: one HTML page and one Markdown file from any number of reports.

    bazel run //reports:compare -- out/*/report.json [--out DIR]

Writes DIR/compare.html and DIR/compare.md (default DIR: out/ in the workspace; paths are
relative to where `bazel run` was started) and prints the summary table as Markdown, for the
README. The candidates are the columns, in the order given. Both files show:

- first, the scores: per candidate (a row each, the most conformant first) its headline, the
  promotion family it follows (reports/families.py), its
  conformance — of the cases of required features, the share that behaves as the spec says —
  in all and per spec file (coloured from red, below 50 %, to green, 100 %), and the required
  features it exercised (report.json `conformance`, schema version 3; computed from the cases
  for older reports);

- the summary: per candidate its headline, its PASS, XFAIL, unexpected (FAIL, XPASS, CRASH,
  TIMEOUT) and NOT_SUPPORTED counts and its three top deviations (top_deviations says which);
- the headlines, the gate's verdicts with their reasons, and every feature of the candidate
  interface with its conformance level and what each candidate declared, used and could not
  exercise;
- per spec file and clause, each candidate's passes (✓), expected deviations (XFAIL, ⚠),
  unexpected outcomes (✗ FAIL, ✚ XPASS, ☠ CRASH, ⌛ TIMEOUT) and NOT_SUPPORTED cases (–); on
  the page each count links to that part of the candidate's report.html (the one beside its
  report.json);
- promote_types as each candidate answers it: the spec's matrix with the cells where any
  candidate differs, then (on the page) one matrix per candidate, the cells that differ from
  the spec highlighted (the spec's answer in the tooltip), NOT_SUPPORTED cells grey.

Two reports of the same candidate (out/reference and out/reference-cuda, say) are told apart by
their directories' names, which then label the columns; two that cannot be told apart are an
error.

Exit status: 0 when both files were written; 1 when they could not be; 2 on bad usage or input
— a file that cannot be read, is not UTF-8 or JSON, or is not a tensor-cts report (the message
names the file and the problem), or two reports that cannot be told apart. Reads reports of
schema version 1, 2 and 3. Needs python3-jsonschema (/usr/bin/python3).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import re
import sys
import urllib.parse

from . import families
from . import pages
from . import render
from . import report_causes
from . import report_schema
from . import report_score

OUTCOMES = report_schema.OUTCOMES
UNEXPECTED = report_schema.UNEXPECTED
COLORS = pages.COLORS
_e = pages.e
_md = pages.md
# The marks of a count: pages.MARKS, and ✓ for PASS (a count needs one).
MARKS = {o: (m.strip() or "✓") for o, m in pages.MARKS.items()}
# Short dtype names for the promote_types matrices (a name not listed is shown whole).
SHORT = {"bool": "b", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex32": "c32",
         "complex64": "c64", "complex128": "c128", "uint16": "u16", "uint32": "u32", "uint64": "u64"}


class CompareError(Exception):
    pass


@dataclasses.dataclass
class Column:
    """One report: a column of the page."""
    label: str  # the candidate's name, or its report's directory's name where two reports share one
    path: str  # report.json, as given
    doc: dict
    href: str = ""  # its report.html, relative to the output directory

    @property
    def candidate(self) -> dict:
        return self.doc["candidate"]

    @property
    def cases(self) -> list[dict]:
        return self.doc["cases"]

    def title(self) -> str:
        """The label and, when it is a directory's name, the candidate's; then the version."""
        c = self.candidate
        name = self.label if self.label == c["name"] else f"{self.label} ({c['name']})"
        return f"{name} {c['version']}".strip()

    def tooltip(self) -> str:
        c, d = self.candidate, self.doc
        return "\n".join([f"{c['name']} {c['version']}".strip(), f"build: {c['build'] or '(not reported)'}",
                          f"tensors on: {d['run'].get('device', 'cpu')}", f"report: {self.path}",
                          f"generated {d['generated']}, suite commit {d['tool']['commit'] or '(unknown)'}"])


# ---------------------------------------------------------------- input
# The page repeats a candidate's texts (its name in every cell's tooltip, an observed answer in a
# cell and its tooltip): each is cut to this many characters, so a report's size, not a product
# of it, bounds the page. The full texts are in each candidate's own report, which the page links.
NAME_CHARS = 60  # the candidate's name, version and build
TEXT_CHARS = 300  # a case's observed value, message and expectations reason


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def clip_texts(doc: dict) -> None:
    """Cuts the texts the page repeats (NAME_CHARS, TEXT_CHARS), in place."""
    cand = doc["candidate"]
    for key in ("name", "version", "build"):
        if isinstance(cand.get(key), str):
            cand[key] = clip(cand[key], NAME_CHARS)
    for case in doc["cases"]:
        for key in ("observed", "message", "reason"):
            if isinstance(case.get(key), str):
                case[key] = clip(case[key], TEXT_CHARS)
        for m in case.get("mismatches") or []:
            if isinstance(m.get("observed"), str):
                m["observed"] = clip(m["observed"], TEXT_CHARS)


def load(paths: list[str], where: str) -> list[Column]:
    """The reports at `paths` (relative to `where`), validated, each with its column's label."""
    docs, seen = [], {}
    for p in paths:
        full = os.path.join(where, os.path.expanduser(p))
        real = os.path.realpath(full)
        if real in seen:
            raise CompareError(f"'{p}' is given twice (as '{seen[real]}' too)")
        seen[real] = p
        try:
            docs.append(report_schema.load(full))
        except RecursionError:
            raise CompareError(f"'{full}' is nested too deeply to be a report") from None
        except report_schema.ReportError as e:
            raise CompareError(str(e)) from None
        clip_texts(docs[-1])
    names = collections.Counter(d["candidate"]["name"] for d in docs)
    columns = []
    for p, d in zip(paths, docs):
        name = d["candidate"]["name"]
        label = name if names[name] == 1 else os.path.basename(os.path.dirname(os.path.abspath(os.path.join(where, p))))
        columns.append(Column(label, p, d))
    by_label = collections.defaultdict(list)
    for c in columns:
        by_label[c.label].append(c)
    for label, same in by_label.items():
        if len(same) > 1:
            raise CompareError(
                f"{' and '.join(repr(c.path) for c in same)} cannot be told apart: each is labelled '{label}' (two reports "
                "of one candidate are labelled by their directories' names, which must then differ: put each "
                "report.json, with its report.html, in a directory of its own name)")
    return columns


def link(columns: list[Column], out_dir: str, where: str) -> list[str]:
    """Sets each column's href (its report.html relative to out_dir); returns notes on those missing."""
    notes = []
    for c in columns:
        page = os.path.join(os.path.dirname(os.path.abspath(os.path.join(where, c.path))), "report.html")
        c.href = urllib.parse.quote(os.path.relpath(page, os.path.abspath(out_dir)).replace(os.sep, "/"))
        if not os.path.isfile(page):
            notes.append(f"no report.html beside '{c.path}': its links lead nowhere "
                         f"(render it: /usr/bin/python3 -m reports.render {c.path})")
    return notes


# ---------------------------------------------------------------- what is compared
def top_deviations(cases: list[dict], n: int = 3) -> list[tuple[str, int, bool]]:
    """The n most interesting deviations, as (what, cases, unexpected). A deviation is a case
    that neither passed nor was NOT_SUPPORTED. Expected ones (XFAIL) are grouped by the reason
    their expectations entry gives; unexpected ones (FAIL, XPASS, CRASH, TIMEOUT) by outcome
    and clause ("FAIL in 002#type-promotion"). Unexpected groups come first (they decide the
    verdict), then the groups covering the most cases, ties in the order of their text. An
    expected deviation in an error's wording alone (the check 'message') is not among them: the
    page counts those apart (wording_count)."""
    groups: collections.Counter = collections.Counter()
    for c in cases:
        if c["outcome"] in UNEXPECTED:
            groups[(0, f"{c['outcome']} in {c['clause']}")] += 1
        elif c["outcome"] == "XFAIL" and not report_causes.is_wording_only(c):
            groups[(1, c["reason"] or "(no reason given)")] += 1
    ranked = sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))
    return [(what, count, rank == 0) for (rank, what), count in ranked[:n]]


def unexpected_count(doc: dict) -> int:
    return sum(doc["summary"]["outcomes"][o] for o in UNEXPECTED)


TOP_NOTE = ("Top deviations: the expectations reasons covering the most cases; unexpected outcomes (by outcome and "
            "clause) first; an error of the right kind in the library's own words (the check 'message') is counted "
            "apart, as 'wording alone'.")
FEATURES_NOTE = ("A required feature answered NotSupported makes the verdict CONFORMS PARTIALLY at best; an optional one "
                 "costs nothing (levels: spec/features.toml).")
COUNT_ORDER = ("PASS", "XFAIL", *UNEXPECTED, "NOT_SUPPORTED")
COUNT_NOTE = ("Each cell: " + ", ".join(f"{MARKS[o]} {o}" for o in COUNT_ORDER)
              + " (XFAIL: an expected deviation; FAIL, XPASS, CRASH, TIMEOUT: unexpected); — no such case.")
SUMMARY_HEADER = ["candidate", "headline", "cases", "PASS", "XFAIL", "unexpected", "NOT_SUPPORTED", "top deviations (cases)"]


def summary_markdown(columns: list[Column]) -> str:
    """The summary table (SUMMARY_HEADER), one row per candidate."""
    rows = []
    for c in columns:
        s = c.doc["summary"]
        worded = report_causes.wording_only(c.cases)
        top = pages.MdRaw("<br>".join([_md(f"{what} ({n})") for what, n, _ in top_deviations(c.cases)]
                                      + ([f"wording alone ({worded})"] if worded else [])) or "—")
        rows.append([c.title(), headline_of(c.doc), s["total"], s["outcomes"]["PASS"], s["outcomes"]["XFAIL"],
                     unexpected_count(c.doc), s["outcomes"]["NOT_SUPPORTED"], top])
    return "\n".join(pages.md_table(SUMMARY_HEADER, rows)) + "\n"


def clause_rows(columns: list[Column]) -> list[tuple[str, str | None, list[collections.Counter | None]]]:
    """(spec file, None, outcome counts per column) for each spec file, followed by (spec file,
    clause, counts per column) for each of its clauses; None where a column has no such case."""
    tables = []
    for c in columns:
        t: dict = collections.defaultdict(collections.Counter)
        for case in c.cases:
            t[(case["spec_file"], None)][case["outcome"]] += 1
            t[(case["spec_file"], case["clause"])][case["outcome"]] += 1
        tables.append(t)
    keys = sorted({k for t in tables for k in t}, key=lambda k: (k[0], k[1] is not None, k[1] or ""))
    return [(spec, clause, [t.get((spec, clause)) for t in tables]) for spec, clause in keys]


def count_parts(cnt: collections.Counter) -> list[tuple[str, int]]:
    """(outcome, cases) for each outcome present, in the order: PASS, XFAIL, the unexpected ones, NOT_SUPPORTED."""
    return [(o, cnt[o]) for o in COUNT_ORDER if cnt[o]]


def count_text(cnt: collections.Counter | None) -> str:
    return "—" if cnt is None else " ".join(f"{n} {MARKS[o]}" for o, n in count_parts(cnt))


def worst(cnt: collections.Counter) -> str:
    """The outcome a count cell is coloured by: the first unexpected one, else XFAIL, else PASS, else NOT_SUPPORTED."""
    return next((o for o in (*UNEXPECTED, "XFAIL", "PASS") if cnt[o]), "NOT_SUPPORTED")


def promote_answer(case: dict) -> str | None:
    """What the candidate answered for a promote_types case: the spec's answer where it passed
    (PASS, XPASS), what it gave instead where it deviated (the first mismatch's observed value: a
    dtype name, or the error it raised), None where it gave no answer (NOT_SUPPORTED, CRASH,
    TIMEOUT, a failure without a mismatch)."""
    if case["outcome"] in ("PASS", "XPASS"):
        return case.get("answer")
    if case["outcome"] != "NOT_SUPPORTED" and case["mismatches"]:
        return case["mismatches"][0]["observed"]
    return None


def differs(case: dict) -> bool:
    """Whether the candidate answered promote_types other than the spec."""
    answer = promote_answer(case)
    return answer is not None and answer != case.get("answer")


def deviates(case: dict) -> bool:
    """Whether the candidate answered otherwise, or did not answer where it did not declare the
    feature unsupported (it crashed, hung, or failed without a mismatch)."""
    return case["outcome"] not in ("PASS", "XPASS", "NOT_SUPPORTED")


def promote_matrices(columns: list[Column]) -> tuple[list[str], list[dict]]:
    """(the dtypes, in the order the reports name them; per column {(row, col): case})."""
    order, cells = [], []
    for c in columns:
        o, m = render.matrix(c.cases, render.PROMOTE_TYPES)
        order += [d for d in o if d not in order]
        cells.append(m)
    return order, cells


def short(dtype: str) -> str:
    return SHORT.get(dtype, dtype)


def answer_text(answer: str) -> str:
    """An answer in a matrix cell: a dtype's short name, or "error" for an error's text."""
    return short(answer) if re.fullmatch(r"\w+", answer) else "error"


def _outcome_note(case: dict) -> str:
    return case["outcome"] + (f": {case['reason']}" if case["reason"] else "")


def promote_stats(cells: dict) -> str:
    same = sum(1 for c in cells.values() if c["outcome"] in ("PASS", "XPASS"))
    other = sum(1 for c in cells.values() if differs(c))
    ns = sum(1 for c in cells.values() if c["outcome"] == "NOT_SUPPORTED")
    no_answer = len(cells) - same - other - ns
    return (f"{len(cells)} cells: {same} as the spec, {other} differ{'s' if other == 1 else ''}, {ns} not supported"
            + (f", {no_answer} without an answer (crashed, hung or failed)" if no_answer else ""))


# ---------------------------------------------------------------- Markdown
def markdown(columns: list[Column]) -> str:
    out = [f"# tensor-cts: {len(columns)} candidate{'s' if len(columns) != 1 else ''} compared", ""]
    out += score_markdown(columns)
    out += ["## Summary", "",
           TOP_NOTE, "", summary_markdown(columns)]
    out += ["## Verdicts and features", "", FEATURES_NOTE, ""]
    header = ["", "level", *(c.title() for c in columns)]
    rows = [[pages.md_bold("headline"), "", *(pages.md_bold(headline_of(c.doc)) for c in columns)],
            ["gate verdict", "", *(render.verdict(c.doc) for c in columns)],
            ["why", "", *("; ".join(render.why(c.doc)) or "—" for c in columns)]]
    rows += [[name, level, *(_feature_text(f) for f in per_col)] for name, level, per_col in feature_rows(columns)]
    out += pages.md_table(header, rows) + [""]
    out += ["## Per spec file and clause", "", COUNT_NOTE, ""]
    rows = [[pages.md_bold(spec) if clause is None else clause, *(count_text(n) for n in counts)]
            for spec, clause, counts in clause_rows(columns)]
    out += pages.md_table(["spec file / clause", *(c.title() for c in columns)], rows) + [""]
    out += coverage_markdown(columns)
    out += outliers_markdown(columns)
    order, cells = promote_matrices(columns)
    out += ["## promote_types", ""]
    if not order:
        return "\n".join(out + ["No report has promote_types cases.", ""])
    out += ["The spec's answer; where a candidate answers otherwise, its answer follows in bold. "
            "Dtypes: " + ", ".join(f"{short(d)} {d}" for d in order if short(d) != d) + ".", ""]
    rows = []
    for r in order:
        row = [pages.md_bold(short(r))]
        for col in order:
            here = [(c, m[(r, col)]) for c, m in zip(columns, cells) if (r, col) in m]
            answer = next((case.get("answer", "?") for _, case in here), None)
            other = [pages.md_bold(f"{c.label}: {_promote_md(case)}") for c, case in here if deviates(case)]
            row.append("" if answer is None else pages.MdRaw(" ".join([_md(short(answer)), *other])))
        rows.append(row)
    out += pages.md_table(["", *(short(d) for d in order)], rows) + [""]
    for c, m in zip(columns, cells):
        out += [f"- **{pages.md(c.title())}**: " + (promote_stats(m) if m else "no promote_types cases")]
        out += [f"  - promote_types({r}, {col}): {_md(promote_answer(case) or case['observed'])}, spec {case.get('answer')} "
                f"({_md(_outcome_note(case))})" for (r, col), case in m.items() if deviates(case)]
    return "\n".join(out).rstrip() + "\n"


def _promote_md(case: dict) -> str:
    """A deviating answer in a Markdown cell: the short dtype name, "error", or the outcome."""
    answer = promote_answer(case)
    return case["outcome"] if answer is None else answer_text(answer)


def feature_rows(columns: list[Column]) -> list[tuple[str, str, list[dict | None]]]:
    """(feature, its level(s), its row per column or None) for every feature any report lists, in their order."""
    names: list[str] = []
    per = []
    for c in columns:
        rows = {f["name"]: f for f in c.doc.get("features", [])}
        names += [n for n in rows if n not in names]
        per.append(rows)
    out = []
    for n in names:
        here = [p.get(n) for p in per]
        levels = sorted({f["level"] for f in here if f})
        out.append((n, " / ".join(levels) + (" (the reports differ)" if len(levels) > 1 else ""), here))
    return out


def _cases(n: int) -> str:
    return f"{n} case{'s' if n != 1 else ''}"


def _feature_text(f: dict | None) -> str:
    """What a candidate declared for a feature, the cases that used it, and those it cost."""
    if f is None:
        return "—"
    text = render.declared(f["declared"]) + (f", {_cases(f['cases'])}" if f["cases"] or f["declared"] else "")
    return text + (f", {_cases(f['not_supported'])} not exercised" if f["not_supported"] else "")


# ---------------------------------------------------------------- HTML
CSS = pages.CSS + pages.stylesheet("compare.css")


def _head(c: Column) -> dict:
    c_ = c.candidate
    under = c_["version"] if c.label == c_["name"] else f"{c_['name']} {c_['version']}"
    device = c.doc["run"].get("device", "cpu")
    under += f", on {device}" if device != "cpu" else ""
    return {"tooltip": c.tooltip(), "href": c.href, "label": c.label, "under": under}


def _summary_rows(columns: list[Column]) -> list[dict]:
    rows = []
    for c in columns:
        s = c.doc["summary"]["outcomes"]
        counts = [("PASS", s["PASS"]), ("XFAIL", s["XFAIL"]), ("FAIL", unexpected_count(c.doc)),
                  ("NOT_SUPPORTED", s["NOT_SUPPORTED"])]
        rows.append({"tooltip": c.tooltip(), "href": c.href, "title": c.title(), "headline": headline_of(c.doc),
                     "headline_class": report_score.headline_class(c.doc),
                     "total": c.doc["summary"]["total"], "counts": [(n, COLORS[o]) for o, n in counts],
                     "top": top_deviations(c.cases), "wording": report_causes.wording_only(c.cases)})
    return rows


def _feature_cells(columns: list[Column]) -> list[dict]:
    out = []
    for name, level, here in feature_rows(columns):
        cells = []
        for f in here:
            if f is None:
                cells.append(None)
                continue
            color = (COLORS["FAIL"] if f["level"] == "required" else COLORS["NOT_SUPPORTED"]) if f["not_supported"] else (
                COLORS["NOT_SUPPORTED"] if f["declared"] is False else "")
            cells.append({"color": color, "title": f["clause"] + ": " + f["reason"], "text": _feature_text(f)})
        out.append({"name": name, "level": level, "cells": cells})
    return out


def _count_cell(c: Column, spec: str, clause: str | None, cnt: collections.Counter | None) -> dict | None:
    if cnt is None:
        return None
    parts = []
    for o, n in count_parts(cnt):
        if clause is None:
            where = render.fragment("spec", spec)
        else:
            kind = "deviations" if o == "XFAIL" else "unexpected" if o in UNEXPECTED else "clause"
            where = render.fragment(kind, clause)
        parts.append((c.href + where, n, MARKS[o]))
    tip = f"{c.label}, {clause or spec}: {sum(cnt.values())} cases: " + ", ".join(f"{n} {o}" for o, n in count_parts(cnt))
    return {"color": COLORS[worst(cnt)], "title": tip, "parts": parts}


def _clause_rows(columns: list[Column]) -> list[dict]:
    return [{"cls": "spec" if clause is None else "clause", "name": spec if clause is None else clause,
             "cells": [_count_cell(c, spec, clause, n) for c, n in zip(columns, counts)]}
            for spec, clause, counts in clause_rows(columns)]


def _promote_cell(c: Column, r: str, col: str, case: dict | None) -> dict | None:
    if case is None:
        return None
    answer, spec = promote_answer(case), case.get("answer", "?")
    tip = f"promote_types({r}, {col})\nspec: {spec}\n{c.label}: " + (
        answer if answer is not None else case["observed"] or case["outcome"]) + f"\n{_outcome_note(case)}"
    if answer is None:
        text, cls = MARKS[case["outcome"]], ""
    else:
        text, cls = answer_text(answer), "differs" if differs(case) else ""
    return {"cls": cls, "color": COLORS[case["outcome"]], "title": tip, "text": text}


def _spec_cell(columns: list[Column], cells: list[dict], r: str, col: str) -> dict | None:
    here = [(c, m[(r, col)]) for c, m in zip(columns, cells) if (r, col) in m]
    if not here:
        return None
    answers = sorted({case.get("answer", "?") for _, case in here})
    other = [(c, case) for c, case in here if deviates(case)]
    ns = [c.label for c, case in here if case["outcome"] == "NOT_SUPPORTED"]
    tip = [f"promote_types({r}, {col}) = {' or '.join(answers)}" + (" (the reports' spec differs)" if len(answers) > 1 else "")]
    tip += [f"{c.label}: {promote_answer(case) or 'no answer'} ({_outcome_note(case)})" for c, case in other]
    tip += [f"not supported: {', '.join(ns)}"] if ns else []
    if other:
        bad = any(case["outcome"] in UNEXPECTED for _, case in other)
        color, cls, text = COLORS["FAIL" if bad else "XFAIL"], "differs", f"{short(answers[0])} ≠{len(other)}"
    else:
        color = COLORS["NOT_SUPPORTED"] if len(ns) == len(here) else COLORS["PASS"]
        cls, text = "", short(answers[0])
    return {"cls": cls, "color": color, "title": "\n".join(tip), "text": text}


def _differing(order: list[str], cells: list[dict]) -> str:
    n = sum(1 for r in order for col in order if any((r, col) in m and deviates(m[(r, col)]) for m in cells))
    return f"{n} of {sum(1 for r in order for col in order if any((r, col) in m for m in cells))} cells"


def _promote(columns: list[Column]) -> dict:
    order, cells = promote_matrices(columns)
    grid = lambda cell: [((r, short(r)), [cell(r, col) for col in order]) for r in order]  # noqa: E731
    return {
        "order": [(d, short(d)) for d in order],
        "legend": ", ".join(f"{short(d)} = {d}" for d in order if short(d) != d),
        "differing": _differing(order, cells) if order else "",
        "spec": grid(lambda r, col: _spec_cell(columns, cells, r, col)) if order else [],
        "candidates": [{"href": c.href + render.fragment("matrix", "promote_types"), "title": c.title(),
                        "stats": promote_stats(m) if m else "",
                        "rows": grid(lambda r, col, c=c, m=m: _promote_cell(c, r, col, m.get((r, col)))) if m else None}
                       for c, m in zip(columns, cells)],
    }


def _score_rows(columns: list[Column]) -> tuple[list, list[dict]]:
    files, rows = score_table(columns)

    def cell(r: dict | None, text: str, under: str = "") -> dict:
        title = (f"{r['conformant']} of {r['cases']} cases" if r is not None and r["cases"]
                 else "no case of a required feature here")
        return {"color": pages.score_color(None if r is None else r["percent"]), "title": title, "text": text,
                "under": under}
    out = [{"tooltip": c.tooltip(), "href": c.href, "title": c.title(), "headline": headline_of(c.doc),
            "headline_class": report_score.headline_class(c.doc), "follows": follows(c.doc),
            "overall": dict(cell(score, _pct(score), f"{score['conformant']} of {score['cases']}"
                                 + (f"; {_of_ran(score)}" if score.get("ran", score["cases"]) != score["cases"] else "")),
                            title=report_score.denominator_text(score) if score["cases"] else "no case of a required feature"),
            "exercised": f"{score['required_features']['exercised']} of {score['required_features']['total']}",
            "files": [cell(per.get(f), _pct(per.get(f))) for f in files]} for c, score, per in rows]
    return [(f, os.path.basename(f).removesuffix(".toml")) for f in files], out


def coverage_status(columns: list[Column]) -> tuple[list, list[dict], list[str]]:
    """Per column its render.coverage (None for a report without it) and {statement id: (kind,
    statement)}; and the ids of the statements some column breaks, in order."""
    covs = [render.coverage(c.doc) for c in columns]
    status = [{st["id"]: (kind, st) for kind, sts in cov["groups"].items() for st in sts} if cov else {}
              for cov in covs]
    ids = list(dict.fromkeys(sid for s in status for sid, (kind, _) in s.items() if kind == "broken"))
    return covs, status, ids


def coverage_markdown(columns: list[Column]) -> list[str]:
    """Which of the documents' statements each candidate breaks (render.coverage): a row per
    statement some candidate breaks, a cell per candidate. Empty where no report has it."""
    covs, status, ids = coverage_status(columns)
    if not any(covs):
        return []
    out = ["## Spec coverage: the statements each candidate breaks", "",
           "A statement is broken where one of its cases FAILed, XFAILed (an expected deviation), crashed or hung; "
           "counts of met / broken / not supported statements per candidate:", ""]
    out += pages.md_table(["", *(c.title() for c in columns)], [[kind, *(
        "—" if cov is None else len(cov["groups"][kind]) for cov in covs)] for kind in ("met", "broken", "not supported")])
    out += [""]
    if not ids:
        return out + ["No candidate breaks a statement.", ""]

    def cell(s: dict, sid: str) -> str:
        if sid not in s:
            return "—"
        kind, st = s[sid]
        return pages.MdRaw(f"**broken** ({_md(render._outcomes_text(st))})") if kind == "broken" else kind

    quote = {sid: st for s in status for sid, (_, st) in s.items()}
    rows = [[pages.MdRaw(f"{pages.md_code(sid)} {pages.md(quote[sid]['quote'][:80])}"), *(cell(s, sid) for s in status)]
            for sid in ids]
    return out + pages.md_table(["statement", *(c.title() for c in columns)], rows) + [""]


def _coverage_context(columns: list[Column]) -> dict | None:
    """coverage_markdown's tables for compare.html.j2: met / broken / not supported counts per
    candidate, and a row per statement some candidate breaks. None where no report has them."""
    covs, status, ids = coverage_status(columns)
    if not any(covs):
        return None
    counts = [(kind, ["—" if cov is None else len(cov["groups"][kind]) for cov in covs])
              for kind in ("met", "broken", "not supported")]
    rows = []
    for sid in ids:
        st = next(s[sid][1] for s in status if sid in s)
        cells = []
        for s in status:
            kind, mine = s.get(sid, ("—", None))
            if kind == "broken":
                bad = any(mine["outcomes"].get(o) for o in ("FAIL", "CRASH", "TIMEOUT"))
                cells.append({"color": COLORS["FAIL" if bad else "XFAIL"],
                              "text": "broken: " + render._outcomes_text(mine)})
            else:
                cells.append({"color": render.STATUS_COLOR.get(kind, ""), "text": kind})
        rows.append({"id": sid, "quote": st["quote"], "cells": cells})
    return {"counts": counts, "rows": rows}


# ---------------------------------------------------------------- spec outliers
NOT_LIBRARIES = ("reference", "faulty")  # the spec's own implementation and the test-only faulty candidate
OUTLIERS_NOTE = ("Spec outliers: spec rows where every real library (each candidate but the reference and the "
                 "test-only faulty) departs from the spec the same way — PyTorch-specific semantics a porter must "
                 "know — and rows where only one library departs. A row departs where one of its cases FAILed, "
                 "XFAILed, crashed or hung; the way is what was observed (mismatch kind, and the error kind an error "
                 "check saw: reports/report.py signature); the same way: a signature the deviating cases of the row show in every library. "
                 "A row counts where at least half of the real libraries ran it (a library that declares a row's features "
                 "unsupported does not run it), and \"every\" and \"only one\" are of the libraries that ran it: each row "
                 "says how many did.")


def _is_library(c: Column) -> bool:
    name = c.candidate["name"].split(" ")[0].lower()
    return name not in NOT_LIBRARIES and c.label.lower() not in NOT_LIBRARIES


def spec_outliers(columns: list[Column]) -> dict | None:
    """{"libraries": [labels], "all": [...], "one": [...]} over the real libraries (two or more),
    each row {"row", "clause", "ways": {label: [signatures]}, "cases": {label: n}}; None with fewer."""
    libs = [c for c in columns if _is_library(c)]
    if len(libs) < 2:
        return None
    per: list[dict] = []
    for c in libs:
        rows: dict = {}
        for case in c.cases:
            row = case.get("spec_row")
            if not row:
                continue
            r = rows.setdefault(row, {"clause": case["clause"], "cases": 0, "ran": 0, "ways": collections.Counter()})
            if case["outcome"] != "NOT_SUPPORTED":
                r["ran"] += 1
            if case["outcome"] in report_causes.DEVIATING:
                r["cases"] += 1
                r["ways"][report_causes.signature(case)] += 1
        per.append(rows)
    # A row counts where at least half of the libraries (two at least) ran one of its cases: a
    # library that declares a feature unsupported runs none of its rows, and one such library
    # would otherwise leave no row to compare (21 libraries gave 0 and 0).
    least = max(2, (len(per) + 1) // 2)
    ran_by = collections.Counter(k for rows in per for k, v in rows.items() if v["ran"])
    all_, one = [], []
    for row in sorted(k for k, n in ran_by.items() if n >= least):
        ran = [(c, rows[row]) for c, rows in zip(libs, per) if row in rows and rows[row]["ran"]]
        departs = [(c, r) for c, r in ran if r["cases"]]
        entry = {"row": row, "clause": ran[0][1]["clause"], "ran": len(ran), "of": len(per),
                 "ways": {c.label: sorted(r["ways"]) for c, r in departs},
                 "cases": {c.label: r["cases"] for c, r in departs}}
        shared = set.intersection(*(set(r["ways"]) for _, r in departs)) if departs else set()
        if len(departs) == len(ran) and shared:  # the same way: an observed signature they all share
            all_.append({**entry, "shared": sorted(shared)})
        elif len(departs) == 1:
            one.append(entry)
    return {"libraries": [c.label for c in libs], "all": all_, "one": one}


def _ran(e: dict) -> str:
    return f"{e['ran']} of {e['of']} ran it"


def outliers_markdown(columns: list[Column]) -> list[str]:
    o = spec_outliers(columns)
    if o is None:
        return []
    out = ["## Spec outliers", "", OUTLIERS_NOTE, "", f"Real libraries: {', '.join(pages.md(x) for x in o['libraries'])}.", "",
           f"### Every library departs the same way ({len(o['all'])} rows)", ""]
    out += pages.md_table(["spec row", "clause", "observed", "cases per library"],
                          [[pages.MdRaw(pages.md_code(e['row'])), e["clause"], "; ".join(e["shared"]),
                            f"{_ran(e)}: " + ", ".join(f"{k} {n}" for k, n in e["cases"].items())] for e in o["all"]]) \
        if o["all"] else ["None."]
    out += ["", f"### Only one library departs ({len(o['one'])} rows)", ""]
    out += pages.md_table(["spec row", "clause", "library", "observed", "cases"],
                          [[pages.MdRaw(pages.md_code(e['row'])), e["clause"], k, "; ".join(v), f"{e['cases'][k]} ({_ran(e)})"]
                           for e in o["one"] for k, v in e["ways"].items()]) if o["one"] else ["None."]
    return out + [""]


def _outliers_context(columns: list[Column]) -> dict | None:
    o = spec_outliers(columns)
    if o is None:
        return None
    return {"note": OUTLIERS_NOTE, "libraries": ", ".join(o["libraries"]),
            "all": [{"row": e["row"], "clause": e["clause"], "ways": "; ".join(e["shared"]),
                     "cases": f"{_ran(e)}: " + ", ".join(f"{k} {n}" for k, n in e["cases"].items())} for e in o["all"]],
            "one": [{"row": e["row"], "clause": e["clause"], "library": k, "ways": "; ".join(v),
                     "cases": f"{e['cases'][k]} ({_ran(e)})"} for e in o["one"] for k, v in e["ways"].items()]}


def html(columns: list[Column]) -> str:
    """compare.html, from reports/templates/compare.html.j2 (autoescaped)."""
    score_files, scores = _score_rows(columns)
    context = {
        "n": len(columns), "css": CSS, "score_note": SCORE_NOTE, "score_files": score_files, "scores": scores,
        "top_note": TOP_NOTE, "summary_header": SUMMARY_HEADER, "summary": _summary_rows(columns),
        "features_note": FEATURES_NOTE, "heads": [_head(c) for c in columns],
        "headlines": [(headline_of(c.doc), report_score.headline_class(c.doc)) for c in columns],
        "verdicts": [render.verdict(c.doc) for c in columns], "whys": [render.why(c.doc) for c in columns],
        "features": _feature_cells(columns), "count_order": COUNT_ORDER, "marks": MARKS,
        "clauses": _clause_rows(columns), "coverage": _coverage_context(columns), "promote": _promote(columns),
        "outliers": _outliers_context(columns),
    }
    return pages.templates().get_template("compare.html.j2").render(context)


# ---------------------------------------------------------------- the scores
def score_of(doc: dict) -> dict:
    """report.json's `conformance`, or, for a report before version 3, the same from its cases."""
    return doc.get("conformance") or report_score.conformance(doc["cases"], doc.get("features", []), doc.get("dtypes"))


def follows(doc: dict) -> str:
    """The promotion family the candidate follows, with the share of the cells it states that
    agree (report.json `promotion_family`, or from the cases for an older report); — without
    promote_types, result_type or can_cast answers."""
    fam = doc.get("promotion_family") or families.classify(doc["cases"])
    if not fam:
        return "—"
    row = next(r for r in fam["families"] if r["key"] == fam["closest"])
    return f"{fam['name']} ({row['agree']} of {row['compared']})"


def headline_of(doc: dict) -> str:
    return report_score.headline_of(doc)


def score_table(columns: list[Column]) -> tuple[list[str], list[tuple[Column, dict, dict]]]:
    """The spec files, and per candidate (the highest score first) its score and its score per spec file."""
    rows = []
    for c in columns:
        score = score_of(c.doc)
        rows.append((c, score, {r["name"]: r for r in score["by_spec_file"]}))
    rows.sort(key=lambda r: (r[1]["percent"] is None, -(r[1]["percent"] or 0), r[0].label))
    files = sorted({f for _, _, per in rows for f in per})
    return files, rows


def _pct(r: dict | None) -> str:
    return "—" if r is None or r["percent"] is None else f"{r['percent']:.1f} %"


def _of_ran(score: dict) -> str:
    """The score among the cases that ran: "45.3 % of 13,900 run" ("—" for a report before it)."""
    if score.get("ran") is None:
        return "—"
    return "none ran" if not score["ran"] else f"{score['percent_of_ran']:.1f} % of {score['ran']:,} run"


SCORE_NOTE = ("Conformance, beside the verdict: of the cases of required features, the share that behaves as the "
              "spec says (an expected deviation counts against it). The denominator is every case of a required "
              "feature, run or not: a case the candidate could not run (NOT_SUPPORTED) counts against it too; beside "
              "it, the share among the cases that ran. The most conformant candidate first.")


def score_markdown(columns: list[Column]) -> list[str]:
    files, rows = score_table(columns)
    header = ["candidate", "headline", "follows", "conformance", "of the cases that ran", "required features",
              *(os.path.basename(f) for f in files)]
    body = [[c.title(), headline_of(c.doc), follows(c.doc), f"{_pct(score)} ({score['conformant']} of {score['cases']})",
             _of_ran(score), f"{score['required_features']['exercised']} of {score['required_features']['total']}",
             *(_pct(per.get(f)) for f in files)] for c, score, per in rows]
    return ["## Scores", "", SCORE_NOTE, ""] + pages.md_table(header, body) + [""]


# ---------------------------------------------------------------- main
def main(argv: list[str]) -> int:
    from . import cli
    p = cli.parser("compare.py", __doc__)
    p.add_argument("reports", nargs="*", metavar="report.json")
    p.add_argument("--out", default=None, metavar="DIR", help="where compare.html and compare.md go (default: out/)")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    paths, out = args.reports, args.out
    if not paths:
        print(f"compare: no reports given\n{p.format_usage()}", file=sys.stderr, end="")
        return 2
    where = cli.working_directory()
    try:
        columns = load(paths, where)
    except CompareError as e:
        print(f"compare: bad input: {e}", file=sys.stderr)
        return 2
    out_dir = pages.out_dir(out, where)
    for note in link(columns, out_dir, where):
        print(f"compare: note: {note}", file=sys.stderr)
    written = pages.write_files("compare", out_dir, [("compare.html", html(columns)), ("compare.md", markdown(columns))])
    if written is None:
        return 1
    print(summary_markdown(columns), end="")
    print("compare: wrote " + ", ".join(written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
