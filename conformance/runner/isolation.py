"""Isolated execution: suite processes, their units of work, the output folder's lock, signals.

Every suite binary runs as child processes, each with a list of cases and a result stream
(conformance/harness/stream.schema.json) that it flushes case by case. When a process dies (a
signal, or an exit before its list is done) the case it had started is a CRASH; when a case
makes no progress for --case-timeout seconds the process group is killed and the case is a
TIMEOUT. Either way a new process resumes after that case (records.Results.collect says
where), so every other case is still run and reported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import signal
import subprocess
import sys
import time

from . import contract
from . import expectations as expectations_file
from .contract import LOG_LINE_CHARS, Suite
from .options import Options

LOG_TAIL_BYTES = 64 * 1024  # of a crashed process's log, read for its case's message


class Interrupted(BaseException):
    """SIGINT or SIGTERM reached the runner."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class Locked(Exception):
    """Another run holds the output folder's lock."""


def child_env(o: Options) -> dict:
    """The environment of the suite processes: the runner's, less the test protocol's variables;
    with a testee, the Python kit on the PYTHONPATH the testee inherits. (What the candidate
    itself is told — a testee's command and directory, the trace folder, a test candidate's
    faults — are the suite binary's --candidate_option flags: binaries.suites_for.)"""
    env = dict(o.child_environ)
    if o.testee:
        kit = os.path.abspath("conformance/protocol/python")
        env["PYTHONPATH"] = kit + (os.pathsep + o.pythonpath if o.pythonpath else "")
    return env


def exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode} before its case list was done"


def gtest_filter(text: str):
    """A matcher for GoogleTest's filter syntax over full test names ("Suite.Name"):
    POSITIVE[-NEGATIVE], each a ':'-separated list of globs ('*', '?'); an empty positive
    part means '*'."""
    positive, _, negative = text.partition("-")
    pos = [expectations_file.compile_glob(g) for g in (positive.split(":") if positive else ["*"]) if g]
    neg = [expectations_file.compile_glob(g) for g in negative.split(":") if g]
    return lambda name: any(m(name) for m in pos) and not any(m(name) for m in neg)


@dataclasses.dataclass
class Unit:
    """Work for one process: a share of a suite (first attempt), or the tests
    still to run after a crash or hang (a resume)."""
    suite: Suite
    selection: list  # the binary's selection flags
    tests: list | None = None  # full test names in run order; None until the process says
    shard: tuple = (0, 1)
    claims: str | None = None  # a claims group's counter file (--tcts_claims), shared by its processes


def claimed(unit: Unit) -> set:
    """The tests of a claims group's list that one of its processes has taken: those before the
    group's counter (stream.h UseClaims: 8 bytes, native-endian, the index of the next test)."""
    with open(unit.claims, "rb") as f:
        taken = int.from_bytes(f.read(8), sys.byteorder)
    return set((unit.tests or [])[:taken])


def new_claims(path: str) -> str:
    """A claims group's counter file, at 0."""
    with open(path, "wb") as f:
        f.write(bytes(8))
    return path


def units_for(suites: list[Suite], o: Options, workdir: str, env: dict, weights: str = "") -> list[Unit]:
    """Each suite's cases (this Bazel shard's share of them) for --jobs processes. Without a
    filter and without an earlier run's case times (a first run), the processes share the
    suite's list as they go, each running the tests it claims first (--tcts_claims: a claims
    group); with the times (`weights`, --tcts_weights: schedule.py) the binary takes a share
    itself (--tcts_shard), dealt by work; with --filter (case-id glob) or a test filter (GoogleTest names) the runner lists every
    case, keeps the chosen ones (expectations.py's glob: the project's one glob) and hands
    each process its share as a case file."""
    index, shards = o.shard
    k = shards * o.jobs
    # GoogleTest's shuffle or repeat (passed through to the suite processes) would walk the list
    # in another order, or twice: the binary refuses claims then, so the dealing stays.
    walks_once = env.get("GTEST_SHUFFLE", "") in ("", "0") and env.get("GTEST_REPEAT", "") in ("", "1")
    if not (o.filter or o.test_filter) and not weights and o.jobs > 1 and walks_once:
        # No times to deal by (a first run): this Bazel shard's processes share its tests as they
        # go, each running the tests it claims first (stream.h UseClaims).
        units = []
        for s in suites:
            claims = new_claims(os.path.join(workdir, f"{s.name}.claims.{index}"))
            units += [Unit(s, [f"--tcts_shard={index}/{shards}", f"--tcts_claims={claims}"], shard=(index, shards),
                           claims=claims) for _ in range(o.jobs)]
        return units
    if not (o.filter or o.test_filter):
        # The binary deals its tests to k shares (stream.h Selection); this Bazel shard's
        # processes take the shares index + shards * i.
        weighted = [f"--tcts_weights={weights}"] if weights else []
        return [Unit(s, [f"--tcts_shard={index + shards * i}/{k}", *weighted], shard=(index + shards * i, k))
                for s in suites for i in range(o.jobs)]
    by_id = expectations_file.compile_glob(o.filter) if o.filter else (lambda _: True)
    by_name = gtest_filter(o.test_filter) if o.test_filter else (lambda _: True)
    units = []
    for s in suites:
        chosen = [c.test for c in contract.list_cases(s, [], workdir, env) if by_id(c.id) and by_name(c.test)]
        chosen = chosen[index::shards]
        for i in range(o.jobs):
            share = chosen[i::o.jobs]
            if share:
                units.append(Unit(s, [f"--tcts_cases={write_cases(workdir, f'{s.name}.chosen.{i}', share)}"],
                                  list(share), shard=(i, o.jobs)))
    return units


def write_cases(workdir: str, name: str, tests: list) -> str:
    """A --tcts_cases file naming `tests`, one full test name per line."""
    path = os.path.join(workdir, f"{name}.cases")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(tests) + "\n")
    return path


class Process:
    """One suite binary working through a unit's tests, read through its result stream."""

    def __init__(self, unit: Unit, seed: str, workdir: str, log_dir: str, serial: int, announce: bool, env: dict):
        self.unit = unit
        self.stream_path = os.path.join(workdir, f"{unit.suite.name}.{serial}.jsonl")
        self.log_path = os.path.join(log_dir, f"{unit.suite.name}.{serial}.log")
        self.log = open(self.log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [unit.suite.binary, *unit.suite.args, f"--seed={seed}", *unit.selection,
             f"--tcts_stream={self.stream_path}", "--tcts_clean_process"] + (["--tcts_announce_features"] if announce else []),
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        self.offset = 0
        self.partial = ""
        self.last_progress = time.monotonic()
        self.current = None  # the test running now (its start event came, its end did not)
        self.ended: dict[str, dict] = {}
        self.begin = None
        self.done = False
        self.broken = ""  # why the result stream cannot be read on (a line that is no event)
        self.listed: set | None = None  # the unit's tests, once known

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
                self.take(json.loads(line))
            except (ValueError, KeyError, TypeError, RecursionError) as e:
                # Not the harness's writing: the case it was in is a CRASH, the rest resumes.
                self.broken = f"its result stream has a line that is not an event ({e}): {line[:200]!r}"

    def take(self, event) -> None:
        """One event of the stream (contract.ContractError, a ValueError, when it breaks the schema)."""
        kind = contract.check_event(event)
        self.last_progress = time.monotonic()
        if kind == "begin":
            self.begin = event
            if self.unit.tests is None:
                self.unit.tests = [c["test"] for c in event["cases"]]
        elif kind in ("start", "end"):
            test = event["test"]
            if self.listed is None and self.unit.tests is not None:
                self.listed = set(self.unit.tests)  # a set: a list's `in` made the stream's reading quadratic
            if self.listed is None or test not in self.listed:
                raise ValueError(f"a {kind} event for a test not in its list")
            if kind == "start":
                self.current = test
            else:
                self.ended[test] = event
                self.current = None
        elif kind == "done":
            self.done = True

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


class Scheduler:
    """Runs units in at most `jobs` processes at once. `collect(process, hung)` is called as
    each process ends (finished, died, hung, or its stream broken) and returns the tests still
    to run (a resume after a crash or hang); `wants_features()` says whether the next process
    should announce the candidate's declarations (asking may cost the candidate: the reference
    starts the CUDA runtime), until a process has answered."""

    def __init__(self, o: Options, seed: str, workdir: str, env: dict, collect, wants_features):
        self.o, self.seed, self.workdir, self.env = o, seed, workdir, env
        self.collect, self.wants_features = collect, wants_features
        self.serial = 0
        self.processes = 0

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
        log_dir = self.o.log_dir or os.path.join(self.o.out, "logs")
        while queue or running:
            while queue and len(running) < self.o.jobs:
                self.serial += 1
                self.processes += 1
                running.append(Process(queue.pop(0), self.seed, self.workdir, log_dir, self.serial,
                                       self.wants_features(), self.env))
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
                group = p.unit.claims
                siblings = sum(1 for q in [*running, *(u for u in queue)]
                               if group is not None and (q.unit if isinstance(q, Process) else q).claims == group)
                rest = self.collect(p, hung, siblings)
                if isinstance(rest, Unit):  # a new member of a claims group
                    queue.insert(0, rest)
                elif rest:
                    queue.insert(0, self.resume(p.unit, rest))

    def resume(self, unit: Unit, tests: list) -> Unit:
        self.serial += 1
        path = write_cases(self.workdir, f"{unit.suite.name}.{self.serial}", tests)
        return Unit(unit.suite, [f"--tcts_cases={path}"], list(tests), unit.shard)


# ---------------------------------------------------------------- staging folders
STAGING_LOCK = ".tcts-run.lock"  # in a run's work folder (tcts-run-*), held while the run lives


def hold_workdir(workdir: str):
    """Holds WORKDIR/.tcts-run.lock until the returned file is closed (or the run dies): the
    lock is taken on a temporary name and renamed into place, so a sweeper never finds the
    name unlocked while this run lives."""
    tmp = os.path.join(workdir, STAGING_LOCK + ".new")
    f = open(tmp, "w", encoding="utf-8")
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.rename(tmp, os.path.join(workdir, STAGING_LOCK))
    return f


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def sweep_abandoned(out: str, tmp_root: str) -> list[str]:
    """Removes what killed runs left, where it can prove them abandoned: in OUT (whose lock
    this run holds, so no other run writes there) the staging logs folders (.tcts-logs.*) and
    the report files' temporary names (.report.json.*, ...); in TMP_ROOT, the work folders
    (tcts-run-*) whose .tcts-run.lock is free. A work folder without its lock (a run older than
    this sweep, or one still starting) is left alone. Returns what it removed."""
    import shutil
    removed = []
    for name in _names(out):
        path = os.path.join(out, name)
        if name.startswith(".tcts-logs.") and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        elif name.startswith((".report.json.", ".report.md.", ".report.html.", ".badge.json.")) and os.path.isfile(path):
            with contextlib.suppress(OSError):
                os.remove(path)
                removed.append(path)
    for name in _names(tmp_root):
        path = os.path.join(tmp_root, name)
        if not name.startswith("tcts-run-") or os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            lock = open(os.path.join(path, STAGING_LOCK), "r", encoding="utf-8")
        except OSError:
            continue  # no lock: not provably abandoned
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live run holds it
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


# ---------------------------------------------------------------- the output folder
def lock_out(out: str):
    """OUT/.tcts-run.lock (fcntl), held until the returned file is closed: one run per --out.
    Locked when another run holds it; OSError when OUT cannot be written."""
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    lock = open(os.path.join(out, ".tcts-run.lock"), "a+", encoding="utf-8")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise Locked(lock.name) from None
    return lock


@contextlib.contextmanager
def interruptible():
    """SIGINT and SIGTERM raise Interrupted while inside; the previous handlers come back after.
    Only the first does: a second Ctrl-C while the first one's cleanup runs (killing the suite
    processes, removing the staging folders) is noted, not raised, so it cannot cut the cleanup
    short."""
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def again(signum, frame):
        os.write(2, b"run: cleaning up after the first interrupt; the run ends when that is done\n")

    def interrupted(signum, frame):
        for sig in previous:
            signal.signal(sig, again)
        raise Interrupted(signum)

    for sig in previous:
        signal.signal(sig, interrupted)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
