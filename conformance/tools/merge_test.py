"""conformance/tools/merge.py joins the reports of one candidate's jobs (issue 38 item 3).

Real reports: the runner (conformance/runner/run.py) runs a stand-in suite binary
(conformance/runner/testdata/fake_suite.py: passing cases, and FAIL ones on demand) once whole
and once as the two shards of a `bazel test` target. The merge of the two shards equals the
whole run: every case's outcome, the summary, the score, the headline, the verdict and the stale
expectations (checked over the union, with the runner's own check). Two halves of the whole
report (its cases split) merge back to it too. Reports that overlap, or differ in version, build
or suite commit, are refused (exit 2) with the field and both values. Runs under
/usr/bin/python3 (python3-jsonschema).
"""

import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.getcwd()
FAKE = os.path.join(ROOT, "conformance", "runner", "testdata", "fake_suite.py")
from reports import report_schema

from . import merge

CASES = 9
# fake.case2 and fake.case4 FAIL; the file lists case2 (XFAIL), and one entry that matches no case
# (stale: only a check over every case can say so).
EXPECTATIONS = "fake.case2  FAIL  a known deviation\nfake.gone  FAIL  a case that no longer exists\n"


def run_fake(tmp: str, out: str, shard=None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    env.update(FAKE_CASES=str(CASES), FAKE_FAIL="2,4")
    if shard is not None:  # as `bazel test` runs a shard of a target
        env.update(TEST_TARGET="//conformance:fake_fake", TEST_TOTAL_SHARDS="2", TEST_SHARD_INDEX=str(shard),
                   TEST_TMPDIR=tmp)
    p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=fake", f"--binary={FAKE}",
                        f"--expectations={os.path.join(tmp, 'expectations.txt')}", f"--out={out}", "--jobs=1",
                        "--seed=1", "--case-timeout=60"], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert p.returncode in (0, 1, 3), (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return report_schema.load(os.path.join(out, "report.json"))


def main_(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = merge.main(argv)
    return status, out.getvalue(), err.getvalue()


def essence(doc: dict) -> dict:
    """What a merge must reproduce: each case's outcome, the summary, score and stale list."""
    return {"outcomes": {c["id"]: c["outcome"] for c in doc["cases"]}, "summary": doc["summary"],
            "conformance": doc["conformance"], "stale": doc["expectations"]["stale"],
            "features": doc["features"], "dtypes": doc.get("dtypes")}


class Merge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        with open(os.path.join(cls.tmp, "expectations.txt"), "w") as f:
            f.write(EXPECTATIONS)
        cls.whole = run_fake(cls.tmp, os.path.join(cls.tmp, "whole"))
        cls.shards = [run_fake(cls.tmp, os.path.join(cls.tmp, f"shard{i}"), shard=i) for i in (0, 1)]
        cls.paths = [os.path.join(cls.tmp, f"shard{i}", "report.json") for i in (0, 1)]

    def test_the_inputs_are_what_they_should_be(self):
        self.assertEqual(len(self.whole["cases"]), CASES)
        self.assertEqual(self.whole["summary"]["verdict"], "DOES NOT CONFORM")
        self.assertEqual([s["pattern"] for s in self.whole["expectations"]["stale"]], ["fake.gone"])
        for doc in self.shards:
            self.assertIsNone(doc["expectations"]["stale"])  # a shard cannot tell
            self.assertRegex(doc["run"]["command"], r"\(shard \d of 2\)$")
        self.assertEqual(sorted(len(d["cases"]) for d in self.shards), [4, 5])

    def test_merged_shards_equal_the_whole_run(self):
        out = os.path.join(self.tmp, "merged")
        status, stdout, stderr = main_(self.paths + ["--out", out])
        self.assertEqual(status, 1, stdout + stderr)  # DOES NOT CONFORM, as the whole run
        self.assertEqual(stderr, "")
        self.assertEqual(sorted(os.listdir(out)), ["badge.json", "report.html", "report.json", "report.md"])
        merged = report_schema.load(os.path.join(out, "report.json"))
        self.assertEqual(essence(merged), essence(self.whole))
        self.assertEqual(merged["summary"]["headline"], self.whole["summary"]["headline"])
        self.assertEqual(merged["tool"], self.whole["tool"])
        self.assertEqual([m["file"] for m in merged["merged"]], self.paths)
        self.assertEqual(merged["run"]["processes"], sum(d["run"]["processes"] for d in self.shards))
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            self.assertIn("merged from", f.read())

    def test_two_halves_of_the_whole_report_merge_back_to_it(self):
        halves = []
        for k in (0, 1):
            half = copy.deepcopy(self.whole)
            half["cases"] = self.whole["cases"][k::2]
            halves.append(half)
        merged, why = merge.merge(["a.json", "b.json"], halves, "test", stale_check=None)
        self.assertEqual(why, "")
        self.assertEqual(essence(merged), essence(self.whole))

    def test_long_reasons_are_renumbered_into_one_list(self):
        """Each job stores its long reasons once (expectations.reasons); the merge keeps each once
        and points every case's reason_ref at it."""
        halves = []
        for k, texts in ((0, ["B" * 600, "A" * 600]), (1, ["A" * 600])):
            half = copy.deepcopy(self.whole)
            half["cases"] = copy.deepcopy(self.whole["cases"][k::2])
            half["expectations"]["reasons"] = texts
            for j, c in enumerate(half["cases"]):
                c["reason_ref"] = j % len(texts)
            halves.append(half)
        merged, _ = merge.merge(["a.json", "b.json"], halves, "test", stale_check=None)
        whole = merged["expectations"]["reasons"]
        self.assertEqual(sorted(whole), ["A" * 600, "B" * 600])
        for k, half in enumerate(halves):
            own = half["expectations"]["reasons"]
            for c in half["cases"]:
                m = next(x for x in merged["cases"] if x["id"] == c["id"])
                self.assertEqual(whole[m["reason_ref"]], own[c["reason_ref"]], c["id"])
        bad = copy.deepcopy(halves[1])
        bad["cases"][0]["reason_ref"] = 1
        with self.assertRaisesRegex(report_schema.ReportError, r"reason_ref: 1 is no index of expectations.reasons"):
            report_schema.validate(bad)

    def test_without_every_shard_there_is_no_stale_check(self):
        half = copy.deepcopy(self.whole)
        half["cases"] = []
        merged, why = merge.merge([self.paths[0], "empty.json"], [self.shards[0], half], "test")
        self.assertIsNone(merged["expectations"]["stale"])
        self.assertIn("shard 2 of 2 of //conformance:fake_fake is not among the inputs", why)
        with self.assertRaisesRegex(merge.MergeError, "--stale-check: cannot check the union.*shard 2 of 2"):
            merge.merge([self.paths[0], "empty.json"], [self.shards[0], half], "test", stale_check=True)
        merged, why = merge.merge(self.paths, self.shards, "test", stale_check=False)
        self.assertIsNone(merged["expectations"]["stale"])

    def test_overlapping_cases_are_refused(self):
        status, stdout, stderr = main_([self.paths[0], os.path.join(self.tmp, "whole", "report.json"),
                                        "--out", os.path.join(self.tmp, "never")])
        self.assertEqual(status, 2, stdout + stderr)
        self.assertRegex(stderr, r"merge: case fake\.case\d is in both .*shard0/report.json and .*whole/report.json "
                                 r"\(and \d more case\(s\) in two reports\)")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "never", "report.json")))

    def test_reports_of_another_version_build_or_commit_are_refused(self):
        for path, value in (("candidate.version", "2"), ("candidate.build", "gcc -O3"), ("tool.commit", "abc123"),
                            ("candidate.name", "other"), ("run.device", "cuda:0")):
            with self.subTest(path):
                other = copy.deepcopy(self.shards[1])
                section, key = path.split(".")
                other[section][key] = value
                d = tempfile.mkdtemp(dir=self.tmp)
                with open(os.path.join(d, "report.json"), "w") as f:
                    json.dump(other, f)
                status, stdout, stderr = main_([self.paths[0], os.path.join(d, "report.json"),
                                                "--out", os.path.join(d, "out")])
                self.assertEqual(status, 2, stdout + stderr)
                self.assertIn(f"the reports differ in {path}: {self.shards[0][section][key]!r} ({self.paths[0]}) "
                              f"and {value!r} ({os.path.join(d, 'report.json')})", stderr)
                self.assertFalse(os.path.exists(os.path.join(d, "out")))

    def test_bad_input_and_usage(self):
        status, _, stderr = main_([self.paths[0], os.path.join(self.tmp, "missing.json"), "--out", self.tmp])
        self.assertEqual(status, 2)
        self.assertIn("merge: bad input: cannot read report", stderr)
        status, _, stderr = main_([self.paths[0], "--out", os.path.join(self.tmp, "one")])
        self.assertEqual(status, 2)
        self.assertIn("give two reports at least", stderr)
        status, _, stderr = main_(self.paths)
        self.assertEqual(status, 2)
        self.assertIn("--out", stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
