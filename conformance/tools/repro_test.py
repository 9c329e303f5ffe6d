"""repro.py (conformance/tools/repro.py) on hand-written traces, against a stand-in testee
(testdata/echo_testee.py): stdlib only, no suite binary.

  * a trace runs nothing unasked (issue 42): its recorded command and environment are shown,
    and run only with --run-recorded; the recorded variables that change what a process loads
    (BASH_ENV, LD_PRELOAD, ...) only when --allow-env names them; --testee runs the given
    command and applies nothing of the header;
  * a testee that dies (or stops answering) during the replay is named, with the request's index
    and line and whether the trace recorded the same: exit 3, never "every answer as recorded"
    (issue 36).
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.getcwd()  # the package root (the runfiles tree's): the test starts there
ECHO = os.path.join(HERE, "testdata", "echo_testee.py")
PYTHON = sys.executable


def request(n, op, value=None):
    return json.dumps({"id": n, "op": op, "value": value})


def answer(n, ok):
    return json.dumps({"id": n, "ok": ok})


def write_trace(d, command, env=None, exchange=(), outcome="FAIL", cwd=None, interface=None, served=()):
    """A trace as run.py writes it: the header, then {"send"} / {"recv"} lines (with `interface`,
    hello carries it, as the suite's does)."""
    path = os.path.join(d, "case.jsonl")
    header = {"case": "some.case", "outcome": outcome, "expected": "x", "observed": "y", "command": command,
              "cwd": cwd if cwd is not None else d, "env": env or {}}
    hello = json.loads(request(1, "hello"))
    if interface is not None:
        hello["interface"] = interface
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        f.write(json.dumps({"send": json.dumps(hello)}) + "\n")
        f.write(json.dumps({"recv": answer(1, {"name": "echo"})}) + "\n")
        for k, (send, recv) in enumerate(exchange):
            mark = {"served": "fact"} if k in served else {}  # answered by the suite from a fact
            f.write(json.dumps({"send": send, **mark}) + "\n")
            if recv is not None:
                f.write(json.dumps({"recv": recv, **mark}) + "\n")
    return path


# The part of spec/interface.json the typed comparison reads: results and records' field types.
INTERFACE = {"ops": [{"name": "make", "result": "tensor"}, {"name": "storage", "result": "StorageInfo"},
                     {"name": "data_ptr", "result": "address"}, {"name": "meta", "result": "TensorMeta"}],
             "records": {"StorageInfo": [{"name": "id", "type": "uintptr"}, {"name": "numel", "type": "int"}],
                         "TensorMeta": [{"name": "sizes", "type": "ints"}]}}


def repro(*args, cwd=None):
    # The program as a user starts it from anywhere: its package root on the path, not the directory it runs in.
    return subprocess.run([PYTHON, "-P", "-m", "conformance.tools.repro", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=dict(os.environ, PYTHONPATH=ROOT))


class NothingUnasked(unittest.TestCase):
    """Issue 42 item 3: a trace from someone else's CI ran `touch` through its recorded command,
    and again through a recorded environment variable."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.by_command = os.path.join(self.tmp, "by-command")
        self.by_env = os.path.join(self.tmp, "by-env")
        evil = os.path.join(self.tmp, "evil.sh")
        with open(evil, "w", encoding="utf-8") as f:
            f.write(f"touch {shlex.quote(self.by_env)}\n")
        # bash reads BASH_ENV before running a non-interactive command.
        command = "bash -c " + shlex.quote(f"touch {shlex.quote(self.by_command)} && "
                                           f"exec {shlex.quote(PYTHON)} {shlex.quote(ECHO)}")
        self.trace = write_trace(self.tmp, command, env={"BASH_ENV": evil, "LD_PRELOAD": "/nonexistent/preload.so",
                                                         "ECHO_HARMLESS": "1"},
                                 exchange=[(request(2, "getenv", "ECHO_HARMLESS"), answer(2, "1")),
                                           (request(3, "getenv", "LD_PRELOAD"), answer(3, None))])

    def ran(self):
        return os.path.exists(self.by_command), os.path.exists(self.by_env)

    def test_a_trace_alone_runs_nothing(self):
        p = repro(self.trace)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(self.ran(), (False, False))
        self.assertIn(f"recorded testee:    bash -c 'touch {self.by_command} && exec", p.stdout)  # shown, to read
        self.assertIn("BASH_ENV=", p.stdout)
        self.assertIn("a trace runs nothing unasked", p.stderr)
        self.assertIn("--run-recorded", p.stderr)
        self.assertIn("--testee='CMD'", p.stderr)

    def test_run_recorded_runs_the_command_not_the_loader_variables(self):
        p = repro(self.trace, "--run-recorded")
        self.assertEqual(self.ran(), (True, False), p.stdout + p.stderr)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)  # ECHO_HARMLESS applied, LD_PRELOAD not
        self.assertIn("not applied: BASH_ENV=", p.stdout)
        self.assertIn("--allow-env=BASH_ENV applies it", p.stdout)
        self.assertIn("not applied: LD_PRELOAD=", p.stdout)
        self.assertIn("every answer as recorded", p.stdout)

    def test_a_loader_variable_is_applied_only_when_named(self):
        p = repro(self.trace, "--run-recorded", "--allow-env=BASH_ENV")
        self.assertEqual(self.ran(), (True, True), p.stdout + p.stderr)
        self.assertIn("not applied: LD_PRELOAD=", p.stdout)
        self.assertNotIn("not applied: BASH_ENV", p.stdout)

    def test_testee_runs_that_command_and_nothing_of_the_header(self):
        p = repro(self.trace, f"--testee={shlex.quote(PYTHON)} {shlex.quote(ECHO)}")
        self.assertEqual(self.ran(), (False, False), p.stdout + p.stderr)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # ECHO_HARMLESS not applied: null now
        self.assertIn('first difference (getenv): answer.ok: "1" recorded, null now', p.stdout)

    def test_testee_runs_in_cwd(self):
        # The form a report's repro line takes: the command and its directory, both shown.
        trace = write_trace(self.tmp, "recorded", exchange=[(request(2, "value", 7), answer(2, 7))])
        p = repro(trace, f"--testee={shlex.quote(PYTHON)} echo_testee.py", f"--cwd={os.path.dirname(ECHO)}",
                  cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("every answer as recorded", p.stdout)

    def test_allow_env_needs_run_recorded(self):
        p = repro(self.trace, "--allow-env=BASH_ENV")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(self.ran(), (False, False))

    def test_a_command_cannot_hide_itself_from_the_terminal(self):
        trace = write_trace(self.tmp, "touch /nonexistent/x\r\x1b[2Kpython3 my_testee.py")
        p = repro(trace)
        self.assertEqual(p.returncode, 2)
        self.assertIn("touch /nonexistent/x\\u000d\\u001b[2Kpython3 my_testee.py", p.stdout)
        self.assertNotIn("\x1b", p.stdout + p.stderr)

    def test_help_says_why(self):
        p = repro("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("runs nothing unasked", p.stdout)
        self.assertIn("LD_PRELOAD", p.stdout)


class DeadTestee(unittest.TestCase):
    """Issue 36: the trace of a crashed testee ends with a request it never answered; its replay
    said "every answer as recorded", exit 0."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.echo = f"--testee={shlex.quote(PYTHON)} {shlex.quote(ECHO)}"

    def test_a_testee_that_dies_is_named_with_its_request(self):
        trace = write_trace(self.tmp, "recorded", outcome="CRASH",
                            exchange=[(request(2, "value", 7), answer(2, 7)), (request(3, "die", 5), None)])
        p = repro(trace, self.echo)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertNotIn("every answer as recorded", p.stdout)
        self.assertIn('! the testee died at request 3 of 3 (id 3, op "die"): ', p.stdout)
        self.assertIn("killed by SIGSEGV", p.stdout)
        self.assertIn("as recorded: the trace ends with this request unanswered (outcome CRASH)", p.stdout)
        self.assertIn('! the request: {"id": 3, "op": "die", "value": 5}', p.stdout)

    def test_a_death_the_trace_did_not_record(self):
        trace = write_trace(self.tmp, "recorded", exchange=[(request(2, "die", 5), answer(2, 5))])
        p = repro(trace, self.echo)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn('the testee died at request 2 of 2 (id 2, op "die")', p.stdout)
        self.assertIn('the trace recorded an answer: {"id": 2, "ok": 5}', p.stdout)

    def test_a_recorded_death_that_no_longer_happens_differs(self):
        trace = write_trace(self.tmp, "recorded", outcome="CRASH", exchange=[(request(2, "value", 5), None)])
        p = repro(trace, self.echo)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn('the testee died or stopped at request 2 of 2 (id 2, op "value") when recorded (outcome '
                      'CRASH); it answers now', p.stdout)

    def trace_of_a_later_case(self, *, numel_now=3, second_storage_now=5, fact_sizes_now=(2,)):
        """A case that was not the first of its process: handle 19 then, 2 now; storage ids and
        addresses of another allocator. Echo answers each request's value: the "now" side."""
        t = json.dumps
        return write_trace(self.tmp, "recorded", interface=INTERFACE, exchange=[
            (t({"id": 2, "op": "make", "value": 2}), answer(2, 19)),
            (t({"id": 3, "op": "storage", "t": 19, "value": {"id": 5, "numel": numel_now}}),
             answer(3, {"id": 140085344843696, "numel": 3})),
            (t({"id": 4, "op": "storage", "t": 19, "value": {"id": second_storage_now, "numel": 3}}),
             answer(4, {"id": 140085344843696, "numel": 3})),
            (t({"id": 5, "op": "data_ptr", "t": 19, "value": 94000}), answer(5, 77000)),
            (t({"id": 6, "op": "meta", "t": 19, "value": {"sizes": list(fact_sizes_now)}}),
             answer(6, {"sizes": [2]})),
            (t({"id": 7, "op": "storage", "t": 19, "value": {"id": str(2**60), "numel": 3}}),
             answer(7, {"id": str(2**60 + 8), "numel": 3}))],
            served={4})  # the meta request: answered from the fact that came with the tensor

    def test_an_honest_trace_of_a_later_case_replays_as_recorded(self):
        # Issue 52: 52 of 52 honest NumPy traces said "answer(s) differ" on a handle number or a
        # storage address.
        p = repro(self.trace_of_a_later_case(), self.echo)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("every answer as recorded", p.stdout)
        self.assertIn('"t": 2', p.stdout, "the later requests name the handle given now")

    def test_a_real_difference_still_differs(self):
        for change, text in ((dict(numel_now=4), "answer.ok.numel: 3 recorded, 4 now"),
                             (dict(second_storage_now=6), "answer.ok.id: 140085344843696 recorded, 6 now"),
                             (dict(fact_sizes_now=(3,)), "answer.ok.sizes[0]: 2 recorded, 3 now")):
            with self.subTest(change=change):
                p = repro(self.trace_of_a_later_case(**change), self.echo)
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertIn(text, p.stdout)

    def test_a_testee_that_stops_answering(self):
        trace = write_trace(self.tmp, "recorded", outcome="TIMEOUT", exchange=[(request(2, "hang"), None)])
        p = repro(trace, self.echo, "--answer-timeout=2")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn('the testee gave no answer within 2 s (--answer-timeout) to request 2 of 2', p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=1)
