"""Tests of reports/summarize.py on small result files in GoogleTest's XML format."""

import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402

XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" failures="2">
  <testsuite name="Spec/PromoteTypes" tests="5">
    <testcase name="Case/a" classname="Spec/PromoteTypes" status="run" result="completed">
      <properties><property name="row" value="promote_types.a"/><property name="clause" value="002#type-promotion"/>
      <property name="outcome" value="PASS"/></properties></testcase>
    <testcase name="Case/b" classname="Spec/PromoteTypes" status="run" result="completed">
      <properties><property name="row" value="promote_types.b"/><property name="clause" value="002#type-promotion"/>
      <property name="outcome" value="XFAIL"/><property name="reason" value="known bug"/></properties></testcase>
    <testcase name="Case/c" classname="Spec/PromoteTypes" status="run" result="completed">
      <failure message="[tcts] FAIL case promote_types.c&#x0A;  expected: int16&#x0A;  observed: int8&#x0A;  rerun:    bazel test //x --test_filter=y"/>
      <properties><property name="row" value="promote_types.c"/><property name="clause" value="002#type-promotion"/>
      <property name="outcome" value="FAIL"/></properties></testcase>
    <testcase name="Case/d" classname="Spec/DTypeNames" status="run" result="skipped">
      <skipped message="NOT_SUPPORTED"/>
      <properties><property name="row" value="dtype.x.name.y"/><property name="clause" value="002#torch.dtype"/>
      <property name="outcome" value="NOT_SUPPORTED"/></properties></testcase>
    <testcase name="Commutative" classname="PromotionProperties" status="run" result="completed">
      <failure message="Falsifiable after 3 tests"/></testcase>
  </testsuite>
</testsuites>
"""


class Summarize(unittest.TestCase):
    def run_on(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.xml")
            with open(path, "w") as f:
                f.write(text)
            out = io.StringIO()
            return summarize.summarize([path], "fake", out), out.getvalue()

    def test_counts_outcomes_per_clause_and_fails_on_unexpected(self):
        rc, text = self.run_on(XML)
        self.assertEqual(rc, 1)
        self.assertRegex(text, r"002#type-promotion\s+3\s+1\s+1\s+1\s+0\s+0")
        self.assertRegex(text, r"002#torch.dtype\s+1\s+0\s+0\s+0\s+0\s+1")
        self.assertRegex(text, r"properties\s+1\s+0\s+0\s+1")
        self.assertIn("1  known bug", text)
        self.assertIn("FAIL  promote_types.c", text)
        self.assertIn("expected: int16", text)
        self.assertIn("rerun:    bazel test //x --test_filter=y", text)
        self.assertIn("DOES NOT CONFORM", text)

    def test_all_pass_conforms(self):
        ok = XML.split("<testcase")[0] + "<testcase" + XML.split("<testcase")[1] + "</testsuite></testsuites>"
        rc, text = self.run_on(ok)
        self.assertEqual(rc, 0, text)
        self.assertIn("fake CONFORMS: 1 pass", text)

    def test_no_cases_is_not_conformance(self):
        rc, _ = self.run_on('<?xml version="1.0"?><testsuites></testsuites>')
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
