#!/usr/bin/python3
"""Records a replay case file from a real PyTorch: fills in each planned case's "expect".

    /usr/bin/python3 generators/record_cases.py PLAN.json OUT.json

PLAN.json is a case file (conformance/replay/REPLAY.md) whose cases may lack "expect"; each case's
inputs are built in torch exactly as the replay runner builds them on a candidate (values
cast to the dtype, then the view chain), the operation runs, and what torch did — dtype,
sizes, strides, storage offset and values, or the error's kind — becomes "expect". The
file's "source" names the torch version.

Optional tooling: needs Debian's python3-torch (on /usr/bin/python3), never a build
dependency. What it records is what that torch does, not what the spec says: replaying the
file tells whether a candidate behaves like that torch, and a case where torch deviates from
the spec records the deviation.
"""

from __future__ import annotations

import json
import math
import operator
import os
import sys

import binary_ops
import toml_file
from spec_rows import SpecError

try:
    import torch
except ImportError:
    sys.exit("record_cases: needs torch (Debian: apt install python3-torch; run with /usr/bin/python3)")

VERSION = 2  # the case-file format's version (REPLAY.md; case_file.h kCaseFileVersion)
ERRORS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)  # subclasses first
FORMATS = {"contiguous_format": torch.contiguous_format, "channels_last": torch.channels_last,
           "channels_last_3d": torch.channels_last_3d, "preserve_format": torch.preserve_format}


class PlanError(Exception):
    pass


def dtype_of(name: str) -> torch.dtype:
    d = getattr(torch, name, None)
    if not isinstance(d, torch.dtype):
        raise PlanError(f"unknown dtype '{name}'")
    return d


def dtype_name(d: torch.dtype) -> str:
    return str(d).removeprefix("torch.")


def number(v):
    """A JSON number of the case format as a Python number."""
    if isinstance(v, list):
        return complex(number(v[0]), number(v[1]))
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return v


def encode(v):
    """A Python number as the case format writes it."""
    if isinstance(v, complex):
        return [encode(v.real), encode(v.imag)]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def make_input(spec: dict):
    if "scalar" in spec:
        return number(spec["scalar"])
    t = spec["tensor"]
    sizes, dtype = t["sizes"], dtype_of(t["dtype"])
    n = math.prod(sizes)
    values = t["values"]
    if values == "arange":
        base = torch.arange(n, dtype=torch.int64)
    else:
        vals = [number(values["fill"])] * n if isinstance(values, dict) else [number(v) for v in values]
        kinds = [torch.bool if isinstance(v, bool) else torch.int64 if isinstance(v, int) else
                 torch.complex128 if isinstance(v, complex) else torch.float64 for v in vals]
        wide = max(kinds, key=[torch.bool, torch.int64, torch.float64, torch.complex128].index) if kinds else torch.int64
        base = torch.tensor(vals, dtype=wide)
    x = base.to(dtype).reshape(sizes)
    for step in t.get("views", []):
        x = apply_view(x, step)
    return x


def apply_view(x, step: dict):
    """One view or copy op: a protocol request (PROTOCOL.md) less its tensor; its fields are
    the Candidate method's argument names."""
    op = step["op"]
    if op == "t":
        return x.t()
    if op == "transpose":
        return x.transpose(step["dim0"], step["dim1"])
    if op == "permute":
        return x.permute(*step["dims"])
    if op == "narrow":
        return x.narrow(step["dim"], step["start"], step["length"])
    if op == "select":
        return x.select(step["dim"], step["index"])
    if op == "slice":
        index = (slice(None),) * (step["dim"] % x.dim()) + (slice(step["start"], step["end"], step["step"]),)
        return x[index]
    if op in ("expand", "view", "reshape"):
        return getattr(x, op)(step["sizes"])
    if op == "unsqueeze":
        return x.unsqueeze(step["dim"])
    if op == "squeeze":
        return x.squeeze() if step.get("dim") is None else x.squeeze(step["dim"])
    if op == "as_strided":
        return x.as_strided(step["sizes"], step["strides"], step["storage_offset"])
    if op in ("contiguous", "clone", "empty_like"):
        fmt = FORMATS[step["memory_format"]]
        return torch.empty_like(x, memory_format=fmt) if op == "empty_like" else getattr(x, op)(memory_format=fmt)
    raise PlanError(f"unknown view op '{op}'")


# The binary ops and their symbols, from the spec (promotion.toml [[op]]); Python's operator for
# each symbol (a language fact) runs an op whose left operand is a Python number.
SPEC_PROMOTION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec", "promotion.toml")
PYTHON_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
                    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
                    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
                    ">>": operator.rshift}  # every binary operator of Python's grammar


def spec_ops() -> dict:
    """op name -> its symbol, from spec/promotion.toml."""
    try:
        return {o.name: o.symbol for o in binary_ops.load(SPEC_PROMOTION)}
    except (toml_file.TomlFileError, SpecError) as e:  # the spec beside this script is malformed
        raise PlanError(f"cannot read the binary ops: {e}") from None


def run_call(call: dict, inputs: dict):
    """The case's call: a protocol request with input names for its tensors and operands."""
    op = call["op"]
    if op not in ("binary", "binary_out", "binary_inplace"):  # a view or copy op on one input
        return apply_view(inputs[call["t"]], {k: v for k, v in call.items() if k != "t"})
    name = call["binary_op"]
    ops = spec_ops()
    if name not in ops:
        raise PlanError(f"unknown binary_op '{name}' (the spec's: {', '.join(ops)})")
    alpha = number(call["alpha"]) if "alpha" in call else None
    kw = {"alpha": alpha} if alpha is not None else {}
    if op == "binary_inplace":
        target = inputs[call["self"]]
        getattr(target, name + "_")(inputs[call["other"]], **kw)
        return target
    a, b = inputs[call["a"]], inputs[call["b"]]
    if op == "binary":
        if kw or not isinstance(a, (int, float, complex, bool)):
            return getattr(torch, name)(a, b, **kw)
        if ops[name] not in PYTHON_OPERATORS:
            raise PlanError(f"binary_op '{name}': its symbol {ops[name]!r} is no Python operator, and a number left operand needs one")
        return PYTHON_OPERATORS[ops[name]](a, b)
    out = inputs[call["out"]]
    getattr(torch, name)(a, b, out=out, **kw)
    return out


def record(case: dict) -> dict:
    inputs = {name: make_input(spec) for name, spec in case["inputs"].items()}
    try:
        r = run_call(case["call"], inputs)
    except ERRORS as e:
        kind = next(t.__name__ for t in ERRORS if isinstance(e, t))
        return {**case, "expect": {"error": kind}}
    expect = {"dtype": dtype_name(r.dtype), "sizes": list(r.shape), "strides": list(r.stride()),
              "storage_offset": r.storage_offset()}
    if case["call"]["op"] != "empty_like":  # uninitialised memory has no values to record
        expect["values"] = [encode(v) for v in r.reshape(-1).tolist()]
    return {**case, "expect": expect}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        plan = json.load(f)
    if plan.get("format") != "tensor-cts/cases" or plan.get("version") != VERSION:
        print(f"record_cases: {argv[0]}: not a tensor-cts/cases file of version {VERSION} (got format "
              f"{plan.get('format')!r}, version {plan.get('version')!r}); version 1 named some arguments otherwise "
              f"than the protocol: conformance/replay/REPLAY.md \"Version 1\" lists the renames", file=sys.stderr)
        return 1
    cases = []
    for k, case in enumerate(plan["cases"]):
        try:
            cases.append(record({key: v for key, v in case.items() if key != "expect"}))
        except (PlanError, KeyError) as e:
            print(f"record_cases: {argv[0]}: cases[{k}] (id {case.get('id')!r}): {e}", file=sys.stderr)
            return 1
    out = {"format": "tensor-cts/cases", "version": VERSION,
           "source": f"torch {torch.__version__} (generators/record_cases.py from {argv[0].rsplit('/', 1)[-1]})",
           "cases": cases}
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"record_cases: {len(cases)} cases recorded with torch {torch.__version__} -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
