"""The main job: runs conformance suites against one candidate, isolated, and writes the report.

    bazel run //conformance:run -- [--candidate=NAME] [--out=DIR] [--filter=GLOB] [--jobs=N]
                                   [--case-timeout=S] [--seed=N] [--expectations=FILE]
                                   [--device=DEVICE]
    bazel run //conformance:run -- --testee='CMD ARGS' --expectations=FILE [--candidate=LABEL] [...]
    bazel run //conformance:replay -- FILE [--candidate=NAME] [the same options]
    bazel test //conformance:<suite>_<candidate>     (the same runner, one suite: see below)

The suite binaries report raw outcomes (PASS, FAIL, NOT_SUPPORTED); this runner is the only
reader of the candidate's expectations file (conformance/expectations/FORMAT.md): a FAIL the
file lists as FAIL is an XFAIL, a listed case that passes an XPASS, a crash or hang it lists
as CRASH or TIMEOUT an XFAIL. Nothing else is expected.

A testee (--testee) is any program that speaks conformance/protocol/PROTOCOL.md on its stdin
and stdout, in any language, kept in the library's own repository with its expectations
file: the suites run in the binary of the candidate "testee", which starts CMD (through
/bin/sh, in the directory `bazel run` was started from) once per process. The Python kit
(conformance/protocol/python/tcts_testee.py) is on the testee's PYTHONPATH. The report's
candidate name and version are the testee's own (its handshake); --candidate only labels the
output folder (default: testee).

Isolation: every suite binary runs as child processes, each with a list of cases and a
result stream (conformance/harness/stream.h) that it flushes case by case. When a process dies
(a signal, or an exit before its list is done) the case it had started is a CRASH; when a
case makes no progress for --case-timeout seconds the process group is killed and the case
is a TIMEOUT. Either way a new process resumes after that case, so every other case is
still run and reported. Cases are spread over --jobs processes per suite, round-robin.

Verdict (report.json summary.verdict): CONFORMS when nothing unexpected happened (no FAIL,
XPASS, CRASH, TIMEOUT or stale expectation), no required feature (spec/features.toml)
answered NotSupported and every required dtype (the doc's twelve, spec/dtypes.toml) is
declared; CONFORMS PARTIALLY when nothing unexpected happened but a required feature answered
NotSupported or a required dtype is not declared (the report lists them and the cases each
cost: a case whose row needs an undeclared dtype is NOT_SUPPORTED and not run), or no case
was exercised at all; DOES NOT CONFORM otherwise.

Exit status: 0 CONFORMS; 3 CONFORMS PARTIALLY (0 with --partial-ok); 1 DOES NOT CONFORM;
2 bad usage or bad input (an expectations file that breaks the grammar, a suite binary
missing from the build, another run writing into the same --out); 4 the report could not be
written (an unwritable --out, a full disk: the message names the path and the error; the
previous report is left as it was); 128 + N interrupted by signal N (SIGINT: 130, SIGTERM:
143; the suite processes and testees are killed, the previous report is left as it was).

The output folder: report.json, report.md and report.html are each written to a temporary
file and renamed over the old one, so a run killed at any moment leaves each file whole
(the previous run's or the new one). Logs go to a temporary folder in --out during the run
and replace, once the report is written, only the logs a previous run wrote (listed in
logs/.tcts-logs): other files in logs/ are never touched. A lock (.tcts-run.lock, fcntl)
refuses a second run into the same --out while one is running.

Under `bazel test` (the conformance_test macro in bazel/tcts.bzl runs this runner on one
suite binary) it honours the test environment: XML_OUTPUT_FILE gets a JUnit XML with one
<testcase> per case (XFAIL passes, NOT_SUPPORTED is skipped, FAIL/XPASS/CRASH/TIMEOUT fail);
TEST_TOTAL_SHARDS/TEST_SHARD_INDEX pick this shard's round-robin share of the cases (and
TEST_SHARD_STATUS_FILE is touched); TESTBRIDGE_TEST_ONLY (--test_filter) selects cases by
their GoogleTest name (POSITIVE[-NEGATIVE] patterns, ':'-separated); the report goes to
TEST_UNDECLARED_OUTPUTS_DIR. Stale expectations are checked only by a run of every suite,
unfiltered and unsharded (the main job) and by //conformance:expectations_<candidate>_test:
one suite cannot tell whether an entry for another suite's cases is stale.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import datetime
import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "reports"))
import expectations as expectations_file  # noqa: E402
import features as features_file  # noqa: E402

DEFAULT_CASE_TIMEOUT = 120.0
DEFAULT_FEATURES = "spec/features.toml"
DEFAULT_STATEMENTS = "spec/statements.toml"

EXIT_CONFORMS, EXIT_DOES_NOT_CONFORM, EXIT_USAGE, EXIT_PARTIAL, EXIT_OUTPUT = 0, 1, 2, 3, 4
LOG_TAIL_BYTES = 64 * 1024  # of a crashed process's log, read for its case's message
LOG_LINE_CHARS = 500  # each of the tail's lines, at most
LOGS_MANIFEST = ".tcts-logs"  # in <out>/logs: the files the last run wrote there


class UsageError(Exception):
    pass


class Interrupted(BaseException):
    """SIGINT or SIGTERM reached the runner."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@dataclasses.dataclass
class Options:
    candidate: str = "reference"
    testee: str = ""  # a testee command line: the suites run against it (PROTOCOL.md)
    expectations_shown: str = ""
    suites: list = dataclasses.field(default_factory=list)
    out: str = ""
    log_dir: str = ""  # where this run's logs go until the report is written (in --out)
    filter: str = ""
    jobs: int = 0
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    seed: str = ""
    expectations: str = ""
    replay: str = ""
    command: str = ""
    device: str = ""
    device_suites: list = dataclasses.field(default_factory=list)
    binary: str = ""
    in_process: list = dataclasses.field(default_factory=list)  # --in-process: the in-tree candidates
    known_testees: dict = dataclasses.field(default_factory=dict)  # --known-testee NAME=CMD
    target: str = ""
    features: str = DEFAULT_FEATURES
    statements: str = DEFAULT_STATEMENTS
    stale_check: bool | None = None
    partial_ok: bool = False
    trace: bool = False  # --trace: record a testee's exchange per case (out/<candidate>/trace/)
    write_expectations: str = ""  # --write-expectations=FILE: a fresh file listing this run's deviations
    update_expectations: str = ""  # --update-expectations=FILE
    test_filter: str = ""  # TESTBRIDGE_TEST_ONLY (bazel test --test_filter)
    shard: tuple = (0, 1)  # TEST_SHARD_INDEX, TEST_TOTAL_SHARDS
    rerun: str = ""  # the command a case's rerun adds its id to (rerun_base), "" for the target's


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _number(kind, least, what):
    def convert(value):
        try:
            n = kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{value}' is not a number") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"{what} must be at least {least}, got {value}")
        return n
    return convert


def _seed(value):
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"'{value}': the seed is a non-negative integer")
    return value


def _names(value):
    return [s for s in value.split(",") if s]


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="run.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                allow_abbrev=False)
    p.add_argument("replay_file", nargs="?", metavar="FILE", help="a replay case file (conformance/replay/REPLAY.md)")
    p.add_argument("--candidate", default=None, metavar="NAME",
                   help="the candidate (default: reference); its expectations file is "
                        "conformance/expectations/NAME.txt unless --expectations says otherwise")
    p.add_argument("--testee", default="", metavar="'CMD ARGS'",
                   help="run the suites against a testee program speaking conformance/protocol/PROTOCOL.md "
                        "(run by /bin/sh in the directory bazel run was started from); needs --expectations "
                        "unless conformance/expectations/<--candidate>.txt exists")
    p.add_argument("--out", default="", metavar="DIR",
                   help="where report.json, report.md, report.html and the logs go (default: "
                        "<workspace>/out/<candidate>, out/<candidate>-<device>, out/replay-<candidate>; "
                        "under bazel test: TEST_UNDECLARED_OUTPUTS_DIR)")
    p.add_argument("--filter", default="", metavar="GLOB",
                   help="run only the cases whose id matches this glob ('*', '?'); no stale check then")
    p.add_argument("--jobs", type=_number(int, 1, "--jobs"), default=0, metavar="N",
                   help="processes at once (default: the number of CPUs; 1 under bazel test)")
    p.add_argument("--case-timeout", type=_number(float, 0.1, "--case-timeout"), default=DEFAULT_CASE_TIMEOUT,
                   metavar="S", help="seconds a case may run before it is a TIMEOUT (default %(default)g)")
    p.add_argument("--seed", type=_seed, default=None, metavar="N",
                   help="the RapidCheck seed (default: a random one, recorded in the report)")
    p.add_argument("--expectations", default="", metavar="FILE", help="the expectations file to apply")
    p.add_argument("--device", default="", metavar="DEVICE",
                   help="run the suites that apply to any device (promotion, casting, strided, arithmetic) with "
                        "every tensor on DEVICE ('cuda', 'cuda:1'); a candidate that cannot use DEVICE here has "
                        "every case NOT_SUPPORTED, with the reason")
    p.add_argument("--partial-ok", action="store_true",
                   help="exit 0 for CONFORMS PARTIALLY (a suite's test target passes when nothing unexpected "
                        "happened; NOT_SUPPORTED cases are skipped test cases)")
    p.add_argument("--stale-check", action=argparse.BooleanOptionalAction, default=None,
                   help="report expectations entries that match no case run (default: on for an unfiltered, "
                        "unsharded run of the suites, off for --filter, --device, replay and test filters)")
    p.add_argument("--trace", action="store_true",
                   help="with --testee: record the lines sent to the testee and its answers, per case; each case that "
                        "does not pass gets OUT/trace/<case id>.jsonl (its handshake and its requests), linked from the "
                        "report with a repro command that needs no Bazel (conformance/runner/repro.py)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--write-expectations", default="", metavar="FILE",
                       help="after the run, write FILE listing every deviation of the run (UNREVIEWED reasons to "
                            "replace; conformance/runner/write_expectations.py)")
    which.add_argument("--update-expectations", default="", metavar="FILE",
                       help="after the run, update FILE: keep the entries whose cases still deviate, narrow or drop "
                            "the others (XPASS, stale), add the new deviations")
    p.add_argument("--features", default=DEFAULT_FEATURES, metavar="FILE", help="feature levels (default %(default)s)")
    p.add_argument("--statements", default=DEFAULT_STATEMENTS, metavar="FILE",
                   help="the documents' statements and the spec rows that test them, for the report's spec coverage "
                        "(default %(default)s)")
    # From the BUILD targets.
    p.add_argument("--suites", type=_names, default=[], metavar="A,B", help="the suites (the BUILD target passes them)")
    p.add_argument("--device-suites", type=_names, default=[], metavar="A,B",
                   help="the suites --device runs (the BUILD target passes them)")
    p.add_argument("--replay", default="", metavar="FILE", help="the replay file (as the positional FILE)")
    p.add_argument("--binary", default="", metavar="PATH",
                   help="the candidate's binary holding the suites (default conformance/<candidate>_bin)")
    p.add_argument("--in-process", type=_names, default=[], metavar="A,B",
                   help="the in-tree candidates with a binary //conformance:<name>_bin (the BUILD target passes "
                        "them); one whose binary is not in this run's data is built on demand")
    p.add_argument("--known-testee", action="append", default=[], metavar="NAME=CMD",
                   help="a testee kept in this repository (the BUILD target passes them): --candidate=NAME "
                        "runs it with CMD, as --testee=CMD would")
    p.add_argument("--target", default="", metavar="LABEL",
                   help="the Bazel test that reruns a case (one suite's, or a replay file's; default "
                        "//conformance:<suite>_<candidate>)")
    return p


def parse_args(argv: list[str], environ=None) -> Options:
    environ = os.environ if environ is None else environ
    a = make_parser().parse_args(argv)
    o = Options(candidate=a.candidate, testee=a.testee, suites=a.suites, out=a.out, filter=a.filter, jobs=a.jobs,
                case_timeout=a.case_timeout, seed=a.seed or "", expectations=a.expectations, replay=a.replay,
                device="" if a.device == "cpu" else a.device, device_suites=a.device_suites, binary=a.binary,
                target=a.target, features=a.features, statements=a.statements, stale_check=a.stale_check,
                partial_ok=a.partial_ok, in_process=a.in_process, write_expectations=a.write_expectations,
                update_expectations=a.update_expectations, trace=a.trace)
    for spec in a.known_testee:
        name, sep, command = spec.partition("=")
        if not (name and sep and command):
            raise UsageError(f"--known-testee={spec!r}: expected NAME=CMD")
        o.known_testees[name] = command
    if not o.testee and o.candidate in o.known_testees:
        o.testee = o.known_testees[o.candidate]
    if o.candidate is None:
        o.candidate = "testee" if o.testee else "reference"
    if a.replay_file:
        if o.replay:
            raise UsageError(f"one replay file at most, got {a.replay_file} and --replay={o.replay}")
        o.replay = a.replay_file
    if o.device:
        if o.replay:
            raise UsageError("--device runs the spec's suites, not a replay file")
        if o.device_suites:
            o.suites = o.device_suites
    if not o.suites and not o.replay:
        raise UsageError("no --suites given (the BUILD target passes them)")
    if o.trace and not o.testee:
        raise UsageError("--trace records a testee's exchange: give --testee (in-process candidates have the rerun "
                         "command)")
    if o.target and not o.replay and len(o.suites) != 1:
        raise UsageError("--target names one suite's test (or a replay's): give exactly one --suites")
    if o.binary and o.replay:
        raise UsageError("--binary names the suites' binary, not the replay runner")
    # bazel test's protocol (the test encyclopedia): filter, shards.
    o.test_filter = environ.get("TESTBRIDGE_TEST_ONLY", "")
    total = environ.get("TEST_TOTAL_SHARDS", "")
    if total and total != "0":
        try:
            o.shard = (int(environ.get("TEST_SHARD_INDEX", "0")), int(total))
        except ValueError:
            raise UsageError(f"TEST_TOTAL_SHARDS={total!r}, TEST_SHARD_INDEX={environ.get('TEST_SHARD_INDEX')!r}")
        if not 0 <= o.shard[0] < o.shard[1]:
            raise UsageError(f"TEST_SHARD_INDEX={o.shard[0]} is not below TEST_TOTAL_SHARDS={o.shard[1]}")
    whole = not (o.filter or o.replay or o.device or o.test_filter or o.shard[1] > 1)
    if o.stale_check is None:
        o.stale_check = whole
    elif o.stale_check and not whole:
        raise UsageError("--stale-check needs every case of the suites: no --filter, --device, replay, "
                         "test filter or shard")
    o.jobs = o.jobs or (1 if "TEST_TARGET" in environ else os.cpu_count() or 1)
    return o


def user_path(path: str) -> str:
    """A path the user typed, relative to where they ran `bazel run`."""
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()), os.path.expanduser(path))


def gtest_filter(text: str):
    """A matcher for GoogleTest's filter syntax over full test names ("Suite.Name"):
    POSITIVE[-NEGATIVE], each a ':'-separated list of globs ('*', '?'); an empty positive
    part means '*'."""
    positive, _, negative = text.partition("-")
    pos = [expectations_file.compile_glob(g) for g in (positive.split(":") if positive else ["*"]) if g]
    neg = [expectations_file.compile_glob(g) for g in negative.split(":") if g]
    return lambda name: any(m(name) for m in pos) and not any(m(name) for m in neg)


# ---------------------------------------------------------------- suites and their cases
@dataclasses.dataclass
class Suite:
    """A binary and the suites it runs: every suite of the run in the candidate's one binary
    (<candidate>_bin, narrowed with --tcts_suites), or the replay runner."""
    name: str
    binary: str
    args: list
    spec_file: str  # "" when each case's suite names its spec file


@dataclasses.dataclass
class ListedCase:
    test: str
    id: str
    kind: str
    clause: str
    basis: str
    statement: str
    rerun: str
    answer: str  # the row's expected answer as data ("int16", "true", "ok"), "" for none
    suite: str  # the conformance suite the case belongs to
    spec_row: str = ""  # the spec/*.toml row the case comes from (RowMeta::spec_row), "" for none


def listed_case(fields: dict, default_suite: str) -> ListedCase:
    """A case as a binary lists it; a test no suite registered (the replay runner's) belongs
    to the binary's own suite."""
    return ListedCase(**{**fields, "suite": fields.get("suite") or default_suite})


def suites_for(o: Options) -> list[Suite]:
    common = [f"--candidate={'testee' if o.testee else o.candidate}"] + (
        [f"--device={o.device}"] if o.device else [])
    if o.replay:  # a case reruns through its test (--target) or this run's command (rerun_base)
        rerun = [f"--target={o.target}"] if o.target else [f"--rerun={o.rerun}"] if o.rerun else []
        return [Suite("replay", "conformance/replay/replay_runner", common + [f"--replay={o.replay}"] + rerun,
                      os.path.basename(o.replay))]
    # The rerun command names each case's own suite test (the harness fills in {suite}), or,
    # where no such test exists, this run's command (rerun_base) narrowed to the case.
    rerun = f"--rerun={o.rerun}" if o.rerun else f"--target={o.target or '//conformance:{suite}_' + o.candidate}"
    return [Suite(o.candidate, o.binary or f"conformance/{'testee' if o.testee else o.candidate}_bin",
                  common + [f"--tcts_suites={','.join(o.suites)}", rerun], "")]


def list_cases(suite: Suite, selection: list, tmp: str) -> list[ListedCase]:
    """The cases a selection names (all, when it is empty), asked of the binary without
    running any."""
    path = os.path.join(tmp, f"{suite.name}.list")
    p = subprocess.run([suite.binary, *suite.args, *selection, f"--tcts_list={path}"], capture_output=True, text=True,
                       env=child_env(TESTEE_ENV))
    if p.returncode != 0 or not os.path.exists(path):
        tail = "\n".join("  | " + l for l in (p.stdout + p.stderr).strip().splitlines()[-8:])
        raise UsageError(f"{suite.binary} could not list its cases (exit {p.returncode}):\n{tail}")
    columns = [f.name for f in dataclasses.fields(ListedCase)]
    with open(path, encoding="utf-8") as f:
        return [listed_case(dict(zip(columns, line.split("\t"))), suite.name) for line in f.read().splitlines()]


# ---------------------------------------------------------------- isolated execution
@dataclasses.dataclass
class Unit:
    """Work for one process: a round-robin share of a suite (first attempt), or the tests
    still to run after a crash or hang (a resume)."""
    suite: Suite
    selection: list  # the binary's selection flags
    tests: list | None = None  # full test names in run order; None until the process says
    shard: tuple = (0, 1)


class Process:
    """One suite binary working through a unit's tests, read through its result stream."""

    def __init__(self, unit: Unit, o: Options, seed: str, workdir: str, serial: int, announce: bool):
        self.unit = unit
        self.stream_path = os.path.join(workdir, f"{unit.suite.name}.{serial}.jsonl")
        self.log_path = os.path.join(o.log_dir or os.path.join(o.out, "logs"), f"{unit.suite.name}.{serial}.log")
        self.log = open(self.log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [unit.suite.binary, *unit.suite.args, f"--seed={seed}", *unit.selection,
             f"--tcts_stream={self.stream_path}"] + (["--tcts_announce_features"] if announce else []),
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=child_env(TESTEE_ENV))
        self.offset = 0
        self.partial = ""
        self.last_progress = time.monotonic()
        self.current = None  # the test running now (its start event came, its end did not)
        self.ended: dict[str, dict] = {}
        self.begin = None
        self.done = False
        self.broken = ""  # why the result stream cannot be read on (a line that is no event)

    def poll_stream(self) -> None:
        try:
            with open(self.stream_path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        if not data:
            return
        self.offset += len(data)
        self.partial += data.decode("utf-8", errors="replace")
        *lines, self.partial = self.partial.split("\n")
        for line in lines:
            if not line.strip() or self.broken:
                continue
            try:
                event = json.loads(line)
                self.last_progress = time.monotonic()
                kind = event["event"]
                if kind == "begin":
                    tests = [c["test"] for c in event["cases"]]
                    if not all(isinstance(t, str) for t in tests):
                        raise ValueError("a case without a test name")
                    self.begin = event
                    if self.unit.tests is None:
                        self.unit.tests = tests
                elif kind in ("start", "end"):
                    test = event["test"]
                    if self.unit.tests is None or test not in self.unit.tests:
                        raise ValueError(f"a {kind} event for a test not in its list")
                    if kind == "start":
                        self.current = test
                    else:
                        self.ended[test] = event
                        self.current = None
                elif kind == "done":
                    self.done = True
            except (ValueError, KeyError, TypeError, RecursionError) as e:
                # Not the harness's writing: the case it was in is a CRASH, the rest resumes.
                self.broken = f"its result stream has a line that is not an event ({e}): {line[:200]!r}"

    def kill(self) -> None:
        """Kills its process group (the suite binary, its testee, their children)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def close(self) -> None:
        self.log.close()

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of its log, read from at most its last LOG_TAIL_BYTES bytes, each
        line cut to LOG_LINE_CHARS characters (a testee may write gigabytes)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - LOG_TAIL_BYTES))
                data = f.read(LOG_TAIL_BYTES)
        except OSError as e:
            return f"(its log {self.log_path} cannot be read: {e.strerror})"
        text = data.decode("utf-8", errors="replace").rstrip()
        tail = [l if len(l) <= LOG_LINE_CHARS else l[:LOG_LINE_CHARS] + f"... ({len(l) - LOG_LINE_CHARS} more characters)"
                for l in text.splitlines()[-lines:]]
        return "\n".join(tail)


# Variables by which a test environment (bazel test) steers a test: a suite process must
# neither overwrite the enclosing test's XML nor shard or filter itself (the runner does).
TEST_ENVIRONMENT = ("XML_OUTPUT_FILE", "GTEST_OUTPUT", "GUNIT_OUTPUT", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                    "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_SHARD_STATUS_FILE", "GTEST_SHARD_STATUS_FILE",
                    "TEST_PREMATURE_EXIT_FILE", "TESTBRIDGE_TEST_ONLY", "TEST_TARGET")


TESTEE_ENV: dict = {}  # TCTS_TESTEE and the like, for --testee (set by main)


def testee_env(o: Options) -> dict:
    """What the candidate "testee" needs to start the testee: the command, the directory it
    runs in (where the user started bazel run), the Python kit on its PYTHONPATH."""
    kit = os.path.abspath("conformance/protocol/python")
    path = os.environ.get("PYTHONPATH", "")
    return {"TCTS_TESTEE": o.testee, "TCTS_TESTEE_CWD": os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()),
            "PYTHONPATH": kit + (os.pathsep + path if path else "")}


def child_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in TEST_ENVIRONMENT}
    env.update(extra or {})
    return env


def exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode} before its case list was done"


class Runner:
    def __init__(self, o: Options, seed: str, entries: list, workdir: str):
        self.o, self.seed, self.entries, self.workdir = o, seed, entries, workdir
        self.listed: dict[tuple, ListedCase] = {}  # (suite, test) -> case, from the processes
        self.order: dict[tuple, tuple] = {}  # (binary, test) -> sort key: the case's suite, then run order
        self.records: dict[tuple, dict] = {}  # (suite, test) -> case record
        self.used: dict[tuple, list] = {}  # (suite, test) -> the features its checks used
        self.candidate = None
        self.declared: dict[str, bool] | None = None  # feature -> supported, from the begin event
        self.announced: list[str] = []  # every feature of the interface, in order
        self.dtypes: list[dict] | None = None  # every dtype: required, declared (the begin event)
        self.tensor_device: str | None = None  # the device the candidate's tensors claim (the begin event)
        self.serial = 0
        self.processes = 0
        self.isolated = 0  # processes that crashed or hung

    def run(self, units: list[Unit]) -> None:
        queue = list(units)
        running: list[Process] = []
        try:
            self._run(queue, running)
        except BaseException:
            # Interrupted (or a runner error): no suite process or testee outlives the runner.
            for p in running:
                p.kill()
                p.close()
            raise

    def _run(self, queue: list, running: list) -> None:
        while queue or running:
            while queue and len(running) < self.o.jobs:
                self.serial += 1
                self.processes += 1
                # Asking for the declarations may cost the candidate (the reference starts the
                # CUDA runtime): only until a process has answered.
                running.append(Process(queue.pop(0), self.o, self.seed, self.workdir, self.serial,
                                       announce=self.declared is None))
            time.sleep(0.01)
            for p in list(running):
                p.poll_stream()
                finished = p.proc.poll() is not None
                hung = not finished and not p.broken and time.monotonic() - p.last_progress > self.o.case_timeout
                if not (finished or hung or p.broken):
                    continue
                p.poll_stream()
                # Whatever of its process group is left (a testee's daemon child) goes with it.
                p.kill()
                running.remove(p)
                p.close()
                rest = self.collect(p, hung)
                if rest:
                    queue.insert(0, self.resume(p.unit, rest))

    def resume(self, unit: Unit, tests: list) -> Unit:
        self.serial += 1
        path = os.path.join(self.workdir, f"{unit.suite.name}.{self.serial}.cases")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(tests) + "\n")
        return Unit(unit.suite, [f"--tcts_cases={path}"], list(tests), unit.shard)

    def learn(self, unit: Unit, cases: list[ListedCase]) -> None:
        i, k = unit.shard
        suites = self.o.suites
        for pos, c in enumerate(cases):
            key = (unit.suite.name, c.test)
            if key not in self.listed:
                self.listed[key] = c
                self.order[key] = (suites.index(c.suite) if c.suite in suites else len(suites), pos * k + i)

    def collect(self, p: Process, hung: bool) -> list[str]:
        """Records what process p reported; returns the tests still to run after a crash or hang."""
        suite = p.unit.suite
        if p.begin is None:
            if p.proc.returncode == 2:  # the runner refused its arguments: not the candidate's doing
                raise UsageError(f"{suite.binary} exited 2 before its first case:\n{p.log_tail()}")
            cases = list_cases(suite, p.unit.selection, self.workdir)
            self.learn(p.unit, cases)
            if p.unit.tests is None:
                p.unit.tests = [c.test for c in cases]
        else:
            if not self.candidate:
                self.candidate = p.begin["candidate"]
            if self.declared is None and "features" in p.begin:
                self.declared = {f["name"]: bool(f["supported"]) for f in p.begin["features"]}
                self.announced = [f["name"] for f in p.begin["features"]]
            if self.dtypes is None and "dtypes" in p.begin:
                self.dtypes = p.begin["dtypes"]
            if self.tensor_device is None and p.begin.get("device"):
                self.tensor_device = p.begin["device"]
            self.learn(p.unit, [listed_case(c, suite.name) for c in p.begin["cases"]])
        for test, event in p.ended.items():
            try:
                self.records[(suite.name, test)] = self.case_record(suite, event)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                self.records[(suite.name, test)] = self.isolated_record(
                    suite, test, "CRASH", f"its end event in the result stream is malformed ({e!r})"[:300], "")
        left = [t for t in p.unit.tests if t not in p.ended]
        if p.done and not hung and not p.broken:
            if left:
                raise RuntimeError(f"{suite.binary} finished without running {left[:3]} (a runner bug)")
            if p.proc.returncode not in (0, 1):
                print(f"run: {suite.binary} exited {p.proc.returncode} after its last case", file=sys.stderr)
            return []
        self.isolated += 1
        outcome = "TIMEOUT" if hung else "CRASH"
        what = (f"no progress for {self.o.case_timeout:g} s; the process was killed" if hung
                else p.broken + "; the process was killed" if p.broken
                else exit_description(p.proc.returncode))
        if p.current is not None:
            self.records[(suite.name, p.current)] = self.isolated_record(suite, p.current, outcome, what, p.log_tail())
            return [t for t in left if t != p.current]
        if p.ended:
            return left  # it died between cases: resume with the rest
        # It died (or hung) before its first case: every case it had gets the outcome.
        for t in left:
            self.records[(suite.name, t)] = self.isolated_record(
                suite, t, outcome, what + " before its first case", p.log_tail())
        return []

    def case_record(self, suite: Suite, e: dict) -> dict:
        """The record of a case its process finished: the raw outcome it streamed, with the
        candidate's expectations applied (FAIL listed as FAIL -> XFAIL, PASS listed -> XPASS)."""
        c = self.listed[(suite.name, e["test"])]
        mismatches = e.get("mismatches", [])
        raw = e["outcome"]
        checks = e.get("checks") or {}
        failed_checks = tuple(sorted(k for k, v in checks.items() if v == "FAIL"))
        outcome, entry, reason = expectations_file.apply(self.entries, c.id, raw, failed_checks)
        message = e.get("message", "").strip()
        if raw == "FAIL" and e.get("unclassified") and outcome == "XFAIL":
            # A failure outside the case's checks (an exception, no verdict) is never the
            # listed deviation.
            outcome, reason = "FAIL", f"listed as FAIL ({entry.reason}), but it failed outside its checks"
        if outcome == "XPASS":
            message = (f"listed in {entry.path or self.o.expectations}:{entry.line} ({entry.pattern} {entry.outcome}, reason: "
                       f"{entry.reason}) but the candidate now matches the spec; remove the entry.\n" + message).strip()
        passed = raw == "PASS"
        record = {
            "id": c.id, "test": c.test, "suite": c.suite, "spec_file": suite.spec_file or f"spec/{c.suite}.toml",
            "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": outcome,
            **({"answer": c.answer} if c.answer else {}),
            **({"spec_row": c.spec_row} if c.spec_row else {}),
            "expected": mismatches[0]["expected"] if mismatches else c.statement,
            "observed": mismatches[0]["observed"] if mismatches else ("as expected" if passed else ""),
            "mismatches": mismatches, "reason": reason, "message": message,
            "rerun": c.rerun, "duration_ms": e.get("ms"),
        }
        if raw == "NOT_SUPPORTED":
            record["observed"] = f"NotSupported: {e.get('not_supported', '')}"
            if e.get("feature"):
                record["feature"] = e["feature"]
            if e.get("dtype"):
                record["dtype"] = e["dtype"]
        if e.get("features"):
            self.used[(suite.name, c.test)] = e["features"]
            record["features"] = list(e["features"])
        if e.get("skipped_checks"):
            record["skipped_checks"] = e["skipped_checks"]
        if checks:
            record["checks"] = dict(checks)
        if c.kind == "property":
            record["seed"] = self.seed
            if "draws" in e:
                record["draws"] = e["draws"]
            if raw == "FAIL":
                record["counterexample"] = e.get("message", "").strip()
                record["observed"] = record["counterexample"].splitlines()[0] if record["counterexample"] else "falsified"
        elif raw == "FAIL" and not mismatches:
            text = e.get("message", "").strip()
            record["observed"] = text.splitlines()[0] if text else "failed"
        return record

    def isolated_record(self, suite: Suite, test: str, outcome: str, what: str, log: str) -> dict:
        c = self.listed[(suite.name, test)]
        decided, _, reason = expectations_file.apply(self.entries, c.id, outcome)
        record = {
            "id": c.id, "test": test, "suite": c.suite, "spec_file": suite.spec_file or f"spec/{c.suite}.toml",
            "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": decided,
            **({"answer": c.answer} if c.answer else {}),
            **({"spec_row": c.spec_row} if c.spec_row else {}),
            "expected": c.statement, "observed": f"{outcome}: {what}", "mismatches": [], "reason": reason,
            "message": log, "rerun": c.rerun,
            "duration_ms": None, "isolated": outcome,
        }
        if c.kind == "property":
            record["seed"] = self.seed
        return record


# ---------------------------------------------------------------- the job
def units_for(suites: list[Suite], o: Options, workdir: str) -> list[Unit]:
    """Each suite's cases (this Bazel shard's round-robin share of them) in --jobs
    round-robin shares. Without a filter the binary takes its share itself (--tcts_shard);
    with --filter (case-id glob) or a test filter (GoogleTest names) the runner lists every
    case, keeps the chosen ones (expectations.py's glob: the project's one glob) and hands
    each process its share as a case file."""
    index, shards = o.shard
    k = shards * o.jobs
    if not (o.filter or o.test_filter):
        # Case n goes to share n % k; this shard's cases are those with n % shards == index.
        return [Unit(s, [f"--tcts_shard={index + shards * i}/{k}"], shard=(index + shards * i, k))
                for s in suites for i in range(o.jobs)]
    by_id = expectations_file.compile_glob(o.filter) if o.filter else (lambda _: True)
    by_name = gtest_filter(o.test_filter) if o.test_filter else (lambda _: True)
    units = []
    for s in suites:
        chosen = [c.test for c in list_cases(s, [], workdir) if by_id(c.id) and by_name(c.test)][index::shards]
        for i in range(o.jobs):
            share = chosen[i::o.jobs]
            if share:
                path = os.path.join(workdir, f"{s.name}.chosen.{i}.cases")
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(share) + "\n")
                units.append(Unit(s, [f"--tcts_cases={path}"], list(share), shard=(i, o.jobs)))
    return units


def feature_table(rows: list[dict], runner: "Runner", cases: list[dict]) -> list[dict]:
    """Per feature: its level, whether the candidate declared it, the cases whose checks used
    it, and the cases NOT_SUPPORTED because of it."""
    used: dict[str, int] = {}
    for names in runner.used.values():
        for n in names:
            used[n] = used.get(n, 0) + 1
    missing: dict[str, int] = {}
    for c in cases:
        if c["outcome"] == "NOT_SUPPORTED" and c.get("feature"):
            missing[c["feature"]] = missing.get(c["feature"], 0) + 1
    declared = runner.declared or {}
    return [{"name": r["name"], "level": r["level"], "clause": r["clause"], "basis": r["basis"], "reason": r["reason"],
             "declared": declared.get(r["name"]), "cases": used.get(r["name"], 0),
             "not_supported": missing.get(r["name"], 0)} for r in rows]


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def rerun_base(o: Options, expectations_given: str) -> str:
    """The command that reruns a case of this run, less the case's --filter (the binary adds it,
    and the seed for a property: --rerun): `bazel run //conformance:run` (or `:replay` and the
    file) with this run's candidate, testee, expectations and device. Used where a suite's
    `bazel test` target does not exist or would not run the case as this run did: a replay, a
    testee (its command and expectations file are the user's, not a target's) and a run on a
    device. "" where the suite's target is right: a suite's or replay's own test (--target), a
    plain candidate run."""
    if o.target or not (o.replay or o.testee or o.device):
        return ""
    parts = [run_command(o)] + ([_quoted(o.replay)] if o.replay else [])
    if o.testee and o.known_testees.get(o.candidate) != o.testee:  # a testee kept here goes by its name
        parts.append(f"--testee={_quoted(o.testee)}")
    parts.append(f"--candidate={_quoted(o.candidate)}")
    if expectations_given:
        parts.append(f"--expectations={_quoted(expectations_given)}")
    if o.device:
        parts.append(f"--device={_quoted(o.device)}")
    return " ".join(parts)


def stale_entries(entries: list, cases: list[dict]) -> list[dict]:
    """The expectations entries this run shows to be out of date: those that match no case, and
    those that match only NOT_SUPPORTED cases (the candidate's declaration decides those, so the
    entry lists nothing: 'not_supported' counts them). Only meaningful when every case of the
    suites ran. A property NOT_SUPPORTED for a feature is left out of the second kind: whether a
    draw reaches the unsupported call before a deviation depends on the seed (xtensor lists such
    properties), so an entry for it would be stale under some seeds only."""
    def decided(c: dict) -> bool:
        return c["outcome"] == "NOT_SUPPORTED" and not (c["kind"] == "property" and c.get("feature"))

    index = entries if isinstance(entries, expectations_file.Index) else expectations_file.Index(entries)
    ran: set[int] = set()  # the entries that list a case that ran: not stale
    not_supported: collections.Counter = collections.Counter()
    for c in cases:
        for k in index.matching(c["id"]):
            if decided(c):
                not_supported[k] += 1
            else:
                ran.add(k)
    stale = []
    for k, e in enumerate(index.entries):
        if k not in ran:
            n = not_supported[k]
            stale.append({"pattern": e.pattern, "outcome": e.outcome, "reason": e.reason, "line": e.line,
                          **({"not_supported": n} if n else {})})
    return stale


def dtype_table(runner: "Runner", cases: list[dict]) -> list[dict] | None:
    """Per dtype: whether the doc lists it (required), whether the candidate declared it, and
    the cases NOT_SUPPORTED for lack of it; None when no process said (none started a case)."""
    if runner.dtypes is None:
        return None
    missing = collections.Counter(c["dtype"] for c in cases if c["outcome"] == "NOT_SUPPORTED" and c.get("dtype"))
    return [{"name": d["name"], "required": bool(d["required"]), "declared": bool(d["supported"]),
             "not_supported": missing[d["name"]]} for d in runner.dtypes]


def build_on_demand(o: Options, binary: str) -> str:
    """The binary of an in-tree candidate that this run's data does not hold.

    `bazel run //conformance:run` carries only the reference's binary (and the testee's), so a
    newcomer's first run builds nothing else; `--candidate=libtorch` (eigen, xtensor, ...) then
    builds that candidate's binary, and only it, with `bazel build` in the workspace (the
    workspace's .bazelrc applies; `--config` given to `bazel run` does not). TCTS_BAZEL names
    the bazel command (default: bazel on PATH)."""
    label = f"//conformance:{o.candidate}_bin"
    if o.candidate not in o.in_process:
        testees = "".join(f"\n  --candidate={n}  (the testee {c!r})" for n, c in sorted(o.known_testees.items()))
        raise UsageError(f"no binary for the candidate '{o.candidate}': in-process candidates are "
                         f"{', '.join(o.in_process) or 'none'}; a library judged through a testee program runs "
                         f"with --testee='CMD'" + (f"; the testees kept here:{testees}" if testees else ""))
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        raise UsageError(f"{binary} is missing: build {label} and pass --binary=PATH, or use bazel run")
    bazel = os.environ.get("TCTS_BAZEL", "bazel")
    print(f"run: building {label} (the '{o.candidate}' candidate's suites; the main job's own data holds "
          f"the reference's only)", file=sys.stderr, flush=True)
    try:
        built = subprocess.run([bazel, "build", label], cwd=workspace)
        info = subprocess.run([bazel, "info", "bazel-bin"], cwd=workspace, capture_output=True, text=True)
    except OSError as e:
        raise UsageError(f"cannot run {bazel!r} to build {label}: {e}") from None
    if built.returncode != 0 or info.returncode != 0:
        raise UsageError(f"'{bazel} build {label}' failed (exit {built.returncode or info.returncode})")
    return os.path.join(info.stdout.strip(), "conformance", f"{o.candidate}_bin")


# What the BUILD target (or the bundle's launcher) passes: left out of the command a report shows.
BUILD_ARGS = ("--suites=", "--device-suites=", "--in-process=", "--known-testee=", "--binary=")


def run_command(o: Options) -> str:
    """How the user started this run: `bazel run //conformance:run --`, or the suite bundle's
    launcher (conformance/bundle/tcts.in sets TCTS_RUN_COMMAND)."""
    return os.environ.get("TCTS_RUN_COMMAND") or "bazel run //conformance:%s --" % ("replay" if o.replay else "run")


def runner_script(name: str) -> str:
    """How the user names one of the runner's scripts in a command they are told to run: from
    the suite bundle (tcts sets TCTS_RUN_COMMAND), its absolute path in the bundle; in a
    checkout, its path in the repository (the command runs in the workspace)."""
    if os.environ.get("TCTS_RUN_COMMAND"):
        return os.path.join(HERE, name)
    return f"conformance/runner/{name}"


def bazel_command(o: Options, environ) -> str:
    target = environ.get("TEST_TARGET") or o.target or "//conformance:<suite>_<candidate>"
    return f"bazel test {target}" + (f" --test_filter='{o.test_filter}'" if o.test_filter else "") + (
        f" (shard {o.shard[0] + 1} of {o.shard[1]})" if o.shard[1] > 1 else "")


# ---------------------------------------------------------------- --trace
TRACED = ("FAIL", "XFAIL", "XPASS", "CRASH", "TIMEOUT")


def trace_file_name(case_id: str) -> str:
    return urllib.parse.quote(case_id, safe=".-_") + ".jsonl"


def start_traces(o: Options) -> str:
    """--trace: an empty OUT/trace/ and the folder the testee sessions write their raw traces
    into (TCTS_TRACE_DIR, read by conformance/protocol/testee_session.cc); "" without --trace."""
    if not o.trace:
        return ""
    folder = os.path.join(o.out, "trace")
    shutil.rmtree(folder, ignore_errors=True)
    raw = os.path.join(folder, ".raw")
    os.makedirs(raw)
    TESTEE_ENV["TCTS_TRACE_DIR"] = raw
    return raw


def attach_traces(o: Options, runner: "Runner", cases: list[dict], raw: str) -> None:
    """Cuts the sessions' raw traces into OUT/trace/<case id>.jsonl for each case that did not
    pass: a header (the case, the testee command, its directory and environment), the session's
    handshake, then the case's requests and answers. The case record gets `trace` (relative to
    the report) and `repro` (the command that replays it without Bazel: repro.py)."""
    test_to_id = {test: c.id for (_, test), c in runner.listed.items()}
    wanted = {c["id"]: c for c in cases if c["outcome"] in TRACED}
    env = {k: TESTEE_ENV[k] for k in ("PYTHONPATH",) if k in TESTEE_ENV}
    for name in sorted(os.listdir(raw)):
        handshake, per_case, started = [], {}, False
        with open(os.path.join(raw, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                test = r.pop("test", "")
                if not test:
                    if not started:
                        handshake.append(r)
                    continue
                started = True
                case_id = test_to_id.get(test)
                if case_id in wanted:
                    per_case.setdefault(case_id, []).append(r)
        for case_id, records in per_case.items():
            c = wanted[case_id]
            header = {"case": case_id, "outcome": c["outcome"], "expected": c["expected"], "observed": c["observed"],
                      "command": o.testee,
                      "cwd": TESTEE_ENV.get("TCTS_TESTEE_CWD", ""), "env": env}
            rel = os.path.join("trace", trace_file_name(case_id))
            with open(os.path.join(o.out, rel), "w", encoding="utf-8") as f:
                for r in [header] + handshake + records:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            c["trace"] = rel
            c["repro"] = f"/usr/bin/python3 {shlex.quote(runner_script('repro.py'))} {shlex.quote(os.path.join(o.out, rel))}"
    shutil.rmtree(raw, ignore_errors=True)
    TESTEE_ENV.pop("TCTS_TRACE_DIR", None)


# ---------------------------------------------------------------- writing expectations
def expectations_after_run(o: Options, doc: dict, suites: list) -> int | None:
    """--write-expectations / --update-expectations: the file from this run's outcomes (None
    when neither was given: then, when anything was unexpected, the command that would list it
    is printed). Returns None to go on (the run's verdict decides the exit status), or
    EXIT_USAGE when the file could not be written."""
    import write_expectations  # conformance/runner/write_expectations.py
    target = o.write_expectations or o.update_expectations
    unexpected = sum(doc["summary"]["outcomes"].get(k, 0) for k in ("FAIL", "XPASS", "CRASH", "TIMEOUT"))
    if not target:
        if unexpected or (doc["expectations"].get("stale") or []):
            workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY", os.getcwd())
            exp = o.expectations if os.path.isabs(o.expectations) else os.path.join(workspace, o.expectations)
            report = os.path.join(o.out, "report.json")
            if o.stale_check:
                print(f"to list these outcomes in the expectations file (reasons marked UNREVIEWED):\n"
                      f"  cd {shlex.quote(workspace)} && /usr/bin/python3 {shlex.quote(runner_script('write_expectations.py'))} "
                      f"--from-report={shlex.quote(report)} --update={shlex.quote(exp)}")
            else:
                print(f"to list these outcomes in the expectations file (reasons marked UNREVIEWED): rerun with "
                      f"--update-expectations={exp}")
        return None
    ids = [c["id"] for c in doc["cases"]]
    if not o.stale_check and not o.replay:
        with tempfile.TemporaryDirectory(prefix="tcts-list-") as tmp:
            for s in suites:
                ids += [c.id for c in list_cases(s, [], tmp)]
    try:
        for line in write_expectations.run(doc["cases"], doc["candidate"], ids, user_path(o.write_expectations)
                                           if o.write_expectations else "", user_path(o.update_expectations)
                                           if o.update_expectations else "", source=o.command):
            print(f"expectations: {line}")
    except (write_expectations.WriteError, expectations_file.ExpectationsError) as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    return None


def main(argv: list[str]) -> int:
    try:
        o = parse_args(argv)
    except UsageError as e:
        print(f"run: {e}\n(run.py --help lists the options)", file=sys.stderr)
        return EXIT_USAGE
    root = os.path.join(os.environ.get("RUNFILES_DIR", sys.argv[0] + ".runfiles"), "tensor_cts")
    if os.path.isdir(root):
        os.chdir(root)
    in_test = "TEST_TARGET" in os.environ
    if o.shard[1] > 1 and os.environ.get("TEST_SHARD_STATUS_FILE"):
        with open(os.environ["TEST_SHARD_STATUS_FILE"], "a", encoding="utf-8"):
            pass  # tells Bazel this test shards itself
    if o.replay:
        o.replay = user_path(o.replay)
        if not os.path.isfile(o.replay):
            print(f"run: replay file '{o.replay}' does not exist", file=sys.stderr)
            return EXIT_USAGE
    o.rerun = rerun_base(o, o.expectations)
    # As the user named it (or the candidate's file in this repository), for the report.
    o.expectations_shown = o.expectations or f"conformance/expectations/{o.candidate}.txt"
    o.expectations = user_path(o.expectations) if o.expectations else f"conformance/expectations/{o.candidate}.txt"
    if o.testee:
        TESTEE_ENV.update(testee_env(o))
    if o.testee and not os.path.isfile(o.expectations):
        print(f"run: no expectations file {o.expectations}: a testee's expectations live in its own repository; "
              f"name them with --expectations=FILE (an empty file expects full conformance)", file=sys.stderr)
        return EXIT_USAGE
    if not os.path.isfile(o.expectations):
        known = sorted(f[:-4] for f in os.listdir("conformance/expectations") if f.endswith(".txt"))
        print(f"run: unknown candidate '{o.candidate}' (no {o.expectations}); known: {' '.join(known)}", file=sys.stderr)
        return EXIT_USAGE
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY", os.getcwd())
    default_out = f"replay-{o.candidate}" if o.replay else o.candidate + (
        "-" + o.device.replace(":", "_") if o.device else "")
    if o.out:
        o.out = user_path(o.out)
    elif in_test:
        o.out = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
    else:
        o.out = os.path.join(workspace, "out", default_out)
    try:
        os.makedirs(os.path.join(o.out, "logs"), exist_ok=True)
        lock = open(os.path.join(o.out, ".tcts-run.lock"), "a+", encoding="utf-8")
    except OSError as e:
        print(f"run: cannot write into --out {o.out}: {e.strerror} ({e.filename})", file=sys.stderr)
        return EXIT_OUTPUT
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            print(f"run: another run is writing into {o.out} (it holds {lock.name}); wait for it to end, or give "
                  f"another --out", file=sys.stderr)
            return EXIT_USAGE
        try:
            o.log_dir = tempfile.mkdtemp(prefix=".tcts-logs.", dir=o.out)
        except OSError as e:
            print(f"run: cannot write into --out {o.out}: {e.strerror}", file=sys.stderr)
            return EXIT_OUTPUT
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

        def interrupted(signum, frame):
            raise Interrupted(signum)

        for sig in previous:
            signal.signal(sig, interrupted)
        try:
            return run_into(o, argv, in_test)
        except Interrupted as e:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            print(f"\nrun: interrupted by {signal.Signals(e.signum).name}: its processes were killed; "
                  f"{o.out} holds the previous run's report", file=sys.stderr)
            return 128 + e.signum
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            shutil.rmtree(o.log_dir, ignore_errors=True)


def publish_logs(stage: str, logs: str) -> None:
    """Moves this run's logs from `stage` into `logs`, replacing only the files the previous
    run wrote there (its manifest); every other file in `logs` is left alone."""
    manifest = os.path.join(logs, LOGS_MANIFEST)
    try:
        with open(manifest, encoding="utf-8") as f:
            old = [n for n in f.read().splitlines() if n and "/" not in n and n not in (".", "..", LOGS_MANIFEST)]
    except (OSError, UnicodeDecodeError):
        old = []
    for name in old:
        try:
            os.remove(os.path.join(logs, name))
        except FileNotFoundError:
            pass
    names = sorted(os.listdir(stage))
    for name in names:
        os.replace(os.path.join(stage, name), os.path.join(logs, name))
    tmp = manifest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))
    os.replace(tmp, manifest)


def run_into(o: Options, argv: list[str], in_test: bool) -> int:
    """The run, once --out is locked: the suites, the report, then the logs."""
    o.command = bazel_command(o, os.environ) if in_test else "%s %s" % (
        run_command(o), " ".join([a for a in argv if not a.startswith(BUILD_ARGS)]) or "")
    seed = o.seed or str(int.from_bytes(os.urandom(8), "little"))
    try:
        entries = expectations_file.load(o.expectations)
        feature_rows = features_file.load(o.features)
    except (expectations_file.ExpectationsError, features_file.FeaturesError) as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    import report as report_lib  # reports/report.py: needs report_lib.LIBRARIES (Debian's /usr/bin/python3)

    missing = report_lib.missing_libraries()
    if missing:
        print(f"run: writing the report needs {' and '.join(missing)}, which {sys.executable} cannot import "
              f"(Debian: apt-get install {' '.join(missing)}); nothing was run", file=sys.stderr)
        return EXIT_USAGE

    try:
        statements = report_lib.load_statements(o.statements)
    except report_lib.ReportError as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE

    suites = suites_for(o)
    for s in suites:
        if not os.access(s.binary, os.X_OK) and not (o.binary or o.testee or o.replay):
            try:
                s.binary = build_on_demand(o, s.binary)
            except UsageError as e:
                print(f"run: {e}", file=sys.stderr)
                return EXIT_USAGE
        if not os.access(s.binary, os.X_OK):
            print(f"run: {s.binary} is missing from this build", file=sys.stderr)
            return EXIT_USAGE
    start = time.monotonic()
    started_at = datetime.datetime.now(datetime.timezone.utc)
    raw_traces = start_traces(o)
    with tempfile.TemporaryDirectory(prefix="tcts-run-") as workdir:
        runner = Runner(o, seed, expectations_file.Index(entries), workdir)
        try:
            runner.run(units_for(suites, o, workdir))
        except UsageError as e:
            print(f"run: {e}\nrun: no report for {o.candidate}", file=sys.stderr)
            return EXIT_USAGE
    wall = time.monotonic() - start
    if runner.announced:
        try:
            features_file.check(o.features, feature_rows, runner.announced)
        except features_file.FeaturesError as e:
            print(f"run: {e}", file=sys.stderr)
            return EXIT_USAGE
    if not runner.listed:
        if o.filter or o.test_filter:
            print(f"run: no case matches --filter={o.filter}" if o.filter else
                  f"run: no case matches the test filter '{o.test_filter}'", file=sys.stderr)
        elif o.shard[1] > 1:  # more shards than cases: an empty shard passes
            print(f"run: shard {o.shard[0] + 1} of {o.shard[1]} has no cases")
            if os.environ.get("XML_OUTPUT_FILE"):
                import junit  # reports/junit.py
                junit.write_empty(os.environ["XML_OUTPUT_FILE"], os.environ.get("TEST_TARGET", "tcts"))
            return EXIT_CONFORMS
        else:
            print("run: the suites have no cases", file=sys.stderr)
        return EXIT_USAGE

    names = ["replay"] if o.replay else o.suites
    keys = sorted(runner.listed, key=lambda k: runner.order[k])
    cases = [runner.records[k] for k in keys]
    if raw_traces:
        attach_traces(o, runner, cases, raw_traces)
    stale = stale_entries(runner.entries, cases) if o.stale_check else None
    doc = report_lib.build(
        candidate=runner.candidate or {"name": o.candidate, "version": "", "build": ""},
        run={"command": o.command, "suites": names, "filter": o.filter,
             "device": runner.tensor_device or o.device or "cpu", "seed": seed,
             "jobs": o.jobs, "case_timeout_s": o.case_timeout, "processes": runner.processes,
             "isolated_processes": runner.isolated, "started": started_at.isoformat(timespec="seconds"),
             "wall_s": round(wall, 3), "replay_file": o.replay or None},
        expectations={"file": o.expectations_shown,
                      "entries": len(entries), "stale": stale,
                      "unreviewed": len({e.reason for e in entries if e.unreviewed})},
        features=feature_table(feature_rows, runner, cases),
        cases=cases, coverage=report_lib.spec_coverage(statements, cases, o.statements),
        dtypes=dtype_table(runner, cases))
    try:
        paths = report_lib.write_all(doc, o.out)
        publish_logs(o.log_dir, os.path.join(o.out, "logs"))
    except OSError as e:
        print(f"run: cannot write the report into {o.out}: {e.strerror} ({e.filename}); the previous report's "
              f"files there are whole", file=sys.stderr)
        return EXIT_OUTPUT
    if os.environ.get("XML_OUTPUT_FILE"):
        import junit  # reports/junit.py
        junit.write(os.environ["XML_OUTPUT_FILE"], doc, os.environ.get("TEST_TARGET") or o.target or "tcts")
    print(report_lib.text_summary(doc))
    print(f"wall time: {wall:.3f} s for {len(names)} suite(s), {runner.processes} process(es), "
          f"{runner.isolated} isolated after a crash or hang")
    print("report: " + ", ".join(paths))
    written = expectations_after_run(o, doc, suites)
    if written is not None:
        return written
    verdict = doc["summary"]["verdict"]
    if verdict == "CONFORMS":
        return EXIT_CONFORMS
    if verdict == "CONFORMS PARTIALLY":
        return EXIT_CONFORMS if o.partial_ok else EXIT_PARTIAL
    return EXIT_DOES_NOT_CONFORM


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
