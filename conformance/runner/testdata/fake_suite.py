#!/usr/bin/python3
"""A stand-in suite binary for output_test.py: streams FAKE_CASES passing cases
(conformance/harness/stream.h's events) for --tcts_stream=PATH. FAKE_MODE=sleep sleeps in
Fake.case1 (writing its pid to FAKE_PIDFILE), FAKE_MODE=garbage writes a line that is no
event in Fake.case1. FAKE_FAIL=2,4 makes Fake.case2 and Fake.case4 FAIL (a values mismatch).
FAKE_MODE=hostile streams what a hostile testee can make a suite stream (issue 42): a candidate
name with HTML, Markdown links and terminal controls, Fake.case0 and Fake.case1 FAIL with 5 MB
messages that differ only at their ends, hundreds of long mismatches, skipped checks and
features; Fake.case2 FAILs with a protocol error (the end event's protocol_error, its message
reworded), and Fake.case0's mismatches quote a protocol error's words without being one.
FAKE_MODE=clean / fresh ends the process after Fake.case1 with exit status clean_process (88) /
fresh_process (87), as a suite binary does after a case asked for a new process."""
import json
import os
import sys
import time

args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
n = int(os.environ.get("FAKE_CASES", "5"))
mode = os.environ.get("FAKE_MODE", "")
failing = {f"Fake.case{k}" for k in os.environ.get("FAKE_FAIL", "").split(",") if k}
shard, total = (int(x) for x in args.get("tcts_shard", "0/1").split("/"))
tests = [f"Fake.case{i}" for i in range(n) if i % total == shard]
if "tcts_cases" in args:  # a resume: the tests still to run
    with open(args["tcts_cases"], encoding="utf-8") as f:
        tests = f.read().split()
case = lambda t: {"test": t, "id": "fake." + t.split(".")[1], "kind": "case", "clause": "fake", "basis": "spec",
                  "statement": "it passes", "rerun": "rerun " + t, "answer": "", "suite": "fake", "spec_row": ""}
with open(args["tcts_stream"], "a", encoding="utf-8") as f:
    def write(event):
        f.write(json.dumps(event) + "\n")
        f.flush()
    ATTACK = ("<svg onload=alert(1)>[x](javascript:alert(1)) ![](http://evil.example/p.png) a|b \\| "
              "\x1b]0;owned\x07\x1b[2K\r\x00</td><script>x</script>")
    name = "fake" if mode != "hostile" else ATTACK + "N" * 100_000
    write({"event": "begin", "candidate": {"name": name, "version": "1" if mode != "hostile" else ATTACK,
                                           "build": "" if mode != "hostile" else "B" * 1_000_000}, "seed": 1,
           "pid": os.getpid(), "cases": [case(t) for t in tests]})
    for t in tests:
        write({"event": "start", "test": t})
        if t == "Fake.case1" and mode == "sleep":
            with open(os.environ["FAKE_PIDFILE"], "w") as p:
                p.write(str(os.getpid()))
            time.sleep(3600)
        if t == "Fake.case1" and mode == "garbage":
            f.write("{not an event\n")
            f.flush()
            time.sleep(0.5)
        if mode == "hostile" and t in ("Fake.case0", "Fake.case1", "Fake.case2"):
            long = [{"check": "values" + ATTACK, "kind": "values", "expected": ATTACK + "E" * 20_000,
                     "observed": ATTACK + "O" * 20_000} for _ in range(300)]
            if t == "Fake.case2":  # a protocol error, reworded: the flag decides, not the words
                long = [{"check": "dtype", "kind": "dtype", "expected": "int8",
                         "observed": "Error(Internal): the testee broke the protocol answering 'dtype_info' (request 3): "
                                     "field 'itemsize': expected an integer, got 1e400"}]
            if t == "Fake.case0":  # a library's message that quotes the words: no protocol error
                long[0] = dict(long[0], observed="Error(Internal): testee protocol: the library's own words")
            write({"event": "end", "test": t, "outcome": "FAIL", "ms": 1, "checks": {"values": "FAIL"},
                   "protocol_error": t == "Fake.case2",  # what the suite binary says (stream.schema.json)
                   "mismatches": long, "features": [ATTACK + str(k) for k in range(1000)],
                   "skipped_checks": [ATTACK * 100] * 1000,
                   "message": ATTACK + "M" * 5_000_000 + ("tail A" if t == "Fake.case0" else "tail B")})
        elif t in failing:
            write({"event": "end", "test": t, "outcome": "FAIL", "ms": 1, "checks": {"values": "FAIL"},
                   "mismatches": [{"check": "values", "expected": "1", "observed": "2", "kind": "values"}],
                   "message": "values differ"})
        else:
            write({"event": "end", "test": t, "outcome": "PASS", "ms": 1})
        if t == "Fake.case1" and mode in ("clean", "fresh"):
            sys.exit(88 if mode == "clean" else 87)  # stream.schema.json: clean_process, fresh_process
    write({"event": "done"})
