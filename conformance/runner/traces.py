"""--trace: a testee's exchange recorded per case (OUT/trace/<case id>.jsonl), with a repro
command that needs no Bazel (conformance/tools/repro.py)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import urllib.parse

from .options import Options

TRACED = ("FAIL", "XFAIL", "XPASS", "CRASH", "TIMEOUT")


def trace_file_name(case_id: str) -> str:
    return urllib.parse.quote(case_id, safe=".-_") + ".jsonl"


def start(o: Options) -> str:
    """An empty OUT/trace/ and the folder the testee sessions write their raw traces into
    (the testee candidate's option trace_dir, which binaries.suites_for passes to the suite
    processes and conformance/protocol/testee_session.cc writes into); "" without --trace."""
    if not o.trace:
        return ""
    folder = os.path.join(o.out, "trace")
    shutil.rmtree(folder, ignore_errors=True)
    raw = os.path.join(folder, ".raw")
    os.makedirs(raw)
    return raw


def attach(o: Options, listed: dict, cases: list[dict], raw: str, env: dict, tool_command) -> None:
    """Cuts the sessions' raw traces into OUT/trace/<case id>.jsonl for each case that did not
    pass: a header (the case, the testee command, its directory and environment), the session's
    handshake, then the case's requests and answers. The case record gets `trace` (relative to
    the report) and `repro` (the command that replays it without Bazel: repro.py)."""
    test_to_id = {test: c.id for (_, test), c in listed.items()}
    wanted = {c["id"]: c for c in cases if c["outcome"] in TRACED}
    kept = {k: env[k] for k in ("PYTHONPATH",) if k in env}
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
                      "command": o.testee, "cwd": o.cwd, "env": kept}
            rel = os.path.join("trace", trace_file_name(case_id))
            with open(os.path.join(o.out, rel), "w", encoding="utf-8") as f:
                for r in [header] + handshake + records:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            c["trace"] = rel
            # The safe form: the testee command and its directory in plain sight, no recorded
            # environment applied (repro.py runs nothing a trace records unless told to).
            c["repro"] = (f"{tool_command('repro')} {shlex.quote(os.path.join(o.out, rel))} "
                          f"--testee={shlex.quote(o.testee)} --cwd={shlex.quote(o.cwd or '.')}")
    shutil.rmtree(raw, ignore_errors=True)
