#!/usr/bin/python3
"""A stand-in suite binary for output_test.py: streams FAKE_CASES passing cases
(conformance/harness/stream.h's events) for --tcts_stream=PATH. FAKE_MODE=sleep sleeps in
Fake.case1 (writing its pid to FAKE_PIDFILE), FAKE_MODE=garbage writes a line that is no
event in Fake.case1. FAKE_FAIL=2,4 makes Fake.case2 and Fake.case4 FAIL (a values mismatch)."""
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
    write({"event": "begin", "candidate": {"name": "fake", "version": "1", "build": ""}, "seed": 1,
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
        if t in failing:
            write({"event": "end", "test": t, "outcome": "FAIL", "ms": 1, "checks": {"values": "FAIL"},
                   "mismatches": [{"check": "values", "expected": "1", "observed": "2", "kind": "values"}],
                   "message": "values differ"})
        else:
            write({"event": "end", "test": t, "outcome": "PASS", "ms": 1})
    write({"event": "done"})
