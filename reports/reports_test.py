"""Tests of the report tools on small reports built in the test: the schema check, the
summaries, the renderings (matrices coloured by outcome) and the diff. The runner's own test
(conformance/run_test.py) covers reports of real runs. Standard library only.
"""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.getcwd(), "reports"))
import diff  # noqa: E402
import render  # noqa: E402
import report  # noqa: E402


def case(case_id, outcome, clause="002#type-promotion", statement="", **extra):
    c = {"id": case_id, "test": "T." + case_id, "suite": "promotion", "spec_file": "spec/promotion.toml",
         "kind": "case", "clause": clause, "basis": "doc", "statement": statement or f"{case_id} holds",
         "outcome": outcome, "expected": "x", "observed": "x" if outcome == "PASS" else "y", "mismatches": [],
         "reason": "known" if outcome == "XFAIL" else "", "message": "", "rerun": f"rerun {case_id}",
         "duration_ms": 1}
    c.update(extra)
    return c


def make(cases, stale=()):
    return report.build(
        candidate={"name": "cand", "version": "1", "build": ""},
        run={"command": "test", "suites": ["promotion"], "filter": "", "device": "cpu", "seed": "1", "jobs": 1, "case_timeout_s": 1.0,
             "processes": 1, "isolated_processes": 0, "started": "now", "wall_s": 0.1, "replay_file": None},
        expectations={"file": "e.txt", "entries": len(stale), "stale": list(stale)}, cases=cases)


class Reports(unittest.TestCase):
    def test_verdict(self):
        self.assertTrue(make([case("a", "PASS"), case("b", "XFAIL"), case("c", "NOT_SUPPORTED")])["summary"]["conforms"])
        for bad in ("FAIL", "XPASS", "CRASH", "TIMEOUT"):
            self.assertFalse(make([case("a", "PASS"), case("b", bad)])["summary"]["conforms"], bad)
        self.assertFalse(make([])["summary"]["conforms"])  # nothing ran: nothing conforms
        stale = {"pattern": "x*", "outcome": "FAIL", "reason": "r", "line": 3}
        self.assertFalse(make([case("a", "PASS")], [stale])["summary"]["conforms"])

    def test_schema_is_checked_on_build_and_load(self):
        with self.assertRaises(report.ReportError):
            make([case("a", "SORT_OF")])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                f.write('{"schema": "something else"}')
            with self.assertRaisesRegex(report.ReportError, "not a tensor-cts report"):
                report.load(path)

    def test_matrix_cells_carry_value_and_outcome(self):
        doc = make([case("promote_types.int8.uint8", "PASS", statement="promote_types(int8, uint8) = int16"),
                    case("promote_types.uint8.int8", "FAIL", statement="promote_types(uint8, int8) = int16"),
                    case("inplace.add.int8.float32", "XFAIL",
                         statement="tensor:int8.add_(tensor:float32) -> RuntimeError: result type Float can't be cast")])
        md = render.markdown(doc)
        self.assertIn("| **int8** |  | int16 |", md)
        self.assertIn("| **uint8** | int16 ✗ |  |", md)
        self.assertIn("error ⚠", md)
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
                report.write_all(doc, d)
                os.rename(os.path.join(d, "report.json"), os.path.join(d, name + ".json"))
            out = io.StringIO()
            with redirect_stdout(out):
                status = diff.main([os.path.join(d, "a.json"), os.path.join(d, "b.json")])
            self.assertEqual(status, 1)
            self.assertIn("PASS -> CRASH (1):\n  r", out.getvalue())
            self.assertIn("2 changed, 1 only in A, 1 only in B, 1 unchanged", out.getvalue())
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(diff.main([os.path.join(d, "a.json"), os.path.join(d, "a.json")]), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
