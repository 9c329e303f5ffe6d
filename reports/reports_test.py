"""Tests of the report tools on small reports built in the test: the schema check (by
python3-jsonschema: run under /usr/bin/python3), the verdict (CONFORMS, CONFORMS PARTIALLY,
DOES NOT CONFORM) and the feature table, the summaries, the renderings (matrices coloured by
outcome), the JUnit XML and the diff, including its "bad input" status on hostile files. The
runner's own test (conformance/runner/run_test.py) covers reports of real runs.
"""

import copy
import io
import json
import os
import re
import tempfile
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout

from . import diff
from . import junit
from . import compare
from . import render
from . import report
from . import report_causes
from . import report_schema
from . import report_spec
from . import report_terminal


def case(case_id, outcome, clause="002#type-promotion", statement="", **extra):
    c = {"id": case_id, "test": "T." + case_id, "suite": "promotion", "spec_file": "spec/promotion.toml",
         "kind": "case", "clause": clause, "basis": "doc", "statement": statement or f"{case_id} holds",
         "outcome": outcome, "expected": "x", "observed": "x" if outcome == "PASS" else "y", "mismatches": [],
         "reason": "known" if outcome == "XFAIL" else "", "message": "", "rerun": f"rerun {case_id}",
         "duration_ms": 1}
    c.update(extra)
    return c


def feature(name, level, declared=True, cases=0, not_supported=0):
    return {"name": name, "level": level, "clause": "002#x", "basis": "doc", "reason": "because",
            "declared": declared, "cases": cases, "not_supported": not_supported}


FEATURES = [feature("promote_types", "required", cases=2), feature("sparse_layout", "optional", False)]


def make(cases, stale=(), features=FEATURES, coverage=None, dtypes=None):
    return report.build(
        candidate={"name": "cand", "version": "1", "build": ""},
        run={"command": "test", "suites": ["promotion"], "filter": "", "device": "cpu", "seed": "1", "jobs": 1, "case_timeout_s": 1.0,
             "processes": 1, "isolated_processes": 0, "started": "now", "wall_s": 0.1, "replay_file": None},
        expectations={"file": "e.txt", "entries": len(stale), "stale": list(stale)}, features=list(features),
        cases=cases, coverage=coverage, dtypes=dtypes)


STATEMENTS = [{"id": "002.a", "clause": "002#type-promotion", "quote": "rule a", "rows": ["promote_types", "row.b"]},
              {"id": "002.b", "clause": "002#type-promotion", "quote": "rule b", "rows": ["row.b"]},
              {"id": "000.c", "clause": "000#torch.device", "quote": "rule c", "rows": ["row.c"]},
              {"id": "003.d", "clause": "003#torch.asarray", "quote": "rule d", "rows": [], "untested": "needs two GPUs"},
              {"id": "004.e", "clause": "004#3-stride", "quote": "rule e", "rows": ["row.e"]}]


def verdict(doc):
    return doc["summary"]["verdict"]


class Score(unittest.TestCase):
    """The conformance score beside the gate (schema version 3): the reference (no deviation)
    and a candidate that only passes its own list of deviations read differently."""

    def test_headline_tells_no_deviation_from_listed_ones(self):
        clean = make([case("a", "PASS"), case("b", "PASS")])
        listed = make([case("a", "PASS"), case("b", "XFAIL")])
        self.assertEqual((verdict(clean), verdict(listed)), ("CONFORMS", "CONFORMS"))  # the gate, as before
        self.assertEqual(clean["summary"]["headline"], "CONFORMS")
        self.assertEqual(listed["summary"]["headline"], "PASSES ITS EXPECTATIONS — 50.0 % conformant")
        self.assertEqual((listed["conformance"]["conformant"], listed["conformance"]["cases"]), (1, 2))
        for text in (render.markdown(listed), render.html(listed), report_terminal.text_summary(listed)):
            self.assertIn("PASSES ITS EXPECTATIONS", text)
            self.assertIn("50.0 %", text)
        self.assertNotIn("PASSES ITS EXPECTATIONS", render.markdown(clean))

    def test_optional_features_are_not_counted_and_required_not_supported_is(self):
        features = [feature("promote_types", "required", cases=1), feature("sparse_layout", "optional", False, 0, 1),
                    feature("devices", "required", False, 0, 1)]
        doc = make([case("a", "PASS", features=["promote_types"]), case("o", "PASS", features=["sparse_layout"]),
                    case("n", "NOT_SUPPORTED", feature="sparse_layout"), case("d", "NOT_SUPPORTED", feature="devices"),
                    case("x", "XPASS", clause="002#other")], features=features)
        score = doc["conformance"]
        self.assertEqual((score["conformant"], score["cases"], score["optional_excluded"]), (2, 3, 2))
        self.assertEqual(score["required_features"], {"exercised": 1, "total": 2})
        self.assertEqual({r["name"]: (r["conformant"], r["cases"]) for r in score["by_feature"]},
                         {"promote_types": (1, 1), "devices": (0, 1)})
        self.assertEqual({r["name"]: r["percent"] for r in score["by_clause"]},
                         {"002#type-promotion": 50.0, "002#other": 100.0})
        self.assertTrue(doc["summary"]["headline"].startswith("DOES NOT CONFORM — 66.7 %"))

    def test_a_case_that_did_not_run_counts_as_its_row_is_about(self):
        """Issue 48 item 6: spec/dlpack.toml said 0.0 % (0 of 73) with 50 DLPack cases passing:
        the cases NOT_SUPPORTED for an undeclared dtype (no feature named) counted as required
        while the row's cases that ran, all through the optional dlpack, did not."""
        features = [feature("dlpack", "optional", cases=2), feature("tensors", "required", cases=3),
                    feature("views", "required", cases=1)]
        dl = {"spec_file": "spec/dlpack.toml", "clause": "003#torch.asarray"}
        doc = make([case("export.f32", "PASS", spec_row="dlpack.export", features=["tensors", "dlpack"], **dl),
                    case("export.bf16", "NOT_SUPPORTED", spec_row="dlpack.export", dtype="bfloat16", **dl),
                    case("export.t", "NOT_SUPPORTED", spec_row="dlpack.export", feature="views", **dl),
                    # a row none of whose cases ran, one of them refused for the optional feature
                    case("import.a", "NOT_SUPPORTED", spec_row="dlpack.import", feature="dlpack", **dl),
                    case("import.bf16", "NOT_SUPPORTED", spec_row="dlpack.import", dtype="bfloat16", **dl),
                    # a required row's case of an undeclared dtype still counts
                    case("p.bf16", "NOT_SUPPORTED", spec_row="promote_types", dtype="bfloat16"),
                    case("p.i8", "PASS", spec_row="promote_types", features=["tensors"])], features=features)
        score = doc["conformance"]
        self.assertEqual((score["conformant"], score["cases"], score["optional_excluded"]), (1, 2, 5))
        self.assertEqual([r["name"] for r in score["by_spec_file"]], ["spec/promotion.toml"])

    def test_a_dtype_that_is_not_required_costs_nothing_where_undeclared(self):
        """torch 1.13 has no uint16: its uint16 cases, NOT_SUPPORTED for the undeclared dtype, are
        left out of the score as an optional feature's (spec/dtypes.toml documented = false); an
        undeclared required dtype's case (bfloat16) still counts, and a uint16 case that ran counts."""
        dtypes = [{"name": "bfloat16", "required": True, "declared": False, "not_supported": 1},
                  {"name": "uint16", "required": False, "declared": False, "not_supported": 1},
                  {"name": "int8", "required": True, "declared": True, "not_supported": 0}]
        doc = make([case("p.u16", "NOT_SUPPORTED", spec_row="promote_types", dtype="uint16"),
                    case("p.bf16", "NOT_SUPPORTED", spec_row="promote_types", dtype="bfloat16"),
                    case("p.u16.f32", "PASS", spec_row="promote_types"),
                    case("p.i8", "PASS", spec_row="promote_types")], dtypes=dtypes)
        score = doc["conformance"]
        self.assertEqual((score["conformant"], score["cases"], score["optional_excluded"]), (2, 3, 1))

    def test_a_case_whose_setup_alone_failed_is_as_optional_as_its_row(self):
        """xtensor's DLPack export of an expanded tensor fails in its setup (no strides to keep), so
        it never reaches to_dlpack: like its row's cases that answered NotSupported for dlpack (an
        optional feature), it is left out of the score; a setup failure of a required row counts."""
        features = [feature("dlpack", "optional", False, 0, 2), feature("views", "required", True, 2)]
        doc = make([case("x.contiguous", "NOT_SUPPORTED", spec_row="dlpack.export", feature="dlpack",
                         features=["tensors"]),
                    case("x.expanded", "XFAIL", spec_row="dlpack.export", features=["tensors", "views"],
                         checks={"setup": "FAIL"}),
                    case("v.a", "PASS", spec_row="view.t", features=["views"]),
                    case("v.b", "XFAIL", spec_row="view.t", features=["views"], checks={"setup": "FAIL"})],
                   features=features)
        score = doc["conformance"]
        self.assertEqual((score["conformant"], score["cases"], score["optional_excluded"], score["ran"]), (1, 2, 2, 2))

    def test_a_case_whose_setup_passed_reached_its_row(self):
        """Only a failed setup keeps a case from its row's operation: one whose setup passed and
        then failed (its operation raised outside the checks) reached it, so its row is about what
        it used (tensors, required), and it counts."""
        features = [feature("dlpack", "optional", False, 0, 1)]
        doc = make([case("y.ns", "NOT_SUPPORTED", spec_row="dlpack.export", feature="dlpack"),
                    case("y.ran", "XFAIL", spec_row="dlpack.export", features=["tensors"], checks={"setup": "PASS"})],
                   features=features)
        score = doc["conformance"]
        self.assertEqual((score["cases"], score["optional_excluded"]), (1, 1))

    def test_the_score_says_its_denominator_and_the_share_of_the_cases_that_ran(self):
        """Issue 48 item 6: every case of a required feature counts, run or not; beside it the
        share among those that ran (one library: 2.9 % of all, 19.7 % of those run)."""
        features = [feature("devices", "required", False, 0, 3)]
        doc = make([case("a", "PASS"), case("b", "XFAIL"), case("n1", "NOT_SUPPORTED", feature="devices"),
                    case("n2", "NOT_SUPPORTED", feature="devices")], features=features)
        score = doc["conformance"]
        self.assertEqual((score["conformant"], score["cases"], score["ran"], score["percent"], score["percent_of_ran"]),
                         (1, 4, 2, 25.0, 50.0))
        words = "1 of 4 cases of required features (every one, run or not) behave as the spec says; 50.0 % of the 2 that ran"
        for text in (render.markdown(doc), render.html(doc), report_terminal.text_summary(doc)):
            self.assertIn(words, text)
        cols = [compare.Column("x", "x/report.json", doc)]
        self.assertIn("| 50.0 % of 2 run |", compare.markdown(cols))
        self.assertIn("1 of 4; 50.0 % of 2 run", compare.html(cols))
        self.assertIn("run or not", compare.SCORE_NOTE)

    def test_markdown_escapes_testee_text(self):
        doc = make([case("a", "FAIL", observed="x|y<script>\n# not a heading\x1b[31m")])
        md = render.markdown(doc)
        self.assertIn("x\\|y&lt;script> # not a heading\\x1b\\[31m", md)
        self.assertNotIn("<script>", md)
        self.assertNotIn("\x1b", md)

    def test_markdown_links_and_images_are_not_live(self):
        # Issue 42: link and image syntax a testee writes stays text, in prose and in cells.
        attack = "[x](javascript:alert(1)) ![](http://evil.example/p.png) a\\|b"
        doc = make([case("a", "FAIL", observed=attack, expected=attack)])
        doc["candidate"]["name"] = attack
        md = render.markdown(doc)
        self.assertNotRegex(md, r"(?<!\\)\[[^\]]*(?<!\\)\]\(", "a live link or image")
        self.assertIn("\\[x\\](javascript:alert(1)) !\\[\\](http://evil.example/p.png) a\\\\\\|b", md)
        for line in md.splitlines():
            if line.startswith("| ") and attack[:3] in line:
                self.assertEqual(line.count(" | ") - line.count("\\| "), line.count(" | ") - line.count("\\| "))


    def test_markdown_emphasis_is_not_live(self):
        # Issue 42: emphasis and strikethrough a testee writes stay text, in prose and in cells;
        # the page's own bold stays bold.
        attack = "**bold** _em_ __b__ ~~struck~~ *x*"
        doc = make([case("a", "FAIL", observed=attack, expected=attack, reason=attack)])
        doc["candidate"]["name"] = attack
        md = render.markdown(doc)
        for live in ("**bold**", "_em_", "__b__", "~~struck~~", "*x*"):
            self.assertNotIn(live, md)
        self.assertIn("\\*\\*bold\\*\\* \\_em\\_ \\_\\_b\\_\\_ \\~\\~struck\\~\\~ \\*x\\*", md)
        self.assertIn("**FAIL**", md)


class Reports(unittest.TestCase):
    def test_spec_coverage_names_each_cases_statements_and_counts_outcomes(self):
        cases = [case("promote_types.int8.uint8", "PASS", spec_row="promote_types"),
                 case("b1", "XFAIL", spec_row="row.b"), case("b2", "PASS", spec_row="row.b"),
                 case("c1", "NOT_SUPPORTED", spec_row="row.c", feature="sparse_layout"), case("r", "PASS")]
        cov = report_spec.spec_coverage(copy.deepcopy(STATEMENTS), cases, "spec/statements.toml")
        doc = make(cases, coverage=cov)  # valid against the schema
        self.assertEqual([c.get("statements") for c in doc["cases"]],
                         [["002.a"], ["002.a", "002.b"], ["002.a", "002.b"], ["000.c"], None])
        got = {s["id"]: (s["cases"], s["outcomes"]) for s in doc["spec_coverage"]["statements"]}
        self.assertEqual(got, {"002.a": (3, {"PASS": 2, "XFAIL": 1}), "002.b": (2, {"PASS": 1, "XFAIL": 1}),
                               "000.c": (1, {"NOT_SUPPORTED": 1}), "003.d": (0, {}), "004.e": (0, {})})
        groups = {k: [s["id"] for s in v] for k, v in render.coverage(doc)["groups"].items()}
        self.assertEqual(groups, {"broken": ["002.a", "002.b"], "met": [], "not supported": ["000.c"],
                                  "not run": ["004.e"], "untested": ["003.d"]})
        md = render.markdown(doc)
        self.assertIn("## Spec coverage", md)
        self.assertIn("4 of 5 are tested by spec rows; in this run 0 met, 2 broken", md)
        self.assertIn("- `002.a` (002#type-promotion): 2 PASS, 1 XFAIL — “rule a”", md)
        self.assertIn("- `003.d` (003#torch.asarray): needs two GPUs — “rule d”", md)
        self.assertIn("| 002 | 2 | 2 | 0 | 0 | 0 | 0 |", md)
        page = render.html(doc)
        self.assertIn("<h2 id='coverage-statements'>Spec coverage</h2>", page)
        self.assertIn(f"<li style='background:{render.COLORS['XFAIL']}' title='rows: promote_types, row.b'>"
                      "<code>002.a</code> (002#type-promotion): 2 PASS, 1 XFAIL<br><q>rule a</q></li>", page)
        self.assertIn("<code>003.d</code> (003#torch.asarray): needs two GPUs", page)
        self.assertNotIn("## Spec coverage", render.markdown(make(cases)))  # optional: older reports lack it
        self.assertNotIn("Spec coverage", render.html(make(cases)))
        with self.assertRaisesRegex(report_schema.ReportError, "statements"):
            bad = make(cases, coverage=cov)
            bad["cases"][0]["statements"] = []
            report_schema.validate(bad)

    def test_only_cli_reads_where_bazel_run_was_started(self):
        """Issue 51 item 2: one module answers where a path given by the user points (cli.py's
        working_directory, workspace, user_path); no other module of the project's Python — the
        report tools, the runner, the tools — names `bazel run`'s variables to read them its own way."""
        import ast
        here = os.path.dirname(os.path.abspath(__file__))
        rooms = [here, os.path.join(os.getcwd(), "conformance", "runner"), os.path.join(os.getcwd(), "conformance", "tools")]
        modules = sorted(os.path.join(d, f) for d in rooms for f in os.listdir(d)
                         if f.endswith(".py") and not f.endswith("_test.py"))
        names = {os.path.basename(m) for m in modules}
        for name in ("compare.py", "diff.py", "history.py", "merge.py", "pages.py", "render.py", "versions.py",
                     "options.py", "main.py", "repro.py", "write_expectations.py", "lint_expectations.py"):
            self.assertIn(name, names)  # each is read here (not left out of the test's data)
        readers = []
        for path in modules:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            if os.path.basename(path) != "cli.py" and any(
                    isinstance(n, ast.Constant) and n.value in ("BUILD_WORKING_DIRECTORY", "BUILD_WORKSPACE_DIRECTORY")
                    for n in ast.walk(tree)):
                readers.append(os.path.relpath(path, os.getcwd()))
        self.assertEqual(readers, [], "read BUILD_WORKING_DIRECTORY or BUILD_WORKSPACE_DIRECTORY: use reports/cli.py's")

    def test_render_makes_its_out_folder_and_names_one_it_cannot_write(self):
        """render.py --out=DIR into a folder that does not exist yet makes it; into a path under a
        file it says which folder it cannot write into (exit 1), never a traceback."""
        doc = make([case("a.b", "PASS")])
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "report.json")
            with open(src, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            out = os.path.join(d, "new", "folder")
            with redirect_stdout(io.StringIO()):
                self.assertEqual(render.main([src, f"--out={out}"]), 0)
            self.assertTrue(os.path.isfile(os.path.join(out, "report.html")))
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                self.assertEqual(render.main([src, f"--out={os.path.join(src, 'x')}"]), 1)
            self.assertIn(f"render: cannot write into '{os.path.join(src, 'x')}'", err.getvalue())

    def test_spec_json_errors_name_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spec.json")
            with self.assertRaisesRegex(report_schema.ReportError, "spec '.*spec.json': cannot read"):
                report_spec.load_spec(path)
            for text, why in (("{", "not valid JSON"), ('{"schema_version": 1, "tables": {"statements": {}}}',
                                                        "not a generated spec.json of schema_version 2"),
                              ('{"schema_version": 2, "generated_from": [], "tables": {}}', "with tables")):
                with open(path, "w") as f:
                    f.write(text)
                with self.assertRaisesRegex(report_schema.ReportError, f"spec '{re.escape(path)}': .*{why}"):
                    report_spec.load_spec(path)

    def test_statements_and_derivations_come_from_spec_json(self):
        spec = {"schema_version": 2, "generated_from": ["spec/statements.toml"], "tables": {
            "features": {"feature": [{"name": "views", "derives_from": ["no"]}]},
            "statements": {"statement": [{"id": "x", "clause": "002#a", "quote": "q", "untested": "why"},
                                         {"id": "y", "clause": "002#a", "quote": "r", "rows": ["op.add"],
                                          "checks": ["dtype"]}]},
            "sources": {"document": [{"id": "002", "derives_from": ["no"]}]},
            "strided": {"view": [{"id": "view.t", "derives_from": ["dim_wrap"]}]},
            "promotion": {"op": [{"id": "op.add", "derives_from": ["result_type.rules:dtype,error"]}]}}}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spec.json")
            with open(path, "w") as f:
                json.dump(spec, f)
            spec = report_spec.load_spec(path)
        self.assertEqual(report_spec.spec_statements(spec), (
            [{"id": "x", "clause": "002#a", "quote": "q", "rows": [], "untested": "why"},
             {"id": "y", "clause": "002#a", "quote": "r", "rows": ["op.add"], "checks": ["dtype"]}],
            "spec/statements.toml"))
        # Tables in the order of their files' names; the statements, the document list and the
        # feature levels state no rule.
        self.assertEqual(list(report_causes.spec_derivations(spec).items()),
                         [("op.add", [["result_type.rules", ["dtype", "error"]]]), ("view.t", [["dim_wrap", []]])])

    def test_verdict(self):
        optional_ns = [feature("promote_types", "required", cases=2), feature("sparse_layout", "optional", False, 0, 1)]
        doc = make([case("a", "PASS"), case("b", "XFAIL"), case("c", "NOT_SUPPORTED", feature="sparse_layout")],
                   features=optional_ns)
        self.assertEqual((verdict(doc), doc["summary"]["conforms"], doc["summary"]["why"]), ("CONFORMS", True, []))
        for bad in ("FAIL", "XPASS", "CRASH", "TIMEOUT"):
            doc = make([case("a", "PASS"), case("b", bad)])
            self.assertEqual(verdict(doc), "DOES NOT CONFORM", bad)
            self.assertFalse(doc["summary"]["conforms"])
            self.assertEqual(doc["summary"]["why"], [f"1 {bad}"])
        self.assertEqual(verdict(make([])), "DOES NOT CONFORM")  # nothing ran: nothing conforms
        stale = {"pattern": "x*", "outcome": "FAIL", "reason": "r", "line": 3}
        self.assertEqual(verdict(make([case("a", "PASS")], [stale])), "DOES NOT CONFORM")

    def test_a_required_feature_answered_not_supported_conforms_partially(self):
        features = [feature("promote_types", "required", False, 0, 2), feature("sparse_layout", "optional", False, 0, 1)]
        doc = make([case("a", "PASS"), case("b", "NOT_SUPPORTED", feature="promote_types"),
                    case("c", "NOT_SUPPORTED", feature="promote_types"),
                    case("d", "NOT_SUPPORTED", feature="sparse_layout")], features=features)
        self.assertEqual(verdict(doc), "CONFORMS PARTIALLY")
        self.assertFalse(doc["summary"]["conforms"])
        self.assertEqual(doc["summary"]["required_not_supported"], [{"feature": "promote_types", "cases": 2}])
        self.assertEqual(doc["summary"]["why"], ["required feature promote_types answered NotSupported: 2 cases not exercised"])
        # Anything unexpected outweighs it.
        self.assertEqual(verdict(make([case("a", "FAIL"), case("b", "NOT_SUPPORTED", feature="promote_types")],
                                      features=features)), "DOES NOT CONFORM")

    def test_nothing_exercised_or_unnamed_not_supported_is_not_conformance(self):
        ns = [feature("promote_types", "required"), feature("sparse_layout", "optional", False, 0, 2)]
        doc = make([case("a", "NOT_SUPPORTED", feature="sparse_layout"), case("b", "NOT_SUPPORTED", feature="sparse_layout")],
                   features=ns)
        self.assertEqual(verdict(doc), "CONFORMS PARTIALLY")
        self.assertIn("no case was exercised: all 2 NOT_SUPPORTED", doc["summary"]["why"])
        doc = make([case("a", "PASS"), case("b", "NOT_SUPPORTED")])  # no feature named
        self.assertEqual(verdict(doc), "CONFORMS PARTIALLY")
        self.assertIn("1 case NOT_SUPPORTED without naming a feature", doc["summary"]["why"])

    def test_feature_table_and_verdict_render(self):
        features = [feature("promote_types", "required", False, 0, 1), feature("sparse_layout", "optional", False)]
        doc = make([case("a", "PASS"), case("b", "NOT_SUPPORTED", feature="promote_types")], features=features)
        md = render.markdown(doc)
        self.assertIn("**CONFORMS PARTIALLY**", md)
        self.assertIn("- required feature promote_types answered NotSupported: 1 case not exercised", md)
        self.assertIn("## Features and conformance levels", md)
        self.assertIn("| promote_types | required | not supported | 0: the candidate declares it unsupported: each of "
                      "the 1 case that needs it answered NotSupported without running | 1 | 002#x | because |", md)
        page = render.html(doc)
        self.assertIn("class='verdict partial'>CONFORMS PARTIALLY", page)
        self.assertIn("<h2>Features and conformance levels</h2>", page)
        self.assertIn("CONFORMS PARTIALLY", report_terminal.text_summary(doc))

    def test_a_case_names_its_spec_row(self):
        """spec_row: optional (a replayed case has none), never empty; the unexpected-outcome
        details of report.md and report.html and the JUnit failure show it."""
        doc = make([case("promote_types.int8.uint8", "FAIL", spec_row="promote_types"), case("r", "FAIL")])
        md, page = render.markdown(doc), render.html(doc)
        self.assertIn("  - spec row: `promote_types`", md)
        self.assertIn("spec row: <code>promote_types</code>", page)
        self.assertEqual(md.count("spec row:"), 1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "test.xml")
            junit.write(path, doc, "//conformance:promotion_cand")
            failures = {tc.get("name"): tc.find("failure").text for tc in ET.parse(path).getroot().iter("testcase")}
        self.assertIn("  basis:    doc\n  spec row: promote_types\n", failures["promote_types.int8.uint8"])
        self.assertNotIn("spec row", failures["r"])
        with self.assertRaisesRegex(report_schema.ReportError, "spec_row"):
            make([case("a", "PASS", spec_row="")])

    def test_junit_xml_has_one_testcase_per_case(self):
        stale = {"pattern": "x*", "outcome": "FAIL", "reason": "r", "line": 3}
        doc = make([case("p", "PASS"), case("x", "XFAIL"), case("f", "FAIL", message="boom\x00\x1b"),
                    case("n", "NOT_SUPPORTED", feature="sparse_layout", observed="NotSupported: empty(sparse)"),
                    case("c", "CRASH"), case("u", "XPASS")], [stale])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "test.xml")
            junit.write(path, doc, "//conformance:promotion_cand")
            root = ET.parse(path).getroot()
        cases = {tc.get("name"): tc for tc in root.iter("testcase")}
        self.assertEqual(len(cases), 7)
        self.assertEqual({n for n, tc in cases.items() if tc.find("failure") is not None}, {"f", "c", "u", "e.txt:3"})
        self.assertEqual({n for n, tc in cases.items() if tc.find("skipped") is not None}, {"n"})
        self.assertIn("feature sparse_layout, optional", cases["n"].find("skipped").get("message"))
        self.assertIn("rerun f", cases["f"].find("failure").text)
        self.assertIn("\ufffd", cases["f"].find("failure").text)  # control characters XML cannot carry
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("7", "4", "1"))
        props = {p.get("name"): p.get("value") for p in root.iter("property")}
        self.assertEqual(props["verdict"], "DOES NOT CONFORM")

    def test_cases_are_checked_by_their_shapes_and_nothing_slips_through(self):
        """validate checks the cases' distinct shapes (text fields made canonical): as many
        shapes as kinds of case, and a broken case is still refused, named by its index."""
        doc = make([case(f"c{i}", "PASS", message=f"m{i}") for i in range(50)] + [case("f", "FAIL")])
        self.assertEqual(len(report_schema._case_shapes(doc, report_schema.schema())["cases"]), 2)
        report_schema.validate(doc)
        # Rows, statements, inputs, checks and durations that differ share one shape too: a bounded
        # string, a bounded integer, a pattern's matches and an array's or a map's repeats each
        # stand for their class (the reference's 15,557 cases were 4,247 shapes, now 12).
        varied = make([case(f"v{i}", "PASS", spec_row=f"row.{i}", statements=[f"s{j}" for j in range(1 + i % 5)],
                            inputs=[f"t_int{i}", "s_float"][:1 + i % 2], checks={f"c{j}": "PASS" for j in range(1 + i % 4)},
                            duration_ms=i) for i in range(40)])
        self.assertEqual(len(report_schema._case_shapes(varied, report_schema.schema())["cases"]), 1)
        report_schema.validate(varied)
        # An array shorter than its minItems keeps its length (its repeats would otherwise pad it).
        pairs = report_schema._shaper({"type": "array", "items": {"type": "string"}, "minItems": 2})
        self.assertEqual((pairs(["a"]), pairs(["a", "b", "c"]), pairs(["a", 1, "b"])), ([""], ["", ""], ["", 1]))
        for key, value, words in (("outcome", "NOPE", "is not one of"), ("id", 3, "is not of type"),
                                  ("extra", 1, "Additional properties"), ("spec_row", "", "too short"),
                                  ("features", ["a", None], "is not of type"), ("duration_ms", "x", "is not of type"),
                                  ("draws", -1, "minimum"), ("reason_ref", -1, "minimum"),
                                  ("duration_ms", 1.5, "is not of type"), ("inputs", ["t_int32", "T int32"], "does not match"),
                                  ("inputs", [], "too short|non-empty"), ("statements", ["a", ""], "too short|non-empty"),
                                  ("statements", [], "too short|non-empty"), ("checks", {"a": "PASS", "b": "MAYBE"}, "is not one of"),
                                  ("checks", {"a": "PASS", "b": "PASS", "c": None}, "is not one of")):
            broken = copy.deepcopy(doc)
            broken["cases"][17][key] = value
            with self.assertRaisesRegex(report_schema.ReportError, rf"report\.cases\[17\].*{words}"):
                report_schema.validate(broken)
        broken = copy.deepcopy(doc)
        del broken["cases"][3]["rerun"]
        with self.assertRaisesRegex(report_schema.ReportError, r"report\.cases\[3\]: 'rerun' is a required property"):
            report_schema.validate(broken)
        # Failures whose mismatches differ only in their texts share one shape (7,000 NumPy failures
        # were 7,000 shapes), and a broken mismatch is still refused.
        failures = make([case(f"f{i}", "FAIL", mismatches=[{"check": f"answer {i}", "expected": f"int{i}",
                                                             "observed": f"uint{i}", "kind": "answer"}])
                          for i in range(50)])
        self.assertEqual(len(report_schema._case_shapes(failures, report_schema.schema())["cases"]), 1)
        report_schema.validate(failures)
        for change, words in ((lambda m: m.pop("observed"), "'observed' is a required property"),
                              (lambda m: m.update(extra="x"), "Additional properties"),
                              (lambda m: m.update(expected=3), "is not of type")):
            broken = copy.deepcopy(failures)
            change(broken["cases"][29]["mismatches"][0])
            with self.assertRaisesRegex(report_schema.ReportError, rf"report\.cases\[29\]\.mismatches\[0\].*{words}"):
                report_schema.validate(broken)

    def test_report_json_is_the_document_with_a_case_per_line(self):
        """report.json reads back as the document it was written from, indented as
        json.dumps(indent=1) but for the cases: each is one line (grep and diff show whole cases)."""
        doc = make([case("p", "PASS", message="two\nlines \u2028 \"quoted\""), case("q", "FAIL")])
        text = render.report_json(doc)
        self.assertEqual(json.loads(text), doc)
        lines = text.split("\n")  # not splitlines(): U+2028 inside a string is no line break
        self.assertEqual(lines[:2], ["{", ' "schema": "tensor-cts/report",'])
        self.assertEqual([line.rstrip(",") for line in lines[lines.index(' "cases": [') + 1:][:len(doc["cases"])]],
                         ["  " + json.dumps(c, ensure_ascii=False) for c in doc["cases"]])
        without_cases = {k: v for k, v in doc.items() if k != "cases"}
        self.assertEqual(json.loads(render.report_json(without_cases)), without_cases)
        self.assertEqual(render.report_json(without_cases), json.dumps(without_cases, indent=1, ensure_ascii=False) + "\n")

    def test_schema_is_checked_by_jsonschema_on_build_and_load(self):
        self.assertIsNotNone(report_schema.jsonschema, "python3-jsonschema: run under /usr/bin/python3")
        with self.assertRaisesRegex(report_schema.ReportError, "'SORT_OF' is not one of"):
            make([case("a", "SORT_OF")])
        broken = copy.deepcopy(make([case("a", "PASS")]))
        del broken["run"]["seed"]
        broken["features"][0]["level"] = "nice to have"
        problems = report_schema.check_schema(broken, report_schema.schema())
        self.assertIn("report.run: 'seed' is a required property", problems)
        self.assertTrue(any(p.startswith("report.features[0].level:") for p in problems), problems)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                f.write('{"schema": "something else"}')
            with self.assertRaisesRegex(report_schema.ReportError, "not a tensor-cts report"):
                report_schema.load(path)

    def test_matrix_cells_carry_value_and_outcome(self):
        # The cells read each row's answer as data (the statements are only words: a wrong
        # one must not leak into the matrix).
        doc = make([case("promote_types.int8.uint8", "PASS", statement="promote_types(int8, uint8) = int64",
                         answer="int16"),
                    case("promote_types.uint8.int8", "FAIL", statement="promote_types(uint8, int8) = int16",
                         answer="int16"),
                    case("inplace.add.int8.float32", "XFAIL",
                         statement="tensor:int8.add_(tensor:float32) -> RuntimeError: result type Float can't be cast",
                         answer="error")])
        md = render.markdown(doc)
        self.assertIn("| **int8** |  | int16 |", md)
        self.assertIn("| **uint8** | int16 ✗ |  |", md)
        self.assertIn("error ⚠", md)
        self.assertNotIn("int64", md.split("## dtype matrices")[1].split("## Expected")[0])
        page = render.html(doc)
        self.assertIn(f"background:{render.COLORS['FAIL']}' title='promote_types.uint8.int8", page)
        self.assertIn("known", page)  # the deviation's reason

    def test_diff_lists_changed_cases(self):
        a = make([case("p", "PASS"), case("q", "FAIL"), case("r", "PASS"), case("gone", "PASS")])
        b = make([case("p", "PASS"), case("q", "PASS"), case("r", "CRASH"), case("new", "PASS")])
        changes, only_a, only_b, same = diff.diff(a, b)
        self.assertEqual(changes, {("FAIL", "PASS"): ["q"], ("PASS", "CRASH"): ["r"]})
        self.assertEqual((only_a, only_b, dict(same)), (["gone"], ["new"], {"PASS": 1}))
        with tempfile.TemporaryDirectory() as d:
            for name, doc in (("a", a), ("b", b)):
                render.write_all(doc, d)
                os.rename(os.path.join(d, "report.json"), os.path.join(d, name + ".json"))
            out = io.StringIO()
            with redirect_stdout(out):
                status = diff.main([os.path.join(d, "a.json"), os.path.join(d, "b.json")])
            self.assertEqual(status, 1)
            self.assertIn("PASS -> CRASH (1):\n  r", out.getvalue())
            self.assertIn("2 changed, 1 only in A, 1 only in B, 1 unchanged", out.getvalue())
            # Issue 42: what the candidate wrote reaches the terminal inert (ESC, CR, BEL, NUL).
            b["cases"][2]["observed"] = "\x1b]0;owned\x07\r\x1b[2Kok\x00"
            b["candidate"]["name"] = "\x1b[2J"
            render.write_all(b, d)
            out = io.StringIO()
            with redirect_stdout(out):
                diff.main([os.path.join(d, "a.json"), os.path.join(d, "report.json")])
            self.assertNotRegex(out.getvalue(), "[\x00-\x08\x0b-\x1f\x7f]")
            self.assertIn("\\x1b]0;owned\\x07\\x0d\\x1b[2Kok\\x00", out.getvalue())
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(diff.main([os.path.join(d, "a.json"), os.path.join(d, "a.json")]), 0)

    def test_diff_reads_version_1_reports(self):
        b = make([case("p", "PASS"), case("q", "NOT_SUPPORTED", feature="promote_types")],
                 features=[feature("promote_types", "required", False, 0, 1)])
        a = copy.deepcopy(b)  # as the runner wrote it before schema version 2
        a["schema_version"] = 1
        del a["features"]
        del a["conformance"]
        a["summary"] = {"total": 2, "outcomes": a["summary"]["outcomes"], "conforms": True}
        del a["cases"][1]["feature"]
        report_schema.validate(a, 1)
        with tempfile.TemporaryDirectory() as d:
            for name, doc in (("a", a), ("b", b)):
                with open(os.path.join(d, name + ".json"), "w") as f:
                    json.dump(doc, f)
            out = io.StringIO()
            with redirect_stdout(out):
                status = diff.main([os.path.join(d, "a.json"), os.path.join(d, "b.json")])
        self.assertEqual(status, 0, out.getvalue())
        self.assertIn("verdict: CONFORMS -> CONFORMS PARTIALLY", out.getvalue())

    def test_diff_bad_input_exits_2_naming_file_and_problem(self):
        good = make([case("p", "PASS")])
        hostile = {
            "deep.json": ("[" * 200000 + "]" * 200000).encode(),
            "deep_inside.json": json.dumps(dict(good, tool={"name": "tensor-cts", "commit": None}))[:-1].encode()
            + b', "x": ' + b"[" * 50000 + b"]" * 50000 + b"}",
            "latin1.json": json.dumps(good).replace('"cand"', '"caf\u00e9"').encode("utf-8").replace(
                "é".encode("utf-8"), b"\xe9"),
            "not_json.json": b"{not json",
            "not_report.json": b'{"schema": "other"}',
            "future.json": json.dumps(dict(good, schema_version=99)).encode(),
            "broken.json": json.dumps(dict(good, cases=[dict(good["cases"][0], outcome="MAYBE")])).encode(),
        }
        expected = {"deep.json": "nested too deeply", "deep_inside.json": "nested too deeply",
                    "latin1.json": "not UTF-8: byte 0xE9", "not_json.json": "is not JSON",
                    "not_report.json": "not a tensor-cts report", "future.json": "schema_version 99",
                    "broken.json": "'MAYBE' is not one of"}
        with tempfile.TemporaryDirectory() as d:
            render.write_all(good, d)
            ok = os.path.join(d, "report.json")
            for name, data in hostile.items():
                path = os.path.join(d, name)
                with open(path, "wb") as f:
                    f.write(data)
                for args in ([ok, path], [path, ok]):
                    err, out = io.StringIO(), io.StringIO()
                    with redirect_stderr(err), redirect_stdout(out):
                        status = diff.main(args)
                    self.assertEqual(status, 2, (name, err.getvalue(), out.getvalue()))
                    self.assertIn("diff: bad input:", err.getvalue())
                    self.assertIn(name, err.getvalue())
                    self.assertIn(expected[name], err.getvalue(), name)
            err = io.StringIO()
            with redirect_stderr(err):
                self.assertEqual(diff.main([ok, os.path.join(d, "missing.json")]), 2)
            self.assertIn("cannot read report", err.getvalue())



class ObservedOnly(unittest.TestCase):
    """Issue 37 items 2 and 4: statements judged by the checks they are about; root deviations."""

    def case(self, cid, row, outcome, checks, mismatches=()):
        return {"id": cid, "spec_row": row, "outcome": outcome, "checks": checks, "spec_file": "spec/x.toml",
                "clause": "002#x", "mismatches": list(mismatches)}

    def test_a_values_only_failure_breaks_no_dtype_statement(self):
        c = self.case("a", "op.add", "XFAIL", {"dtype": "PASS", "values": "FAIL"})
        self.assertEqual(report_spec.statement_outcome(c, ["answer", "dtype"]), "PASS")
        self.assertEqual(report_spec.statement_outcome(c, None), "XFAIL")
        setup = self.case("b", "op.add", "XFAIL", {"setup": "FAIL"})
        self.assertIsNone(report_spec.statement_outcome(setup, ["dtype"]))
        self.assertIsNone(report_spec.statement_outcome(setup, None))

    def test_root_deviations_explain_derived_cases_and_the_rest_by_signature(self):
        edges = {"op.add": [["result_type.rules", ["dtype"]]], "result_type.rules": [["promote_types", []]]}
        err = {"kind": "error", "expected": "RuntimeError: x", "observed": "ValueError: y"}
        cases = [self.case("p", "promote_types", "XFAIL", {"answer": "FAIL"}, [{"kind": "answer"}]),
                 self.case("r", "result_type.rules", "XFAIL", {"answer": "FAIL"}, [{"kind": "answer"}]),
                 self.case("d", "op.add", "XFAIL", {"dtype": "FAIL"}, [{"kind": "dtype"}]),
                 self.case("v", "op.add", "FAIL", {"dtype": "PASS", "values": "FAIL"}, [{"kind": "values"}]),
                 self.case("e", "view.t", "XFAIL", {"error": "FAIL"}, [err])]
        per = {}
        rc = report_causes.root_causes(cases, edges, per)
        self.assertEqual([(r["row"], r["own"], r["downstream"]) for r in rc["roots"]], [("promote_types", 1, 2)])
        self.assertEqual(per["d"], ["promote_types"])
        self.assertEqual(per["v"], ["op.add"])  # its values are op.add's own
        self.assertEqual({x["signature"]: x["cases"] for x in rc["other"]},
                         {"values differs": 1, "error kind RuntimeError → ValueError": 1})
        self.assertEqual((rc["deviations"], rc["explained"]), (5, 3))

    def test_a_root_explains_a_case_only_where_it_deviates_on_the_case_s_own_inputs(self):
        """Issue 48 item 5: promote_types deviates on (int32, float32) only; a library that refuses
        int32 / int32 (a division of a pair promote_types gets right) gets no root credited to
        promote_types for it, nor float16 + a Python float; int32 * float32 is promote_types'."""
        edges = {"binary.rules": [["result_type.rules", ["dtype", "error"]]],
                 "result_type.rules": [["promote_types", []]]}
        refused = [{"kind": "error", "expected": "no error", "observed": "TypeError: unsupported"}]

        def case(cid, row, outcome, checks, inputs, mismatches=()):
            return {**self.case(cid, row, outcome, checks, mismatches), "inputs": inputs}

        cases = [case("promote_types.int32.float32", "promote_types", "XFAIL", {"answer": "FAIL"}, ["int32", "float32"]),
                 case("promote_types.int32.int32", "promote_types", "PASS", {"answer": "PASS"}, ["int32", "int32"]),
                 case("result_type.t_int32.t_float32", "result_type.rules", "XFAIL", {"answer": "FAIL"},
                      ["t_int32", "t_float32"]),
                 case("binary.mul.t_float32.t_int32", "binary.rules", "XFAIL", {"dtype": "FAIL"},
                      ["t_float32", "t_int32"]),
                 case("binary.div.t_int32.t_int32", "binary.rules", "XFAIL", {"error": "FAIL"},
                      ["t_int32", "t_int32"], refused),
                 case("binary.add.t_float16.s_float", "binary.rules", "XFAIL", {"dtype": "FAIL"},
                      ["t_float16", "s_float"], [{"kind": "dtype"}])]
        per = {}
        rc = report_causes.root_causes(cases, edges, per)
        self.assertEqual(per["binary.mul.t_float32.t_int32"], ["promote_types"])
        self.assertEqual(per["result_type.t_int32.t_float32"], ["promote_types"])
        self.assertEqual(per["binary.div.t_int32.t_int32"], ["binary.rules"])
        self.assertEqual(per["binary.add.t_float16.s_float"], ["binary.rules"])
        root = {r["row"]: r for r in rc["roots"]}["promote_types"]
        self.assertEqual((root["own"], root["downstream"]), (1, 2))
        # The rest grouped by what they observed, not credited to a root.
        self.assertEqual({x["signature"]: x["cases"] for x in rc["other"]},
                         {"error kind no error → TypeError": 1, "dtype differs": 1})
        # Without inputs the rows are compared as before: promote_types deviates somewhere.
        bare = [{k: v for k, v in c.items() if k != "inputs"} for c in cases]
        per = {}
        report_causes.root_causes(bare, edges, per)
        self.assertEqual(per["binary.div.t_int32.t_int32"], ["promote_types"])

    def test_same_inputs_pairs_kinds_and_lets_a_dtype_stand_for_a_tensor_not_a_scalar(self):
        key = lambda *ts: tuple(sorted(report_causes._operand(t) for t in ts))  # noqa: E731
        self.assertTrue(report_causes.same_inputs(key("int32", "float16"), key("z_float16", "t_int32")))
        self.assertFalse(report_causes.same_inputs(key("int32", "float32"), key("t_int32", "s_float")))
        self.assertFalse(report_causes.same_inputs(key("t_int32", "z_float32"), key("t_int32", "t_float32")))
        self.assertFalse(report_causes.same_inputs(key("int32", "int32"), key("t_int32", "t_int32", "t_int32")))
        self.assertTrue(report_causes.same_inputs(key("t_bool", "s_bool"), key("s_bool", "t_bool")))

    def test_a_library_s_own_wording_breaks_only_a_statement_that_quotes_the_message(self):
        """Issue 48 item 4: the documents state one message (002's cast error); a case whose error
        is of the right kind in the library's words breaks that statement, not one about every
        check, and the pages say which of the wording deviations are of a documented message."""
        worded = self.case("w", "output_casting.rule", "XFAIL", {"error": "PASS", "message": "FAIL"},
                           [{"kind": "message", "expected": "x", "observed": "y"}])
        self.assertEqual(report_spec.statement_outcome(worded, None), "PASS")  # about every check: its error passed
        self.assertEqual(report_spec.statement_outcome(worded, ["answer", "dtype", "error", "message"]), "XFAIL")
        other = dict(worded, id="v", statements=["002.view.x"])
        doc = {"spec_coverage": {"file": "spec/statements.toml", "statements": [
            {"id": "002.casting.disallowed_error", "checks": ["error", "message"]}, {"id": "002.view.x"}]}}
        documented = report_causes.documented_messages(doc)
        self.assertEqual(documented, {"002.casting.disallowed_error"})
        text = report_causes.wording_text([dict(worded, statements=["002.casting.disallowed_error"]), other], documented)
        self.assertIn("2 of the expected deviations are in an error's wording alone", text)
        self.assertIn("1 of them of a message the documents state", text)
        self.assertIn("every one of PyTorch's wording", report_causes.wording_text([other], documented))

    def test_an_acceptance_cell_whose_operation_never_ran_says_so(self):
        ns = {"id": "inplace.add.int8.int8", "outcome": "NOT_SUPPORTED", "feature": "values", "observed": "no"}
        self.assertIn("NOT_SUPPORTED (values)", render.not_run(ns, "inplace.add"))
        unrun = {"id": "inplace.add.int8.int8", "outcome": "XFAIL", "checks": {"setup": "FAIL"}, "observed": "x"}
        self.assertIn("never ran", render.not_run(unrun, "inplace.add"))
        ran = dict(unrun, checks={"error": "FAIL"})
        self.assertIsNone(render.not_run(ran, "inplace.add"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
