"""The runner isolates a candidate that crashes or hangs, and still reports every other case.

Runs conformance/runner/run.py on the test-only candidate "faulty" (conformance/adapters/faulty.cc:
the reference with faults injected by TCTS_FAULTS) over the dtypes and promotion suites, with
one case that aborts, one that segfaults, one that exits silently, one that hangs, and one
property that gets wrong answers. Checks: 100% of the cases are in the report exactly once;
the faulted ones are CRASH / TIMEOUT / XFAIL as the expectations file says; everything else
passes; the property failure carries its seed and counterexample, and rerunning with that
seed gives the same counterexample; stale entries are reported; report.json matches the
schema and the Markdown/HTML renderings show the outcomes. Standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.getcwd(), "reports"))
sys.path.insert(0, os.path.join(os.getcwd(), "conformance", "runner"))
import report as report_lib  # noqa: E402
from run import child_env  # noqa: E402

SUITES = ["dtypes", "promotion"]
FAULTS = {
    "promote_types.int8.uint8": "abort",
    "dtype.float32.name.float": "segv",
    "promote_types.bool.bool": "exit",
    "promote_types.int16.float32": "hang",
    "property.promote_types.commutative": "wrong",
}
SEED = "7"


def all_case_ids() -> set:
    ids = set()
    with tempfile.TemporaryDirectory() as tmp:
        for s in SUITES:
            path = os.path.join(tmp, s)
            subprocess.run([f"conformance/{s}_faulty", f"--tcts_list={path}"], check=True, capture_output=True,
                           env=child_env())
            ids |= {line.split("\t")[1] for line in open(path).read().splitlines()}
    return ids


class RunnerIsolation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        env = dict(os.environ, TCTS_FAULTS=";".join(f"{mode}={case}" for case, mode in FAULTS.items()))
        cls.proc = subprocess.run(
            [sys.executable, "conformance/runner/run.py", "--suites=" + ",".join(SUITES), "--candidate=faulty",
             "--expectations=conformance/runner/testdata/faulty_expectations.txt", f"--out={cls.out}",
             "--case-timeout=3", "--jobs=2", f"--seed={SEED}"],
            env=env, capture_output=True, text=True, timeout=300)
        print(cls.proc.stdout[-3000:], cls.proc.stderr[-3000:])
        cls.report = report_lib.load(os.path.join(cls.out, "report.json"))
        cls.by_id = {}
        for c in cls.report["cases"]:
            cls.by_id.setdefault(c["id"], []).append(c)

    def test_the_run_does_not_conform_and_says_so(self):
        self.assertEqual(self.proc.returncode, 1)
        self.assertFalse(self.report["summary"]["conforms"])
        self.assertIn("DOES NOT CONFORM", self.proc.stdout)

    def test_every_case_is_reported_exactly_once(self):
        expected = all_case_ids()
        self.assertGreater(len(expected), 4000)
        self.assertEqual(set(self.by_id), expected)
        self.assertEqual(len(self.report["cases"]), len(expected))

    def test_faulted_cases_have_their_outcomes(self):
        outcome = {i: self.by_id[i][0]["outcome"] for i in FAULTS}
        self.assertEqual(outcome, {
            "promote_types.int8.uint8": "XFAIL",  # aborts; listed CRASH
            "dtype.float32.name.float": "CRASH",  # segfaults; listed FAIL, so unexpected
            "promote_types.bool.bool": "CRASH",  # exits 0 in the middle of its list
            "promote_types.int16.float32": "XFAIL",  # hangs; listed TIMEOUT
            "property.promote_types.commutative": "FAIL",
        })
        self.assertIn("SIGABRT", self.by_id["promote_types.int8.uint8"][0]["observed"])
        self.assertIn("SIGSEGV", self.by_id["dtype.float32.name.float"][0]["observed"])
        self.assertIn("listed as FAIL", self.by_id["dtype.float32.name.float"][0]["reason"])
        self.assertIn("exit status 0", self.by_id["promote_types.bool.bool"][0]["observed"])
        self.assertIn("TIMEOUT", self.by_id["promote_types.int16.float32"][0]["observed"])
        for i in ("promote_types.int8.uint8", "dtype.float32.name.float"):
            c = self.by_id[i][0]
            self.assertTrue(c["clause"] and c["statement"], c)  # named from the row although it never finished
            self.assertIn("--test_filter=", c["rerun"])
        self.assertEqual(self.report["run"]["isolated_processes"], 4)

    def test_every_other_case_passes(self):
        others = [c for c in self.report["cases"] if c["id"] not in FAULTS]
        self.assertEqual({c["outcome"] for c in others if c["outcome"] != "PASS"}, set(),
                         [c["id"] for c in others if c["outcome"] != "PASS"][:5])

    def test_property_failure_has_seed_and_reproduces(self):
        c = self.by_id["property.promote_types.commutative"][0]
        self.assertEqual(c["seed"], SEED)
        self.assertIn("Falsifiable", c["counterexample"])
        self.assertIn(f"--seed={SEED}", c["rerun"])
        again = subprocess.run(
            ["conformance/promotion_faulty", "--candidate=faulty", f"--seed={SEED}",
             "--gtest_filter=PromotionProperties.PromoteTypesIsCommutative"],
            env=child_env({"TCTS_FAULTS": "wrong=property.promote_types.commutative"}),
            capture_output=True, text=True)
        first_lines = c["counterexample"].splitlines()[:4]
        for line in first_lines:
            self.assertIn(line, again.stdout)

    def test_stale_entries_are_reported(self):
        stale = self.report["expectations"]["stale"]
        self.assertEqual([s["pattern"] for s in stale], ["no.such.case.*"])
        self.assertIn("stale expectations", self.proc.stdout)

    def test_renderings_show_the_outcomes(self):
        md = open(os.path.join(self.out, "report.md")).read()
        page = open(os.path.join(self.out, "report.html")).read()
        for text in (md, page):
            self.assertIn("promote_types(row, column)", text)
            self.assertIn("dtype.float32.name.float", text)
            self.assertIn("no.such.case.*", text)
            self.assertIn("Falsifiable", text)
        self.assertIn("☠", md)  # a CRASH cell in the promote_types matrix

    def test_report_schema_rejects_a_broken_report(self):
        broken = json.loads(json.dumps(self.report))
        broken["cases"][0]["outcome"] = "MAYBE"
        del broken["run"]["seed"]
        problems = report_lib.check_schema(broken, report_lib.schema())
        self.assertTrue(any("MAYBE" in p for p in problems), problems)
        self.assertTrue(any("missing 'seed'" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main(verbosity=2)
