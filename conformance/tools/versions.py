"""What changed between two versions of a library: one page from pairs of reports, each pair the
same kind of candidate in an older and a newer version (torch 1.13's torch_meta and torch 2.15's
torch2_meta, say) — what a backend author reads before upgrading.

    bazel run //conformance/tools:versions -- OLD.json NEW.json [OLD.json NEW.json ...] [--out DIR]

Writes DIR/versions.html and DIR/versions.md (default DIR: out/ in the workspace; paths are
relative to where `bazel run` was started) and prints the table of the pairs as Markdown, for the
README. A section per pair, in the order given:

- the counts: the cases whose outcome changed (per change: PASS -> XFAIL, ...), the spec rows
  they belong to, the unchanged cases, the cases in one version only;
- every spec row with a case whose outcome changed: what each version does (the row's cases per
  outcome, all of them) and the causes of its changes;
- the causes, most cases first: a cause is what each side says about a changed case — on a side
  that deviates, the reason of the expectations entry that matched the case (report.json's
  `reason`), traced back to that entry (file and line) in the expectations file the report names
  and checked against it; on the other side, that it passes, or the feature it declares
  unsupported. Under each cause, its rows: the cases it changed, the row's outcomes in each
  version, an example (the check, what the spec expects, what each version observed) and, where
  the report's derivations (report.json root_causes: derives_from in spec/*.toml) trace a
  deviation to another row, that row;
- the rows whose cases deviate in both versions (XFAIL in both) for another reason;
- the cases in one version only, per spec row.

A change is unexplained where a side that deviates has no reason, is unexpected (FAIL, XPASS,
CRASH, TIMEOUT), or gives a reason that is not its expectations entry's (the file now says
otherwise, or has no entry for the case); a side whose expectations file cannot be read is
unchecked. The page counts both, per pair and per row.

A pair's two reports must be of one candidate (the same candidate name, which says the kind:
"torch (Python API), tensors made on meta" for torch_meta and torch2_meta) in two versions;
--different-candidates pairs reports of different candidates deliberately.

Exit status: 0 when both files were written; 1 when they could not be; 2 on bad usage or input —
an odd number of reports, a file that cannot be read or is not a tensor-cts report (the message
names the file and the problem), a pair of different candidates without --different-candidates,
or a pair of one candidate in one version. Reads reports of schema version 1, 2 and 3. Needs
python3-jsonschema and python3-jinja2 (/usr/bin/python3).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import re
import sys

from conformance.runner import expectations as expectations_lib  # the one parser of the format
from reports import cli
from reports import compare
from reports import diff
from reports import pages
from reports import report_causes
from reports import report_schema
from reports import report_score
from reports import report_terminal

from . import merge

COLORS = pages.COLORS
clip = compare.clip
TEXT_CHARS = compare.TEXT_CHARS  # an observed value or an expected one, at most
WHERE_SHOWN = 4  # the lines of a cause's expectations entries named per file, at most (a block's patterns are entries each)


class VersionsError(Exception):
    pass


# ---------------------------------------------------------------- input
class Trace:
    """The expectations file a report names, read again to trace each listed case's reason to
    the entry that matched it (the report carries the reason's text, not where it came from)."""

    def __init__(self, doc: dict):
        self.file = doc["expectations"]["file"]
        self.doc = doc
        self.index, self.base, self.note, self._texts = None, "", "", {}
        path = merge.resolve(self.file)
        try:
            entries = expectations_lib.load(path)
        except expectations_lib.ExpectationsError as e:
            self.note = f"not checked: {e}"
            return
        self.index = expectations_lib.Index(entries)
        top = os.path.abspath(path)
        self.base = top[:-len(self.file)] if not os.path.isabs(self.file) and top.endswith(self.file) \
            else os.path.dirname(top)
        if len(entries) != doc["expectations"]["entries"]:
            self.note = (f"{self.file} has {len(entries)} entries, the report counted "
                         f"{doc['expectations']['entries']}: it changed since the run")

    def entry(self, case: dict) -> tuple[str, str, str]:
        """(status, where, why) of a listed case: "traced" and the entry's file:line when the entry
        that matches its id gives its reason; "cut" when that reason is cut short (cut()); "differs"
        when no entry gives it; "unchecked" without a file."""
        if self.index is None:
            return "unchecked", "", ""
        # A case that failed in its wording alone is a wording rule's (FORMAT.md "Wording rules").
        e = self.index.first(case["id"], rule=report_causes.is_wording_only(case)) or self.index.first(case["id"])
        if e is None:
            return "differs", "", f"no entry of {self.file} matches {case['id']} now"
        where = f"{os.path.relpath(e.path, self.base) if self.base else e.path}:{e.line}"
        if e.reason != report_causes.whole_reason(self.doc, case):
            return "differs", "", f"{where} now says: {e.reason}"
        rest = self.cut(e)
        if rest:
            return "cut", where, (f"the reason is cut short before '{clip(rest, 60)}' (a '#' after a blank starts a "
                                  "comment: conformance/expectations/FORMAT.md)")
        return "traced", where, ""

    def cut(self, e) -> str:
        """What follows entry e's reason on its line when that is a '#' and a word ('#164161),'):
        an issue number the format read as a comment, cutting the reason short. '' otherwise (a
        comment is '#' and a blank, or nothing follows)."""
        if e.path not in self._texts:
            try:
                self._texts[e.path] = expectations_lib.read_text(e.path)
            except expectations_lib.ExpectationsError:
                self._texts[e.path] = ""
        m = re.search(re.escape(e.reason) + r"[ \t]+(#[^\s#][^\n]*)", self._texts[e.path])
        return m.group(1) if m else ""


@dataclasses.dataclass
class Side:
    """One report of a pair."""
    path: str  # as given
    doc: dict
    label: str = ""  # its column's heading: the version, or with the candidate's name where a pair's names differ
    trace: Trace = None
    roots: dict = dataclasses.field(default_factory=dict)  # deviating case id -> the root rows it derives from

    def __post_init__(self):
        self.cases = diff.outcomes(self.doc)
        self.trace = Trace(self.doc)
        edges = (self.doc.get("root_causes") or {}).get("edges")
        if edges is not None:
            report_causes.root_causes(self.doc["cases"], edges, self.roots)

    @property
    def name(self) -> str:
        return compare.clip(self.doc["candidate"]["name"], compare.NAME_CHARS)

    @property
    def version(self) -> str:
        return compare.clip(self.doc["candidate"]["version"], compare.NAME_CHARS) or "(no version)"


def load(paths: list[str], where: str, different_candidates: bool = False) -> list[tuple[Side, Side]]:
    """The pairs (old, new) of the reports at `paths` (relative to `where`), each report
    validated, each pair of one candidate in two versions (or of two candidates, deliberately)."""
    if len(paths) % 2:
        raise VersionsError(f"{len(paths)} reports given: give them in pairs, OLD.json NEW.json "
                            f"('{paths[-1]}' has no pair)")
    docs = []
    for p in paths:
        try:
            docs.append(diff.load(os.path.expanduser(p), where))
        except report_schema.ReportError as e:
            raise VersionsError(str(e)) from None
    pairs = []
    for (pa, a), (pb, b) in zip(zip(paths[::2], docs[::2]), zip(paths[1::2], docs[1::2])):
        ca, cb = a["candidate"], b["candidate"]
        if ca["name"] != cb["name"] and not different_candidates:
            raise VersionsError(
                f"'{pa}' is {report_terminal.inert(ca['name'], 200)!r} and '{pb}' is {report_terminal.inert(cb['name'], 200)!r}: "
                "two different candidates, not two versions of one (pair them deliberately with --different-candidates)")
        if ca["name"] == cb["name"] and ca["version"] == cb["version"]:
            raise VersionsError(f"'{pa}' and '{pb}' are both {report_terminal.inert(ca['name'], 200)!r} "
                                f"{report_terminal.inert(ca['version'], 200)!r}: one version, nothing changed between versions")
        old, new = Side(pa, a), Side(pb, b)
        for side in (old, new):
            side.label = side.version if ca["name"] == cb["name"] else f"{side.name} {side.version}"
        pairs.append((old, new))
    return pairs


# ---------------------------------------------------------------- what changed
def row_of(case: dict) -> str:
    """The spec row a case comes from; a case without one (a replayed case) is its own row."""
    return case.get("spec_row") or case["id"]


def cause(case: dict) -> tuple[str, str]:
    """(kind, text) of what one side says about a case: "pass"; "not_supported", with the
    feature or dtype it declares unsupported; "listed", an XFAIL with its expectations reason;
    "unexpected", anything else (FAIL, XPASS, CRASH, TIMEOUT, an XFAIL without a reason)."""
    o = case["outcome"]
    if o == "PASS":
        return "pass", "passes"
    if o == "NOT_SUPPORTED":
        what = case.get("feature") or case.get("dtype")
        return "not_supported", (f"NOT_SUPPORTED: declares {what} unsupported" if what
                                 else f"NOT_SUPPORTED: {clip(case['observed'], TEXT_CHARS)}")
    if o == "XFAIL" and case["reason"]:
        return "listed", case["reason"]
    return "unexpected", f"{o}: {case['reason']}" if case["reason"] else f"{o}, with no expectations reason"


def side_status(side: Side, case: dict) -> tuple[str, str, str]:
    """(status, where, why) of a case's cause on one side: "passes", "declared", or for a listed
    reason Trace.entry's "traced", "cut", "differs" or "unchecked"; "unexpected" otherwise."""
    kind = cause(case)[0]
    if kind == "listed":
        return side.trace.entry(case)
    return {"pass": "passes", "not_supported": "declared"}.get(kind, "unexpected"), "", ""


EXPLAINED = ("passes", "declared", "traced")  # the statuses of an explained side


def observed(case: dict) -> tuple[str, str, str]:
    """(check, expected, observed) of a case: its first mismatch, or what it observed."""
    if case["outcome"] == "PASS":
        return "", "", "as expected"
    m = (case.get("mismatches") or [None])[0]
    if m:
        return m.get("check", ""), m.get("expected", ""), m.get("observed", "")
    return "", case.get("expected", ""), case["observed"]


def example(old: dict, new: dict) -> dict:
    """A changed case as the page shows it: its id, the check, the spec's expectation and what each version observed."""
    (c_old, e_old, o_old), (c_new, e_new, o_new) = observed(old), observed(new)
    return {"id": old["id"], "check": c_new or c_old, "expected": clip(e_new or e_old, TEXT_CHARS),
            "old": clip(o_old, TEXT_CHARS), "new": clip(o_new, TEXT_CHARS)}


def counts(cases: list[dict]) -> list[tuple[str, int]]:
    """(outcome, cases) of a row's cases, in compare.COUNT_ORDER."""
    return compare.count_parts(collections.Counter(c["outcome"] for c in cases))


def n_of(n: int, word: str) -> str:
    """'1 case', '2 cases'."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def counts_text(parts: list[tuple[str, int]]) -> str:
    return ", ".join(f"{n} {o}" for o, n in parts) or "no case"


def changes_text(pairs: list[tuple[dict, dict]]) -> str:
    """'36 PASS → XFAIL, 4 XFAIL → PASS' for changed (old, new) cases, the most first."""
    n = collections.Counter((a["outcome"], b["outcome"]) for a, b in pairs)
    return ", ".join(f"{k} {a} → {b}" for (a, b), k in sorted(n.items(), key=lambda kv: (-kv[1], kv[0])))


def _cell(row_cases: list[dict], changed: list[dict]) -> dict:
    """A row's outcome counts in one version, coloured by what its changed cases do there (the most of them)."""
    most = collections.Counter(c["outcome"] for c in changed).most_common(1)
    return {"text": counts_text(counts(row_cases)), "color": COLORS[most[0][0]] if most else ""}


STATUS_WORDS = {"traced": "traced to its entry", "cut": "cut short", "differs": "not its entry's",
                "unchecked": "not checked", "unexpected": "unexpected"}


def _side_of_cause(side: Side, kind_text: tuple[str, str], cases: list[dict]) -> dict:
    """One side of a cause: its text, whether it explains its cases, and for a listed reason the
    entries it was traced to (file:lines) and what the check found."""
    status = collections.Counter()
    lines: dict[str, list[int]] = collections.defaultdict(list)  # file -> the lines of the entries traced to
    why = []
    for c in cases:
        s, w, note = side_status(side, c)
        status[s] += 1
        if w:
            file, _, line = w.rpartition(":")
            if int(line) not in lines[file]:
                lines[file].append(int(line))
        if note and note not in why:
            why.append(note)
    if status["unchecked"]:
        why.insert(0, side.trace.note)
    return {"label": side.label, "kind": kind_text[0], "text": kind_text[1],
            "explained": all(s in EXPLAINED for s in status),
            "where": [(f + ":" + ",".join(map(str, sorted(ns)[:WHERE_SHOWN])), max(0, len(ns) - WHERE_SHOWN))
                      for f, ns in lines.items()],  # (file:lines, lines more)
            "why": why[:WHERE_SHOWN],
            "check": "; ".join(f"{n_of(n, 'case')} {STATUS_WORDS[s]}" for s, n in status.items()
                               if s in STATUS_WORDS)}


def _derived(side: Side, row: str, cases: list[dict]) -> list[str]:
    """The rows above `row` that the report's derivations trace these deviating cases to."""
    return sorted({r for c in cases for r in side.roots.get(c["id"], ()) if r != row})


@dataclasses.dataclass
class Changes:
    """The cases of a pair, sorted: those whose outcome changed, by cause and by row."""
    by_cause: dict  # (old cause, new cause) -> row -> [(old case, new case)]
    by_row: dict  # row -> [(old case, new case)]
    reworded: dict  # (old reason, new reason) -> row -> cases: XFAIL in both, for another reason
    unchanged: int


def changes(old: Side, new: Side) -> Changes:
    ch = Changes(collections.defaultdict(lambda: collections.defaultdict(list)), collections.defaultdict(list),
                 collections.defaultdict(collections.Counter), 0)
    for cid in sorted(old.cases.keys() & new.cases.keys()):
        a, b = old.cases[cid], new.cases[cid]
        if a["outcome"] != b["outcome"]:
            ch.by_cause[(cause(a), cause(b))][row_of(b)].append((a, b))
            ch.by_row[row_of(b)].append((a, b))
            continue
        ch.unchanged += 1
        ra, rb = report_causes.whole_reason(old.doc, a), report_causes.whole_reason(new.doc, b)
        if a["outcome"] == "XFAIL" and ra != rb:
            ch.reworded[(ra, rb)][row_of(b)] += 1
    return ch


def _rows_of(side: Side) -> dict[str, list]:
    rows = collections.defaultdict(list)
    for c in side.doc["cases"]:
        rows[row_of(c)].append(c)
    return rows


def section(n: int, old: Side, new: Side) -> dict:
    """Everything the page shows of pair number `n` (both renderings read this)."""
    ch = changes(old, new)
    rows_old, rows_new = _rows_of(old), _rows_of(new)

    def cells(row: str, ps: list) -> dict:
        return {"old": _cell(rows_old[row], [a for a, _ in ps]), "new": _cell(rows_new[row], [b for _, b in ps])}

    pid = f"pair-{n}"
    causes, causes_of_row = [], collections.defaultdict(list)
    ranked = sorted(ch.by_cause.items(), key=lambda kv: (-sum(map(len, kv[1].values())), kv[0]))
    for k, ((c_old, c_new), rows) in enumerate(ranked, 1):
        flat = [p for ps in rows.values() for p in ps]
        entry = {"id": f"{pid}-c{k}", "name": f"C{k}", "cases": len(flat), "rows": [],
                 "sides": [_side_of_cause(old, c_old, [a for a, _ in flat]),
                           _side_of_cause(new, c_new, [b for _, b in flat])]}
        entry["explained"] = all(x["explained"] for x in entry["sides"])
        for row, ps in sorted(rows.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            derived = [f"{r} ({s.label})" for s, cs in ((old, [a for a, _ in ps]), (new, [b for _, b in ps]))
                       for r in _derived(s, row, cs)]
            entry["rows"].append({"row": row, "clause": ps[0][1]["clause"], "changed": changes_text(ps), **cells(row, ps),
                                  "example": example(*ps[0]), "derived": derived})
            causes_of_row[row].append(entry)
        causes.append(entry)
    rows = [{"row": row, "clause": ps[0][1]["clause"], "changed": changes_text(ps), "cases": len(ps), **cells(row, ps),
             "causes": [(e["name"], e["id"], " / ".join(clip(x["text"], TEXT_CHARS) for x in e["sides"]), e["explained"])
                        for e in causes_of_row[row]],
             "explained": all(e["explained"] for e in causes_of_row[row])}
            for row, ps in sorted(ch.by_row.items())]
    only = []
    for side, other in ((old, new), (new, old)):
        per: dict[str, list] = collections.defaultdict(list)
        for i in side.cases.keys() - other.cases.keys():
            per[row_of(side.cases[i])].append(side.cases[i])
        only.append({"label": side.label, "cases": sum(map(len, per.values())),
                     "rows": [{"row": r, "cases": len(cs), "outcomes": counts_text(counts(cs)),
                               "example": min(c["id"] for c in cs)} for r, cs in sorted(per.items())]})
    transitions = collections.Counter((a["outcome"], b["outcome"]) for ps in ch.by_row.values() for a, b in ps)
    same_name = old.doc["candidate"]["name"] == new.doc["candidate"]["name"]
    return {
        "id": pid, "title": f"{old.name}: {old.version} → {new.version}" if same_name else f"{old.label} → {new.label}",
        "name": old.name if same_name else f"{old.name} → {new.name}",
        "old": _side_facts(old), "new": _side_facts(new),
        "cases": sum(transitions.values()), "unchanged": ch.unchanged,
        "transitions": [(a, b, k) for (a, b), k in sorted(transitions.items(), key=lambda kv: (-kv[1], kv[0]))],
        "rows": rows, "causes": causes, "only": only,
        "unexplained": [r["row"] for r in rows if not r["explained"]],
        "reworded_rows": len({r for per in ch.reworded.values() for r in per}),
        "reworded": [{"old": a, "new": b, "cases": sum(per.values()),
                      "rows": sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))}
                     for (a, b), per in sorted(ch.reworded.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))],
    }


def _side_facts(side: Side) -> dict:
    d = side.doc
    return {"label": side.label, "path": side.path, "name": side.name, "generated": d["generated"],
            "expectations": side.trace.file, "note": side.trace.note, "headline": report_score.headline_of(d),
            "headline_class": report_score.headline_class(d)}


# ---------------------------------------------------------------- the pages
PAGE_NOTE = ("Per pair of reports (one candidate, two versions): every spec row with a case whose outcome changed, "
             "what each version does (the row's cases per outcome), and why: on the side that deviates, the reason "
             "of the expectations entry that matched the case, traced to that entry (file:line) and checked against "
             "it; on the other, that it passes or what it declares unsupported. A row's cell in each version counts "
             "all its cases, coloured by what its changed cases do there. Causes are numbered per pair, the most "
             "cases first; a row changed by several causes is under each.")
SUMMARY_HEADER = ["candidate", "old", "new", "cases changed", "rows changed", "causes", "rows without a traced reason",
                  "rows XFAIL in both, for another reason", "cases only in old / new"]


def summary_rows(sections: list[dict]) -> list[list]:
    return [[s["name"], s["old"]["label"], s["new"]["label"], s["cases"], len(s["rows"]), len(s["causes"]),
             len(s["unexplained"]), s["reworded_rows"],
             " / ".join(str(o["cases"]) for o in s["only"])] for s in sections]


def summary_markdown(sections: list[dict]) -> str:
    return "\n".join(pages.md_table(SUMMARY_HEADER, summary_rows(sections))) + "\n"


def _status_words(s: dict) -> str:
    if not s["unexplained"]:
        return "Every changed row's cases have a reason on each side, traced to its expectations entry."
    return (f"{n_of(len(s['unexplained']), 'changed row')} "
            f"whose change has no reason traced to its entry: {', '.join(s['unexplained'])}.")


def counts_line(s: dict) -> str:
    only = "; ".join(f"{n_of(o['cases'], 'case')} only in {o['label']}" for o in s["only"] if o["cases"])
    return (f"{s['cases']} cases of {len(s['rows'])} spec rows changed outcome ("
            + ", ".join(f"{k} {a} → {b}" for a, b, k in s["transitions"]) + f"); {s['unchanged']} unchanged"
            + (f"; {only}" if only else "") + ".")


def _side_md(side: dict) -> str:
    text = pages.md(side["text"])
    if side["where"]:
        text += " (" + ", ".join(pages.md_code(w) + (f" and {k} more lines" if k else "") for w, k in side["where"]) + ")"
    if side["check"]:
        text += f" — {pages.md(side['check'])}"
    for why in side["why"]:
        text += f"; {pages.md(why)}"
    return f"- **{pages.md(side['label'])}**: {pages.MdRaw(text)}"


def section_markdown(s: dict) -> list[str]:
    o, n = s["old"], s["new"]
    out = [f"## {pages.md(s['title'])}", "",
           f"{pages.md_code(o['path'])} ({pages.md(o['headline'])}) → {pages.md_code(n['path'])} ({pages.md(n['headline'])})", "",
           pages.md(counts_line(s)) + " " + pages.md(_status_words(s)), ""]
    out += [line for x in (o, n) if x["note"] for line in (f"Note ({pages.md(x['label'])}): {pages.md(x['note'])}", "")]
    out += [f"### Changed rows ({len(s['rows'])})", ""]
    out += pages.md_table(["spec row", "clause", o["label"], n["label"], "changed cases", "causes"],
                          [[pages.MdRaw(pages.md_code(r["row"])), r["clause"], r["old"]["text"], r["new"]["text"], r["changed"],
                            ", ".join(c + ("" if ok else " (unexplained)") for c, _, _, ok in r["causes"])]
                           for r in s["rows"]]) if s["rows"] else ["None."]
    out += ["", f"### Causes ({len(s['causes'])})", ""]
    for c in s["causes"]:
        out += [f"#### {c['name']}: {n_of(c['cases'], 'case')} in {n_of(len(c['rows']), 'row')}"
                + ("" if c["explained"] else " (unexplained)"), ""]
        out += [_side_md(x) for x in c["sides"]] + [""]
        out += pages.md_table(["spec row", "changed cases", o["label"], n["label"], "example", "derived from"],
                              [[pages.MdRaw(pages.md_code(r["row"])), r["changed"], r["old"]["text"], r["new"]["text"],
                                pages.MdRaw(_example_md(r["example"], o["label"], n["label"])), ", ".join(r["derived"]) or "—"]
                               for r in c["rows"]]) + [""]
    if s["reworded"]:
        out += [f"### XFAIL in both, for another reason ({n_of(s['reworded_rows'], 'row')})", ""]
        out += pages.md_table(["rows (cases)", f"{o['label']} reason", f"{n['label']} reason"],
                              [[", ".join(f"{r} ({k})" for r, k in g["rows"]), g["old"], g["new"]] for g in s["reworded"]]) + [""]
    for x in s["only"]:
        if x["cases"]:
            out += [f"### Only in {pages.md(x['label'])} ({n_of(x['cases'], 'case')})", ""]
            out += pages.md_table(["spec row", "cases", "outcomes", "example"],
                                  [[pages.MdRaw(pages.md_code(r["row"])), r["cases"], r["outcomes"], r["example"]]
                                   for r in x["rows"]]) + [""]
    return out


def _example_md(e: dict, old: str, new: str) -> str:
    head = pages.md_code(e["id"]) + (f" {pages.md(e['check'])}" if e["check"] else "")
    spec = f"; expected {pages.md(e['expected'])}" if e["expected"] else ""
    return f"{head}{spec}; {pages.md(old)}: {pages.md(e['old'])}; {pages.md(new)}: {pages.md(e['new'])}"


TITLE = "tensor-cts: what changed between versions"


def markdown(sections: list[dict]) -> str:
    out = [f"# {TITLE}", "", PAGE_NOTE, "", summary_markdown(sections)]
    for s in sections:
        out += section_markdown(s)
    return "\n".join(out).rstrip() + "\n"


def html(sections: list[dict]) -> str:
    """versions.html, from reports/templates/versions.html.j2 (autoescaped)."""
    return pages.templates().get_template("versions.html.j2").render(
        title=TITLE, note=PAGE_NOTE, summary_header=SUMMARY_HEADER, summary=list(zip(sections, summary_rows(sections))),
        sections=sections, counts_line=counts_line, status_words=_status_words, n_of=n_of)


# ---------------------------------------------------------------- main
def main(argv: list[str]) -> int:
    p = cli.parser("versions.py", __doc__)
    p.add_argument("reports", nargs="*", metavar="OLD.json NEW.json")
    p.add_argument("--out", default=None, metavar="DIR", help="where versions.html and versions.md go (default: out/)")
    p.add_argument("--different-candidates", action="store_true",
                   help="pair reports of different candidates deliberately")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    if not args.reports:
        print(f"versions: no reports given\n{p.format_usage()}", file=sys.stderr, end="")
        return 2
    where = cli.working_directory()
    try:
        pairs = load(args.reports, where, args.different_candidates)
    except VersionsError as e:
        print(f"versions: bad input: {e}", file=sys.stderr)
        return 2
    sections = [section(k, old, new) for k, (old, new) in enumerate(pairs, 1)]
    out_dir = pages.out_dir(args.out, where)
    written = pages.write_files("versions", out_dir, [("versions.html", html(sections)), ("versions.md", markdown(sections))])
    if written is None:
        return 1
    print(summary_markdown(sections), end="")
    for s in sections:
        for side in (s["old"], s["new"]):
            if side["note"]:
                print(f"versions: note: {side['path']}: {side['note']}", file=sys.stderr)
    print("versions: wrote " + ", ".join(written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
