"""Replays a case's recorded exchange with a testee, without Bazel or any suite binary.

    /usr/bin/python3 -m conformance.tools.repro TRACE.jsonl --testee='CMD' [--cwd=DIR]
    /usr/bin/python3 -m conformance.tools.repro TRACE.jsonl --run-recorded [--allow-env=NAME ...]

A trace (written by `bazel run //conformance:run -- --testee=... --trace`, one file per case
that did not pass) holds the testee command, its directory and environment, then the lines
the suite sent and the testee's answers (conformance/protocol/PROTOCOL.md): the handshake and
the case's requests. This starts a testee (the command's words split once, as the runner splits
--testee: conformance/runner/testee_command.py; no shell between), sends each recorded request and
prints the recorded answer beside the one given now, and the first difference. What the testee
chooses (tensor handles, storage ids, data_ptr addresses, its export regions' ids: typed by the
interface the recorded hello carries) is mapped one to one, not compared as numbers: the case
may not have been the first of its process (class Chosen). A request the
suite answered from a fact (protocol version 3: the trace marks it "served": "fact", with the
answer the fact gave) is sent to the testee too, so every request the suite made is replayed
and the fact is compared with what the testee answers now; an answer's own "facts" are not
compared (those the case used are compared there; the others, a storage's address among them,
may differ from run to run without changing anything the case saw). Handles are the
testee's to choose (PROTOCOL.md: "an integer the testee chose"): a handle answered now in place
of a recorded one is put in its place in the later requests (operands {"tensor": h}, the
arguments t, self and out, and release lists).

A trace runs nothing unasked: it may come from someone else (a CI artifact), and its command
and environment are whatever its writer put there. Given only the trace, this shows the
recorded command, directory and environment and runs nothing (exit 2). It runs:
  --testee='CMD'   your command, in --cwd (default: the current directory), with your own
                   environment; nothing of the trace's header is applied;
  --run-recorded   the recorded command, in the recorded directory (or --cwd), with the
                   recorded environment, less the variables that change what a process loads
                   or runs before the testee's own code (LD_PRELOAD, PATH, PYTHONPATH,
                   BASH_ENV, NODE_OPTIONS, ...: the list ends --help): each of those is applied
                   only when named, --allow-env=NAME, and shown as not applied otherwise.
Either way the testee gets the Python kit beside this script (conformance/protocol/python) on
its PYTHONPATH, as the runner gives it.

Exit status: 0 when every answer is the recorded one (the failure reproduces as recorded), 1
when one differs, 2 on bad input (the message names the file and line) or when neither
--testee nor --run-recorded was given, 3 when the testee died (or gave no answer within
--answer-timeout) during the replay: the message names the request, its index and its line,
and whether the trace recorded the same. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading

from conformance.runner import testee_command

HANDLE_ARGS = ("t", "self", "out")
HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, "..", "protocol", "python"))

# Recorded variables that change what a process loads or runs before (or instead of) the
# testee's own code: the dynamic loader's (LD_*, DYLD_*, GLIBC_TUNABLES, GCONV_PATH, LOCPATH),
# the shells' startup files and imported functions (BASH_ENV, ENV, BASH_FUNC_*, SHELLOPTS,
# BASHOPTS, PS4, IFS, CDPATH, ZDOTDIR), where commands are found (PATH, HOME: Python's user
# site-packages), and the language runtimes' own (PYTHON*: PYTHONPATH, PYTHONHOME,
# PYTHONSTARTUP, PYTHONWARNINGS imports a category's module, PYTHONBREAKPOINT; NODE_*:
# NODE_OPTIONS --require, NODE_PATH; PERL*, RUBY*, LUA_*, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS,
# JDK_JAVA_OPTIONS). --run-recorded applies one only when --allow-env names it.
LOADER_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_", "PYTHON", "NODE_", "PERL", "RUBY", "LUA_")
LOADER_NAMES = frozenset({"GLIBC_TUNABLES", "GCONV_PATH", "LOCPATH", "NLSPATH", "BASH_ENV", "ENV", "SHELLOPTS",
                          "BASHOPTS", "PS4", "IFS", "CDPATH", "ZDOTDIR", "PATH", "HOME", "JAVA_TOOL_OPTIONS",
                          "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})


def loads_code(name: str) -> bool:
    """Whether recorded variable `name` changes what a process loads or runs (LOADER_*)."""
    return name in LOADER_NAMES or name.startswith(LOADER_PREFIXES)


def shown(text: str) -> str:
    """`text` safe to print: control and format characters (escape sequences, a carriage
    return, bidirectional overrides) written as \\uXXXX, so a command cannot hide itself."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


class TraceError(Exception):
    pass


def read(path: str) -> tuple[dict, list[dict]]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise TraceError(f"cannot read trace '{path}': {e}") from None
    records = []
    for n, line in enumerate(lines, 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            raise TraceError(f"{path}:{n}: not JSON ({e})") from None
        if not isinstance(r, dict):
            raise TraceError(f"{path}:{n}: not a JSON object")
        records.append(r)
    if not records or "command" not in records[0]:
        raise TraceError(f"{path}:1: no header (command, cwd, env): not a tensor-cts trace")
    header = records[0]
    if not isinstance(header["command"], str) or not isinstance(header.get("cwd", ""), str):
        raise TraceError(f"{path}:1: the header's command and cwd must be strings")
    env = header.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) and k and "=" not in k and "\0" not in k and
                                            isinstance(v, str) and "\0" not in v for k, v in env.items()):
        raise TraceError(f"{path}:1: the header's env must map variable names to strings")
    for n, r in enumerate(records[1:], 2):
        if not isinstance(r.get("send", r.get("recv", "")), str) or ("send" not in r and "recv" not in r):
            raise TraceError(f"{path}:{n}: expected {{\"send\": line}} or {{\"recv\": line}}")
    return header, records[1:]


class Chosen:
    """What the testee chooses (PROTOCOL.md): tensor handles, storage ids (uintptr), raw
    addresses (data_ptr) and the ids of the regions it exports (negative). A process that
    served other cases first numbers them otherwise, and its allocator puts memory elsewhere:
    each kind is mapped one to one, recorded to now, never compared as numbers. A recorded
    value must come back as the value it came back as before, and two recorded values as two
    values: what the suite judges of them (two tensors share a storage, or not) is kept. An
    address's arithmetic is judged where an answer states it (meta's storage_offset)."""

    def __init__(self):
        self.maps: dict = {}

    def same(self, kind: str, recorded, now) -> bool:
        forward, back = self.maps.setdefault(kind, ({}, {}))
        if forward.get(recorded, now) != now or back.get(now, recorded) != recorded:
            return False
        forward[recorded], back[now] = now, recorded
        return True

    def now(self, kind: str, recorded):
        return self.maps.get(kind, ({}, {}))[0].get(recorded, recorded)


def _integer(v):
    """`v` as an int: an int (not a bool), or a string of decimal digits; else None."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit() and v.isascii():
        return int(v)
    return None


class Interface:
    """The types of answers, from the interface the recorded hello sent (spec/interface.json):
    each op's result type and each record's fields' types. Without it (a trace of a suite from
    before), every answer is compared as JSON, handles excepted."""

    def __init__(self, described):
        self.results, self.records = {}, {}
        if not isinstance(described, dict):
            return
        for o in described.get("ops", ()):
            if isinstance(o, dict) and isinstance(o.get("name"), str):
                self.results[o["name"]] = o.get("result")
        records = described.get("records")
        for name, fields in (records.items() if isinstance(records, dict) else ()):
            if isinstance(fields, list):
                self.records[name] = {f.get("name"): f.get("type") for f in fields if isinstance(f, dict)}

    def difference(self, t, a, b, chosen: Chosen, where: str) -> str | None:
        """The first difference of two values of wire type `t` ("tensor", "uintptr", "address",
        a record, "T?"), with what the testee chooses mapped."""
        if isinstance(t, str) and t.endswith("?"):
            if a is None or b is None:
                return None if a is None and b is None else first_difference(a, b, where)
            t = t[:-1]
        kind = {"tensor": "handle", "uintptr": "storage id", "address": "address"}.get(t)
        ia, ib = _integer(a), _integer(b)  # version 2 writes an integer past 2^53 as a string
        if kind and ia is not None and ib is not None:
            a, b = ia, ib
            return None if chosen.same(kind, a, b) else (
                f"{where}: {json.dumps(a)} recorded, {json.dumps(b)} now, where the replay has {kind} "
                f"{json.dumps(a)} as {json.dumps(chosen.now(kind, a))} (the same {kind} twice, or two as one)")
        if t == "address" and isinstance(a, dict) and isinstance(b, dict):
            ra, rb = a.get("region"), b.get("region")
            if isinstance(ra, int) and isinstance(rb, int) and ra < 0 and rb < 0:  # an export's: the testee's
                if not chosen.same("region", ra, rb):
                    return f"{where}.region: {ra} recorded, {rb} now"
                a, b = dict(a, region=0), dict(b, region=0)
            return first_difference(a, b, where)
        if t == "dlpack_export" and isinstance(a, dict) and isinstance(b, dict):
            ra, rb = (x.get("region", {}).get("id") if isinstance(x.get("region"), dict) else None for x in (a, b))
            if isinstance(ra, int) and isinstance(rb, int):
                if not chosen.same("region", ra, rb):
                    return f"{where}.region.id: {ra} recorded, {rb} now"
                a, b = dict(a, region=dict(a["region"], id=0)), dict(b, region=dict(b["region"], id=0))
            return first_difference(a, b, where)
        fields = self.records.get(t)
        if fields is not None and isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                if k not in a or k not in b:
                    return f"{where}.{k}: {'missing now' if k in a else 'not recorded'}"
                d = self.difference(fields.get(k), a[k], b[k], chosen, f"{where}.{k}")
                if d:
                    return d
            return None
        return first_difference(a, b, where)

    def answer_difference(self, op, recorded: dict, now: dict, chosen: Chosen, lent: set) -> str | None:
        """The first difference of two answers to `op`: its "ok" by the op's result type, an
        export region's sync by the id mapped, "released" and "deleted" of the regions the
        replay lent (a process that served other cases first also lets go of theirs), the rest
        as JSON."""
        recorded, now = dict(recorded), dict(now)
        for a in (recorded, now):
            a.pop("facts", None)  # version 3: the facts the case used are steps of their own
            for key in ("released", "deleted"):
                if isinstance(a.get(key), list):
                    a[key] = [r for r in a[key] if r in lent]
                    if not a[key]:
                        del a[key]
        t = self.results.get(op)
        if not self.results and isinstance(recorded.get("ok"), int) and isinstance(now.get("ok"), int):
            # A trace without the interface (from before hello sent it): an integer answer may
            # be a handle, mapped for the later requests, and is compared as a number.
            chosen.same("handle", recorded["ok"], now["ok"])
        if "ok" in recorded and "ok" in now:
            d = self.difference(t, recorded.pop("ok"), now.pop("ok"), chosen, "answer.ok")
            if d:
                return d
        for a in (recorded, now):  # an export's region: by its mapped id
            if isinstance(a.get("sync"), list):
                a["sync"] = [dict(x, id=chosen.now("region", x["id"]) if a is recorded else x["id"])
                             if isinstance(x, dict) and isinstance(x.get("id"), int) and x["id"] < 0 else x
                             for x in a["sync"]]
        return first_difference(recorded, now)


def lent_regions(request) -> set:
    """The ids of the regions `request` lends (positive: the suite's)."""
    found = set()
    def walk(v, key=None):
        if isinstance(v, dict):
            if key == "region" and isinstance(v.get("id"), int) and v["id"] > 0:
                found.add(v["id"])
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
    walk(request)
    return found


def remap(request: dict, chosen: Chosen) -> dict:
    """`request` with what the testee chose (handles, its export regions' ids) replaced by what
    it chose now."""
    def walk(v, key=None):
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, key) for x in v]
        if isinstance(v, int) and not isinstance(v, bool):
            if key in ("tensor", "release") + HANDLE_ARGS:
                return chosen.now("handle", v)
            if key in ("release_regions", "id", "region") and v < 0:
                return chosen.now("region", v)
        return v
    return walk(request)


def first_difference(a, b, where="answer") -> str | None:
    if type(a) is not type(b):
        return f"{where}: {json.dumps(a)} recorded, {json.dumps(b)} now"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: {'missing now' if k in a else 'not recorded'}"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items recorded, {len(b)} now"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {json.dumps(a)} recorded, {json.dumps(b)} now"


def steps(records: list[dict]) -> list[tuple[str, str | None]]:
    """The recorded exchange as (request line, recorded answer line or None): None for a
    request the testee never answered (it died or hung there: the trace's last request)."""
    out: list = []
    for r in records:
        if "send" in r:  # one the suite answered from a fact ("served") is replayed as asked
            out.append([r["send"], None])
        elif not out or out[-1][1] is not None:
            raise TraceError("an answer recorded before any request")
        else:
            out[-1][1] = r["recv"]
    return [tuple(x) for x in out]


def exit_text(code: int | None) -> str:
    if code is None:
        return "still running (stopped)"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name} (exit status {128 - code} in a shell)"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class Testee:
    """The testee process: one line at a time, each read with a time limit."""

    def __init__(self, argv: list[str], cwd: str | None, env: dict):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.decode("utf-8", errors="replace"))
        self.lines.put("")  # the testee closed its stdout (it ended)

    def ask(self, line: str, timeout: float) -> str | None:
        """The answer line; "" when the testee ended first, None when none came in time."""
        try:
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except OSError:  # it had already ended
            pass
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def end(self, wait: float = 30) -> int | None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
            return None


def replay(header: dict, records: list[dict], argv: list[str], cwd: str | None, env: dict, out=sys.stdout,
           answer_timeout: float = 60) -> int:
    exchange = steps(records)
    testee = Testee(argv, cwd, env)
    chosen = Chosen()
    iface = Interface(None)
    lent: set = set()
    differences = 0
    try:
        for k, (recorded_line, recorded_answer) in enumerate(exchange, 1):
            request = json.loads(recorded_line)
            if isinstance(request, dict) and request.get("op") == "hello":
                iface = Interface(request.get("interface"))
            lent |= lent_regions(request)
            sent = json.dumps(remap(request, chosen), separators=(", ", ": "))
            print(f"> {sent}", file=out)
            now_line = testee.ask(sent, answer_timeout)
            where = (f"request {k} of {len(exchange)} (id {json.dumps(request.get('id'))}, "
                     f"op {json.dumps(request.get('op'))})")
            recorded_too = ("as recorded: the trace ends with this request unanswered "
                            f"(outcome {header.get('outcome', '?')})" if recorded_answer is None else
                            f"the trace recorded an answer: {shown(recorded_answer)}")
            rec = shown(recorded_answer) if recorded_answer is not None else "(no answer)"
            if not now_line:
                if now_line is None:
                    what = f"gave no answer within {answer_timeout:g} s (--answer-timeout) to"
                    code = testee.end(wait=0)
                else:
                    what, code = "died at", testee.end()
                print(f"< recorded: {rec}", file=out)
                print("< now:      (no answer)", file=out)
                print(f"! the testee {what} {where}: {exit_text(code)}\n! {recorded_too}\n! the request: {sent}",
                      file=out)
                return 3
            print(f"< recorded: {rec}", file=out)
            print(f"< now:      {shown(now_line.rstrip())}", file=out)
            if recorded_answer is None:
                print(f"! first difference ({request.get('op')}): the testee died or stopped at {where} when "
                      f"recorded (outcome {header.get('outcome', '?')}); it answers now", file=out)
                differences += 1
                continue
            recorded, now = json.loads(recorded_answer), json.loads(now_line)
            if isinstance(recorded, dict) and isinstance(now, dict):
                d = iface.answer_difference(request.get("op"), recorded, now, chosen, lent)
            else:
                d = first_difference(recorded, now)
            if d and differences == 0:
                print(f"! first difference ({request.get('op')}): {d}", file=out)
            differences += bool(d)
    finally:
        testee.end()
    print(f"{'every answer as recorded' if not differences else f'{differences} answer(s) differ'}", file=out)
    return 0 if not differences else 1


def testee_env(header: dict, run_recorded: bool, allowed: set, out=sys.stdout) -> dict:
    """This process's environment with the kit on PYTHONPATH; with --run-recorded, the
    recorded variables too, less the LOADER_* ones --allow-env does not name."""
    env = dict(os.environ)
    if os.path.isfile(os.path.join(KIT, "tcts_testee.py")):
        env["PYTHONPATH"] = KIT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if not run_recorded:
        return env
    for name, value in sorted(header.get("env", {}).items()):
        if loads_code(name) and name not in allowed:
            print(f"not applied: {shown(name)}={shown(shlex.quote(value))} (changes what a process loads or runs: "
                  f"--allow-env={shown(name)} applies it)", file=out)
        else:
            env[name] = value
    return env


def show_header(header: dict, out=sys.stdout) -> None:
    print(f"recorded testee:    {shown(header['command'])}", file=out)
    print(f"recorded directory: {shown(header.get('cwd') or '(none)')}", file=out)
    env = header.get("env", {})
    print("recorded env:       " + (" ".join(f"{shown(k)}={shown(shlex.quote(v))}" for k, v in sorted(env.items()))
                                    or "(none)"), file=out)


def main(argv: list[str]) -> int:
    listed = ", ".join(sorted(LOADER_NAMES) + [f"{x}*" for x in LOADER_PREFIXES])
    p = argparse.ArgumentParser(prog="repro.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Recorded variables applied only with --allow-env=NAME (they change what a "
                                       f"process loads or runs): {listed}.")
    p.add_argument("trace", metavar="TRACE.jsonl")
    p.add_argument("--testee", default="", metavar="'CMD'",
                   help="run this command (its words split as the runner splits --testee, no shell between; in "
                        "--cwd or the current directory, with your own "
                        "environment) instead of the recorded one: nothing of the trace's header is applied")
    p.add_argument("--run-recorded", action="store_true",
                   help="run the command the trace recorded, in its recorded directory, with its recorded "
                        "environment less the variables that change what a process loads (--allow-env). A trace "
                        "runs nothing unasked: it may come from someone else, and its command is whatever its "
                        "writer put there; read the recorded command first (shown without this flag)")
    p.add_argument("--allow-env", action="append", default=[], metavar="NAME",
                   help="with --run-recorded: apply recorded variable NAME although it changes what a process "
                        "loads or runs (LD_PRELOAD, PATH, PYTHONPATH, BASH_ENV, NODE_OPTIONS, ...); repeat or "
                        "separate with commas")
    p.add_argument("--cwd", default="", metavar="DIR",
                   help="the directory the testee runs in (default: the current one with --testee, the recorded "
                        "one with --run-recorded)")
    p.add_argument("--answer-timeout", type=float, default=60, metavar="S",
                   help="seconds to wait for each answer (default 60): a testee that gives none is stopped (exit 3)")
    a = p.parse_args(argv)
    try:
        header, records = read(a.trace)
        print(f"case {shown(str(header.get('case', '?')))} ({shown(str(header.get('outcome', '?')))}): expected "
              f"{shown(str(header.get('expected', '?')))}; observed {shown(str(header.get('observed', '?')))}")
        show_header(header)
        if a.allow_env and not a.run_recorded:
            raise TraceError("--allow-env applies recorded variables: it goes with --run-recorded")
        if a.testee and a.run_recorded:
            raise TraceError("--testee runs your command, --run-recorded the trace's: give one")
        if not a.testee and not a.run_recorded:
            me = f"/usr/bin/python3 {shlex.quote(sys.argv[0] or 'repro.py')} {shlex.quote(a.trace)}"
            print(f"repro: a trace runs nothing unasked (it may come from someone else): read the recorded testee "
                  f"command above, then\n  run it:            {me} --run-recorded\n"
                  f"  or run your own:   {me} --testee='CMD' [--cwd=DIR]", file=sys.stderr)
            return 2
        allowed = {n for x in a.allow_env for n in x.split(",") if n}
        env = testee_env(header, a.run_recorded, allowed)
        command = a.testee or header["command"]
        cwd = a.cwd or (header.get("cwd") if a.run_recorded else "") or None
        print(f"running:            {shown(command)}" + (" (--testee)" if a.testee else " (the recorded command)") +
              f" in {shown(cwd or os.getcwd())}")
        argv = testee_command.argv(command, "--testee" if a.testee else "the recorded command")
        return replay(header, records, argv, cwd, env, answer_timeout=a.answer_timeout)
    except (TraceError, ValueError) as e:  # testee_command.CommandError is a ValueError
        print(f"repro: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the directory or the program
        print(f"repro: cannot start the testee: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
