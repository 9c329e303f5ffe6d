"""A hostile testee, for conformance/protocol/hostile_test.py: the shipped NumPy testee
(conformance/testees/numpy/numpy_testee.py) with one attack on the suite, chosen by
TCTS_HOSTILE=MODE:

    keep_regions      never answers "released" or "deleted" (lent memory would live as long
                      as the testee says)
    deleted_on_error  refuses every DLPack import with an error that also lists the import's
                      region as "deleted" (a deleter forwarded after a failed import)
    export_past       a DLPack export whose elements lie past the mirrored bytes (data_offset
                      at their end)
    itemsize_wrap     dtype_info's itemsize plus 2^32 (an int field given 2^32 + 4)
    deep              the first dtype_info answer nests 100,000 lists deep
    stderr_flood      the first dtype_info writes 20 MiB to stderr, then the testee exits
    close_stdout      the first dtype_info closes stdout and the testee sleeps
    child_holds       the first dtype_info: a child holding stdout sleeps, the testee exits
                      (the child's pid goes to TCTS_HOSTILE_PIDFILE)
    stream_garbage    the first dtype_info appends a line that is no event to the suite's
                      result stream (found in the suite process's command line)
    features_flood    the handshake declares 5,000,000 feature names
    hostile_name      the handshake's name carries control characters that would forge a
                      "CONFORMS" line in a terminal
    long_line         the first dtype_info answer is 300 MiB without a newline
    long_error        the first dtype_info answers an error whose message is
                      TCTS_HOSTILE_MB (default 200) MiB long
    big_values        the first values answer lists TCTS_HOSTILE_COUNT (default 60,000,000)
                      ones, 2 bytes per element (120 MB): past the protocol's 2^24 values, or,
                      with a count below that, for measuring what decoding it costs the suite
    fact_malformed    version 3: the first answer with facts gives the meta fact's sizes as
                      a string
    fact_unasked      version 3: the first dtype_info answer carries facts (only an answer
                      that is a new tensor may)
    fact_stray        version 3: the first answer with facts is followed by a stray line
                      (every later answer one behind)
    flaky             the testee exits instead of answering a request (hello included) with
                      probability TCTS_HOSTILE_RATE (default 0.01), drawn from
                      random.Random("SEED:N"): TCTS_HOSTILE_SEED, and N the testee process's
                      number in the run (counted in TCTS_HOSTILE_ONCE + ".n")
    meta_lies         every answer to a meta request gives storage_offset + 1 (the facts sent
                      with each new tensor stay true: the kit computes them itself)
    hello_dies_once   the first hello: the testee exits instead of answering
    hello_dies        every hello: the testee exits instead of answering
    fact_crash        version 3: the testee exits instead of writing its 50th answer with
                      facts (not in the suite process's first case: a process that dies in
                      its first case is reported as dying before its case list was done)

TCTS_HOSTILE_ONCE=PATH fires a one-shot attack only while PATH does not exist (and creates
it), so that the testee the suite restarts after a crash behaves. TCTS_HOSTILE_OP=OP moves the
attacks of "the first dtype_info" to the first answer of OP (make_tensor: the first tensor).
"""

import base64
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TCTS_NUMPY_TESTEE_DIR", os.path.join(HERE, "..", "..", "testees", "numpy")))
import tcts_testee  # noqa: E402
import numpy_testee  # noqa: E402

MODE = os.environ.get("TCTS_HOSTILE", "")
FORGED_NAME = "numpy\r\x1b[2Kresult: numpy CONFORMS: 999 pass\x1b[8m"


ATTACKED_OP = os.environ.get("TCTS_HOSTILE_OP", "dtype_info")
_draw = None


def flaky_draw():
    """This testee process's random stream (flaky): seeded by TCTS_HOSTILE_SEED and the process's
    number in the run, so that a run is the same each time it is made with the same seed."""
    global _draw
    if _draw is None:
        counter = os.environ.get("TCTS_HOSTILE_ONCE", os.devnull) + ".n"
        try:
            with open(counter) as f:
                n = int(f.read() or 0)
        except (OSError, ValueError):
            n = 0
        with open(counter, "w") as f:
            f.write(str(n + 1))
        _draw = random.Random(f"{os.environ.get('TCTS_HOSTILE_SEED', '1')}:{n}")
    return _draw


def fire_once() -> bool:
    once = os.environ.get("TCTS_HOSTILE_ONCE")
    if once and os.path.exists(once):
        return False
    if once:
        open(once, "w").close()
    return True


class Requests:
    """stdin, remembering the request being answered."""

    def __init__(self, lines):
        self.lines = lines
        self.last = {}

    def __iter__(self):
        for line in self.lines:
            try:
                self.last = json.loads(line)
            except ValueError:
                self.last = {}
            yield line


def region_of(req):
    src = req.get("source", req) if req.get("op") == "asarray" else req
    return (src.get("region") or {}).get("id") if isinstance(src, dict) else None


class Out:
    """stdout, with the attack applied to the answers."""

    def __init__(self, out, requests):
        self.out = out
        self.requests = requests

    def write(self, text):
        answer = json.loads(text)
        req = self.requests.last
        op = req.get("op")
        if MODE == "flaky" and flaky_draw().random() < float(os.environ.get("TCTS_HOSTILE_RATE", "0.01")):
            os._exit(3)
        if (MODE == "hello_dies" or (MODE == "hello_dies_once" and fire_once())) and op == "hello":
            os._exit(3)
        if MODE == "meta_lies" and op == "meta" and isinstance(answer.get("ok"), dict):
            answer["ok"]["storage_offset"] += 1
        if ATTACKED_OP != "dtype_info":  # the attacks below name the op they fire at
            op = "dtype_info" if op == ATTACKED_OP else ("dtype_info, not attacked" if op == "dtype_info" else op)
        if MODE == "keep_regions":
            answer.pop("released", None)
            answer.pop("deleted", None)
        elif MODE == "deleted_on_error" and region_of(req) is not None and (
                op == "from_dlpack" or (op == "asarray" and req["source"].get("kind") == "dlpack")):
            answer.pop("ok", None)
            answer["error"] = {"kind": "TypeError", "message": "refused (hostile)"}
            answer["deleted"] = sorted(set(answer.get("deleted", [])) | {region_of(req)})
        elif MODE == "export_past" and op == "to_dlpack" and "ok" in answer:
            # data at the end of the mirrored bytes: every element lies past them
            answer["ok"]["data_offset"] = len(base64.b64decode(answer["ok"]["region"]["bytes"]))
        elif MODE == "itemsize_wrap" and op == "dtype_info" and "ok" in answer:
            answer["ok"]["itemsize"] += 2**32
        elif MODE == "features_flood" and op == "hello":
            answer["ok"]["features"] = answer["ok"]["features"] + ["x"] * 5_000_000
        elif MODE == "hostile_name" and op == "hello":
            answer["ok"]["name"] = FORGED_NAME
        elif MODE == "fact_malformed" and "facts" in answer and "meta" in answer["facts"] and fire_once():
            answer["facts"]["meta"]["sizes"] = "three"
        elif MODE == "fact_unasked" and op == "dtype_info" and "ok" in answer and fire_once():
            answer["facts"] = {"meta": {"dtype": "float32", "sizes": [], "strides": [], "storage_offset": 0,
                                        "device": "cpu"}}
        elif MODE == "fact_stray" and "facts" in answer and fire_once():
            line = json.dumps(answer, separators=(",", ":")) + "\n"
            self.out.write(line + line)
            return
        elif MODE == "fact_crash" and "facts" in answer and self.count_facts() == 50 and fire_once():
            self.out.flush()
            os._exit(3)
        elif MODE == "big_values" and op == "values" and "ok" in answer and fire_once():
            count = int(os.environ.get("TCTS_HOSTILE_COUNT", "60000000"))
            self.out.write('{"id":%d,"ok":[%s1]}\n' % (answer["id"], "1," * (count - 1)))
            return
        elif MODE == "long_error" and op == "dtype_info" and fire_once():
            size = int(os.environ.get("TCTS_HOSTILE_MB", "200")) << 20
            self.out.write('{"id":%d,"error":{"kind":"ValueError","message":"' % answer["id"])
            chunk = "m" * (1 << 20)  # written 1 MiB at a time: the testee's own memory stays small
            for _ in range(size >> 20):
                self.out.write(chunk)
            self.out.write("m" * (size & ((1 << 20) - 1)) + '"}}\n')
            return
        elif op == "dtype_info" and MODE in ("deep", "stderr_flood", "close_stdout", "child_holds", "stream_garbage",
                                             "long_line") and fire_once():
            text = self.attack(answer)
            if text is not None:
                self.out.write(text)
                return
        self.out.write(json.dumps(answer, separators=(",", ":")) + "\n")

    def count_facts(self):
        self.with_facts = getattr(self, "with_facts", 0) + 1
        return self.with_facts

    def attack(self, answer):
        if MODE == "deep":
            answer["ok"] = "@"
            return json.dumps(answer).replace('"@"', "[" * 100_000 + "]" * 100_000) + "\n"
        if MODE == "stderr_flood":
            chunk = "flood " * 10_000
            for _ in range(20 * 2**20 // len(chunk)):
                sys.stderr.write(chunk)
            sys.stderr.flush()
            os._exit(3)
        if MODE == "close_stdout":
            self.out.flush()
            os.close(1)
            time.sleep(3600)
        if MODE == "child_holds":
            pid = os.fork()
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            with open(os.environ.get("TCTS_HOSTILE_PIDFILE", os.devnull), "w") as f:
                f.write(str(pid))
            os._exit(3)
        if MODE == "stream_garbage":
            stream, pid = None, os.getppid()  # the suite process: a parent (/bin/sh may sit between)
            while stream is None and pid > 1:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().decode(errors="replace").split("\0")
                stream = next((a.split("=", 1)[1] for a in argv if a.startswith("--tcts_stream=")), None)
                with open(f"/proc/{pid}/status") as f:
                    pid = int(next(l.split()[1] for l in f if l.startswith("PPid:")))
            with open(stream, "a") as f:
                f.write("this is not an event\n")
                f.flush()
            time.sleep(1)  # the runner reads it before the case ends
            return None
        if MODE == "long_line":
            chunk = "x" * 2**20
            for _ in range(300):
                self.out.write(chunk)
            self.out.flush()
            time.sleep(3600)

    def flush(self):
        self.out.flush()


if __name__ == "__main__":
    requests = Requests(sys.stdin.buffer)
    out = Out(sys.stdout, requests)
    sys.stdout = sys.stderr
    testee = numpy_testee.NumpyTestee()
    testee.facts = None  # every fact (the fact_* attacks need them)
    tcts_testee.serve(testee, stdin=requests, stdout=out)
