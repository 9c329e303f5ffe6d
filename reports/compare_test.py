"""Tests of reports/compare.py on small reports built in the test (reports_test.py's helpers):
the summary's counts and top deviations, the cells per spec file and clause and their links
into each candidate's report.html (every link must land on an id there), the promote_types
matrices (cells that differ highlighted, NOT_SUPPORTED grey), the features and verdicts, paths
relative to where `bazel run` started, and bad input (exit status 2, naming the file). The
checkers of the page are shown to catch a cell changed behind their back.
"""

import copy
import html.parser
import io
import json
import os
import re
import tempfile
import unittest
import urllib.parse
from contextlib import redirect_stderr, redirect_stdout

from . import compare
from . import render
from . import report_schema
from . import report_spec
from .reports_test import STATEMENTS, case, feature, make


def named(doc, name, version="1", build="g++ -O2"):
    doc["candidate"] = {"name": name, "version": version, "build": build}
    return doc


def promote(a, b, answer, outcome="PASS", observed=None, reason=""):
    """A promote_types case as the runner records it: a deviation's answer is its first mismatch."""
    extra = {"answer": answer, "reason": reason or ("known" if outcome == "XFAIL" else "")}
    if observed is not None:
        extra["mismatches"] = [{"check": f"promote_types({a}, {b})", "expected": answer, "observed": observed}]
        extra["observed"] = observed
    if outcome == "NOT_SUPPORTED":
        extra.update(feature="promote_types", observed=f"NotSupported: promote_types({a}, {b})")
    return case(f"promote_types.{a}.{b}", outcome, **extra)


DTYPES = ["int8", "uint8", "float32"]
SPEC = {("int8", "int8"): "int8", ("int8", "uint8"): "int16", ("int8", "float32"): "float32",
        ("uint8", "int8"): "int16", ("uint8", "uint8"): "uint8", ("uint8", "float32"): "float32",
        ("float32", "int8"): "float32", ("float32", "uint8"): "float32", ("float32", "float32"): "float32"}


def matrix_cases(deviations=None):
    """The 3x3 promote_types matrix, passing, but for deviations {(a, b): (outcome, observed)}."""
    deviations = deviations or {}
    return [promote(a, b, SPEC[(a, b)], *deviations.get((a, b), ("PASS", None))) for a in DTYPES for b in DTYPES]


def reports():
    """Three candidates: one that conforms, one with expected deviations (and a promote_types
    answer of its own) and NOT_SUPPORTED cases, one with unexpected outcomes."""
    good = named(make(matrix_cases() + [case("a.1", "PASS", clause="002#x", spec_file="spec/other.toml")]), "good")
    features = [feature("promote_types", "required", cases=9), feature("sparse_layout", "optional", False, 0, 1),
                feature("asarray", "required", False, 0, 2)]
    partial = named(make(
        matrix_cases({("int8", "uint8"): ("XFAIL", "int32"), ("uint8", "int8"): ("XFAIL", "int32"),
                      ("float32", "float32"): ("NOT_SUPPORTED", None)})
        + [case("a.1", "XFAIL", clause="002#x", spec_file="spec/other.toml", reason="rule B"),
           case("a.2", "XFAIL", clause="002#x", spec_file="spec/other.toml", reason="rule A"),
           case("a.3", "XFAIL", clause="002#x", spec_file="spec/other.toml", reason="rule A"),
           case("a.4", "XFAIL", clause="002#x", spec_file="spec/other.toml", reason="a rare rule"),
           case("s.1", "NOT_SUPPORTED", clause="003#asarray", spec_file="spec/asarray.toml", feature="asarray"),
           case("s.2", "NOT_SUPPORTED", clause="003#asarray", spec_file="spec/asarray.toml", feature="asarray"),
           case("s.3", "NOT_SUPPORTED", clause="002#x", spec_file="spec/other.toml", feature="sparse_layout")],
        features=features), "partial", "2.0", "clang 16")
    bad = named(make(matrix_cases({("int8", "float32"): ("FAIL", "TypeError: no")})
                     + [case("a.1", "CRASH", clause="002#x", spec_file="spec/other.toml", observed="CRASH: SIGSEGV")]),
                "bad")
    return {"good": good, "partial": partial, "bad": bad}


def write(d, docs, html=True):
    """Each report as d/<name>/report.json (and report.html); their paths."""
    paths = []
    for name, doc in docs.items():
        os.makedirs(os.path.join(d, name), exist_ok=True)
        if html:
            render.write_all(doc, os.path.join(d, name))
        else:
            with open(os.path.join(d, name, "report.json"), "w") as f:
                json.dump(doc, f)
        paths.append(os.path.join(d, name, "report.json"))
    return paths


def run(argv, env=None, main=None):
    """compare.main(argv) (or another tool's `main`) under env: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = (main or compare.main)(argv)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return status, out.getvalue(), err.getvalue()


class Tables(html.parser.HTMLParser):
    """A page's tables: each a dict with its class, the heading before it, and its rows; a
    cell is (tag, attributes, text, the hrefs in it). Ids are collected too."""

    def __init__(self, page):
        super().__init__()
        self.tables, self.ids, self.heading, self._in_heading, self._cell = [], set(), "", False, None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag in ("h2", "h3"):
            self.heading, self._in_heading = "", True
        elif tag == "table":
            self.tables.append({"class": a.get("class", ""), "heading": self.heading, "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, a, "", []]
            self.tables[-1]["rows"][-1].append(self._cell)
        elif tag == "a" and self._cell is not None:
            self._cell[3].append(a["href"])
        elif tag == "br" and self._cell is not None:
            self._cell[2] += "\n"

    def handle_endtag(self, tag):
        if tag in ("h2", "h3"):
            self._in_heading = False
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._in_heading:
            self.heading += data
        if self._cell is not None:
            self._cell[2] += data

    def grid(self, table):
        """{(row's first cell's first line, column's header's first line): cell}."""
        head = [c[2].split("\n")[0].strip() for c in table["rows"][0]]
        return {(r[0][2].split("\n")[0].strip(), head[i]): c for r in table["rows"][1:] for i, c in enumerate(r) if i}

    def table(self, heading):
        return next(t for t in self.tables if t["heading"].startswith(heading))


def check_promote_matrix(tables, heading, expected):
    """The per-candidate matrix under `heading` shows, cell by cell, `expected`: {(row, col):
    (text, outcome, highlighted)}; raises AssertionError naming the first cell that does not."""
    grid = tables.grid(tables.table(heading))
    for (r, col), (text, outcome, highlighted) in expected.items():
        _, attrs, shown, _ = grid[(compare.short(r), compare.short(col))]
        got = (shown.strip(), attrs.get("style"), attrs.get("class") == "differs")
        want = (text, f"background:{render.COLORS[outcome]}", highlighted)
        if got != want:
            raise AssertionError(f"{heading}: promote_types({r}, {col}) shows {got}, expected {want}")
        if highlighted and f"spec: {SPEC[(r, col)]}" not in attrs["title"]:
            raise AssertionError(f"{heading}: promote_types({r}, {col}) does not give the spec's answer in its tooltip")


class Compare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name
        self.docs = reports()
        self.paths = write(self.d, self.docs)
        self.out = os.path.join(self.d, "cmp")
        status, self.stdout, self.stderr = run(self.paths + ["--out", self.out])
        self.assertEqual(status, 0, self.stderr)
        with open(os.path.join(self.out, "compare.html"), encoding="utf-8") as f:
            self.page = f.read()
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            self.md = f.read()
        self.tables = Tables(self.page)

    def tearDown(self):
        self.dir.cleanup()

    def test_the_page_leads_with_the_scores_sorted_and_coloured(self):
        self.assertLess(self.page.index("id=scores"), self.page.index("id=summary"))
        table = self.tables.table("Scores")
        rows = [[c[2].strip() for c in r] for r in table["rows"]]
        self.assertEqual(rows[0][:5], ["candidate", "headline", "follows", "conformance", "required features exercised"])
        self.assertEqual([r[0] for r in rows[1:]], ["good 1", "bad 1", "partial 2.0"])  # by score, not as given
        self.assertEqual(rows[1][1], "CONFORMS")
        self.assertTrue(rows[3][1].startswith("CONFORMS PARTIALLY — "), rows[3])
        # its 9 promote_types cells, which NumPy answers alike too: a tie goes to the first family
        self.assertEqual(rows[1][2], "PyTorch (9 of 9)")
        self.assertEqual(rows[1][3], "100.0 %\n10 of 10")
        grid = self.tables.grid(table)
        self.assertEqual(grid[("good 1", "conformance")][1]["style"], f"background:{compare.pages.score_color(100.0)}")
        self.assertNotEqual(compare.pages.score_color(100.0), compare.pages.score_color(40.0))
        self.assertEqual(grid[("partial 2.0", "asarray")][2].strip(), "0.0 %")
        self.assertLess(self.md.index("## Scores"), self.md.index("## Summary"))
        self.assertIn("| good 1 | CONFORMS | PyTorch (9 of 9) | 100.0 % (10 of 10) |", self.md)

    def test_an_error_in_the_library_s_own_words_is_counted_apart(self):
        """Issue 48 item 4: an XFAIL whose only failing check is `message` (the right error, the
        library's words) is not a top deviation; the summary counts it as 'wording alone'."""
        import copy
        cases = copy.deepcopy(self.docs["partial"]["cases"])
        worded = [c for c in cases if c["outcome"] == "XFAIL" and c["reason"] == "known"]
        for c in worded:
            c["checks"] = {"error": "PASS", "message": "FAIL"}
        self.assertEqual(compare.top_deviations(cases), [("rule A", 2, False), ("a rare rule", 1, False), ("rule B", 1, False)])
        self.assertEqual(compare.report_causes.wording_only(cases), len(worded))
        doc = dict(self.docs["partial"], cases=cases)
        column = compare.Column(label="partial", path="p.json", doc=doc)
        self.assertIn(f"wording alone ({len(worded)})", compare.summary_markdown([column]))

    def test_summary_counts_and_top_deviations(self):
        # Unexpected groups first, then the most cases, ties by their text; three at most.
        self.assertEqual(compare.top_deviations(self.docs["partial"]["cases"]),
                         [("known", 2, False), ("rule A", 2, False), ("a rare rule", 1, False)])
        self.assertEqual(compare.top_deviations(self.docs["bad"]["cases"]),
                         [("CRASH in 002#x", 1, True), ("FAIL in 002#type-promotion", 1, True)])
        self.assertEqual(self.stdout.splitlines(), [
            "| candidate | headline | cases | PASS | XFAIL | unexpected | NOT_SUPPORTED | top deviations (cases) |",
            "|---|---|---|---|---|---|---|---|",
            "| good 1 | CONFORMS | 10 | 10 | 0 | 0 | 0 | — |",
            "| partial 2.0 | CONFORMS PARTIALLY — 40.0 % conformant | 16 | 6 | 6 | 0 | 4 | known (2)<br>rule A (2)<br>a rare rule (1) |",
            "| bad 1 | DOES NOT CONFORM — 80.0 % conformant | 10 | 8 | 0 | 2 | 0 | CRASH in 002#x (1)<br>FAIL in 002#type-promotion (1) |"])
        self.assertIn(self.stdout, self.md)
        summary = self.tables.grid(self.tables.table("Summary"))
        self.assertEqual(summary[("partial 2.0", "XFAIL")][2], "6")
        self.assertEqual(summary[("bad 1", "unexpected")][1]["style"], f"background:{render.COLORS['FAIL']}")
        self.assertEqual(summary[("bad 1", "headline")][2], "DOES NOT CONFORM — 80.0 % conformant")

    def test_clause_cells_count_and_link_into_each_report(self):
        grid = self.tables.grid(self.tables.table("Per spec file and clause"))
        tag, attrs, text, hrefs = grid[("002#x", "partial")]
        self.assertEqual(text.replace("\xa0", " "), "4 ⚠ 1 –")
        self.assertEqual(hrefs, ["../partial/report.html#deviations-002%23x", "../partial/report.html#clause-002%23x"])
        self.assertEqual(attrs["style"], f"background:{render.COLORS['XFAIL']}")
        self.assertEqual(grid[("002#x", "bad")][2].replace("\xa0", " "), "1 ☠")
        self.assertEqual(grid[("002#x", "bad")][1]["style"], f"background:{render.COLORS['CRASH']}")
        self.assertEqual(grid[("spec/asarray.toml", "good")][2], "—")  # no such case in that report
        self.assertEqual(grid[("spec/promotion.toml", "partial")][2].replace("\xa0", " "), "6 ✓ 2 ⚠ 1 –")
        # Every link lands on an id of the report.html it names.
        links = re.findall(r"href='([^']*)'", self.page)
        self.assertGreater(len(links), 30)
        for href in links:
            path, _, frag = href.partition("#")
            target = os.path.normpath(os.path.join(self.out, urllib.parse.unquote(path)))
            self.assertTrue(os.path.isfile(target), href)
            if frag:
                with open(target, encoding="utf-8") as f:
                    self.assertIn(urllib.parse.unquote(frag), Tables(f.read()).ids, href)

    def test_promote_types_matrices_highlight_what_differs(self):
        check_promote_matrix(self.tables, "good", {(a, b): (compare.short(v), "PASS", False) for (a, b), v in SPEC.items()})
        partial = {(a, b): (compare.short(v), "PASS", False) for (a, b), v in SPEC.items()}
        partial.update({("int8", "uint8"): ("i32", "XFAIL", True), ("uint8", "int8"): ("i32", "XFAIL", True),
                        ("float32", "float32"): ("–", "NOT_SUPPORTED", False)})
        check_promote_matrix(self.tables, "partial", partial)
        check_promote_matrix(self.tables, "bad", {("int8", "float32"): ("error", "FAIL", True),
                                                  ("int8", "int8"): ("i8", "PASS", False)})
        combined = self.tables.grid(self.tables.table("The spec"))
        self.assertEqual(combined[("i8", "u8")][2], "i16 ≠1")
        self.assertEqual(combined[("i8", "u8")][1]["style"], f"background:{render.COLORS['XFAIL']}")
        self.assertIn("partial: int32 (XFAIL: known)", combined[("i8", "u8")][1]["title"])
        self.assertEqual(combined[("i8", "f32")][1]["style"], f"background:{render.COLORS['FAIL']}")
        self.assertEqual(combined[("f32", "f32")][1].get("class"), None)  # one NOT_SUPPORTED: not a difference
        self.assertIn("not supported: partial", combined[("f32", "f32")][1]["title"])
        self.assertEqual(self.page.count("class=differs"), 3 + 3)  # per candidate, and in the spec's matrix
        self.assertIn("9 cells: 6 as the spec, 2 differ, 1 not supported", self.page)
        self.assertIn("some unexpected): 3 of 9 cells.", self.page)
        self.assertIn("| **i8** | i8 | i16 **partial: i32** | f32 **bad: error** |", self.md)
        self.assertIn("  - promote_types(int8, uint8): int32, spec int16 (XFAIL: known)", self.md)

    def test_the_checks_catch_a_changed_cell(self):
        # The page with one cell changed behind the checker's back: it must say which.
        expected = {(a, b): (compare.short(v), "PASS", False) for (a, b), v in SPEC.items()}
        for old, new, what in (("title='promote_types(uint8, float32)\nspec: float32\ngood: float32\nPASS'>f32<",
                                "title='promote_types(uint8, float32)\nspec: float32\ngood: float32\nPASS'>f64<", "shows"),
                               (f"<td style='background:{render.COLORS['PASS']}' title='promote_types(int8, int8)\nspec: int8\ngood:",
                                f"<td class=differs style='background:{render.COLORS['PASS']}' title='promote_types(int8, int8)\nspec: int8\ngood:",
                                "shows")):
            self.assertEqual(self.page.count(old), 1, old)
            with self.assertRaisesRegex(AssertionError, what):
                check_promote_matrix(Tables(self.page.replace(old, new)), "good", expected)
        # And a changed report: an answer that differs no longer passes as the spec's.
        docs = reports()
        docs["good"]["cases"][1] = promote("int8", "uint8", "int16", "XFAIL", "int64")
        columns = [compare.Column(n, n, d) for n, d in docs.items()]
        with self.assertRaisesRegex(AssertionError, r"promote_types\(int8, uint8\) shows \('i64'"):
            check_promote_matrix(Tables(compare.html(columns)), "good", expected)

    def test_spec_coverage_lists_the_statements_each_candidate_breaks(self):
        def run(name, outcomes):
            cases = [case(f"{name}.{i}", o, spec_row=row) for i, (row, o) in enumerate(outcomes)]
            return named(make(cases, coverage=report_spec.spec_coverage(copy.deepcopy(STATEMENTS), cases, "s.toml")), name)

        good = run("good", [("row.b", "PASS"), ("row.c", "PASS")])
        bad = run("bad", [("row.b", "FAIL"), ("row.c", "NOT_SUPPORTED")])
        old = named(make([case("x", "PASS")]), "old")  # a report without spec coverage
        cols = [compare.Column(d["candidate"]["name"], f"{d['candidate']['name']}/report.json", d)
                for d in (good, bad, old)]
        md = "\n".join(compare.coverage_markdown(cols))
        self.assertIn("| broken | 0 | 2 | — |", md)
        self.assertIn("| `002.a` rule a | met | **broken** (1 FAIL) | — |", md)
        self.assertIn("| `002.b` rule b | met | **broken** (1 FAIL) | — |", md)
        self.assertNotIn("`000.c`", md.split("| statement |")[1])  # not supported is not broken
        self.assertIn("## Spec coverage: the statements each candidate breaks", compare.markdown(cols))
        self.assertEqual(compare.coverage_markdown(cols[:1])[-2], "No candidate breaks a statement.")
        self.assertEqual(compare.coverage_markdown(cols[2:]), [])
        page = compare.html(cols)
        self.assertIn("<h2 id=coverage>Spec coverage: the statements each candidate breaks</h2>", page)
        self.assertIn(f"<tr><td><code>002.a</code><br><q>rule a</q></td><td style='background:{render.COLORS['PASS']}'>"
                      f"met</td><td style='background:{render.COLORS['FAIL']}'>broken: 1 FAIL</td><td>—</td></tr>", page)
        self.assertNotIn("id=coverage", compare.html(cols[2:]))

    def test_verdicts_and_features(self):
        grid = self.tables.grid(self.tables.table("Verdicts and features"))
        self.assertEqual(grid[("headline", "partial")][2], "CONFORMS PARTIALLY — 40.0 % conformant")
        self.assertEqual(grid[("gate verdict", "partial")][2], "CONFORMS PARTIALLY")
        self.assertIn("required feature asarray answered NotSupported: 2 cases not exercised", grid[("why", "partial")][2])
        self.assertEqual(grid[("why", "good")][2], "—")
        tag, attrs, text, _ = grid[("asarray", "partial")]
        self.assertEqual((text, attrs["style"]), ("not supported, 2 cases not exercised", f"background:{render.COLORS['FAIL']}"))
        self.assertEqual(grid[("asarray", "good")][2], "—")  # good's report has no such feature
        self.assertEqual(grid[("sparse_layout", "partial")][1]["style"], f"background:{render.COLORS['NOT_SUPPORTED']}")
        self.assertEqual(grid[("promote_types", "good")][2], "supported, 2 cases")
        self.assertEqual(grid[("asarray", "level")][2], "required")
        heads = {c[2].split("\n")[0]: c[1] for c in self.tables.table("Verdicts and features")["rows"][0]}
        self.assertIn("build: clang 16", heads["partial"]["title"])
        self.assertIn("| **headline** |  | **CONFORMS** | **CONFORMS PARTIALLY — 40.0 % conformant** | "
                      "**DOES NOT CONFORM — 80.0 % conformant** |", self.md)
        self.assertIn("| gate verdict |  | CONFORMS | CONFORMS PARTIALLY | DOES NOT CONFORM |", self.md)

    def test_same_candidate_twice_is_labelled_by_directory_or_refused(self):
        docs = {"ref": named(make(matrix_cases()), "ref"), "ref-cuda": named(make(matrix_cases()), "ref")}
        paths = write(self.d, docs)
        status, out, err = run(paths + ["--out", self.out])
        self.assertEqual(status, 0, err)
        self.assertIn("| ref-cuda (ref) 1 | CONFORMS |", out)
        twins = write(os.path.join(self.d, "x"), {"ref": docs["ref"]}) + write(os.path.join(self.d, "y"), {"ref": docs["ref"]})
        status, out, err = run(twins + ["--out", self.out])
        self.assertEqual(status, 2)
        self.assertIn("compare: bad input:", err)
        self.assertIn("cannot be told apart: each is labelled 'ref'", err)
        self.assertIn(twins[0], err)
        status, out, err = run([paths[0], paths[0]])
        self.assertEqual(status, 2)
        self.assertIn("is given twice", err)

    def test_a_candidate_label_is_inert_in_the_table_headers(self):
        # Issue 42: compare.md's headers are candidate labels; a testee names its candidate.
        label = "<svg onload=alert(1)>[x](javascript:alert(1))|"
        docs = {"evil": named(make(matrix_cases()), label), "ref": named(make(matrix_cases()), "ref")}
        status, out, err = run(write(self.d, docs) + ["--out", self.out])
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertNotIn("<svg", md)
        self.assertNotRegex(md, r"(?<!\\)\[[^\]]*(?<!\\)\]\(")
        self.assertIn("&lt;svg onload=alert(1)>\\[x\\](javascript:alert(1))\\|", md)
        with open(os.path.join(self.out, "compare.html"), encoding="utf-8") as f:
            self.assertNotIn("<svg", f.read())

    def test_a_candidate_label_emphasises_nothing(self):
        # Issue 42: a label's emphasis stays text, in headers and inside the page's own bold
        # (the promote_types matrix's deviating answers); the page's bold stays bold.
        label = "**x**_y_~~z~~"
        cases = matrix_cases({(DTYPES[0], DTYPES[1]): ("FAIL", DTYPES[2])})
        docs = {"evil": named(make(cases), label), "ref": named(make(matrix_cases()), "ref")}
        status, out, err = run(write(self.d, docs) + ["--out", self.out])
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.out, "compare.md"), encoding="utf-8") as f:
            md = f.read()
        for live in ("**x**", "_y_", "~~z~~"):
            self.assertNotIn(live, md)
        self.assertIn("\\*\\*x\\*\\*\\_y\\_\\~\\~z\\~\\~", md)
        self.assertIn("**headline**", md)

    def test_bad_input_exits_2_naming_the_file(self):
        good = make([case("p", "PASS")])
        hostile = {"not_json.json": (b"{not json", "is not JSON"),
                   "not_report.json": (b'{"schema": "other"}', "not a tensor-cts report"),
                   "future.json": (json.dumps(dict(good, schema_version=99)).encode(), "schema_version 99"),
                   "broken.json": (json.dumps(dict(good, cases=[dict(good["cases"][0], outcome="MAYBE")])).encode(),
                                   "'MAYBE' is not one of"),
                   "deep.json": (b"[" * 100000 + b"]" * 100000, "nested too deeply")}
        for name, (data, problem) in hostile.items():
            path = os.path.join(self.d, name)
            with open(path, "wb") as f:
                f.write(data)
            status, out, err = run([self.paths[0], path, "--out", self.out])
            self.assertEqual(status, 2, (name, err))
            self.assertIn(f"compare: bad input: '{path}'", err)
            self.assertIn(problem, err, name)
            self.assertEqual(out, "")
        status, out, err = run([self.paths[0], os.path.join(self.d, "missing.json")])
        self.assertEqual(status, 2)
        self.assertIn(f"cannot read report '{os.path.join(self.d, 'missing.json')}'", err)
        for argv, said in (([], "no reports given"), (["--frobnicate", self.paths[0]], "unrecognized arguments: --frobnicate"),
                           ([self.paths[0], "--out"], "argument --out: expected one argument")):
            status, out, err = run(argv)
            self.assertEqual(status, 2, argv)
            self.assertIn(said, err)

    def test_a_long_name_or_answer_costs_the_page_its_clip_not_its_repetitions(self):
        # The page repeats a candidate's name in every cell's tooltip and an observed answer in a
        # cell and its tooltip: a 1 MB name and a 1 MB answer are cut (compare.NAME_CHARS,
        # TEXT_CHARS) before the page is built. Unclipped, this page is over 100 MB.
        size = {}
        for kind in ("plain", "long"):
            docs = copy.deepcopy(self.docs)
            if kind == "long":
                docs["bad"]["candidate"]["name"] = "bad" + "N" * 1_000_000
                for c in docs["bad"]["cases"]:
                    if c.get("mismatches"):
                        c["mismatches"][0]["observed"] = c["observed"] = "O" * 1_000_000
            d = os.path.join(self.d, kind)
            out = os.path.join(d, "cmp")
            status, _, err = run(write(d, docs) + ["--out", out])
            self.assertEqual(status, 0, err)
            size[kind] = sum(os.path.getsize(os.path.join(out, f)) for f in ("compare.html", "compare.md"))
            if kind == "long":
                with open(os.path.join(out, "compare.html"), encoding="utf-8") as f:
                    page = f.read()
                # (assertTrue, not assertIn: a failure must not print the page)
                self.assertTrue("bad" + "N" * (compare.NAME_CHARS - 3) + "…" in page, "the name is not cut")
                self.assertFalse("N" * (compare.NAME_CHARS + 1) in page, "the name is whole")
                self.assertFalse("O" * (compare.TEXT_CHARS + 1) in page, "an answer is whole")
        self.assertLess(size["long"] - size["plain"], 200_000, size)

    def test_paths_are_relative_to_where_bazel_run_started(self):
        work, workspace = os.path.join(self.d, "work"), os.path.join(self.d, "ws")
        os.makedirs(workspace)
        write(work, {"partial": self.docs["partial"]}, html=False)  # no report.html: a note, still written
        env = {"BUILD_WORKING_DIRECTORY": work, "BUILD_WORKSPACE_DIRECTORY": workspace}
        status, out, err = run(["partial/report.json"], env)
        self.assertEqual(status, 0, err)
        self.assertIn("compare: note: no report.html beside 'partial/report.json'", err)
        with open(os.path.join(workspace, "out", "compare.html"), encoding="utf-8") as f:
            self.assertIn("href='../../work/partial/report.html#", f.read())
        self.assertTrue(os.path.isfile(os.path.join(workspace, "out", "compare.md")))
        status, out, err = run(["partial/report.json", "--out=here"], env)
        self.assertEqual(status, 0, err)
        self.assertTrue(os.path.isfile(os.path.join(work, "here", "compare.html")))

    def test_spec_outliers_count_the_libraries_that_ran_a_row(self):
        """A row counts where at least half of the real libraries ran it; "every" and "only one" are
        of those that ran it. With one library that runs nothing (all NOT_SUPPORTED), the rows
        the others share are still found (they were not while every library had to run a row)."""
        dtype = [{"kind": "dtype", "check": "dtype", "expected": "int64", "observed": "int32"}]

        def lib(name, outcomes):
            cases = [case(f"{row}.1", outcome, spec_row=row, **({"mismatches": dtype} if outcome == "FAIL" else {}))
                     for row, outcome in outcomes.items()]
            return compare.Column(name, name + "/report.json", named(make(cases), name))

        fail, ok, ns = "FAIL", "PASS", "NOT_SUPPORTED"
        cols = [lib("a", {"r.all": fail, "r.one": fail, "r.few": fail}),
                lib("b", {"r.all": fail, "r.one": ok, "r.few": ns}),
                lib("c", {"r.all": fail, "r.one": ok, "r.few": ns}),
                lib("d", {"r.all": ns, "r.one": ok, "r.few": ns}),
                lib("reference", {"r.all": ok, "r.one": ok, "r.few": ok})]
        o = compare.spec_outliers(cols)
        self.assertEqual(o["libraries"], ["a", "b", "c", "d"])
        self.assertEqual([(e["row"], e["ran"], e["of"], e["shared"]) for e in o["all"]],
                         [("r.all", 3, 4, ["dtype differs"])])
        self.assertEqual([(e["row"], e["ran"], list(e["cases"])) for e in o["one"]], [("r.one", 4, ["a"])])
        md = "\n".join(compare.outliers_markdown(cols))
        self.assertIn("3 of 4 ran it: a 1, b 1, c 1", md)
        self.assertIn("1 (4 of 4 ran it)", md)
        self.assertNotIn("r.few", md)  # run by one library of four: not compared

    def test_reads_version_1_reports(self):
        v1 = copy.deepcopy(self.docs["good"])
        v1["schema_version"] = 1
        del v1["features"]
        del v1["conformance"]
        del v1["promotion_family"]
        for c in v1["cases"]:
            c.pop("answer", None)  # version 1 had no answers: the matrix shows outcomes
        v1["summary"] = {"total": v1["summary"]["total"], "outcomes": v1["summary"]["outcomes"], "conforms": True}
        report_schema.validate(v1, 1)
        path = os.path.join(self.d, "old", "report.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            json.dump(named(v1, "old"), f)
        status, out, err = run([path, self.paths[1], "--out", self.out])
        self.assertEqual(status, 0, err)
        self.assertIn("| old 1 | CONFORMS | 10 |", out)
        with open(os.path.join(self.out, "compare.html"), encoding="utf-8") as f:
            page = f.read()
        check_promote_matrix(Tables(page), "old", {(a, b): ("✓", "PASS", False) for a, b in SPEC})
        self.assertIn("9 cells: 9 as the spec, 0 differ, 0 not supported", page)


if __name__ == "__main__":
    unittest.main(verbosity=2)
