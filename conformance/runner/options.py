"""The run's options: its flags, and the environment it was started in, read once.

This is the only module of the runner that reads the process environment. Everything the
other modules need from it is a field of Options:

- `bazel run` (BUILD_WORKING_DIRECTORY: where the user is; BUILD_WORKSPACE_DIRECTORY: the
  workspace, for out/ and for building a candidate on demand; RUNFILES_DIR),
- `bazel test` (TEST_TARGET, TESTBRIDGE_TEST_ONLY, TEST_TOTAL_SHARDS/TEST_SHARD_INDEX,
  TEST_SHARD_STATUS_FILE, XML_OUTPUT_FILE, TEST_UNDECLARED_OUTPUTS_DIR, TEST_TMPDIR),
- TCTS_BAZEL (the bazel command that builds a candidate on demand), PYTHONPATH (the testee's,
  with the Python kit added), and the environment the suite processes inherit (less the test
  protocol's variables: a suite process neither writes the enclosing test's XML nor shards).

The suite bundle's launcher (conformance/bundle/tcts.in) has no Bazel to imitate: it passes
--cwd, --run-command and --suite-commit instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
from typing import NamedTuple

from reports import cli

from . import testee_command

DEFAULT_CASE_TIMEOUT = 120.0
DEFAULT_SPEC = "spec/spec.json"  # //spec:spec.json: the generated, validated spec

# Variables by which a test environment (bazel test) steers a test: a suite process must
# neither overwrite the enclosing test's XML nor shard or filter itself (the runner does).
TEST_ENVIRONMENT = ("XML_OUTPUT_FILE", "GTEST_OUTPUT", "GUNIT_OUTPUT", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                    "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_SHARD_STATUS_FILE", "GTEST_SHARD_STATUS_FILE",
                    "TEST_PREMATURE_EXIT_FILE", "TESTBRIDGE_TEST_ONLY", "TEST_TARGET")

# What the BUILD target (or the bundle's launcher) passes: left out of the command a report shows.
BUILD_ARGS = ("--all-suites=", "--device-suites=", "--in-process=", "--known-testee=", "--binary=", "--cwd=",
              "--run-command=", "--suite-commit=", "--known-library-version=")


class UsageError(Exception):
    pass


class RunnerCandidateOptions(NamedTuple):
    """The candidate options (--candidate_option=KEY=VALUE of the suite binary) the runner writes
    itself, from its own flags (binaries.py): --candidate-option may not set them."""

    testee_argv: str = "testee_argv"  # --testee: the testee's program and arguments (a JSON array)
    testee_cwd: str = "testee_cwd"  # --cwd: the directory the testee runs in
    trace_dir: str = "trace_dir"    # --trace: where the testee's session writes its raw trace


RUNNER_CANDIDATE_OPTIONS = RunnerCandidateOptions()


@dataclasses.dataclass
class Options:
    candidate: str = "reference"
    testee: str = ""  # a testee command line: the suites run against it (PROTOCOL.md)
    testee_argv: list = dataclasses.field(default_factory=list)  # testee, split once (testee_command.py)
    expectations_shown: str = ""
    suites: list = dataclasses.field(default_factory=list)  # the suites this run runs
    all_suites: list = dataclasses.field(default_factory=list)  # --all-suites: every suite of the target, or []
    out: str = ""
    log_dir: str = ""  # where this run's logs go until the report is written (in --out)
    filter: str = ""
    jobs: int = 0
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    seed: str = ""
    expectations: str = ""
    replay: str = ""
    command: str = ""  # the run's command as the report shows it
    user_args: list = dataclasses.field(default_factory=list)  # the arguments the user gave (not BUILD_ARGS)
    device: str = ""
    device_suites: list = dataclasses.field(default_factory=list)
    binary: str = ""
    in_process: list = dataclasses.field(default_factory=list)  # --in-process: the in-tree candidates
    known_testees: dict = dataclasses.field(default_factory=dict)  # --known-testee NAME=CMD
    # The candidate's library versions (@tcts_versions//:<candidate>.txt, bazel/versions.bzl): the file
    # --library-version-file names, else the one --known-library-version NAME=PATH names for it; "" for none.
    library_version_file: str = ""
    target: str = ""
    spec: str = DEFAULT_SPEC
    stale_check: bool | None = None
    partial_ok: bool = False
    history: str = ""  # --history=FILE: this run's summary appended as one JSON line (reports/history.py)
    trace: bool = False  # --trace: record a testee's exchange per case (out/<candidate>/trace/)
    write_expectations: str = ""  # --write-expectations=FILE: a fresh file listing this run's deviations
    update_expectations: str = ""  # --update-expectations=FILE
    rerun: str = ""  # the command a case's rerun adds its id to (rerun_base), "" for the target's
    # Where and how the runner was started (bazel run, bazel test, the bundle's launcher).
    cwd: str = ""  # where the user is: relative paths, the testee's directory (BUILD_WORKING_DIRECTORY, --cwd)
    workspace: str = ""  # the Bazel workspace (BUILD_WORKSPACE_DIRECTORY), "" outside one
    run_command: str = ""  # --run-command: how the user started this run (the bundle's tcts), "" for bazel run's
    suite_commit: str | None = None  # --suite-commit: the bundle's stamp; None: the checkout's HEAD
    runfiles: str = ""  # the runfiles tree's root, where the run's data lies ("" when not there)
    test_target: str = ""  # TEST_TARGET: under bazel test, this test's label
    test_filter: str = ""  # TESTBRIDGE_TEST_ONLY (bazel test --test_filter)
    shard: tuple = (0, 1)  # TEST_SHARD_INDEX, TEST_TOTAL_SHARDS
    shard_status_file: str = ""  # TEST_SHARD_STATUS_FILE
    xml_output: str = ""  # XML_OUTPUT_FILE
    test_outputs: str = ""  # TEST_UNDECLARED_OUTPUTS_DIR, else TEST_TMPDIR
    bazel: str = "bazel"  # TCTS_BAZEL
    pythonpath: str = ""  # PYTHONPATH, as the runner got it
    child_environ: dict = dataclasses.field(default_factory=dict)  # what the suite processes inherit
    candidate_options: list = dataclasses.field(default_factory=list)  # --candidate-option KEY=VALUE

    @property
    def narrowed(self) -> bool:
        """Whether this run runs fewer suites than the target has (--suites, --device)."""
        return not set(self.all_suites) <= set(self.suites)

    @property
    def in_test(self) -> bool:
        return bool(self.test_target)

    def user_path(self, path: str) -> str:
        """A path the user typed, relative to where they ran `bazel run` (or tcts)."""
        return os.path.join(self.cwd, os.path.expanduser(path))


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


def make_parser(description: str = "") -> argparse.ArgumentParser:
    p = _Parser(prog="run.py", description=description, formatter_class=argparse.RawDescriptionHelpFormatter,
                allow_abbrev=False)
    p.add_argument("replay_file", nargs="?", metavar="FILE", help="a replay case file (conformance/replay/REPLAY.md)")
    p.add_argument("--candidate", default=None, metavar="NAME",
                   help="the candidate (default: reference); its expectations file is "
                        "conformance/expectations/NAME.txt unless --expectations says otherwise")
    p.add_argument("--testee", default="", metavar="'CMD ARGS'",
                   help="run the suites against a testee program speaking conformance/protocol/PROTOCOL.md "
                        "(its words split as a POSIX shell would, then run as that program and arguments, no "
                        "shell between, in the directory bazel run was started from); needs --expectations "
                        "unless conformance/expectations/<--candidate>.txt exists")
    p.add_argument("--candidate-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for the candidate's factory, passed to the suite binary as "
                        "--candidate_option=KEY=VALUE (the test candidate faulty takes faults=MODE=GLOB;..., "
                        "supports=none|novalues|nostrides and missing_dtypes=A,B); repeatable")
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
    p.add_argument("--history", default="", metavar="FILE",
                   help="append this run's summary (candidate, version, device, suite commit, date, scores, verdict, "
                        "the cases that did not pass) to FILE as one JSON line; reports/history.py renders the page")
    p.add_argument("--partial-ok", action="store_true",
                   help="exit 0 for CONFORMS PARTIALLY (a suite's test target passes when nothing unexpected "
                        "happened; NOT_SUPPORTED cases are skipped test cases)")
    p.add_argument("--stale-check", action=argparse.BooleanOptionalAction, default=None,
                   help="report expectations entries that match no case run (default: on for an unfiltered, "
                        "unsharded run of the suites, off for --filter, --device, replay and test filters)")
    p.add_argument("--trace", action="store_true",
                   help="with --testee: record the lines sent to the testee and its answers, per case; each case that "
                        "does not pass gets OUT/trace/<case id>.jsonl (its handshake and its requests), linked from the "
                        "report with a repro command that needs no Bazel (conformance/tools/repro.py)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--write-expectations", default="", metavar="FILE",
                       help="after the run, write FILE listing every deviation of the run (UNREVIEWED reasons to "
                            "replace; conformance/tools/write_expectations.py)")
    which.add_argument("--update-expectations", default="", metavar="FILE",
                       help="after the run, update FILE: keep the entries whose cases still deviate, narrow or drop "
                            "the others (XPASS, stale), add the new deviations")
    p.add_argument("--spec", default=DEFAULT_SPEC, metavar="FILE",
                   help="the spec as the generators validated it (//spec:spec.json): the feature levels, for the "
                        "verdict; the documents' statements and the spec rows that test them, for the report's spec "
                        "coverage; and what each row derives from, for its root causes (default %(default)s)")
    p.add_argument("--library-version-file", default="", metavar="FILE",
                   help="the candidate's library versions, one key=value a line (@tcts_versions//:<candidate>.txt, "
                        "bazel/versions.bzl), recorded in the report as candidate.identity (the BUILD targets pass it)")
    # From the BUILD targets.
    p.add_argument("--suites", type=_names, default=[], metavar="A,B",
                   help="run only these suites (default: every suite, --all-suites); a stale check needs them all")
    p.add_argument("--all-suites", type=_names, default=[], metavar="A,B",
                   help="every suite of the binary, what --suites narrows (the BUILD target passes them)")
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
    p.add_argument("--known-library-version", action="append", default=[], metavar="NAME=FILE",
                   help="candidate NAME's library-version file (the main job passes one per candidate): used for "
                        "--candidate=NAME unless --library-version-file is given")
    p.add_argument("--target", default="", metavar="LABEL",
                   help="the Bazel test that reruns a case (one suite's, or a replay's; default "
                        "//conformance:<suite>_<candidate>)")
    # From the suite bundle's launcher (conformance/bundle/tcts.in), which has no Bazel.
    p.add_argument("--cwd", default="", metavar="DIR",
                   help="the directory relative paths, the testee's working directory and out/ are taken from "
                        "(default: where bazel run was started, else the current one)")
    p.add_argument("--run-command", default="", metavar="CMD",
                   help="how the user starts a run, for the commands a run prints (default: bazel run "
                        "//conformance:run --)")
    p.add_argument("--suite-commit", default=None, metavar="SHA",
                   help="the tensor-cts commit the suites were built from, for the report (default: the "
                        "checkout's HEAD)")
    return p


def parse_args(argv: list[str], environ=None, argv0: str = "", description: str = "") -> Options:
    """The options of a run started with `argv` in `environ` (default: this process's)."""
    environ = os.environ if environ is None else environ
    a = make_parser(description).parse_args(argv)
    o = Options(candidate=a.candidate, testee=a.testee, suites=a.suites, out=a.out, filter=a.filter, jobs=a.jobs,
                case_timeout=a.case_timeout, seed=a.seed or "", expectations=a.expectations, replay=a.replay,
                device="" if a.device == "cpu" else a.device, device_suites=a.device_suites, binary=a.binary,
                target=a.target, spec=a.spec, stale_check=a.stale_check,
                partial_ok=a.partial_ok, in_process=a.in_process, write_expectations=a.write_expectations,
                update_expectations=a.update_expectations, trace=a.trace, cwd=a.cwd, run_command=a.run_command,
                suite_commit=a.suite_commit or None, history=a.history)
    read_environment(o, environ, argv0)
    for kv in a.candidate_option:
        key, sep, _ = kv.partition("=")
        if not (key and sep):
            raise UsageError(f"--candidate-option={kv!r}: expected KEY=VALUE")
        if key in RUNNER_CANDIDATE_OPTIONS:
            raise UsageError(f"--candidate-option={kv!r}: {key} is the runner's to pass (--testee, --cwd, --trace)")
    o.candidate_options = list(a.candidate_option)
    for spec in a.known_testee:
        name, sep, command = spec.partition("=")
        if not (name and sep and command):
            raise UsageError(f"--known-testee={spec!r}: expected NAME=CMD")
        o.known_testees[name] = command
    if not o.testee and o.candidate in o.known_testees:
        o.testee = o.known_testees[o.candidate]
    if o.candidate is None:
        o.candidate = "testee" if o.testee else "reference"
    if o.testee:
        try:
            o.testee_argv = testee_command.argv(o.testee, "--testee" if a.testee else f"--known-testee={o.candidate}")
        except testee_command.CommandError as e:
            raise UsageError(str(e)) from None
    known_versions = {}
    for spec in a.known_library_version:
        name, sep, path = spec.partition("=")
        if not (name and sep and path):
            raise UsageError(f"--known-library-version={spec!r}: expected NAME=FILE")
        known_versions[name] = path
    # A testee given by its command is not the library a known name's file describes.
    kept = o.testee == o.known_testees.get(o.candidate, o.testee) if o.testee else True
    o.library_version_file = (o.user_path(a.library_version_file) if a.library_version_file
                              else known_versions.get(o.candidate, "") if kept else "")
    if a.replay_file:
        if o.replay:
            raise UsageError(f"one replay file at most, got {a.replay_file} and --replay={o.replay}")
        o.replay = a.replay_file
    if o.device and o.replay:
        raise UsageError("--device runs the spec's suites, not a replay file")
    choose_suites(o, a.all_suites)
    if not o.suites and not o.replay:
        raise UsageError("no --suites given (the BUILD target passes them)")
    if o.trace and not o.testee:
        raise UsageError("--trace records a testee's exchange: give --testee (in-process candidates have the rerun "
                         "command)")
    if o.target and not o.replay and len(o.suites) != 1:
        raise UsageError("--target names one suite's test (or a replay's): give exactly one --suites")
    if o.binary and o.replay:
        raise UsageError("--binary names the suites' binary, not the replay runner")
    whole = not (o.filter or o.replay or o.device or o.test_filter or o.shard[1] > 1 or o.narrowed)
    if o.stale_check is None:
        o.stale_check = whole
    elif o.stale_check and not whole:
        raise UsageError("--stale-check needs every case of every suite: no --filter, --device, replay, "
                         "test filter, shard or --suites narrowing --all-suites")
    o.jobs = o.jobs or (1 if o.in_test else os.cpu_count() or 1)
    return o


def choose_suites(o: Options, all_suites: list) -> None:
    """The suites a run runs. With --all-suites (the BUILD target's, the bundle's): --suites
    narrows them, and names only suites of theirs; --device runs --device-suites, narrowed the
    same way. Without (a runner started by hand or by a test): --suites are every suite, and
    --device runs --device-suites."""
    o.all_suites = list(all_suites)
    on_device = bool(o.device and o.device_suites)
    scope = o.device_suites if on_device else o.all_suites
    if not o.all_suites:
        o.suites = scope or o.suites
        return
    unknown = [s for s in o.suites if s not in scope]
    if unknown:
        where = "--device runs" if on_device else "the suites are"
        raise UsageError(f"--suites={','.join(o.suites)}: no suite {', '.join(map(repr, unknown))} here ({where} "
                         f"{', '.join(scope)})")
    o.suites = list(o.suites) or list(scope)


def read_environment(o: Options, environ, argv0: str) -> None:
    """The fields of `o` that `bazel run`, `bazel test` or the caller's environment decide."""
    root = os.path.join(environ.get("RUNFILES_DIR", (argv0 or "run.py") + ".runfiles"), "tensor_cts")
    o.runfiles = os.path.abspath(root) if os.path.isdir(root) else ""
    o.workspace = cli.workspace(environ) or ""
    # The runner works in the runfiles tree (main changes into it): without bazel run's
    # BUILD_WORKING_DIRECTORY or --cwd, that is where relative paths start.
    o.cwd = (os.path.abspath(os.path.expanduser(o.cwd)) if o.cwd
             else cli.working_directory(environ, o.runfiles))
    # bazel test's protocol (the test encyclopedia): filter, shards, outputs.
    o.test_target = environ.get("TEST_TARGET", "")
    o.test_filter = environ.get("TESTBRIDGE_TEST_ONLY", "")
    total = environ.get("TEST_TOTAL_SHARDS", "")
    if total and total != "0":
        try:
            o.shard = (int(environ.get("TEST_SHARD_INDEX", "0")), int(total))
        except ValueError:
            raise UsageError(f"TEST_TOTAL_SHARDS={total!r}, TEST_SHARD_INDEX={environ.get('TEST_SHARD_INDEX')!r}")
        if not 0 <= o.shard[0] < o.shard[1]:
            raise UsageError(f"TEST_SHARD_INDEX={o.shard[0]} is not below TEST_TOTAL_SHARDS={o.shard[1]}")
    o.shard_status_file = environ.get("TEST_SHARD_STATUS_FILE", "")
    o.xml_output = environ.get("XML_OUTPUT_FILE", "")
    o.test_outputs = environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or environ.get("TEST_TMPDIR") or ""
    o.bazel = environ.get("TCTS_BAZEL", "bazel")
    o.pythonpath = environ.get("PYTHONPATH", "")
    o.child_environ = test_free(environ)
    # Under bazel test the sandbox leaves the user's home read-only: a library's own on-disk cache
    # (tinygrad's compiled kernels in ~/.cache/tinygrad, whose folder it makes at its first
    # kernel) goes into the test's temporary folder, so that a test neither fails on a machine
    # where the folder does not exist yet nor reads what an earlier run left in the home.
    if environ.get("TEST_TMPDIR") and not environ.get("XDG_CACHE_HOME"):
        o.child_environ["XDG_CACHE_HOME"] = os.path.join(environ["TEST_TMPDIR"], "xdg_cache")


def test_free(environ, extra: dict | None = None) -> dict:
    """`environ` less bazel test's protocol (TEST_ENVIRONMENT), plus `extra`: the environment of
    a process that is not the enclosing test (a suite process, a test's own run of the runner)."""
    env = {k: v for k, v in environ.items() if k not in TEST_ENVIRONMENT}
    env.update(extra or {})
    return env


def run_command(o: Options) -> str:
    """How the user started this run: `bazel run //conformance:run --`, or the suite bundle's
    launcher (conformance/bundle/tcts.in passes --run-command), quoted for a shell."""
    return shlex.quote(o.run_command) if o.run_command else "bazel run //conformance:%s --" % (
        "replay" if o.replay else "run")


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def rerun_base(o: Options, expectations_given: str) -> str:
    """The command that reruns a case of this run, less the case's --filter (the binary adds it,
    and the seed for a property: --rerun): `bazel run //conformance:run` (or `:replay` and the
    file) with this run's candidate, testee, expectations and device, writing into OUT/rerun
    (never over this run's report). Used where a suite's `bazel test` target does not exist or
    would not run the case as this run did: a replay, a testee (its command and expectations
    file are the user's, not a target's) and a run on a device. "" where the suite's target is
    right: a suite's or replay's own test (--target), a plain candidate run."""
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
    if o.out:
        parts.append(f"--out={_quoted(rerun_out(o.out))}")
    return " ".join(parts)


def rerun_out(out: str) -> str:
    """Where a case's rerun command writes its report: OUT/rerun, beside this run's, never over
    it (a rerun's own rerun command writes where the rerun did: the same command)."""
    return out if os.path.basename(out) == "rerun" else os.path.join(out, "rerun")


def bazel_command(o: Options) -> str:
    target = o.test_target or o.target or "//conformance:<suite>_<candidate>"
    return f"bazel test {target}" + (f" --test_filter='{o.test_filter}'" if o.test_filter else "") + (
        f" (shard {o.shard[0] + 1} of {o.shard[1]})" if o.shard[1] > 1 else "")
