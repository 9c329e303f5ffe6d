"""A testee that misbehaves on purpose, for conformance/protocol/protocol_test.py.

PyTorch's Python testee (conformance/testees/torch/torch_testee.py), with one fault injected
by TCTS_TESTEE_FAULT=KIND:OP:N — on the N-th request `OP`:
    crash    the process dies (os._exit(3), no answer)
    segv     the process is killed by SIGSEGV
    hang     the process stops answering (sleeps)
    garbage  the answer is not JSON
    field    the answer's "ok" value has a field of the wrong type
    wrong_id the answer carries another request's id
    stray    one stray line ("mylib says hi") is printed before the answer, so that every later
             answer is one behind
TCTS_TESTEE_FAULT_ONCE=PATH fires the fault only while PATH does not exist (and creates it),
so that the testee the suite restarts after a crash behaves.
TCTS_TESTEE_PROTOCOL=N makes the handshake claim protocol version N.
"""

import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TCTS_TORCH_TESTEE_DIR", os.path.join(HERE, "..", "..", "testees", "torch")))
import tcts_testee  # noqa: E402
import torch_testee  # noqa: E402

kind, op, nth = (os.environ.get("TCTS_TESTEE_FAULT", "none::0").split(":") + ["", ""])[:3]
nth = int(nth or 0)
seen = 0


class Out:
    """stdout, with the fault applied to the answer of the chosen request."""

    def __init__(self, out):
        self.out = out
        self.pending = None

    def write(self, text):
        answer = json.loads(text)
        if self.pending == "garbage":
            text = "this is not JSON\n"
        elif self.pending == "field":
            answer["ok"] = {**answer.get("ok", {}), "bits": "sixteen"}
            text = json.dumps(answer) + "\n"
        elif self.pending == "stray":
            text = "mylib says hi\n" + text
        elif self.pending == "wrong_id":
            answer["id"] = -5
            text = json.dumps(answer) + "\n"
        self.pending = None
        self.out.write(text)

    def flush(self):
        self.out.flush()


out = Out(sys.stdout)


class Faulty(torch_testee.TorchTestee):
    pass


def faulted(name, method):
    def call(self, *args, **kwargs):
        global seen
        if name == op:
            seen += 1
            once = os.environ.get("TCTS_TESTEE_FAULT_ONCE")
            if seen == nth and not (once and os.path.exists(once)):
                if once:
                    open(once, "w").close()
                if kind == "crash":
                    os._exit(3)
                if kind == "segv":
                    os.kill(os.getpid(), signal.SIGSEGV)
                if kind == "hang":
                    time.sleep(3600)
                out.pending = kind
        return method(self, *args, **kwargs)
    return call


if op:
    setattr(Faulty, op, faulted(op, getattr(torch_testee.TorchTestee, op)))
if os.environ.get("TCTS_TESTEE_PROTOCOL"):
    tcts_testee.PROTOCOL = int(os.environ["TCTS_TESTEE_PROTOCOL"])

if __name__ == "__main__":
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    tcts_testee.serve(Faulty(), stdin=sys.stdin, stdout=out)
