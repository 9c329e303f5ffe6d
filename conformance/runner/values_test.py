"""A candidate whose values cannot be read (PyTorch's meta device, FakeTensor) is judged on
everything else: no case is lost to values alone.

Runs conformance/runner/run.py on the test-only candidate "faulty" with
faulty's option supports=novalues (the reference, declaring the feature `values` unsupported and
answering NotSupported to its operations) over every suite. Checks: nothing FAILs; the cases
whose checks need values are judged on the rest, their `values` check NOT_SUPPORTED by itself;
the out=/in-place casting rules (accepted or refused, the result's dtype, the error) are
judged; the layout properties pass with their values part skipped, and only a property about
values alone is NOT_SUPPORTED. Then a strides regression (its faults option: out_strides) in such cases
FAILs, naming the strides check, and an expectation FAIL(values) does not hide it. Runs under
/usr/bin/python3 (python3-jsonschema).
"""

import collections
import os
import subprocess
import sys
import tempfile
import unittest

from reports import report_schema

SUITES = "dtypes,promotion,casting,strided,arithmetic,devices,asarray,dlpack"
RUNNER = [sys.executable, "-m", "conformance.runner.run", "--candidate=faulty", "--suites=" + SUITES, "--seed=3",
          "--jobs=2", "--partial-ok"]


def run(out: str, faults: str = "", expectations: str = "conformance/expectations/reference.txt"):
    # Not Bazel's test variables: the runner would write its JUnit XML over this test's own.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    p = subprocess.run(RUNNER + [f"--out={out}", f"--expectations={expectations}", "--no-stale-check",
                                 "--candidate-option=supports=novalues", f"--candidate-option=faults={faults}"],
                       capture_output=True, text=True, timeout=600, env=env)
    return p, report_schema.load(os.path.join(out, "report.json"))


class ValuesUnreadable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.proc, cls.doc = run(os.path.join(cls.tmp, "honest"))
        print(cls.proc.stdout[-2000:], cls.proc.stderr[-2000:])
        cls.cases = {c["id"]: c for c in cls.doc["cases"]}

    def test_nothing_fails_and_most_cases_are_judged_without_values(self):
        outcomes = collections.Counter(c["outcome"] for c in self.cases.values())
        self.assertEqual(outcomes["FAIL"], 0, outcomes)
        partly = [c for c in self.cases.values() if c["outcome"] == "PASS" and c.get("checks", {}).get("values") == "NOT_SUPPORTED"]
        self.assertGreater(len(partly), 10000)
        for c in partly[:50]:
            self.assertTrue(any(v == "PASS" for v in c["checks"].values()), c)
            self.assertTrue(any(s.endswith("(needs values)") for s in c["skipped_checks"]), c)
        # A case NOT_SUPPORTED for values has no other check to make.
        for c in self.cases.values():
            if c["outcome"] == "NOT_SUPPORTED" and c.get("feature") == "values":
                self.assertFalse(any(v == "PASS" for v in c.get("checks", {}).values()), c)
        self.assertIn({"feature": "values", "cases": len(partly)}, self.doc["summary"]["partly_judged"])
        self.assertEqual(self.doc["summary"]["verdict"], "CONFORMS PARTIALLY")
        self.assertEqual(self.doc["run"]["device"], "cpu")

    def test_out_and_inplace_casting_rules_are_judged(self):
        # The doc's example: int_tensor *= float_tensor is refused, and the destination's values
        # are not read first.
        judged = [c for i, c in self.cases.items() if i.startswith(("inplace.", "out."))]
        self.assertGreater(len(judged), 1000)
        for c in judged:
            self.assertEqual(c["outcome"], "PASS", c["id"])
            self.assertEqual(c["checks"].get("error"), "PASS", c["id"])
        refused = [c for c in judged if c["answer"] == "error"]
        self.assertTrue(refused)
        # Refused: judged on the error alone (the destination's values were never read).
        self.assertTrue(all(c["checks"].get("values") == "NOT_SUPPORTED" for c in refused))

    def test_layout_properties_are_judged(self):
        props = {i: c for i, c in self.cases.items() if c["kind"] == "property"}
        for name in ("property.clone.preserve_format", "property.contiguous.format", "property.arith.random_layouts",
                     "property.arith.out_and_inplace", "property.views.model", "property.inplace.rejected_leaves_destination"):
            self.assertEqual(props[name]["outcome"], "PASS", name)
            self.assertEqual(props[name]["checks"].get("values"), "NOT_SUPPORTED", name)
        self.assertEqual(props["property.views.write"]["outcome"], "NOT_SUPPORTED")  # about values alone
        self.assertEqual(props["property.views.write"].get("feature"), "storage_values")  # write_element


class AStridesRegressionIsNotHiddenByValues(unittest.TestCase):
    FAULTED = "arith.layout.*"  # output_layout: every case checks the result's strides

    def test_strides_fail_and_a_values_expectation_does_not_hide_them(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            listed = os.path.join(tmp, "novalues.txt")
            with open(listed, "w", encoding="utf-8") as f:
                f.write(f"{self.FAULTED} FAIL(values) values cannot be read (the only deviation expected)\n")
            _, doc = run(os.path.join(tmp, "out"), faults=f"out_strides={self.FAULTED}", expectations=listed)
            faulted = [c for c in doc["cases"] if report_lib_match(self.FAULTED, c["id"]) and c["outcome"] != "NOT_SUPPORTED"]
            self.assertTrue(faulted)
            failed = [c for c in faulted if c["outcome"] == "FAIL"]
            self.assertTrue(failed, "a strides regression in a values-less case went unseen")
            for c in failed:
                self.assertEqual(c["checks"]["strides"], "FAIL", c["id"])
                self.assertEqual(c["checks"]["values"], "NOT_SUPPORTED", c["id"])
                self.assertIn("but check strides fails too", c["reason"])


def report_lib_match(glob: str, text: str) -> bool:
    import fnmatch
    return fnmatch.fnmatchcase(text, glob)


if __name__ == "__main__":
    unittest.main(verbosity=2)
