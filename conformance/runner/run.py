"""The main job: runs conformance suites against one candidate, isolated, and writes the report.

    bazel run //conformance:run -- [--candidate=NAME] [--out=DIR] [--filter=GLOB] [--jobs=N]
                                   [--case-timeout=S] [--seed=N] [--expectations=FILE]
                                   [--device=DEVICE]
    bazel run //conformance:replay -- FILE [--candidate=NAME] [the same options]

--candidate     the candidate (default: reference); its expectations file is
                conformance/expectations/NAME.txt unless --expectations says otherwise
--out           where report.json, report.md, report.html and the logs go
                (default: <workspace>/out/<candidate>, or out/replay-<candidate> for a replay)
--filter        run only the cases whose id matches this glob ('*', '?'); no stale check then
--jobs          processes at once (default: the number of CPUs)
--case-timeout  seconds a case may run before it is a TIMEOUT (default 120)
--seed          the RapidCheck seed (default: a random one, recorded in the report)
--device        run the suites that apply to any device (promotion, casting, strided,
                arithmetic) with every tensor on DEVICE ("cuda", "cuda:1"); the report goes to
                out/<candidate>-<device>, and a candidate that cannot use DEVICE here has every
                case NOT_SUPPORTED, with the reason in the logs
(--suites=a,b and --device-suites=a,b come from the BUILD target; --replay=FILE runs a replay
file instead.)

Isolation: every suite binary runs as child processes, each with a list of cases and a
result stream (conformance/harness/stream.h) that it flushes case by case. When a process dies
(a signal, or an exit before its list is done) the case it had started is a CRASH; when a
case makes no progress for --case-timeout seconds the process group is killed and the case
is a TIMEOUT. Either way a new process resumes after that case, so every other case is
still run and reported. Cases are spread over --jobs processes per suite, round-robin.

Exit status: 0 when the candidate conforms (every case passes or deviates as its
expectations file says, and no entry is stale); 1 when it does not; 2 on bad usage.
Standard library only.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "reports"))
import expectations as expectations_file  # noqa: E402
import report as report_lib  # noqa: E402

DEFAULT_CASE_TIMEOUT = 120.0


class UsageError(Exception):
    pass


@dataclasses.dataclass
class Options:
    candidate: str = "reference"
    suites: list = dataclasses.field(default_factory=list)
    out: str = ""
    filter: str = ""
    jobs: int = 0
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    seed: str = ""
    expectations: str = ""
    replay: str = ""
    command: str = ""
    device: str = ""
    device_suites: list = dataclasses.field(default_factory=list)


def parse_args(argv: list[str]) -> Options:
    o = Options()
    positional = []
    for a in argv:
        key, eq, value = a.partition("=")
        if not a.startswith("--"):
            positional.append(a)
        elif key == "--candidate" and eq:
            o.candidate = value
        elif key == "--suites" and eq:
            o.suites = [s for s in value.split(",") if s]
        elif key == "--out" and eq:
            o.out = value
        elif key == "--filter" and eq:
            o.filter = value
        elif key == "--jobs" and eq:
            o.jobs = _number(a, value, int, 1)
        elif key == "--case-timeout" and eq:
            o.case_timeout = _number(a, value, float, 0.1)
        elif key == "--seed" and eq:
            if not value.isdigit():
                raise UsageError(f"'{a}': the seed is a non-negative integer")
            o.seed = value
        elif key == "--expectations" and eq:
            o.expectations = value
        elif key == "--replay" and eq:
            o.replay = value
        elif key == "--device" and eq:
            o.device = "" if value == "cpu" else value
        elif key == "--device-suites" and eq:
            o.device_suites = [s for s in value.split(",") if s]
        else:
            raise UsageError(f"unknown argument '{a}'")
    if positional:
        if len(positional) > 1 or o.replay:
            raise UsageError(f"one replay file at most, got {' '.join(positional)}")
        o.replay = positional[0]
    if not o.suites and not o.replay:
        raise UsageError("no --suites given (the BUILD target passes them)")
    if o.device:
        if o.replay:
            raise UsageError("--device runs the spec's suites, not a replay file")
        if not o.device_suites:
            raise UsageError("no --device-suites given (the BUILD target passes them)")
        o.suites = o.device_suites
    o.jobs = o.jobs or os.cpu_count() or 1
    return o


def _number(arg, value, kind, least):
    try:
        n = kind(value)
    except ValueError:
        raise UsageError(f"'{arg}': not a number") from None
    if n < least:
        raise UsageError(f"'{arg}': must be at least {least}")
    return n


def user_path(path: str) -> str:
    """A path the user typed, relative to where they ran `bazel run`."""
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()), os.path.expanduser(path))


# ---------------------------------------------------------------- suites and their cases
@dataclasses.dataclass
class Suite:
    name: str
    binary: str
    args: list
    spec_file: str


@dataclasses.dataclass
class ListedCase:
    test: str
    id: str
    kind: str
    clause: str
    basis: str
    statement: str
    rerun: str
    suite: str


def suites_for(o: Options) -> list[Suite]:
    common = [f"--candidate={o.candidate}", f"--expectations={o.expectations}"] + (
        [f"--device={o.device}"] if o.device else [])
    if o.replay:
        return [Suite("replay", "conformance/replay/replay_runner", common + [f"--replay={o.replay}"],
                      os.path.basename(o.replay))]
    return [Suite(s, f"conformance/{s}_{o.candidate}", common + [f"--target=//conformance:{s}_{o.candidate}"],
                  f"spec/{s}.toml") for s in o.suites]


def list_cases(suite: Suite, selection: list, tmp: str) -> list[ListedCase]:
    """The cases a selection names, asked of the binary without running any (the fallback when
    a process died before it said which cases it had)."""
    path = os.path.join(tmp, f"{suite.name}.list")
    p = subprocess.run([suite.binary, *suite.args, *selection, f"--tcts_list={path}"], capture_output=True, text=True,
                       env=child_env())
    if p.returncode != 0 or not os.path.exists(path):
        tail = "\n".join("  | " + l for l in (p.stdout + p.stderr).strip().splitlines()[-8:])
        raise UsageError(f"{suite.binary} could not list its cases (exit {p.returncode}):\n{tail}")
    with open(path, encoding="utf-8") as f:
        return [ListedCase(*line.split("\t"), suite=suite.name) for line in f.read().splitlines()]


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

    def __init__(self, unit: Unit, o: Options, seed: str, workdir: str, serial: int):
        self.unit = unit
        self.stream_path = os.path.join(workdir, f"{unit.suite.name}.{serial}.jsonl")
        self.log_path = os.path.join(o.out, "logs", f"{unit.suite.name}.{serial}.log")
        self.log = open(self.log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [unit.suite.binary, *unit.suite.args, f"--seed={seed}", *unit.selection,
             f"--tcts_stream={self.stream_path}"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=child_env())
        self.offset = 0
        self.partial = ""
        self.last_progress = time.monotonic()
        self.current = None  # the test running now (its start event came, its end did not)
        self.ended: dict[str, dict] = {}
        self.begin = None
        self.done = False

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
            if not line.strip():
                continue
            event = json.loads(line)
            self.last_progress = time.monotonic()
            kind = event["event"]
            if kind == "begin":
                self.begin = event
                if self.unit.tests is None:
                    self.unit.tests = [c["test"] for c in event["cases"]]
            elif kind == "start":
                self.current = event["test"]
            elif kind == "end":
                self.ended[event["test"]] = event
                self.current = None
            elif kind == "done":
                self.done = True

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self) -> None:
        self.log.close()

    def log_tail(self, lines: int = 15) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return "\n".join(f.read().rstrip().splitlines()[-lines:])


# Variables by which a test environment (bazel test) steers GoogleTest: a suite process must
# neither overwrite the enclosing test's XML nor shard itself.
TEST_ENVIRONMENT = ("XML_OUTPUT_FILE", "GTEST_OUTPUT", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS",
                    "GTEST_SHARD_INDEX", "TEST_SHARD_STATUS_FILE", "GTEST_SHARD_STATUS_FILE", "TEST_PREMATURE_EXIT_FILE")


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
        self.order: dict[tuple, tuple] = {}  # (suite, test) -> sort key: the suite's run order
        self.records: dict[tuple, dict] = {}  # (suite, test) -> case record
        self.candidate = None
        self.serial = 0
        self.processes = 0
        self.isolated = 0  # processes that crashed or hung

    def run(self, units: list[Unit]) -> None:
        queue = list(units)
        running: list[Process] = []
        while queue or running:
            while queue and len(running) < self.o.jobs:
                self.serial += 1
                self.processes += 1
                running.append(Process(queue.pop(0), self.o, self.seed, self.workdir, self.serial))
            time.sleep(0.01)
            for p in list(running):
                p.poll_stream()
                finished = p.proc.poll() is not None
                hung = not finished and time.monotonic() - p.last_progress > self.o.case_timeout
                if not (finished or hung):
                    continue
                if hung:
                    p.kill()
                p.poll_stream()
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
        for pos, c in enumerate(cases):
            key = (unit.suite.name, c.test)
            if key not in self.listed:
                self.listed[key] = c
                self.order[key] = (unit.suite.name, pos * k + i)

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
            self.learn(p.unit, [ListedCase(**c, suite=suite.name) for c in p.begin["cases"]])
        for test, event in p.ended.items():
            self.records[(suite.name, test)] = self.case_record(suite, event)
        left = [t for t in p.unit.tests if t not in p.ended]
        if p.done and not hung:
            if left:
                raise RuntimeError(f"{suite.binary} finished without running {left[:3]} (a runner bug)")
            if p.proc.returncode not in (0, 1):
                print(f"run: {suite.binary} exited {p.proc.returncode} after its last case", file=sys.stderr)
            return []
        self.isolated += 1
        outcome = "TIMEOUT" if hung else "CRASH"
        what = (f"no progress for {self.o.case_timeout:g} s; the process was killed" if hung
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
        c = self.listed[(suite.name, e["test"])]
        mismatches = e["mismatches"]
        passed = e["outcome"] in ("PASS", "XPASS")
        record = {
            "id": c.id, "test": c.test, "suite": suite.name, "spec_file": suite.spec_file, "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": e["outcome"],
            "expected": mismatches[0]["expected"] if mismatches else c.statement,
            "observed": mismatches[0]["observed"] if mismatches else ("as expected" if passed else ""),
            "mismatches": mismatches, "reason": e["reason"], "message": e["message"].strip(),
            "rerun": c.rerun, "duration_ms": e["ms"],
        }
        if e["outcome"] == "NOT_SUPPORTED":
            record["observed"] = f"NotSupported: {e['not_supported']}"
        if e.get("skipped_checks"):
            record["skipped_checks"] = e["skipped_checks"]
        if c.kind == "property":
            record["seed"] = self.seed
            if "draws" in e:
                record["draws"] = e["draws"]
            if e["outcome"] == "FAIL":
                record["counterexample"] = record["message"]
                record["observed"] = record["message"].splitlines()[0] if record["message"] else "falsified"
        elif e["outcome"] == "FAIL" and not mismatches:
            record["observed"] = record["message"].splitlines()[0] if record["message"] else "failed"
        return record

    def isolated_record(self, suite: Suite, test: str, outcome: str, what: str, log: str) -> dict:
        c = self.listed[(suite.name, test)]
        entry = expectations_file.match(self.entries, c.id)
        decided = "XFAIL" if entry and entry.outcome == outcome else outcome
        reason = entry.reason if entry else ""
        if entry and entry.outcome != outcome:
            reason = f"listed as {entry.outcome} ({entry.reason}), but it {'crashed' if outcome == 'CRASH' else 'timed out'}"
        record = {
            "id": c.id, "test": test, "suite": suite.name, "spec_file": suite.spec_file, "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": decided,
            "expected": c.statement, "observed": f"{outcome}: {what}", "mismatches": [], "reason": reason,
            "message": log, "rerun": c.rerun,
            "duration_ms": None, "isolated": outcome,
        }
        if c.kind == "property":
            record["seed"] = self.seed
        return record


# ---------------------------------------------------------------- the job
def units_for(suites: list[Suite], o: Options) -> list[Unit]:
    flt = [f"--tcts_filter={o.filter}"] if o.filter else []
    return [Unit(s, flt + [f"--tcts_shard={i}/{o.jobs}"], shard=(i, o.jobs)) for s in suites for i in range(o.jobs)]


def main(argv: list[str]) -> int:
    try:
        o = parse_args(argv)
    except UsageError as e:
        print(f"run: {e}", file=sys.stderr)
        return 2
    root = os.path.join(os.environ.get("RUNFILES_DIR", sys.argv[0] + ".runfiles"), "tensor_cts")
    if os.path.isdir(root):
        os.chdir(root)
    if o.replay:
        o.replay = user_path(o.replay)
        if not os.path.isfile(o.replay):
            print(f"run: replay file '{o.replay}' does not exist", file=sys.stderr)
            return 2
    o.expectations = user_path(o.expectations) if o.expectations else f"conformance/expectations/{o.candidate}.txt"
    if not os.path.isfile(o.expectations):
        known = sorted(f[:-4] for f in os.listdir("conformance/expectations") if f.endswith(".txt"))
        print(f"run: unknown candidate '{o.candidate}' (no {o.expectations}); known: {' '.join(known)}", file=sys.stderr)
        return 2
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY", os.getcwd())
    default_out = f"replay-{o.candidate}" if o.replay else o.candidate + (
        "-" + o.device.replace(":", "_") if o.device else "")
    o.out = user_path(o.out) if o.out else os.path.join(workspace, "out", default_out)
    os.makedirs(os.path.join(o.out, "logs"), exist_ok=True)
    for f in os.listdir(os.path.join(o.out, "logs")):
        os.remove(os.path.join(o.out, "logs", f))
    o.command = "bazel run //conformance:%s -- %s" % (
        "replay" if o.replay else "run",
        " ".join([a for a in argv if not a.startswith(("--suites=", "--device-suites="))]) or "")
    seed = o.seed or str(int.from_bytes(os.urandom(8), "little"))
    try:
        entries = expectations_file.load(o.expectations)
    except expectations_file.ExpectationsError as e:
        print(f"run: {e}", file=sys.stderr)
        return 2

    start = time.monotonic()
    started_at = datetime.datetime.now(datetime.timezone.utc)
    suites = suites_for(o)
    for s in suites:
        if not os.access(s.binary, os.X_OK):
            print(f"run: {s.binary} is missing from this build", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="tcts-run-") as workdir:
        runner = Runner(o, seed, entries, workdir)
        try:
            runner.run(units_for(suites, o))
        except UsageError as e:
            print(f"run: {e}\nrun: no report for {o.candidate}", file=sys.stderr)
            return 2
    wall = time.monotonic() - start
    if not runner.listed:
        print(f"run: no case matches --filter={o.filter}" if o.filter else "run: the suites have no cases",
              file=sys.stderr)
        return 2

    keys = sorted(runner.listed, key=lambda k: ([s.name for s in suites].index(k[0]), runner.order[k][1]))
    cases = [runner.records[k] for k in keys]
    # Stale: entries matching no case of the suites. Meaningless for a filtered run, a device
    # run (only some suites run) and a replay file (the expectations name spec rows, not
    # replayed cases).
    stale = None if o.filter or o.replay or o.device else [
        {"pattern": e.pattern, "outcome": e.outcome, "reason": e.reason, "line": e.line}
        for e in entries if not any(e.matches(c.id) for c in runner.listed.values())]
    doc = report_lib.build(
        candidate=runner.candidate or {"name": o.candidate, "version": "", "build": ""},
        run={"command": o.command, "suites": [s.name for s in suites], "filter": o.filter,
             "device": o.device or "cpu", "seed": seed,
             "jobs": o.jobs, "case_timeout_s": o.case_timeout, "processes": runner.processes,
             "isolated_processes": runner.isolated, "started": started_at.isoformat(timespec="seconds"),
             "wall_s": round(wall, 3), "replay_file": o.replay or None},
        expectations={"file": os.path.relpath(o.expectations) if not o.replay else o.expectations,
                      "entries": len(entries), "stale": stale},
        cases=cases)
    paths = report_lib.write_all(doc, o.out)
    print(report_lib.text_summary(doc))
    print(f"wall time: {wall:.3f} s for {len(suites)} suite(s), {runner.processes} process(es), "
          f"{runner.isolated} isolated after a crash or hang")
    print("report: " + ", ".join(paths))
    return 0 if doc["summary"]["conforms"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
