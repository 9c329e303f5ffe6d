"""The runner isolates a candidate that crashes or hangs, and still reports every other case.

Runs conformance/runner/run.py on the test-only candidate "faulty" (conformance/adapters/faulty.cc:
the reference with faults injected by its faults option) over the dtypes and promotion suites, with
one case that aborts, one that segfaults, one that exits silently, one that hangs, one table
case and one property that get wrong answers. Checks: 100% of the cases are in the report
exactly once; the faulted ones are CRASH / TIMEOUT / XFAIL / FAIL as the expectations file
(applied by the runner alone) says, and a listed case that passes is XPASS; everything else
passes; the property failure carries its seed and counterexample, and rerunning with that
seed gives the same counterexample; stale entries are reported; report.json matches the
schema and the Markdown/HTML renderings show the outcomes.

Also: a candidate that declares every feature unsupported (faulty's supports=none) does not
CONFORM; the command line (argparse) keeps its flags and errors; under Bazel's test protocol
the runner shards, filters and writes one JUnit <testcase> per case. Runs under
/usr/bin/python3 (python3-jsonschema).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from reports import report_schema
from .options import test_free


def child_env(extra: dict | None = None) -> dict:
    return test_free(os.environ, extra)  # the runner must not take this test's XML, shards or filter

SUITES = ["dtypes", "promotion"]
FAULTS = {
    "promote_types.int8.uint8": "abort",
    "dtype.float32.name.float": "segv",
    "promote_types.bool.bool": "exit",
    "promote_types.int16.float32": "hang",
    "promote_types.int8.int16": "wrong",
    "property.promote_types.commutative": "wrong",
    "promote_types.uint8.int8": "undeclared",  # NOT_SUPPORTED: its entry lists nothing (stale)
    "property.promote_types.idempotent": "undeclared",  # NOT_SUPPORTED for a feature: its entry is kept
}
LISTED_BUT_PASSING = "promote_types.uint8.uint8"
SEED = "7"


def all_case_ids() -> set:
    ids = set()
    with tempfile.TemporaryDirectory() as tmp:
        for s in SUITES:
            path = os.path.join(tmp, s)
            subprocess.run(["conformance/faulty_bin", f"--tcts_suites={s}", f"--tcts_list={path}"], check=True, capture_output=True,
                           env=child_env())
            with open(path, encoding="utf-8") as f:
                ids |= {json.loads(line)["id"] for line in f}
    return ids


class RunnerIsolation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        env = child_env()
        cls.proc = subprocess.run(
            [sys.executable, "-m", "conformance.runner.run", "--suites=" + ",".join(SUITES), "--candidate=faulty",
             "--candidate-option=faults=" + ";".join(f"{mode}={case}" for case, mode in FAULTS.items()),
             "--expectations=conformance/runner/testdata/faulty_expectations.txt", f"--out={cls.out}",
             "--case-timeout=3", "--jobs=2", f"--seed={SEED}"],
            env=env, capture_output=True, text=True, timeout=300)
        print(cls.proc.stdout[-3000:], cls.proc.stderr[-3000:])
        cls.report = report_schema.load(os.path.join(cls.out, "report.json"))
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
            "promote_types.int8.int16": "XFAIL",  # a wrong answer (raw FAIL); listed FAIL
            "property.promote_types.commutative": "FAIL",
            "promote_types.uint8.int8": "NOT_SUPPORTED",
            "property.promote_types.idempotent": "NOT_SUPPORTED",
        })
        self.assertEqual(self.by_id[LISTED_BUT_PASSING][0]["outcome"], "XPASS")
        self.assertIn("now matches the spec", self.by_id[LISTED_BUT_PASSING][0]["message"])
        self.assertIn("answers wrongly by design", self.by_id["promote_types.int8.int16"][0]["reason"])
        # An XFAIL keeps what was observed (the report can regenerate the expectations file).
        xfail = self.by_id["promote_types.int8.int16"][0]
        self.assertIn(xfail["observed"], xfail["message"])
        self.assertTrue(xfail["mismatches"], xfail)
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
        others = [c for c in self.report["cases"] if c["id"] not in FAULTS and c["id"] != LISTED_BUT_PASSING]
        self.assertEqual({c["outcome"] for c in others if c["outcome"] != "PASS"}, set(),
                         [c["id"] for c in others if c["outcome"] != "PASS"][:5])

    def test_property_failure_has_seed_and_reproduces(self):
        c = self.by_id["property.promote_types.commutative"][0]
        self.assertEqual(c["seed"], SEED)
        self.assertIn("Falsifiable", c["counterexample"])
        self.assertIn(f"--seed={SEED}", c["rerun"])
        again = subprocess.run(
            ["conformance/faulty_bin", "--candidate=faulty", f"--seed={SEED}",
             "--candidate_option=faults=wrong=property.promote_types.commutative",
             "--gtest_filter=PromotionProperties.PromoteTypesIsCommutative"],
            env=child_env(),
            capture_output=True, text=True)
        first_lines = c["counterexample"].splitlines()[:4]
        for line in first_lines:
            self.assertIn(line, again.stdout)

    def test_stale_entries_are_reported(self):
        # An entry that matches no case, and one that matches only NOT_SUPPORTED cases (the
        # declaration decides them); not one for a property NOT_SUPPORTED for a feature (whether
        # a draw reaches the unsupported call first depends on the seed).
        stale = self.report["expectations"]["stale"]
        self.assertEqual([(s["pattern"], s.get("not_supported")) for s in stale],
                         [("no.such.case.*", None), ("promote_types.uint8.int8", 1)])
        self.assertIn("stale expectations", self.proc.stdout)
        self.assertIn("promote_types.uint8.int8 FAIL  (matches only a NOT_SUPPORTED case: reported as stale)  "
                      "[matches only 1 NOT_SUPPORTED case(s)]", self.proc.stdout)

    def test_renderings_show_the_outcomes(self):
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        with open(os.path.join(self.out, "report.html"), encoding="utf-8") as f:
            page = f.read()
        for text in (md, page):
            self.assertIn("promote_types(row, column)", text)
            self.assertIn("dtype.float32.name.float", text)
            self.assertIn("no.such.case.*", text)
            self.assertIn("Falsifiable", text)
        self.assertIn("☠", md)  # a CRASH cell in the promote_types matrix
        self.assertIn("| 1 NOT_SUPPORTED |", md)  # the stale entry that matches only a NOT_SUPPORTED case
        self.assertIn("<td>1 NOT_SUPPORTED</td>", page)

    def test_report_schema_rejects_a_broken_report(self):
        broken = json.loads(json.dumps(self.report))
        broken["cases"][0]["outcome"] = "MAYBE"
        del broken["run"]["seed"]
        problems = report_schema.check_schema(broken, report_schema.schema())
        self.assertTrue(any("MAYBE" in p for p in problems), problems)
        self.assertIn("report.run: 'seed' is a required property", problems)

    def test_the_features_table_names_every_feature(self):
        names = [f["name"] for f in self.report["features"]]
        self.assertIn("promote_types", names)
        self.assertTrue(all(f["declared"] is not None for f in self.report["features"]))
        promote = next(f for f in self.report["features"] if f["name"] == "promote_types")
        self.assertEqual(promote["level"], "required")
        self.assertGreater(promote["cases"], 100)


def run(args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "conformance.runner.run", *args], env=env or child_env(),
                          capture_output=True, text=True, timeout=timeout)


class NothingSupported(unittest.TestCase):
    """A candidate that declares every feature unsupported, and answers so, used to CONFORM
    with 0 PASS. Now the required features it lacks make it CONFORM PARTIALLY at best."""

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.proc = run(["--suites=" + ",".join(SUITES), "--candidate=faulty",
                        "--expectations=conformance/expectations/reference.txt", f"--out={cls.out}", "--jobs=2",
                        f"--seed={SEED}", "--candidate-option=supports=none"])
        print(cls.proc.stdout[-2000:], cls.proc.stderr[-2000:])
        cls.report = report_schema.load(os.path.join(cls.out, "report.json"))

    def test_no_conforms(self):
        s = self.report["summary"]
        self.assertNotEqual(s["verdict"], "CONFORMS")
        self.assertFalse(s["conforms"])
        self.assertNotEqual(self.proc.returncode, 0)
        self.assertNotIn("result: faulty CONFORMS:", self.proc.stdout)

    def test_it_conforms_partially_and_says_what_it_cost(self):
        s = self.report["summary"]
        self.assertEqual(s["verdict"], "CONFORMS PARTIALLY", s)
        self.assertEqual(self.proc.returncode, 3)
        cost = {r["feature"]: r["cases"] for r in s["required_not_supported"]}
        self.assertGreater(cost.get("promote_types", 0), 100)
        self.assertGreater(cost.get("dtype_from_name", 0), 10)
        table = {f["name"]: f for f in self.report["features"]}
        self.assertTrue(all(f["declared"] is False for f in table.values()))
        self.assertEqual(table["promote_types"]["not_supported"], cost["promote_types"])
        self.assertTrue(all(f["cases"] == 0 for f in table.values()))
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("**CONFORMS PARTIALLY**", md)
        self.assertIn("required feature promote_types answered NotSupported", md)

    def test_partial_ok_exits_0(self):
        out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        p = run(["--suites=dtypes", "--candidate=faulty", "--expectations=conformance/expectations/reference.txt",
                 f"--out={out}", "--jobs=1", "--partial-ok", "--candidate-option=supports=none"])
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr)
        self.assertIn("CONFORMS PARTIALLY", p.stdout)


class MissingDType(unittest.TestCase):
    """A candidate that declares every dtype but bfloat16 (faulty's missing_dtypes): the cases
    whose rows need bfloat16 are NOT_SUPPORTED naming it, not run; the missing required dtype
    costs the verdict once, with the cases it cost."""

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.proc = run(["--suites=" + ",".join(SUITES), "--candidate=faulty",
                        "--expectations=conformance/expectations/reference.txt", f"--out={cls.out}", "--jobs=2",
                        f"--seed={SEED}", "--no-stale-check", "--candidate-option=missing_dtypes=bfloat16"])
        print(cls.proc.stdout[-2000:], cls.proc.stderr[-2000:])
        cls.report = report_schema.load(os.path.join(cls.out, "report.json"))

    def test_it_conforms_partially_naming_the_dtype_and_its_cost(self):
        s = self.report["summary"]
        self.assertEqual(s["verdict"], "CONFORMS PARTIALLY", s)
        self.assertEqual(self.proc.returncode, 3)
        skipped = [c for c in self.report["cases"] if c.get("dtype")]
        self.assertEqual({c["dtype"] for c in skipped}, {"bfloat16"})
        self.assertTrue(all(c["outcome"] == "NOT_SUPPORTED" for c in skipped))
        self.assertGreater(len(skipped), 100)
        self.assertEqual(s["missing_dtypes"], [{"dtype": "bfloat16", "cases": len(skipped)}])
        self.assertIn(f"required dtype bfloat16 not declared: {len(skipped)} cases not exercised", self.proc.stdout)
        table = {d["name"]: d for d in self.report["dtypes"]}
        self.assertEqual(table["bfloat16"], {"name": "bfloat16", "required": True, "declared": False,
                                             "not_supported": len(skipped)})
        self.assertFalse(table["complex32"]["required"])
        # Every table case that names bfloat16 was skipped; the others ran as for the reference.
        named = [c for c in self.report["cases"] if "bfloat16" in c["id"] and c["kind"] == "case"]
        self.assertTrue(named and all(c.get("dtype") == "bfloat16" for c in named))
        others = [c for c in self.report["cases"] if not c.get("dtype")]
        self.assertEqual({c["outcome"] for c in others}, {"PASS"})


class CommandLine(unittest.TestCase):
    def test_help_lists_every_flag(self):
        p = run(["--help"])
        self.assertEqual(p.returncode, 0)
        for flag in ("--candidate", "--out", "--filter", "--jobs", "--case-timeout", "--seed", "--expectations",
                     "--device", "--partial-ok", "--stale-check", "--suites", "--device-suites", "--replay",
                     "--binary", "--target", "Exit status", "TEST_TOTAL_SHARDS"):
            self.assertIn(flag, p.stdout)

    def test_bad_usage_exits_2(self):
        for args, message in ((["--suites=dtypes", "--jobs=0"], "--jobs must be at least 1"),
                              (["--suites=dtypes", "--jobs=many"], "'many' is not a number"),
                              (["--suites=dtypes", "--seed=-3"], "the seed is a non-negative integer"),
                              (["--suites=dtypes", "--case-timeout=0"], "--case-timeout must be at least 0.1"),
                              (["--suites=dtypes", "--bogus"], "unrecognized arguments: --bogus"),
                              (["--suites=dtypes", "--cand=reference"], "unrecognized arguments: --cand"),
                              ([], "no --suites given"),
                              (["a.json", "b.json"], "unrecognized arguments: b.json"),
                              (["a.json", "--device=cuda"], "--device runs the spec's suites"),
                              (["--suites=dtypes,promotion", "--target=x"], "exactly one --suites"),
                              (["--suites=dtypes", "--filter=x", "--stale-check"], "--stale-check needs every case"),
                              (["--suites=dtypes", "--candidate=nobody"], "unknown candidate 'nobody'")):
            p = run(args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(message, p.stderr, args)

    def test_bad_expectations_exit_2_naming_line_and_column(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            bad = os.path.join(d, "bad.txt")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("# ok\ndtype.*\u00a0FAIL reason\n")
            p = run(["--suites=dtypes", "--candidate=faulty", f"--expectations={bad}", f"--out={d}"])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("bad.txt:2:8: U+00A0 no-break space", p.stderr)

    def test_a_candidate_binary_built_on_demand_is_the_one_run(self):
        """--candidate=C for an in-process C whose binary this run's data lacks: the runner builds it
        (`bazel build`, here a stand-in TCTS_BAZEL) and runs the binary bazel-bin names, with the
        candidate's options (the stand-in binary is faulty_bin, told a fault to inject)."""
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            faulty = os.path.abspath("conformance/faulty_bin")
            os.makedirs(os.path.join(d, "bin", "conformance"))
            built = os.path.join(d, "bin", "conformance", "ondemand_bin")
            with open(built, "w", encoding="utf-8") as f:
                f.write(f'#!/bin/sh\nexec {faulty} "$@" --candidate=faulty\n')  # the last --candidate wins
            bazel = os.path.join(d, "bazel")
            with open(bazel, "w", encoding="utf-8") as f:
                f.write(f'#!/bin/sh\necho "$@" >> {d}/calls\n[ "$1" = info ] && echo {d}/bin\nexit 0\n')
            for path in (built, bazel):
                os.chmod(path, 0o755)
            p = run(["--suites=promotion", "--candidate=ondemand", "--in-process=ondemand", f"--out={d}/out",
                     "--expectations=conformance/expectations/reference.txt", "--filter=promote_types.int8.*",
                     "--candidate-option=faults=wrong=promote_types.int8.int16", "--no-stale-check", "--jobs=1"],
                    env=child_env({"TCTS_BAZEL": bazel, "BUILD_WORKSPACE_DIRECTORY": d}))
            with open(os.path.join(d, "calls"), encoding="utf-8") as f:
                self.assertEqual(f.read().splitlines(), ["build //conformance:ondemand_bin", "info bazel-bin"])
            self.assertEqual(p.returncode, 1, p.stdout[-2000:] + p.stderr[-2000:])  # the injected fault fails
            doc = report_schema.load(os.path.join(d, "out", "report.json"))
            outcomes = {c["id"]: c["outcome"] for c in doc["cases"]}
            self.assertEqual(outcomes.pop("promote_types.int8.int16"), "FAIL")
            self.assertEqual(set(outcomes.values()), {"PASS"})

    def test_the_binary_no_longer_takes_expectations(self):
        p = subprocess.run(["conformance/faulty_bin", "--expectations=conformance/expectations/reference.txt"],
                           capture_output=True, text=True, env=child_env())
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown argument '--expectations=", p.stderr)


class WritesExpectations(unittest.TestCase):
    """--write-expectations lists a faulty run's deviations so that a rerun with the file
    conforms; with a fault removed the rerun sees the XPASS; --update-expectations drops it."""

    WRITE_FAULTS = {
        "promote_types.int8.int16": "wrong",
        "promote_types.int8.int32": "wrong",
        "promote_types.int8.uint8": "abort",
        "property.promote_types.commutative": "wrong",
    }

    def faulty(self, d, faults, *extra):
        return run(["--suites=" + ",".join(SUITES), "--candidate=faulty", f"--out={d}/out", "--jobs=2",
                    f"--seed={SEED}", "--candidate-option=faults=" + ";".join(f"{m}={c}" for c, m in faults.items()),
                    *extra])

    def entries(self, path):
        from . import expectations
        return expectations.load(path)

    def test_write_rerun_xpass_update(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            path = os.path.join(d, "faulty.txt")
            p = self.faulty(d, self.WRITE_FAULTS, "--expectations=conformance/expectations/reference.txt",
                            f"--write-expectations={path}")
            self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr)  # the run itself did not conform
            # The two wrong promote_types answers share a spec row and clause: one reason for both.
            self.assertIn("4 patterns, 3 reasons, 3 of them unreviewed", p.stdout)
            written = self.entries(path)
            patterns = sorted(e.pattern for e in written)
            # Exactly the deviating cases: nothing that passed is matched.
            ids = all_case_ids()
            matched = {i for i in ids if any(e.matches(i) for e in written)}
            self.assertEqual(matched, set(self.WRITE_FAULTS), patterns)
            self.assertTrue(all(e.reason.startswith("UNREVIEWED:") for e in written))
            crash = next(e for e in written if e.matches("promote_types.int8.uint8"))
            self.assertEqual(crash.outcome, "CRASH")
            wrong = next(e for e in written if e.matches("promote_types.int8.int16"))
            self.assertIn("observed", wrong.reason)
            self.assertIn("spec:", wrong.reason)

            again = self.faulty(d, self.WRITE_FAULTS, f"--expectations={path}")
            self.assertEqual(again.returncode, 0, again.stdout[-3000:] + again.stderr)
            doc = report_schema.load(os.path.join(d, "out", "report.json"))
            self.assertEqual(doc["summary"]["outcomes"]["XFAIL"], 4)
            self.assertEqual(doc["expectations"]["unreviewed"], 3)
            self.assertIn("3 reason(s) in", again.stdout)

            fewer = dict(self.WRITE_FAULTS)
            del fewer["promote_types.int8.int16"]
            xpass = self.faulty(d, fewer, f"--expectations={path}")
            self.assertEqual(xpass.returncode, 1)
            doc = report_schema.load(os.path.join(d, "out", "report.json"))
            self.assertEqual([c["id"] for c in doc["cases"] if c["outcome"] == "XPASS"], ["promote_types.int8.int16"])
            self.assertIn("-m conformance.tools.write_expectations --from-report=", xpass.stdout)  # the command that lists it

            update = self.faulty(d, fewer, f"--expectations={path}", f"--update-expectations={path}")
            self.assertIn("expectations:", update.stdout, update.stdout[-3000:] + update.stderr)
            now = self.entries(path)
            self.assertFalse(any(e.matches("promote_types.int8.int16") for e in now), [e.pattern for e in now])
            self.assertEqual({i for i in ids if any(e.matches(i) for e in now)}, set(fewer))
            final = self.faulty(d, fewer, f"--expectations={path}")
            self.assertEqual(final.returncode, 0, final.stdout[-3000:] + final.stderr)


    def test_a_long_reason_is_stored_once(self):
        """A reason of 4,000 characters matched by every case (issue 52: a `*` entry copied it into
        every case, 45 MB of report.json) is stored whole once (expectations.reasons); each case
        shows its head, its size and a reason_ref, and report.md shows it whole once per group."""
        reason = "the library's rule, at length: " + "x" * 3969
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            path = os.path.join(d, "long.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"promote_types.int8.int16  FAIL  {reason}\n*  FAIL  {reason}\n")
            p = self.faulty(d, {"promote_types.int8.int16": "wrong"}, f"--expectations={path}", "--no-stale-check")
            self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr)  # every other case: XPASS
            doc = report_schema.load(os.path.join(d, "out", "report.json"))
            self.assertEqual(doc["expectations"]["reasons"], [reason])
            cases = doc["cases"]
            self.assertGreater(len(cases), 100)
            self.assertEqual({c.get("reason_ref") for c in cases if c["outcome"] != "NOT_SUPPORTED"}, {0})
            for c in cases:
                if c["outcome"] in ("XFAIL", "XPASS"):
                    self.assertLessEqual(len(c["reason"]), 600, c["id"])
                    self.assertIn("4000 characters in all", c["reason"])
                    self.assertNotIn(reason, c["message"])
            self.assertEqual(next(c["outcome"] for c in cases if c["id"] == "promote_types.int8.int16"), "XFAIL")
            # Before: every case carried the 4,000 characters twice (its reason, and its XPASS note).
            self.assertLess(os.path.getsize(os.path.join(d, "out", "report.json")), 3000 * len(cases))
            with open(os.path.join(d, "out", "report.md"), encoding="utf-8") as f:
                self.assertEqual(f.read().count(reason), 1)


class TraceAndRepro(unittest.TestCase):
    """--trace records a testee's exchange per case; repro.py replays a failing case's trace
    against the testee, without Bazel or a suite binary, and shows the failing answer again."""

    CASE = "dtype.float32.name.float"  # NumPy: np.dtype('float') is float64 (spec: float32)

    def test_trace_and_repro(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            out = os.path.join(d, "out")
            p = run(["--suites=dtypes", "--candidate=numpy", "--binary=conformance/testee_bin",
                     "--testee=/usr/bin/python3 conformance/testees/numpy/numpy_testee.py",
                     "--expectations=conformance/expectations/reference.txt", f"--filter={self.CASE}", "--trace",
                     f"--out={out}", "--jobs=1"])
            self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr)  # an unexpected FAIL
            doc = report_schema.load(os.path.join(out, "report.json"))
            [case] = doc["cases"]
            self.assertEqual((case["outcome"], case["observed"]), ("FAIL", "float64"))
            trace = os.path.join(out, case["trace"])
            self.assertIn("-m conformance.tools.repro", case["repro"])
            self.assertIn("repro:", p.stdout)
            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                self.assertIn(case["trace"], f.read())
            # The trace alone runs nothing: it shows the recorded command and how to accept it.
            refused = subprocess.run([sys.executable, "-m", "conformance.tools.repro", trace], capture_output=True,
                                     text=True, timeout=120, env=child_env())
            self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
            self.assertIn("recorded testee:    /usr/bin/python3 conformance/testees/numpy/numpy_testee.py",
                          refused.stdout)
            self.assertIn("--run-recorded", refused.stderr)
            self.assertNotIn("> ", refused.stdout)
            repro = [sys.executable, "-m", "conformance.tools.repro", trace, "--run-recorded"]
            again = subprocess.run(repro, capture_output=True, text=True, timeout=120, env=child_env())
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertIn('"name": "float", "op": "dtype_from_name"', again.stdout)
            self.assertIn('< now:      {"id":', again.stdout)
            self.assertIn('"ok":"float64"}', again.stdout.split("< now:")[-1])  # the failing answer, again
            self.assertIn("every answer as recorded", again.stdout)
            # A recorded answer that the testee no longer gives is shown as the first difference.
            with open(trace, encoding="utf-8") as f:
                text = f.read()
            with open(trace, "w", encoding="utf-8") as f:
                f.write(text.replace('\\"ok\\":\\"float64\\"', '\\"ok\\":\\"float32\\"'))
            changed = subprocess.run(repro, capture_output=True, text=True, timeout=120, env=child_env())
            self.assertEqual(changed.returncode, 1, changed.stdout + changed.stderr)
            self.assertIn('first difference (dtype_from_name): answer.ok: "float32" recorded, "float64" now',
                          changed.stdout)

    def test_a_request_answered_from_a_fact_is_traced_and_replayed(self):
        # Protocol version 3 (the NumPy testee sends facts with --facts): the strides this case reads come
        # from the fact that came with empty's answer, not from a round trip. The trace records
        # that meta request, marked served, with the fact as its answer; repro.py asks it, and a
        # fact the testee no longer gives is the first difference. --seed=2: the suite's draw of
        # the facts it checks (one in 8, process_candidate.cc) passes this one over (seed 1 asks it).
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            out = os.path.join(d, "out")
            p = run(["--suites=strided", "--candidate=numpy", "--binary=conformance/testee_bin", "--seed=2",
                     "--testee=/usr/bin/python3 conformance/testees/numpy/numpy_testee.py --facts=meta,storage",
                     "--expectations=conformance/expectations/reference.txt",
                     "--filter=empty.contiguous_format.2x0x0", "--trace", f"--out={out}", "--jobs=1"])
            self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr)  # NumPy's strides [0, 0, 0]
            [case] = report_schema.load(os.path.join(out, "report.json"))["cases"]
            trace = os.path.join(out, case["trace"])
            with open(trace, encoding="utf-8") as f:
                records = [json.loads(line) for line in f]
            served = [r for r in records if r.get("served") == "fact"]
            self.assertEqual({json.loads(r["send"])["op"] for r in served if "send" in r}, {"meta"}, records)
            repro = [sys.executable, "-m", "conformance.tools.repro", trace, "--run-recorded"]
            again = subprocess.run(repro, capture_output=True, text=True, timeout=120, env=child_env())
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertIn('"op": "meta"', again.stdout)
            with open(trace, encoding="utf-8") as f:
                text = f.read()
            self.assertIn('\\"strides\\":[0,0,0]', text)
            with open(trace, "w", encoding="utf-8") as f:
                f.write(text.replace('\\"strides\\":[0,0,0]', '\\"strides\\":[9,0,0]'))
            changed = subprocess.run(repro, capture_output=True, text=True, timeout=120, env=child_env())
            self.assertEqual(changed.returncode, 1, changed.stdout + changed.stderr)
            self.assertIn("first difference (meta): answer.ok.strides[0]: 9 recorded, 0 now", changed.stdout)

    def test_trace_needs_a_testee(self):
        p = run(["--suites=dtypes", "--trace"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--trace records a testee's exchange", p.stderr)


class BazelTestProtocol(unittest.TestCase):
    """What `bazel test //conformance:<suite>_<candidate>` gives run.py: shards, a test filter, an
    XML file, an outputs directory."""

    def bazel_env(self, d, **extra):
        env = child_env({"TEST_TARGET": "//conformance:dtypes_faulty", "XML_OUTPUT_FILE": os.path.join(d, "test.xml"),
                         "TEST_UNDECLARED_OUTPUTS_DIR": os.path.join(d, "outputs")})
        env.update(extra)
        os.makedirs(env["TEST_UNDECLARED_OUTPUTS_DIR"], exist_ok=True)
        return env

    def read_testcases(self, d):
        return {tc.get("name"): tc for tc in ET.parse(os.path.join(d, "test.xml")).getroot().iter("testcase")}

    def test_shards_cover_every_case_once_and_write_junit(self):
        ids = set()
        for index in range(3):
            with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
                status = os.path.join(d, "shard_status")
                p = run(["--suites=dtypes", "--candidate=faulty", "--expectations=conformance/expectations/reference.txt",
                         "--partial-ok", "--no-stale-check"],
                        env=self.bazel_env(d, TEST_TOTAL_SHARDS="3", TEST_SHARD_INDEX=str(index),
                                           TEST_SHARD_STATUS_FILE=status))
                self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr)
                self.assertTrue(os.path.exists(status))
                cases = self.read_testcases(d)
                self.assertFalse(ids & set(cases))
                ids |= set(cases)
                self.assertTrue(os.path.exists(os.path.join(d, "outputs", "report.json")))
                doc = report_schema.load(os.path.join(d, "outputs", "report.json"))
                self.assertIsNone(doc["expectations"]["stale"])
                self.assertIn("bazel test //conformance:dtypes_faulty", doc["run"]["command"])
        self.assertEqual(ids, {i for i in all_case_ids() if i.startswith("dtype")})

    def test_test_filter_selects_by_gtest_name_and_failures_fail(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            env = self.bazel_env(d, TESTBRIDGE_TEST_ONLY="*float32*:*int8*-*name*")
            p = run(["--suites=dtypes", "--candidate=faulty", "--expectations=conformance/expectations/reference.txt",
                     "--partial-ok", "--no-stale-check", "--candidate-option=faults=segv=dtype.float32.attributes"],
                    env=env)
            self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr)
            cases = self.read_testcases(d)
            self.assertTrue(cases)
            self.assertTrue(all(("float32" in n or "int8" in n) and "name" not in n for n in cases), cases)
            crashed = cases["dtype.float32.attributes"].find("failure")
            self.assertIsNotNone(crashed)
            self.assertEqual(crashed.get("type"), "CRASH")
            self.assertIn("--test_filter=", crashed.text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
