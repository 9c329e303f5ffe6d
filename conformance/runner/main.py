"""The main job: runs conformance suites against one candidate, isolated, and writes the report.

    bazel run //conformance:run -- [--candidate=NAME] [--out=DIR] [--filter=GLOB] [--jobs=N]
                                   [--suites=A,B] [--case-timeout=S] [--seed=N]
                                   [--expectations=FILE] [--device=DEVICE]
    bazel run //conformance:run -- --testee='CMD ARGS' --expectations=FILE [--candidate=LABEL] [...]
    bazel run //conformance:replay -- FILE [--candidate=NAME] [the same options]
    bazel test //conformance:<suite>_<candidate>     (the same runner, one suite: see below)

The suite binaries report raw outcomes (PASS, FAIL, NOT_SUPPORTED); this runner is the only
reader of the candidate's expectations file (conformance/expectations/FORMAT.md): a FAIL the
file lists as FAIL is an XFAIL, a listed case that passes an XPASS, a crash or hang it lists
as CRASH or TIMEOUT an XFAIL. Nothing else is expected.

A testee (--testee) is any program that speaks conformance/protocol/PROTOCOL.md on its stdin
and stdout, in any language, kept in the library's own repository with its expectations
file: the suites run in the binary of the candidate "testee", which starts CMD (its words split
once, as a POSIX shell splits them, then run as that program and arguments with no shell
between: testee_command.py; in the directory `bazel run` was started from) once per process. The Python kit
(conformance/protocol/python/tcts_testee.py) is on the testee's PYTHONPATH. The report's
candidate name and version are the testee's own (its handshake); --candidate only labels the
output folder (default: testee).

Isolation: every suite binary runs as child processes, each with a list of cases and a
result stream (conformance/harness/stream.schema.json) that it flushes case by case. When a process dies
(a signal, or an exit before its list is done) the case it had started is a CRASH; when a
case makes no progress for --case-timeout seconds the process group is killed and the case
is a TIMEOUT. Either way a new process resumes after that case, so every other case is
still run and reported. Cases are spread over --jobs processes per suite: on a first run each
process runs the cases it claims first from the suite's list, so they share the work as it
comes; with an earlier run's case times in --out, each takes a share dealt by those times; with
--filter or a test filter, a round-robin share of the chosen cases.

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
logs/.tcts-logs): other files in logs/ are never touched. Among the logs, case_times.tsv: the
next run of the candidate into --out deals its cases to the processes by those times
(schedule.py), never changing an outcome. A lock (.tcts-run.lock, fcntl)
refuses a second run into the same --out while one is running. A case's rerun command (a
testee's, a replay's, a run on a device) writes into OUT/rerun, never over this run's report.

Under `bazel test` (the conformance_test macro in bazel/tcts.bzl runs this runner on one
suite binary) it honours the test environment: XML_OUTPUT_FILE gets a JUnit XML with one
<testcase> per case (XFAIL passes, NOT_SUPPORTED is skipped, FAIL/XPASS/CRASH/TIMEOUT fail);
TEST_TOTAL_SHARDS/TEST_SHARD_INDEX pick this shard's share of the cases (and
TEST_SHARD_STATUS_FILE is touched); TESTBRIDGE_TEST_ONLY (--test_filter) selects cases by
their GoogleTest name (POSITIVE[-NEGATIVE] patterns, ':'-separated); the report goes to
TEST_UNDECLARED_OUTPUTS_DIR. Stale expectations are checked only by a run of every suite,
unfiltered and unsharded (the main job without --suites) and by
//conformance:expectations_<candidate>_test: one suite cannot tell whether an entry for another
suite's cases is stale. --suites narrows the suites the target passes (--all-suites).

The suite bundle (conformance/bundle/tcts.in) has no Bazel: it passes --cwd (the user's
directory), --run-command (itself, for the commands a run prints) and --suite-commit.

The runner's modules (conformance/runner/): options (flags and the environment, read once),
contract (the suite binary's stream, case list and exit codes), isolation (processes, the lock,
signals), records (case records), expected (the expectations applied), traces (--trace),
binaries (which binary; bazel build on demand), reporting (the report call), main (this job).
"""

from __future__ import annotations

import datetime
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time

from reports import cli
from reports import report as report_lib
from reports import report_schema
from reports import report_spec
from reports import report_score
from reports import report_terminal

from . import binaries
from . import expectations as expectations_file
from . import expected
from . import features as features_file
from . import isolation
from . import records
from . import reporting
from . import schedule
from . import traces
from .options import BUILD_ARGS, Options, UsageError, bazel_command, parse_args, rerun_base, run_command

EXIT_CONFORMS, EXIT_DOES_NOT_CONFORM, EXIT_USAGE, EXIT_PARTIAL, EXIT_OUTPUT = 0, 1, 2, 3, 4


def tool_command(o: Options):
    """How the user starts one of the tools (conformance/tools: NAME is its module) in a command
    they are told to run: from the suite bundle (its launcher passes --run-command), the
    launcher's subcommand (`tcts repro`, `tcts write-expectations`); in a checkout, the module
    from the workspace (`/usr/bin/python3 -m conformance.tools.NAME`)."""
    if o.run_command:
        return lambda name: f"{shlex.quote(o.run_command)} {name.replace('_', '-')}"
    return lambda name: f"/usr/bin/python3 -m conformance.tools.{name}"


def main(argv: list[str], environ=None, argv0: str = "") -> int:
    try:
        o = parse_args(argv, environ, argv0 or sys.argv[0], description=__doc__)
    except UsageError as e:
        print(f"run: {e}\n(run.py --help lists the options)", file=sys.stderr)
        return EXIT_USAGE
    if o.runfiles:
        os.chdir(o.runfiles)
    if o.shard[1] > 1 and o.shard_status_file:
        with open(o.shard_status_file, "a", encoding="utf-8"):
            pass  # tells Bazel this test shards itself
    if o.replay:
        o.replay = o.user_path(o.replay)
        if not os.path.isfile(o.replay):
            print(f"run: replay file '{o.replay}' does not exist", file=sys.stderr)
            return EXIT_USAGE
    expectations_given = o.expectations
    # As the user named it (or the candidate's file in this repository), for the report.
    o.expectations_shown = o.expectations or f"conformance/expectations/{o.candidate}.txt"
    o.expectations = o.user_path(o.expectations) if o.expectations else f"conformance/expectations/{o.candidate}.txt"
    if o.testee and not os.path.isfile(o.expectations):
        print(f"run: no expectations file {o.expectations}: a testee's expectations live in its own repository; "
              f"name them with --expectations=FILE (an empty file expects full conformance)", file=sys.stderr)
        return EXIT_USAGE
    if not os.path.isfile(o.expectations):
        known = sorted(f[:-4] for f in os.listdir("conformance/expectations") if f.endswith(".txt"))
        print(f"run: unknown candidate '{o.candidate}' (no {o.expectations}); known: {' '.join(known)}", file=sys.stderr)
        return EXIT_USAGE
    default_out = f"replay-{o.candidate}" if o.replay else o.candidate + (
        "-" + o.device.replace(":", "_") if o.device else "")
    if o.out:
        o.out = o.user_path(o.out)
    elif o.in_test:
        o.out = o.test_outputs or tempfile.mkdtemp()
    else:
        o.out = os.path.join(o.workspace or o.cwd, "out", default_out)
    o.rerun = rerun_base(o, expectations_given)
    try:
        lock = isolation.lock_out(o.out)
    except isolation.Locked as e:
        print(f"run: another run is writing into {o.out} (it holds {e}); wait for it to end, or give "
              f"another --out", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"run: cannot write into --out {o.out}: {cli.os_error(e)}", file=sys.stderr)
        return EXIT_OUTPUT
    with lock:
        # What a killed run left, now provably abandoned: this run holds --out's lock.
        isolation.sweep_abandoned(o.out, tempfile.gettempdir())
        try:
            o.log_dir = tempfile.mkdtemp(prefix=".tcts-logs.", dir=o.out)
        except OSError as e:
            print(f"run: cannot write into --out {o.out}: {e.strerror}", file=sys.stderr)
            return EXIT_OUTPUT
        # Inside interruptible() to its end, cleanup included: a second Ctrl-C cannot cut it short.
        with isolation.interruptible():
            try:
                return run_into(o, argv)
            except isolation.Interrupted as e:
                print(f"\nrun: interrupted by {signal.Signals(e.signum).name}: its processes were killed; "
                      f"{o.out} holds the previous run's report", file=sys.stderr)
                return 128 + e.signum
            finally:
                shutil.rmtree(o.log_dir, ignore_errors=True)


def run_into(o: Options, argv: list[str]) -> int:
    """The run, once --out is locked: the suites, the report, then the logs."""
    o.user_args = [a for a in argv if not a.startswith(BUILD_ARGS)]
    o.command = bazel_command(o) if o.in_test else "%s %s" % (run_command(o), " ".join(o.user_args))
    seed = o.seed or str(int.from_bytes(os.urandom(8), "little"))
    try:
        entries = expectations_file.load(o.expectations)
    except expectations_file.ExpectationsError as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    missing = report_lib.missing_libraries()
    if missing:
        print(f"run: writing the report needs {' and '.join(missing)}, which {sys.executable} cannot import "
              f"(Debian: apt-get install {' '.join(missing)}); nothing was run", file=sys.stderr)
        return EXIT_USAGE
    try:
        spec = report_spec.load_spec(o.spec)
    except report_schema.ReportError as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    feature_rows, features_source = features_file.rows(spec)
    try:
        identity = reporting.library_identity(o.library_version_file)
    except reporting.IdentityError as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    suites = binaries.suites_for(o)
    try:
        binaries.check_binaries(o, suites)
    except UsageError as e:
        print(f"run: {e}", file=sys.stderr)
        return EXIT_USAGE
    start = time.monotonic()
    started_at = datetime.datetime.now(datetime.timezone.utc)
    raw_traces = traces.start(o)
    for s in suites:
        s.args += binaries.trace_option(raw_traces)
    env = isolation.child_env(o)
    with tempfile.TemporaryDirectory(prefix="tcts-run-") as workdir, isolation.hold_workdir(workdir):
        results = records.Results(o, seed, expectations_file.Index(entries), workdir, env)
        scheduler = isolation.Scheduler(o, seed, workdir, env, results.collect, results.wants_features)
        try:
            # An earlier run's case times balance the processes (schedule.py), where the binaries
            # deal the shares: a checked copy in the workdir.
            weights, wrong = ("", "") if o.replay or o.filter or o.test_filter else schedule.previous(o.out, o.candidate, workdir)
            if wrong:  # the times only balance the processes: the run goes on, and writes new ones
                print(f"run: warning: case times {wrong}; this run's replace them", file=sys.stderr)
            scheduler.run(isolation.units_for(suites, o, workdir, env, weights))
        except UsageError as e:
            print(f"run: {e}\nrun: no report for {o.candidate}", file=sys.stderr)
            return EXIT_USAGE
    wall = time.monotonic() - start
    if results.announced:
        try:
            features_file.check(features_source, feature_rows, results.announced)
        except features_file.FeaturesError as e:
            print(f"run: {e}", file=sys.stderr)
            return EXIT_USAGE
    if not results.listed:
        if o.filter or o.test_filter:
            print(f"run: no case matches --filter={o.filter}" if o.filter else
                  f"run: no case matches the test filter '{o.test_filter}'", file=sys.stderr)
        elif o.shard[1] > 1:  # more shards than cases: an empty shard passes
            print(f"run: shard {o.shard[0] + 1} of {o.shard[1]} has no cases")
            reporting.write_junit(o, None)
            return EXIT_CONFORMS
        else:
            print("run: the suites have no cases", file=sys.stderr)
        return EXIT_USAGE

    cases = results.cases()
    if raw_traces:
        traces.attach(o, results.listed, cases, raw_traces, env, tool_command(o))
    doc = reporting.build(o, results, cases, seed=seed, processes=scheduler.processes,
                          started=started_at.isoformat(timespec="seconds"), wall=wall, entries=entries,
                          feature_rows=feature_rows, spec=spec,
                          stale=expected.stale_entries(results.entries, cases) if o.stale_check else None,
                          identity=identity)
    try:
        schedule.write(o.log_dir, o.candidate, cases)
        paths = reporting.write(o, doc)
    except OSError as e:
        print(f"run: cannot write the report into {o.out}: {cli.os_error(e)}; the previous report's "
              f"files there are whole", file=sys.stderr)
        return EXIT_OUTPUT
    reporting.write_junit(o, doc)
    names = doc["run"]["suites"]
    print(report_terminal.text_summary(doc))
    print(f"wall time: {wall:.3f} s for {len(names)} suite(s), {scheduler.processes} process(es), "
          f"{results.isolated} isolated after a crash or hang")
    print("report: " + ", ".join(paths))
    if not expected.after_run(o, doc, suites, env, tool_command(o)):
        return EXIT_USAGE
    # The terminal's last line leads with the headline, as every other output does.
    print(f"result: {report_terminal.inert(doc['candidate']['name'])} {report_score.headline_of(doc)}")
    verdict = doc["summary"]["verdict"]
    if verdict == "CONFORMS":
        return EXIT_CONFORMS
    if verdict == "CONFORMS PARTIALLY":
        return EXIT_CONFORMS if o.partial_ok else EXIT_PARTIAL
    return EXIT_DOES_NOT_CONFORM
