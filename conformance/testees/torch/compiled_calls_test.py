"""torch_testee.py --compile keeps the code compiled for its last calls (CompiledCalls): a call
whose signature a kept one had runs that code without tracing again, even after the resets of
the calls between; a call that differs in anything the code could depend on (sizes, strides, the
tensor a view views, which arguments share memory, a Python argument's value) is compiled afresh.

    python3 conformance/testees/torch/compiled_calls_test.py --python=VENV_PYTHON

Runs itself under VENV_PYTHON (torch 2, the PyPI venv: bazel/pypi.bzl), with an Inductor cache of
its own: views and empty tensors need no kernel, the out= additions one small C++ kernel.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def check():
    sys.path.insert(0, HERE)
    import torch
    import torch._dynamo.utils
    import torch_testee as tt

    calls = tt.CompiledCalls()
    traced = torch._dynamo.utils.counters["stats"]  # unique_graphs: a graph Dynamo traced

    def run(fn, *args):
        before = (calls._count, traced["unique_graphs"])
        out = calls(fn, args)
        return out, calls._count - before[0], traced["unique_graphs"] - before[1]

    problems = []

    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got!r}, expected {want!r}")

    x = torch.arange(60.0).reshape(3, 4, 5)
    out, compiled, frames = run(tt._method, "transpose", x, (0, 1))
    expect("a first call: compiled and traced", (compiled, frames), (1, 1))
    expect("a first call: its strides", out.stride(), (5, 20, 1))
    run(tt._method, "transpose", torch.zeros(4, 4, 6), (1, 2))  # another signature: reset, compile
    x2 = torch.arange(60.0, 120.0).reshape(3, 4, 5)
    out, compiled, frames = run(tt._method, "transpose", x2, (0, 1))
    expect("the first signature again, after another's reset: neither compiled nor traced",
           (compiled, frames), (0, 0))
    expect("the kept code's answer: a view of its own input", (out.stride(), out.data_ptr(), out[0, 1, 0].item()),
           ((5, 20, 1), x2.data_ptr(), x2[1, 0, 0].item()))
    for what, args in (("other dims", ("transpose", x, (1, 2))),
                       ("other sizes", ("transpose", torch.zeros(3, 4, 6), (0, 1))),
                       ("other strides", ("transpose", torch.zeros(5, 4, 3).permute(2, 1, 0), (0, 1))),
                       ("a view of a larger tensor", ("transpose", torch.zeros(80)[10:70].view(3, 4, 5), (0, 1))),
                       ("another dtype", ("transpose", torch.zeros(3, 4, 5, dtype=torch.float64), (0, 1)))):
        expect(f"{what}: compiled afresh", run(tt._method, *args)[1], 1)
    a, b = torch.zeros(4), torch.zeros(4)
    run(tt._binary_out, "add", a, b, {}, torch.zeros(4))
    expect("an out= sharing an input's memory: compiled afresh", run(tt._binary_out, "add", a, b, {}, a)[1], 1)
    c = torch.ones(4)
    b.fill_(2.0)
    expect("the same sharing again: kept", run(tt._binary_out, "add", c, b, {}, c)[1], 0)
    expect("the kept code wrote into this call's out=", c.tolist(), [3.0] * 4)
    # A guard the signature does not hold (deterministic algorithms: Dynamo's global state):
    # the kept code is refused before it runs (set_stance fail_on_recompile), compiled afresh.
    x3 = torch.arange(60.0).reshape(3, 4, 5)
    torch.use_deterministic_algorithms(True)
    try:
        out, compiled, frames = run(tt._method, "transpose", x3, (0, 1))
    finally:
        torch.use_deterministic_algorithms(False)
    expect("a kept signature whose guard fails: compiled afresh", (compiled, frames), (1, 1))
    expect("... and its answer", (out.stride(), out.data_ptr()), ((5, 20, 1), x3.data_ptr()))
    run(tt._empty, [2, 3], torch.float32, torch.contiguous_format)
    expect("a Python argument of another value: compiled afresh",
           run(tt._empty, [2, 4], torch.float32, torch.contiguous_format)[1], 1)
    for k in range(tt.CompiledCalls.LIMIT):  # LIMIT other signatures push the first out
        run(tt._empty, [5, k + 1], torch.float32, torch.contiguous_format)
    expect(f"a signature used {tt.CompiledCalls.LIMIT} other signatures ago: compiled afresh",
           run(tt._empty, [2, 3], torch.float32, torch.contiguous_format)[1], 1)
    return problems


def main(argv):
    if argv and argv[0] == "--check":
        problems = check()
        for p in problems:
            print(f"FAIL: {p}")
        print("PASS: CompiledCalls" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    python = next((a.split("=", 1)[1] for a in argv if a.startswith("--python=")), "")
    if not python:
        print("usage: compiled_calls_test.py --python=VENV_PYTHON", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as cache:  # Inductor's cache of this test only
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)
        return subprocess.run([python, os.path.abspath(__file__), "--check"], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
