"""Replays a case's recorded exchange with a testee, without Bazel or any suite binary.

    /usr/bin/python3 conformance/runner/repro.py out/<candidate>/trace/<case id>.jsonl [--testee='CMD']

A trace (written by `bazel run //conformance:run -- --testee=... --trace`, one file per case
that did not pass) holds the testee command, its directory and environment, then the lines
the suite sent and the testee's answers (conformance/protocol/PROTOCOL.md): the handshake and
the case's requests. This starts the command (or --testee's, to try a fix) through /bin/sh,
sends each recorded request and prints the recorded answer beside the one given now, and the
first difference. Handles are the testee's to choose (PROTOCOL.md: "an integer the testee
chose"): a handle answered now in place of a recorded one is put in its place in the later
requests (operands {"tensor": h}, the arguments t, self and out, and release lists).

Exit status: 0 when every answer is the recorded one (the failure reproduces as recorded), 1
when one differs, 2 on bad input (the message names the file and line). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HANDLE_ARGS = ("t", "self", "out")


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
    return records[0], records[1:]


def remap(request: dict, handles: dict) -> dict:
    """`request` with the recorded handles replaced by the ones the testee gave now."""
    def walk(v, key=None):
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, key) for x in v]
        if isinstance(v, int) and not isinstance(v, bool) and key in ("tensor", "release") + HANDLE_ARGS:
            return handles.get(v, v)
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


def replay(header: dict, records: list[dict], command: str, out=sys.stdout) -> int:
    env = dict(os.environ)
    env.update(header.get("env", {}))
    cwd = header.get("cwd") or None
    proc = subprocess.Popen(["/bin/sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
    handles: dict = {}
    differences = 0
    pending = None
    try:
        for r in records:
            if "send" in r:
                request = json.loads(r["send"])
                sent = json.dumps(remap(request, handles), separators=(", ", ": "))
                proc.stdin.write(sent + "\n")
                proc.stdin.flush()
                pending = (request, proc.stdout.readline())
                print(f"> {sent}", file=out)
            elif "recv" in r:
                if pending is None:
                    raise TraceError("an answer recorded before any request")
                request, now_line = pending
                pending = None
                print(f"< recorded: {r['recv']}", file=out)
                print(f"< now:      {now_line.rstrip()}", file=out)
                if not now_line:
                    print(f"! the testee ended without answering ({request.get('op')})", file=out)
                    return 1
                recorded, now = json.loads(r["recv"]), json.loads(now_line)
                if isinstance(recorded.get("ok"), int) and isinstance(now.get("ok"), int):
                    handles[recorded["ok"]] = now["ok"]  # a new handle (or a number: only handle fields use it)
                d = first_difference(recorded, now)
                if d and differences == 0:
                    print(f"! first difference ({request.get('op')}): {d}", file=out)
                differences += bool(d)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    print(f"{'every answer as recorded' if not differences else f'{differences} answer(s) differ'}", file=out)
    return 0 if not differences else 1


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="repro.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", metavar="TRACE.jsonl")
    p.add_argument("--testee", default="", metavar="'CMD'", help="run this command instead of the recorded one")
    a = p.parse_args(argv)
    try:
        header, records = read(a.trace)
        print(f"case {header.get('case', '?')} ({header.get('outcome', '?')}): expected {header.get('expected', '?')}; "
              f"observed {header.get('observed', '?')}")
        return replay(header, records, a.testee or header["command"])
    except (TraceError, ValueError) as e:
        print(f"repro: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
