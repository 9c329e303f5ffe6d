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
from reports import cli
from reports import render
from reports import report_schema
from reports import report_score
from reports import report_terminal


class Output(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.expectations = os.path.join(self.tmp, "expectations.txt")
        open(self.expectations, "w").close()
        self.out = os.path.join(self.tmp, "out")

    def start(self, mode="", cases=5, expectations=None, out=None, env_extra=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
        env.update(FAKE_MODE=mode, FAKE_CASES=str(cases), FAKE_PIDFILE=os.path.join(self.tmp, "fake.pid"),
                   **(env_extra or {}))
        return subprocess.Popen([sys.executable, "-m", "conformance.runner.run", "--suites=fake", f"--binary={FAKE}",
                                 f"--expectations={expectations or self.expectations}", f"--out={out or self.out}",
                                 "--jobs=1", "--no-stale-check", "--case-timeout=60"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def run_fake(self, *args, **kwargs):  # noqa: D401 (env_extra: extra environment)
        p = self.start(*args, **kwargs)
        stdout, stderr = p.communicate(timeout=300)
        return p.returncode, stdout, stderr

    def read(self, name):
        with open(os.path.join(self.out, name), "rb") as f:
            return f.read()

    def report(self):
        return report_schema.load(os.path.join(self.out, "report.json"))

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
        self.assertEqual(sorted(os.listdir(logs)), sorted(first + ["mine.txt", ".tcts-logs", "case_times.tsv"]))
        self.assertEqual(self.read("report.json"), before)
        # A new run replaces the runner's logs, not the user's file.
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("mine.txt", os.listdir(logs))
        self.assertFalse([n for n in os.listdir(self.out) if n.startswith(".tcts-logs.")], "the staging folder")

    def test_a_state_reset_resumes_without_counting_a_fault(self):
        # A case that reset process-wide state (exit clean_process) resumes in a new process and
        # is no crash; a candidate's fault (exit fresh_process) is counted as isolated.
        for mode, isolated in (("clean", 0), ("fresh", 1)):
            out = os.path.join(self.tmp, "out-" + mode)
            code, stdout, stderr = self.run_fake(mode, out=out)
            self.assertEqual(code, 0, (mode, stdout[-2000:], stderr[-2000:]))
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                r = json.load(f)
            self.assertEqual({c["outcome"] for c in r["cases"]}, {"PASS"}, mode)
            self.assertEqual(len(r["cases"]), 5, mode)
            self.assertEqual(r["run"]["processes"], 2, mode)
            self.assertEqual(r["run"]["isolated_processes"], isolated, mode)

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
        code = ("import json; from reports import render; "
                f"doc = json.loads(open({os.path.join(self.out, 'report.json')!r}).read()); "
                "doc['cases'] = [dict(c, id=c['id'] + str(k)) for k in range(2000) for c in doc['cases']]; "
                f"render.write_all(doc, {self.out!r})")
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
        with self.assertRaisesRegex(report_schema.ReportError, "id of an earlier case"):
            report_schema.load(path)
        doc["cases"].pop()
        doc["run"]["wall_s"] = float("nan")
        with open(path, "w") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(report_schema.ReportError, "NaN"):
            report_schema.load(path)

    def test_the_terminal_summary_is_inert(self):
        doc = self.run_fake() and self.report()
        doc["candidate"]["name"] = "x\r\x1b[2Kresult: x CONFORMS"
        doc["cases"][0]["outcome"] = "FAIL"
        doc["cases"][0]["observed"] = "line\nforged"
        doc["summary"] = report_score.summary(doc["cases"], None, doc["features"])
        text = report_terminal.text_summary(doc)
        self.assertNotIn("\x1b", text)
        self.assertNotIn("\r", text)
        self.assertIn("line\\x0aforged", text)


    # ---------------------------------------------------------------- issue 42
    def test_testee_text_is_bounded_and_inert_in_every_output(self):
        from . import records
        with open(self.expectations, "w") as f:
            f.write("fake.case0 FAIL listed\nfake.case2 FAIL listed too\n")
        xml = os.path.join(self.tmp, "junit.xml")
        p = self.start(mode="hostile", env_extra={"XML_OUTPUT_FILE": xml})
        stdout, stderr = p.communicate(timeout=300)
        self.assertIn(p.returncode, (0, 1), stdout + stderr)
        doc = self.report()
        size = len(self.read("report.json"))
        # A report's size is bounded by its case count, whatever the testee sends (50+ MB here).
        self.assertLess(size, len(doc["cases"]) * records.RECORD_BOUND_BYTES, size)
        cases = {c["id"]: c for c in doc["cases"]}
        limit = records.TEXT_HEAD_CHARS + 160  # the head and its marker (with a suite-cut message's true size)

        def strings(value):
            if isinstance(value, str):
                yield value
            elif isinstance(value, dict):
                for v in value.values():
                    yield from strings(v)
            elif isinstance(value, list):
                for v in value:
                    yield from strings(v)

        for c in doc["cases"]:
            self.assertLessEqual(len(json.dumps(c)), records.RECORD_BOUND_BYTES, c["id"])
            for text in strings(c):
                self.assertLessEqual(len(text), limit, (c["id"], text[:100]))
            self.assertLessEqual(len(c.get("mismatches", [])), records.LIST_ITEMS + 1)
        for text in strings(doc["candidate"]):
            self.assertLessEqual(len(text), limit)
        # Two long answers that differ only past the head still differ (the digest).
        self.assertNotEqual(cases["fake.case0"]["message"], cases["fake.case1"]["message"])
        self.assertIn("characters in all, sha256 ", cases["fake.case0"]["message"])
        # A protocol error in a case listed as FAIL stays a FAIL; the stream's protocol_error says
        # so (issue 51), whatever the words: case2's are reworded, case0 quotes them and is none.
        self.assertEqual(cases["fake.case0"]["outcome"], "XFAIL")
        self.assertEqual(cases["fake.case2"]["outcome"], "FAIL", cases["fake.case2"]["reason"])
        self.assertIn("protocol", cases["fake.case2"]["reason"])
        # report.md: no live link or image, no raw HTML, the table cells hold.
        md = self.read("report.md").decode()
        self.assertNotRegex(md, r"(?<!\\)\[[^\]]*(?<!\\)\]\(", "a live Markdown link or image")
        self.assertNotIn("<svg", md)
        self.assertNotIn("<script", md)
        self.assertNotRegex(md, "[\x00-\x08\x0b-\x1f\x7f]")
        html = self.read("report.html").decode()
        self.assertNotIn("<svg", html)
        self.assertNotIn("<script>x", html)
        self.assertIn("&lt;svg onload=alert(1)&gt;", html)
        # JUnit XML parses, and holds no control character.
        import xml.etree.ElementTree as ET
        with open(xml, "rb") as f:
            data = f.read()
        ET.fromstring(data)
        self.assertNotRegex(data.decode(), "[\x00-\x08\x0b\x0c\x0e-\x1f]")
        # The terminal: ESC, CR, BEL, NUL made visible.
        self.assertNotRegex(stdout + stderr, "[\x00-\x08\x0b-\x1f\x7f]")
        self.assertLess(len(stdout + stderr), 64 << 10)

    def test_abandoned_staging_is_swept_and_live_staging_kept(self):
        os.makedirs(os.path.join(self.out, ".tcts-logs.killed", "x"))
        open(os.path.join(self.out, ".report.json.killed"), "w").close()
        tmp_root = os.path.join(self.tmp, "tmproot")
        dead, live, old = (os.path.join(tmp_root, f"tcts-run-{n}") for n in ("dead", "live", "old"))
        for d in (dead, live, old):
            os.makedirs(d)
        open(os.path.join(dead, ".tcts-run.lock"), "w").close()  # its run was killed: the lock is free
        held = open(os.path.join(live, ".tcts-run.lock"), "w")
        fcntl.flock(held, fcntl.LOCK_EX)  # a run in progress
        try:
            rc, out, err = self.run_fake(env_extra={"TMPDIR": tmp_root})
            self.assertEqual(rc, 0, out + err)
            left = sorted(os.listdir(self.out))
            self.assertFalse([n for n in left if n.startswith((".tcts-logs.", ".report.json."))], left)
            self.assertFalse(os.path.exists(dead))
            self.assertTrue(os.path.exists(live), "a live run's work folder is kept")
            self.assertTrue(os.path.exists(old), "a folder without its lock cannot be proven abandoned")
            self.assertEqual([n for n in os.listdir(tmp_root) if n not in ("tcts-run-live", "tcts-run-old")], [],
                             "the run removed its own work folder")
        finally:
            held.close()

    def test_a_second_interrupt_does_not_cut_cleanup_short(self):
        from . import isolation
        cleaned = []
        with self.assertRaises(isolation.Interrupted):
            with isolation.interruptible():
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(5)
                finally:
                    os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, during the cleanup
                    time.sleep(0.2)
                    cleaned.append(True)
        self.assertEqual(cleaned, [True])
        # End to end: two SIGINTs at once; the suite process dies and no staging folder stays.
        p = self.start(mode="sleep")
        pidfile = os.path.join(self.tmp, "fake.pid")
        for _ in range(600):
            if os.path.exists(pidfile) and os.path.getsize(pidfile):
                break
            time.sleep(0.05)
        with open(pidfile) as f:
            pid = int(f.read())
        p.send_signal(signal.SIGINT)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, stderr)
        self.assertNotIn("Traceback", stderr)
        self.assertFalse([n for n in os.listdir(self.out) if n.startswith(".tcts-logs.")])
        time.sleep(0.2)
        self.assertFalse(os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split()[2])

    def test_the_report_files_appear_together_or_not_at_all(self):
        rc, out, err = self.run_fake()
        self.assertEqual(rc, 0, out + err)
        before = {n: self.read(n) for n in render.REPORT_FILES}
        doc = self.report()
        doc["candidate"]["name"] = "changed"
        real = os.fdopen
        calls = []

        def failing(fd, *a, **k):  # the disk fills while the third file is written
            calls.append(fd)
            if len(calls) == 3:
                os.close(fd)
                raise OSError(28, "No space left on device")
            return real(fd, *a, **k)

        os.fdopen = failing
        try:
            with self.assertRaises(OSError) as cm:
                render.write_all(doc, self.out)
        finally:
            os.fdopen = real
        # The runner's words for it (main.py): the reason, and no "(None)" for the file it lacks.
        self.assertEqual(cli.os_error(cm.exception), "No space left on device")
        self.assertEqual({n: self.read(n) for n in render.REPORT_FILES}, before, "no file replaced")
        self.assertFalse([n for n in os.listdir(self.out) if n.startswith(".") and n != ".tcts-run.lock"
                          and not n.startswith(".tcts-logs")], os.listdir(self.out))


class PropertyCause(unittest.TestCase):
    """A falsified property's `observed` is its cause (issue 48 item 6), not RapidCheck's "Failed"."""

    def setUp(self):
        from . import records
        self.cause = records.property_cause

    def test_rc_fail_gives_its_message_and_rc_assert_its_expansion(self):
        failed = ("Failed\nFalsifiable after 8 tests and 1 shrink\n\nint:\n0\n\n./conformance/properties/properties.h:140:\n"
                  "RC_FAIL(call + \": expected an answer, observed \" + Describe(r.error()))\n\n"
                  "base.transpose(0, 1): expected an answer, observed IndexError: Dimension out of range")
        self.assertEqual(self.cause(failed), "base.transpose(0, 1): expected an answer, observed IndexError: "
                                             "Dimension out of range (at properties.h:140)")
        asserted = ("Failed\nFalsifiable after 3 tests\n\nstd::vector<long>:\n[2, 3]\n\n"
                    "./conformance/properties/arithmetic_properties.cc:50:\nRC_ASSERT(m.strides == ma.strides)\n\n"
                    "Expands to:\n[1, 2] == [3, 1]")
        self.assertEqual(self.cause(asserted), "RC_ASSERT(m.strides == ma.strides): [1, 2] == [3, 1] "
                                               "(at arithmetic_properties.cc:50)")
        self.assertEqual(self.cause("Failed\nsomething else"), "Failed")  # no assertion: the first line
        self.assertEqual(self.cause(""), "falsified")


if __name__ == "__main__":
    unittest.main()
