"""A candidate whose arrays have no strides (a lazy, traced or sparse array library, an Array
API library) is judged on everything else: no case FAILs on strides or offsets it declared it
does not have.

Runs conformance/runner/run.py on the test-only candidate "faulty" with its option
supports=nostrides (the reference, declaring the feature `strides` unsupported, its meta
answering strides [] and storage_offset 0 as PROTOCOL.md "Strides" says) over every suite.
Checks: nothing FAILs; the cases that check strides or an offset are judged on the rest, those
checks NOT_SUPPORTED by themselves; a case with nothing else to check is NOT_SUPPORTED for
strides; the properties about the layouts an op gives are NOT_SUPPORTED, the others judged.
Then the same answers with strides declared (its faults option: no_strides) FAIL on strides
and offsets: the checks the declaration skips are real. Runs under /usr/bin/python3.
"""

import collections
import os
import subprocess
import sys
import tempfile
import unittest

from reports import report_schema

SUITES = "dtypes,promotion,casting,strided,arithmetic,devices,asarray,dlpack"
RUNNER = [sys.executable, "-m", "conformance.runner.run", "--candidate=faulty", "--seed=3", "--jobs=2", "--partial-ok",
          "--expectations=conformance/expectations/reference.txt", "--no-stale-check"]
LAYOUT_CHECKS = ("strides", "offset")


def run(out: str, suites: str, *options: str):
    # Not Bazel's test variables: the runner would write its JUnit XML (7,000 FAILs of the
    # declared run) over this test's own XML_OUTPUT_FILE, which CI counts.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    p = subprocess.run(RUNNER + [f"--out={out}", "--suites=" + suites] + [f"--candidate-option={o}" for o in options],
                       capture_output=True, text=True, timeout=900, env=env)
    return p, report_schema.load(os.path.join(out, "report.json"))


class NoStrides(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.proc, cls.doc = run(os.path.join(cls.tmp, "nostrides"), SUITES, "supports=nostrides")
        print(cls.proc.stdout[-2000:], cls.proc.stderr[-2000:])
        cls.cases = {c["id"]: c for c in cls.doc["cases"]}

    def test_nothing_fails_and_the_layout_checks_are_skipped_by_themselves(self):
        outcomes = collections.Counter(c["outcome"] for c in self.cases.values())
        self.assertEqual(outcomes["FAIL"], 0, outcomes)
        for c in self.cases.values():
            for check in LAYOUT_CHECKS:
                self.assertNotIn(c.get("checks", {}).get(check), ("PASS", "FAIL"), c["id"])
        partly = [c for c in self.cases.values() if c["outcome"] == "PASS" and
                  c.get("checks", {}).get("strides") == "NOT_SUPPORTED"]
        tables = [c for c in partly if c["kind"] != "property"]  # a property's draws record no PASS check
        self.assertGreater(len(tables), 1000)
        for c in tables[:50]:
            self.assertTrue(any(v == "PASS" for v in c["checks"].values()), c)
            self.assertTrue(any(s.endswith("(needs strides)") for s in c["skipped_checks"]), c)
        # A case NOT_SUPPORTED for strides had nothing else to check.
        alone = [c for c in self.cases.values() if c["outcome"] == "NOT_SUPPORTED" and c.get("feature") == "strides"]
        self.assertTrue(alone)
        for c in alone:
            self.assertFalse(any(v == "PASS" for v in c.get("checks", {}).values()), c)
        self.assertIn({"feature": "strides", "cases": len(partly)}, self.doc["summary"]["partly_judged"])
        self.assertEqual(self.doc["summary"]["verdict"], "CONFORMS PARTIALLY")  # strides are required

    def test_properties_about_layouts_are_not_supported_and_the_others_judged(self):
        props = {i: c for i, c in self.cases.items() if c["kind"] == "property"}
        for name in ("property.is_contiguous.definition", "property.clone.preserve_format", "property.contiguous.format"):
            self.assertEqual(props[name]["outcome"], "NOT_SUPPORTED", name)
            self.assertEqual(props[name].get("feature"), "strides", name)
        for name in ("property.views.model", "property.arith.random_layouts", "property.arith.out_and_inplace",
                     "property.transpose.involution"):
            self.assertEqual(props[name]["outcome"], "PASS", name)
        for name in ("property.arith.random_layouts", "property.arith.out_and_inplace", "property.transpose.involution"):
            self.assertEqual(props[name]["checks"].get("strides"), "NOT_SUPPORTED", name)

    def test_the_same_answers_with_strides_declared_fail(self):
        # no_strides on every case: the same meta answers, strides declared.
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            _, doc = run(os.path.join(tmp, "declared"), "strided", "faults=no_strides=*")
        failed = [c for c in doc["cases"] if c["outcome"] == "FAIL"]
        self.assertGreater(len(failed), 100)
        on_layout = [c for c in failed if any(c.get("checks", {}).get(k) == "FAIL" for k in LAYOUT_CHECKS)]
        self.assertGreater(len(on_layout), 100)


if __name__ == "__main__":
    unittest.main(verbosity=2)
