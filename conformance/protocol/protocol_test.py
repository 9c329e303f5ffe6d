"""The testee protocol end to end: a testee and its expectations file outside this repository,
and a testee that crashes, hangs or breaks the protocol.

Runs conformance/runner/run.py with --testee on the dtypes suite from a temporary directory
(as a user's repository would: the testee program and the expectations file live there),
against conformance/protocol/testdata/faulty_testee.py — PyTorch's Python testee with one fault
injected (TCTS_TESTEE_FAULT). Checks: every case is reported exactly once; a testee that dies
makes the running case CRASH and a fresh testee runs the rest; one that stops answering is a
TIMEOUT; an answer that is not JSON, has a field of the wrong type or the wrong id FAILs that
case with a message naming the request and the field, and a stray line on the testee's stdout
costs that one case (a fresh testee takes the next); a testee speaking another protocol
version is refused before any case runs (exit 2), one of version 1 (retired) by name, and one
held to version 2 gets version 3's verdicts; the trace (--trace) of a testee that died replays its
death with repro.py (exit 3, naming the request). Runs under /usr/bin/python3 (python3-torch).
"""

import collections
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.getcwd()  # the runfiles root
FIXTURE = os.path.join(ROOT, "conformance", "protocol", "testdata", "faulty_testee.py")
TORCH_TESTEE_DIR = os.path.join(ROOT, "conformance", "testees", "torch")
EXPECTATIONS = os.path.join(ROOT, "conformance", "expectations", "torch_python.txt")
RESTRICTED = os.path.join(ROOT, "conformance", "protocol", "testdata", "restricted_testee.py")
NUMPY_TESTEE_DIR = os.path.join(ROOT, "conformance", "testees", "numpy")
PARTIAL = os.path.join(ROOT, "conformance", "protocol", "testdata", "partial_testee.py")
NOSTRIDES = os.path.join(ROOT, "conformance", "protocol", "testdata", "nostrides_testee.py")
NUMPY_EXPECTATIONS = os.path.join(ROOT, "conformance", "expectations", "numpy.txt")


def run(tmp, fault="", extra_env=None, *args):
    """run.py from `tmp` as the user's working directory; returns (process, report or None)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    env.update(BUILD_WORKING_DIRECTORY=tmp, TCTS_TESTEE_FAULT=fault, TCTS_TORCH_TESTEE_DIR=TORCH_TESTEE_DIR,
               **(extra_env or {}))
    out = tempfile.mkdtemp(dir=tmp, prefix="out-" + (fault.replace(":", "_") or "clean"))
    env["TCTS_TESTEE_FAULT_ONCE"] = os.path.join(out, "fault-fired")  # the restarted testee behaves
    p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=dtypes",
                        "--testee=/usr/bin/python3 faulty_testee.py", "--candidate=mylib",
                        "--expectations=expectations.txt", f"--out={out}", "--jobs=1", "--no-stale-check",
                        "--partial-ok", *args],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    p.out = out  # the run's --out (its trace, with --trace)
    path = os.path.join(out, "report.json")
    report = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    return p, report


def _float_texts(v):
    """Every {"float": text} text (and complex parts) in a message."""
    out = []
    if isinstance(v, dict):
        if set(v) == {"float"} and isinstance(v["float"], str):
            return [v["float"]]
        if set(v) == {"complex"} and isinstance(v["complex"], list):
            return [x for x in v["complex"] if isinstance(x, str)]
        for x in v.values():
            out += _float_texts(x)
    elif isinstance(v, list):
        for x in v:
            out += _float_texts(x)
    return out


class Protocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        shutil.copy(FIXTURE, os.path.join(cls.tmp, "faulty_testee.py"))
        shutil.copy(EXPECTATIONS, os.path.join(cls.tmp, "expectations.txt"))
        # torch_python.txt includes libtorch.txt and shared/ (the entries they share): they come along.
        here = os.path.dirname(EXPECTATIONS)
        shutil.copy(os.path.join(here, "libtorch.txt"), os.path.join(cls.tmp, "libtorch.txt"))
        shutil.copytree(os.path.join(here, "shared"), os.path.join(cls.tmp, "shared"))
        cls.clean, cls.clean_report = run(cls.tmp)
        assert cls.clean_report, cls.clean.stdout + cls.clean.stderr
        cls.ids = sorted(c["id"] for c in cls.clean_report["cases"])
        # Debian's torch 1.13 has no uint16, uint32, uint64: the testee declares them missing.
        cls.missing = {c["id"] for c in cls.clean_report["cases"] if c["outcome"] == "NOT_SUPPORTED"}

    def outcomes(self, report):
        """The cases that neither passed, nor failed as expected, nor need a dtype the testee lacks."""
        self.assertEqual(sorted(c["id"] for c in report["cases"]), self.ids, "every case reported exactly once")
        return {c["id"]: c for c in report["cases"]
                if c["outcome"] not in ("PASS", "XFAIL") and not (c["outcome"] == "NOT_SUPPORTED" and c["id"] in self.missing)}

    def test_a_testee_outside_the_repository(self):
        self.assertEqual(self.clean.returncode, 0, self.clean.stdout + self.clean.stderr)
        r = self.clean_report
        self.assertEqual(r["candidate"]["name"], "torch (Python API)")  # the testee's handshake
        self.assertEqual(r["expectations"]["file"], "expectations.txt")
        self.assertGreater(len(self.ids), 40)
        self.assertEqual(self.outcomes(r), {})
        self.assertTrue(self.missing)
        for c in r["cases"]:
            if c["id"] in self.missing:  # only what torch 1.13 lacks, and said so
                self.assertRegex(c["id"], r"uint(16|32|64)", c["id"])
                self.assertIn("uint", c["observed"], c)

    def test_a_testee_that_dies_crashes_one_case(self):
        for fault, how in (("crash:dtype_info:3", "exit status 86"), ("segv:dtype_info:3", "exit status 86")):
            p, report = run(self.tmp, fault)
            bad = self.outcomes(report)
            self.assertEqual([c["outcome"] for c in bad.values()], ["CRASH"], (fault, p.stdout[-3000:]))
            c = next(iter(bad.values()))
            self.assertIn(how, c["observed"])
            self.assertIn("died while answering request", c["message"])
            self.assertIn("('dtype_info')", c["message"])
            self.assertEqual(report["run"]["isolated_processes"], 1)

    def test_the_trace_of_a_testee_that_died_replays_its_death(self):
        # Issue 36: repro.py on the trace of a CRASH said "every answer as recorded", exit 0.
        # The trace ends with the request the testee died at; its replay names it, exit 3.
        p, report = run(self.tmp, "segv:dtype_info:1", None, "--trace")
        (case,) = self.outcomes(report).values()
        self.assertEqual(case["outcome"], "CRASH", p.stdout[-3000:])
        trace = os.path.join(p.out, case["trace"])
        with open(trace, encoding="utf-8") as f:
            last = json.loads(f.read().splitlines()[-1])
        self.assertEqual(json.loads(last["send"])["op"], "dtype_info", last)  # sent, never answered
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(TCTS_TESTEE_FAULT="segv:dtype_info:1", TCTS_TORCH_TESTEE_DIR=TORCH_TESTEE_DIR)
        r = subprocess.run([sys.executable, "-m", "conformance.tools.repro", trace, "--run-recorded"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        self.assertEqual(r.returncode, 3, r.stdout[-3000:] + r.stderr[-3000:])
        self.assertNotIn("every answer as recorded", r.stdout)
        self.assertRegex(r.stdout, r'! the testee died at request [0-9]+ of [0-9]+ \(id [0-9]+, op "dtype_info"\): ')
        self.assertIn("SIGSEGV", r.stdout)
        self.assertIn("as recorded: the trace ends with this request unanswered (outcome CRASH)", r.stdout)
        self.assertRegex(r.stdout, r'! the request: \{.*"op": "dtype_info"')

    def test_a_testee_that_stops_answering_times_out(self):
        p, report = run(self.tmp, "hang:finfo:2", None, "--case-timeout=20")
        bad = self.outcomes(report)
        self.assertEqual([c["outcome"] for c in bad.values()], ["TIMEOUT"], p.stdout[-3000:])
        self.assertIn("no progress for 20 s", next(iter(bad.values()))["observed"])

    def test_a_broken_answer_names_the_request_and_the_field(self):
        for fault, words in (("garbage:finfo:2", ["'finfo'", "is not JSON"]),
                             ("field:finfo:2", ["'finfo'", "field 'bits'", "an integer", "sixteen"]),
                             ("wrong_id:finfo:2", ["'finfo'", "field 'id'"])):
            p, report = run(self.tmp, fault)
            bad = self.outcomes(report)
            self.assertEqual([c["outcome"] for c in bad.values()], ["FAIL"], (fault, p.stdout[-3000:]))
            text = json.dumps(next(iter(bad.values())))
            for w in words:
                self.assertIn(w, text, fault)

    def test_a_stray_line_costs_one_case(self):
        # One stray line puts every later answer one behind: the case that reads it FAILs
        # naming it, and the next case gets a fresh testee (the process ends after the case).
        p, report = run(self.tmp, "stray:finfo:2")
        bad = self.outcomes(report)
        self.assertEqual([c["outcome"] for c in bad.values()], ["FAIL"], p.stdout[-3000:])
        text = json.dumps(next(iter(bad.values())))
        for w in ("'finfo'", "is not JSON", "mylib says hi"):
            self.assertIn(w, text)
        self.assertEqual(report["run"]["isolated_processes"], 1)

    def test_the_printed_rerun_command_reruns_the_case(self):
        # The rerun command of a failing testee case, as report.json (and so the terminal
        # summary and JUnit) print it, run as the user would (run.py standing in for `bazel run
        # //conformance:run`, whose target adds --suites): it runs that case alone, and it fails.
        # Its report goes to OUT/rerun: the full run's report is left as it was (issue 36).
        p, report = run(self.tmp, "garbage:finfo:2")
        with open(os.path.join(p.out, "report.json"), encoding="utf-8") as f:
            full = f.read()
        (case,) = self.outcomes(report).values()
        prefix = "bazel run //conformance:run -- "
        self.assertTrue(case["rerun"].startswith(prefix), case["rerun"])
        self.assertIn(case["rerun"], p.stdout)  # the terminal summary prints it
        args = shlex.split(case["rerun"][len(prefix):])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(BUILD_WORKING_DIRECTORY=self.tmp, TCTS_TESTEE_FAULT="garbage:finfo:1",
                   TCTS_TORCH_TESTEE_DIR=TORCH_TESTEE_DIR)
        again = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=dtypes", *args],
                               capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        with open(os.path.join(p.out, "report.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), full)
        with open(os.path.join(p.out, "rerun", "report.json"), encoding="utf-8") as f:
            rerun = json.load(f)
        self.assertEqual([(c["id"], c["outcome"]) for c in rerun["cases"]], [(case["id"], "FAIL")])
        self.assertEqual(rerun["cases"][0]["rerun"], case["rerun"])

    def test_a_testee_with_four_dtypes_has_its_views_and_storage_exercised(self):
        # A testee declaring float32, int32, bool and complex64 (and refusing int64 as such a
        # library does): the strided suite's fixtures are in a dtype it has, so its view,
        # memory-format and storage cases run; none fails on int64.
        shutil.copy(RESTRICTED, os.path.join(self.tmp, "restricted_testee.py"))
        open(os.path.join(self.tmp, "none.txt"), "w").close()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(BUILD_WORKING_DIRECTORY=self.tmp, TCTS_NUMPY_TESTEE_DIR=NUMPY_TESTEE_DIR)
        out = tempfile.mkdtemp(dir=self.tmp, prefix="out-restricted")
        p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=strided",
                            "--testee=/usr/bin/python3 restricted_testee.py", "--candidate=restricted",
                            "--expectations=none.txt", f"--out={out}", "--jobs=2", "--no-stale-check"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertEqual(report["candidate"]["name"], "numpy restricted to float32, int32, bool, complex64",
                         p.stdout[-2000:] + p.stderr[-2000:])
        self.assertEqual({d["name"] for d in report["dtypes"] if d["declared"]}, {"float32", "int32", "bool", "complex64"})
        on_int64 = [c["id"] for c in report["cases"] if "int64" in json.dumps([c["observed"], c["mismatches"]])]
        self.assertEqual(on_int64, [], "cases failed on the fixtures' int64")
        passed = collections.Counter(c["id"].split(".")[0] for c in report["cases"] if c["outcome"] == "PASS")
        for kind in ("transpose", "narrow", "slice", "clone", "contiguous"):  # views; memory-format copies
            self.assertGreater(passed[kind], 20, (kind, passed))

    def test_a_testee_without_strides_is_judged_on_the_rest(self):
        # NumPy's testee declaring strides unsupported, its meta answering strides [] and
        # offset 0 (issue 48 item 3): the kit leaves strides out of hello's features, no case
        # FAILs or crashes on a strides or offset check, and the cases that check them are
        # judged on the rest. Before strides were a feature, the same testee FAILed 1,000s of
        # stride/offset checks (strides_test proves the same answers FAIL when declared).
        shutil.copy(NOSTRIDES, os.path.join(self.tmp, "nostrides_testee.py"))
        shutil.copy(NUMPY_EXPECTATIONS, os.path.join(self.tmp, "numpy.txt"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(BUILD_WORKING_DIRECTORY=self.tmp, TCTS_NUMPY_TESTEE_DIR=NUMPY_TESTEE_DIR)
        out = tempfile.mkdtemp(dir=self.tmp, prefix="out-nostrides")
        p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=strided,arithmetic,asarray,dlpack",
                            "--testee=/usr/bin/python3 nostrides_testee.py", "--candidate=nostrides",
                            "--expectations=numpy.txt", f"--out={out}", "--jobs=2", "--no-stale-check",
                            "--partial-ok"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=1200)
        path = os.path.join(out, "report.json")
        self.assertTrue(os.path.exists(path), p.stdout[-3000:] + p.stderr[-3000:])
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        features = {f["name"]: f for f in report["features"]}
        self.assertFalse(features["strides"]["declared"], features["strides"])
        cases = report["cases"]
        on_layout = [c["id"] for c in cases if any(c.get("checks", {}).get(k) == "FAIL" for k in ("strides", "offset"))]
        self.assertEqual(on_layout, [], "FAILed on strides or an offset")
        self.assertEqual([c["id"] for c in cases if c["outcome"] in ("CRASH", "TIMEOUT")], [])
        judged = [c for c in cases if c["outcome"] in ("PASS", "XFAIL") and c["kind"] != "property"
                  and c.get("checks", {}).get("strides") == "NOT_SUPPORTED"]
        self.assertGreater(len(judged), 1000, "cases judged without their strides check")

    def test_a_testee_with_some_ops_of_a_feature_is_judged_on_those_it_has(self):
        # NumPy's testee without expand, unsqueeze, squeeze, view, reshape, empty_like and
        # write_element (issue 48): views, format_copies and storage_values are partly there.
        # Its other ops' cases run and are judged (setup calls included: as_strided before
        # contiguous), the missing ops' cases are NOT_SUPPORTED naming the op, no case FAILs
        # on the declaration, DLPack imports are judged without write_element, and the view
        # properties draw over the ops it has. On the main of 2547059 (features all or
        # nothing) every case of those three features was judged undeclared.
        shutil.copy(PARTIAL, os.path.join(self.tmp, "partial_testee.py"))
        shutil.copy(NUMPY_EXPECTATIONS, os.path.join(self.tmp, "numpy.txt"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(BUILD_WORKING_DIRECTORY=self.tmp, TCTS_NUMPY_TESTEE_DIR=NUMPY_TESTEE_DIR)
        out = tempfile.mkdtemp(dir=self.tmp, prefix="out-partial")
        p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=strided,dlpack",
                            "--testee=/usr/bin/python3 partial_testee.py", "--candidate=partial",
                            "--expectations=numpy.txt", f"--out={out}", "--jobs=2", "--no-stale-check",
                            "--partial-ok"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=1200)
        path = os.path.join(out, "report.json")
        self.assertTrue(os.path.exists(path), p.stdout[-3000:] + p.stderr[-3000:])
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        cases = report["cases"]
        missing = ("expand", "unsqueeze", "squeeze", "view", "reshape", "empty_like", "write_element")
        declaration = [c["id"] for c in cases if c["outcome"] in ("FAIL", "XPASS")
                       and any(m.get("kind") == "declaration" for m in c["mismatches"])]
        self.assertEqual(declaration, [], "FAILed on the declaration")
        on_missing = [c["id"] for c in cases if c["outcome"] in ("FAIL", "CRASH")
                      and any(op + "(" in json.dumps(c["mismatches"]) for op in missing)]
        self.assertEqual(on_missing, [], "FAILed on a missing op")
        by_op = collections.defaultdict(collections.Counter)
        for c in cases:
            by_op[c["id"].split(".")[0]][c["outcome"]] += 1  # a case's id starts with its op
        for op in ("expand", "unsqueeze", "squeeze", "view", "reshape", "empty_like"):
            self.assertEqual(set(by_op[op]), {"NOT_SUPPORTED"}, (op, by_op[op]))
        for c in cases:
            if c["id"].startswith("expand.") and c["outcome"] == "NOT_SUPPORTED":
                self.assertIn("expand", c["observed"] + c["message"] + json.dumps(c), c["id"])
        for op in ("transpose", "narrow", "contiguous", "clone", "as_strided"):
            self.assertGreater(by_op[op]["PASS"] + by_op[op]["XFAIL"], 10, (op, by_op[op]))
        dlpack = [c for c in cases if c["suite"] == "dlpack" and c["outcome"] in ("PASS", "XFAIL")]
        self.assertGreater(len(dlpack), 20, "DLPack cases judged without write_element")
        props = {c["id"]: c for c in cases if c["kind"] == "property" and c["suite"] == "strided"}
        self.assertTrue(props)
        for pid, c in props.items():
            self.assertNotIn(c["outcome"], ("FAIL", "CRASH", "TIMEOUT"), (pid, c["message"][-800:]))
        drawn = [pid for pid, c in props.items() if c["outcome"] in ("PASS", "XFAIL")]
        self.assertGreaterEqual(len(drawn), 5, {pid: c["outcome"] for pid, c in props.items()})

    def test_a_version_1_testee_is_refused_by_name(self):
        # Version 1 is retired (PROTOCOL.md "Versions"): a testee that answers it is refused
        # before any case, naming its version and the suite's.
        p, report = run(self.tmp, "", {"TCTS_TESTEE_PROTOCOL": "1"})
        self.assertEqual(p.returncode, 2, p.stdout[-2000:] + p.stderr[-2000:])
        self.assertIn("the testee speaks protocol version 1; this suite speaks 2, 3", p.stderr)
        self.assertIsNone(report)

    def test_versions_2_and_3_give_the_same_verdicts_with_decimal_floats(self):
        # A testee held to version 2 and one of version 3 (facts) get the same outcomes, and
        # floats cross as decimal texts both ways. (A broken finfo answer makes one case FAIL,
        # so that --trace keeps an exchange with floats.)
        floats = {}
        reports = {}
        for version in ("2", "3"):
            p, report = run(self.tmp, "field:finfo:2", {"TCTS_TESTEE_PROTOCOL": version}, "--trace")
            self.assertIsNotNone(report, p.stdout[-2000:] + p.stderr[-2000:])
            reports[version] = {c["id"]: c["outcome"] for c in report["cases"]}
            texts = []
            for root, _, files in os.walk(os.path.join(p.out, "trace")):
                for name in files:
                    if name.endswith(".jsonl"):
                        with open(os.path.join(root, name), encoding="utf-8") as f:
                            for line in f:
                                rec = json.loads(line)
                                msg = json.loads(rec.get("recv") or rec.get("send") or "{}")
                                texts += _float_texts(msg)
            floats[version] = [t for t in texts if t not in ("inf", "-inf", "nan")]
        self.assertEqual(reports["2"], reports["3"])
        self.assertTrue(floats["2"] and floats["3"], floats)
        for version in ("2", "3"):
            self.assertFalse(any("0x" in t for t in floats[version]), floats[version][:5])

    def test_another_protocol_version_is_refused(self):
        p, report = run(self.tmp, "", {"TCTS_TESTEE_PROTOCOL": "99"})
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("protocol version 99", p.stderr)
        self.assertIsNone(report)

    def test_a_missing_expectations_file_is_a_usage_error(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT"))}
        env["BUILD_WORKING_DIRECTORY"] = self.tmp
        p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=dtypes", "--testee=true",
                            "--expectations=nowhere.txt"], capture_output=True, text=True, env=env, cwd=ROOT)
        self.assertEqual(p.returncode, 2)
        self.assertIn("nowhere.txt", p.stderr)


if __name__ == "__main__":
    unittest.main()
