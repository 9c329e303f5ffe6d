"""The runner's output folder cannot be lost: report files are replaced whole (a SIGKILL at
any moment leaves each one readable), logs/ keeps the files the runner did not write and the
previous run's logs until the new report is written, a second run into the same --out is
refused, SIGTERM kills the suite processes and leaves the previous report, an unwritable
--out is its own exit status (4), and a line that is no event in a result stream costs its
case (a CRASH), not the report.

Runs conformance/runner/run.py on testdata/fake_suite.py (a stand-in suite binary streaming
passing cases). Runs under /usr/bin/python3 (python3-jsonschema).
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.getcwd()
FAKE = os.path.join(ROOT, "conformance", "runner", "testdata", "fake_suite.py")
sys.path.insert(0, os.path.join(ROOT, "reports"))
import report as report_lib  # noqa: E402


class Output(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.expectations = os.path.join(self.tmp, "expectations.txt")
        open(self.expectations, "w").close()
        self.out = os.path.join(self.tmp, "out")

    def start(self, mode="", cases=5, expectations=None, out=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(FAKE_MODE=mode, FAKE_CASES=str(cases), FAKE_PIDFILE=os.path.join(self.tmp, "fake.pid"))
        return subprocess.Popen([sys.executable, "conformance/runner/run.py", "--suites=fake", f"--binary={FAKE}",
                                 f"--expectations={expectations or self.expectations}", f"--out={out or self.out}",
                                 "--jobs=1", "--no-stale-check", "--case-timeout=60"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def run_fake(self, *args, **kwargs):
        p = self.start(*args, **kwargs)
        stdout, stderr = p.communicate(timeout=300)
        return p.returncode, stdout, stderr

    def read(self, name):
        with open(os.path.join(self.out, name), "rb") as f:
            return f.read()

    def report(self):
        return report_lib.load(os.path.join(self.out, "report.json"))

    def test_logs_keep_what_the_runner_did_not_write(self):
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        logs = os.path.join(self.out, "logs")
        first = sorted(n for n in os.listdir(logs) if n.endswith(".log"))
        self.assertTrue(first)
        with open(os.path.join(logs, "mine.txt"), "w") as f:
            f.write("a user's file")
        # A refused run (bad expectations) touches nothing.
        bad = os.path.join(self.tmp, "bad.txt")
        with open(bad, "w") as f:
            f.write("this is no expectation\n")
        before = self.read("report.json")
        rc, out, err = self.run_fake(expectations=bad)
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(sorted(os.listdir(logs)), sorted(first + ["mine.txt", ".tcts-logs"]))
        self.assertEqual(self.read("report.json"), before)
        # A new run replaces the runner's logs, not the user's file.
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("mine.txt", os.listdir(logs))
        self.assertFalse([n for n in os.listdir(self.out) if n.startswith(".tcts-logs.")], "the staging folder")

    def test_a_second_run_into_one_out_is_refused(self):
        os.makedirs(self.out)
        with open(os.path.join(self.out, ".tcts-run.lock"), "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            rc, out, err = self.run_fake()
        self.assertEqual(rc, 2, out + err)
        self.assertIn("another run is writing into", err)
        self.assertFalse(os.path.exists(os.path.join(self.out, "report.json")))

    def test_an_unwritable_out_is_exit_4(self):
        blocker = os.path.join(self.tmp, "a-file")
        open(blocker, "w").close()
        rc, out, err = self.run_fake(out=os.path.join(blocker, "out"))
        self.assertEqual(rc, 4, out + err)
        self.assertIn("cannot write into --out", err)

    def test_sigterm_kills_the_suites_and_keeps_the_previous_report(self):
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        before = self.read("report.json")
        p = self.start(mode="sleep")
        pidfile = os.path.join(self.tmp, "fake.pid")
        deadline = time.monotonic() + 60
        while not os.path.exists(pidfile) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        with open(pidfile) as f:
            pid = int(f.read())
        p.send_signal(signal.SIGTERM)
        stdout, stderr = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, stdout + stderr)
        self.assertIn("interrupted by SIGTERM", stderr)
        self.assertEqual(self.read("report.json"), before)
        time.sleep(0.2)
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "the suite process outlived the runner")

    def test_a_sigkill_while_the_report_is_written_leaves_it_whole(self):
        rc, out, err = self.run_fake(cases=50)
        self.assertEqual(rc, 0, out + err)
        before = self.read("report.json")
        # A report of 100,000 cases takes seconds to write; the writer is killed the moment
        # report.json changes on disk (in place: half-written; by rename: whole).
        code = ("import json, sys; sys.path.insert(0, 'reports'); import report; "
                f"doc = json.loads(open({os.path.join(self.out, 'report.json')!r}).read()); "
                "doc['cases'] = [dict(c, id=c['id'] + str(k)) for k in range(2000) for c in doc['cases']]; "
                f"report.write_all(doc, {self.out!r})")
        p = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
        path = os.path.join(self.out, "report.json")
        stat = os.stat(path)
        while p.poll() is None:
            now = os.stat(path)
            if (now.st_ino, now.st_size, now.st_mtime_ns) != (stat.st_ino, stat.st_size, stat.st_mtime_ns):
                p.kill()
                break
        p.wait()
        after = self.read("report.json")
        if after != before:
            self.assertEqual(len(json.loads(after)["cases"]), 100000, "a new report.json is whole")

    def test_a_garbage_line_in_the_stream_costs_its_case(self):
        rc, out, err = self.run_fake(mode="garbage")
        self.assertEqual(rc, 1, out + err)
        cases = {c["id"]: c for c in self.report()["cases"]}
        self.assertEqual(len(cases), 5)
        bad = {i: c for i, c in cases.items() if c["outcome"] != "PASS"}
        self.assertEqual(list(bad), ["fake.case1"])
        self.assertEqual(bad["fake.case1"]["outcome"], "CRASH")
        self.assertIn("not an event", bad["fake.case1"]["observed"])

    def test_a_report_with_duplicate_ids_or_nan_is_refused(self):
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        path = os.path.join(self.out, "report.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        doc["cases"].append(dict(doc["cases"][0]))
        with open(path, "w") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(report_lib.ReportError, "id of an earlier case"):
            report_lib.load(path)
        doc["cases"].pop()
        doc["run"]["wall_s"] = float("nan")
        with open(path, "w") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(report_lib.ReportError, "NaN"):
            report_lib.load(path)

    def test_the_terminal_summary_is_inert(self):
        doc = self.run_fake() and self.report()
        doc["candidate"]["name"] = "x\r\x1b[2Kresult: x CONFORMS"
        doc["cases"][0]["outcome"] = "FAIL"
        doc["cases"][0]["observed"] = "line\nforged"
        doc["summary"] = report_lib.summary(doc["cases"], None, doc["features"])
        text = report_lib.text_summary(doc)
        self.assertNotIn("\x1b", text)
        self.assertNotIn("\r", text)
        self.assertIn("line\\x0aforged", text)


if __name__ == "__main__":
    unittest.main()
