"""A stand-in testee for conformance/tools/repro_test.py (stdlib only): answers each request
{"id": N, "op": OP, "value": V} with {"id": N, "ok": V} (hello: {"name": "echo"}); op "die" is
killed by SIGSEGV before answering, op "hang" never answers, op "getenv" answers the
environment variable V (null when unset). ECHO_TESTEE_MARK=PATH: creates
PATH at start (so a test sees that it ran)."""

import json
import os
import signal
import sys
import time

if os.environ.get("ECHO_TESTEE_MARK"):
    open(os.environ["ECHO_TESTEE_MARK"], "w").close()
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "die":
        os.kill(os.getpid(), signal.SIGSEGV)
    if req.get("op") == "hang":
        time.sleep(3600)
    ok = {"name": "echo"} if req.get("op") == "hello" else req.get("value")
    if req.get("op") == "getenv":
        ok = os.environ.get(req.get("value"))
    sys.stdout.write(json.dumps({"id": req.get("id"), "ok": ok}) + "\n")
    sys.stdout.flush()
