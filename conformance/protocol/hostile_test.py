"""A testee is untrusted input: each attack of conformance/protocol/testdata/hostile_testee.py
(the shipped NumPy testee with one attack, TCTS_HOSTILE=MODE) costs at most the cases it hit,
crashes no suite process, and leaves a whole report.

Runs conformance/runner/run.py with --testee against //conformance:testee_bin (under
`bazel test --config=asan` that binary is built with ASan and UBSan: a read of freed or
foreign memory in the suite's end of the pipe ends the suite process, which the run reports
as a CRASH, and this test fails). For each mode: the suite the attack reaches is run clean
and attacked; the attacked report holds every case exactly once, and its outcomes differ from
the clean run's only where the mode says (the case hit, or the cases whose checks rely on
what the testee lied about), never with a CRASH the mode did not cause. Runs under
/usr/bin/python3 (python3-numpy, python3-jsonschema).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import unittest_shards  # beside this file

ROOT = os.getcwd()  # the runfiles root
FIXTURE = os.path.join(ROOT, "conformance", "protocol", "testdata", "hostile_testee.py")
NUMPY_TESTEE_DIR = os.path.join(ROOT, "conformance", "testees", "numpy")
EXPECTATIONS = os.path.join(ROOT, "conformance", "expectations", "numpy.txt")
GOOD = ("PASS", "XFAIL", "NOT_SUPPORTED")


def run(tmp, mode, suite, *args, env_extra=None):
    """run.py from `tmp` as the user's working directory; (process, report or None, out, seconds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    out = tempfile.mkdtemp(dir=tmp, prefix=f"out-{mode or 'clean'}-{suite}-")
    env.update(BUILD_WORKING_DIRECTORY=tmp, TCTS_HOSTILE=mode, TCTS_NUMPY_TESTEE_DIR=NUMPY_TESTEE_DIR,
               TCTS_HOSTILE_ONCE=os.path.join(out, "fired"), TCTS_HOSTILE_PIDFILE=os.path.join(out, "child.pid"),
               **(env_extra or {}))
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "conformance.runner.run", f"--suites={suite}",
                        "--testee=/usr/bin/python3 hostile_testee.py", "--candidate=numpy",
                        "--expectations=expectations.txt", f"--out={out}", "--jobs=1", "--no-stale-check",
                        "--case-timeout=60", *args],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    seconds = time.monotonic() - start
    report = None
    path = os.path.join(out, "report.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    return p, report, out, seconds


class Hostile(unittest.TestCase):
    clean: dict = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        shutil.copy(FIXTURE, os.path.join(cls.tmp, "hostile_testee.py"))
        shutil.copy(EXPECTATIONS, os.path.join(cls.tmp, "expectations.txt"))
        # numpy.txt includes what both NumPy modes share (shared/numpy.txt, beside it).
        shutil.copytree(os.path.join(os.path.dirname(EXPECTATIONS), "shared"), os.path.join(cls.tmp, "shared"))

    def baseline(self, suite):
        if suite not in self.clean:
            p, report, _, _ = run(self.tmp, "", suite)
            self.assertIsNotNone(report, p.stdout[-2000:] + p.stderr[-2000:])
            self.assertEqual([c["id"] for c in report["cases"] if c["outcome"] == "CRASH"], [], "clean run")
            self.clean[suite] = {c["id"]: c["outcome"] for c in report["cases"]}
        return self.clean[suite]

    def attacked(self, mode, suite, *args, leaks_allowed=False, env_extra=None):
        """The attacked run's changed cases {id: case}, after the checks every attack shares."""
        clean = self.baseline(suite)
        p, report, out, seconds = run(self.tmp, mode, suite, *args, env_extra=env_extra)
        where = f"{mode}: exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        self.assertIsNotNone(report, where)
        self.assertIn(p.returncode, (0, 1, 3), where)
        self.assertEqual(sorted(c["id"] for c in report["cases"]), sorted(clean), "every case exactly once")
        # Nothing the sanitizers or the suite process reported: a suite process that died
        # says so in its log.
        for name in os.listdir(os.path.join(out, "logs")):
            with open(os.path.join(out, "logs", name), "rb") as f:
                log = f.read()
            for bad in (b"ERROR: AddressSanitizer", b"runtime error:", b"double free") + (
                    () if leaks_allowed else (b"ERROR: LeakSanitizer",)):
                self.assertNotIn(bad, log, f"{mode}: {name}")
        changed = {c["id"]: c for c in report["cases"] if c["outcome"] != clean[c["id"]]}
        return changed, report, out, seconds, p

    def test_lent_memory_lives_as_long_as_the_suite_needs_it(self):
        for suite in ("asarray", "dlpack"):
            # A testee whose library never calls a DLPack deleter leaks the exporter's tensor
            # (the reference peer's, in the round trips), as that library would in process:
            # the suite never calls a deleter the testee owns.
            changed, *_ = self.attacked("keep_regions", suite, leaks_allowed=True)
            # A testee that never lets go costs the checks of the deleter's timing, nothing else.
            self.assertFalse([i for i, c in changed.items() if c["outcome"] == "CRASH"], changed)

    def test_a_deleter_is_never_forwarded_after_a_failed_import(self):
        for suite in ("asarray", "dlpack"):
            changed, *_ = self.attacked("deleted_on_error", suite)
            self.assertFalse([i for i, c in changed.items() if c["outcome"] == "CRASH"], changed)
            if suite == "dlpack":
                self.assertTrue(changed, "refused imports change outcomes")

    def test_an_export_past_its_bytes_is_refused_before_it_is_read(self):
        changed, *_ = self.attacked("export_past", "dlpack")
        self.assertTrue(changed)
        for i, c in changed.items():
            self.assertEqual(c["outcome"], "FAIL", (i, c["observed"]))
        self.assertTrue(any("inside the region" in json.dumps(c) for c in changed.values()), changed)

    def test_an_integer_past_its_field_is_a_protocol_error(self):
        changed, *_ = self.attacked("itemsize_wrap", "dtypes")
        self.assertTrue(changed)
        for c in changed.values():
            self.assertEqual(c["outcome"], "FAIL")
            self.assertIn("field 'itemsize'", json.dumps(c))

    def test_a_deep_answer_fails_its_case(self):
        changed, *_ = self.attacked("deep", "dtypes")
        self.assertEqual([c["outcome"] for c in changed.values()], ["FAIL"], changed)
        self.assertIn("deeper than 100", json.dumps(changed))

    def test_a_list_past_its_bound_fails_its_case_unkept(self):
        # 2^24 + 1 values (33 MB): refused when counted, before any is decoded or kept.
        changed, report, *_ = self.attacked("big_values", "arithmetic",
                                            env_extra={"TCTS_HOSTILE_COUNT": str((1 << 24) + 1)})
        hit = [c for c in report["cases"] if "a list of at most 16777216 values, got 16777217 values" in json.dumps(c)]
        self.assertEqual(len(hit), 1, "the one case whose answer it was")
        self.assertIn(hit[0]["outcome"], ("FAIL", "XFAIL"), hit[0])
        self.assertLessEqual(set(changed), {hit[0]["id"]}, changed)

    def test_a_stderr_flood_is_capped(self):
        changed, report, out, _, _ = self.attacked("stderr_flood", "dtypes")
        self.assertEqual([c["outcome"] for c in changed.values()], ["CRASH"], changed)
        logs = os.path.join(out, "logs")
        total = sum(os.path.getsize(os.path.join(logs, n)) for n in os.listdir(logs))
        self.assertLess(total, 4 << 20, "20 MiB of stderr: the logs hold the first MiB and the tail")
        self.assertLess(len(json.dumps(report)), 2 << 20)
        self.assertLess(max(len(c["message"]) for c in report["cases"]), 16 << 10)

    def test_a_closed_stdout_or_a_child_holding_it_is_a_crash_at_once(self):
        for mode in ("close_stdout", "child_holds"):
            # The case hit is a CRASH (the end of the testee's stdout, seen at once), not a
            # TIMEOUT after the case timeout.
            changed, _, out, _, _ = self.attacked(mode, "dtypes")
            self.assertEqual([c["outcome"] for c in changed.values()], ["CRASH"], (mode, changed))
            (case,) = changed.values()
            self.assertIn("died while answering", case["message"], (mode, case))
            if mode == "child_holds":
                with open(os.path.join(out, "child.pid")) as f:
                    pid = int(f.read())
                time.sleep(0.5)
                alive = os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split()[2]
                self.assertFalse(alive, "the testee's child outlived the run")

    def test_a_garbage_line_in_the_result_stream_costs_its_case(self):
        changed, *_ = self.attacked("stream_garbage", "dtypes")
        self.assertEqual([c["outcome"] for c in changed.values()], ["CRASH"], changed)
        self.assertIn("not an event", json.dumps(changed))

    def test_a_200_mb_error_message_costs_its_case_a_bounded_record(self):
        # Issue 42: testee_session.cc keeps 64 KiB of an error's message (kMaxErrorMessage), the
        # runner 2,048 characters with the length and a digest (records.py).
        changed, report, *_ = self.attacked("long_error", "dtypes")
        self.assertLessEqual(len(changed), 1, changed)
        self.assertLess(len(json.dumps(report)), 8 << 20)
        self.assertLess(max(len(json.dumps(c)) for c in report["cases"]), 512 << 10)
        self.assertTrue(any("characters in all, sha256" in json.dumps(c) for c in report["cases"]))
        # The true size, counted by the suite binary as the message streamed by, carried through.
        self.assertTrue(any(f"the testee's message: {200 << 20} bytes in all, fnv1a64 " in json.dumps(c)
                            for c in report["cases"]), changed)

    def test_a_bad_fact_costs_one_case(self):
        # Version 3 (the hostile testee sends every fact): a fact that is not its op's answer FAILs
        # the call that carried it, as a malformed answer does; so does one on an answer that
        # is not a new tensor; a stray line after an answer with facts puts the testee out of
        # step; a crash there is one CRASH. Each costs one case, and a fresh testee takes the next.
        for mode, outcome, text in (("fact_malformed", "FAIL", "facts.meta: field 'sizes'"),
                                    ("fact_stray", "FAIL", "field 'id': expected"),
                                    ("fact_crash", "CRASH", "died while answering")):
            changed, *_ = self.attacked(mode, "asarray")
            self.assertEqual([c["outcome"] for c in changed.values()], [outcome], (mode, changed))
            self.assertIn(text, json.dumps(changed), mode)
        changed, *_ = self.attacked("fact_unasked", "dtypes")
        self.assertEqual([c["outcome"] for c in changed.values()], ["FAIL"], changed)
        self.assertIn("field 'facts'", json.dumps(changed))

    def test_an_attack_at_the_first_tensor_costs_one_case(self):
        # Issue 52: the suite made a tensor and asked its meta before the stream's begin event
        # (the device probe), so an attack on the first make_tensor cost every case of the
        # process. The testee's hello now says where its tensors are: that call is a case's.
        for mode in ("deep", "close_stdout"):
            changed, *_ = self.attacked(mode, "asarray", env_extra={"TCTS_HOSTILE_OP": "make_tensor"})
            self.assertEqual(len(changed), 1, (mode, changed))

    def test_a_death_in_the_handshake_is_tried_once_more(self):
        changed, *_ = self.attacked("hello_dies_once", "dtypes")
        self.assertEqual(changed, {}, "a fresh process shook hands")
        p, report, _, _ = run(self.tmp, "hello_dies", "dtypes")
        self.assertEqual(p.returncode, 2, p.stdout[-2000:] + p.stderr[-2000:])
        self.assertIn("the testee's handshake", p.stdout + p.stderr)
        self.assertIn("a second process died there too", p.stdout + p.stderr)
        self.assertIsNone(report)

    def test_a_flaky_testee_costs_only_the_cases_it_died_in(self):
        # A testee that dies on 1 % of its requests, two seeds: each run's outcomes differ from
        # the clean run's only in the cases it died in (a death in the handshake costs none).
        died = {}
        for seed in ("1", "2"):
            changed, *_ = self.attacked("flaky", "asarray", "--seed=1", env_extra={"TCTS_HOSTILE_SEED": seed})
            died[seed] = {i for i, c in changed.items() if c["outcome"] == "CRASH"}
            self.assertTrue(died[seed], f"seed {seed}: no death (the mode fires)")
            self.assertEqual(set(changed), died[seed], {i: changed[i] for i in set(changed) - died[seed]})
        self.assertNotEqual(died["1"], died["2"])

    def test_a_meta_that_lies_behind_true_facts_is_caught(self):
        # Issue 52: a testee whose meta requests lie while the facts it sends are true passed
        # every case (the suite asked meta once in 26,769 requests). One fact in 8 is asked anyway.
        changed, report, *_ = self.attacked("meta_lies", "strided")
        facts = report["run"]["facts"]
        self.assertGreater(facts["checked"], facts["used"] // 16, facts)
        caught = [c for c in changed.values() if "contradicts the answer to the request itself" in json.dumps(c)]
        self.assertTrue(caught, changed)
        self.assertTrue(all(c["outcome"] == "FAIL" for c in caught), caught[:3])

    def test_a_handshake_flood_is_refused(self):
        p, report, _, seconds = run(self.tmp, "features_flood", "dtypes")
        self.assertEqual(p.returncode, 2, p.stdout[-2000:] + p.stderr[-2000:])
        self.assertIn("ran past 1 MiB", p.stderr)
        self.assertIsNone(report)

    def test_a_hostile_name_is_inert_in_the_terminal(self):
        p, report, _, _ = run(self.tmp, "hostile_name", "dtypes")
        self.assertIsNotNone(report, p.stderr[-2000:])
        self.assertNotRegex(p.stdout, re.compile("[\x00-\x08\x0b-\x1f\x7f]"), "control characters reach the terminal")
        self.assertIn("\\x1b[2K", p.stdout)
        self.assertEqual(report["candidate"]["name"], json.loads(json.dumps(report["candidate"]["name"])))


if __name__ == "__main__":
    unittest_shards.main()
