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
import sys

try:
    import torch
except ImportError:
    sys.exit("record_cases: needs torch (Debian: apt install python3-torch; run with /usr/bin/python3)")

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
    shape, dtype = t["shape"], dtype_of(t["dtype"])
    n = math.prod(shape)
    values = t["values"]
    if values == "arange":
        base = torch.arange(n, dtype=torch.int64)
    else:
        vals = [number(values["fill"])] * n if isinstance(values, dict) else [number(v) for v in values]
        kinds = [torch.bool if isinstance(v, bool) else torch.int64 if isinstance(v, int) else
                 torch.complex128 if isinstance(v, complex) else torch.float64 for v in vals]
        wide = max(kinds, key=[torch.bool, torch.int64, torch.float64, torch.complex128].index) if kinds else torch.int64
        base = torch.tensor(vals, dtype=wide)
    x = base.to(dtype).reshape(shape)
    for step in t.get("views", []):
        x = apply_view(x, step)
    return x


def apply_view(x, step: dict):
    op = step["op"]
    if op == "t":
        return x.t()
    if op == "transpose":
        return x.transpose(*step["dims"])
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
        return x.squeeze(step["dim"]) if "dim" in step else x.squeeze()
    if op == "as_strided":
        return x.as_strided(step["sizes"], step["strides"], step["offset"])
    if op in ("contiguous", "clone", "empty_like"):
        fmt = FORMATS[step["memory_format"]]
        return torch.empty_like(x, memory_format=fmt) if op == "empty_like" else getattr(x, op)(memory_format=fmt)
    raise PlanError(f"unknown view op '{op}'")


OPS = {"add": (lambda a, b: a + b), "sub": (lambda a, b: a - b), "mul": (lambda a, b: a * b),
       "div": (lambda a, b: a / b)}


def run_op(op: dict, inputs: dict):
    name = op["name"]
    if name not in OPS:  # a view or copy op on one input
        return apply_view(inputs[op["input"]], {**{k: v for k, v in op.items() if k not in ("name", "input")}, "op": name})
    a, b = (inputs[n] for n in op["args"])
    alpha = number(op["alpha"]) if "alpha" in op else None
    form = op.get("form", "functional")
    kw = {"alpha": alpha} if alpha is not None else {}
    if form == "functional":
        return getattr(torch, name)(a, b, **kw) if kw or not isinstance(a, (int, float, complex, bool)) else OPS[name](a, b)
    if form == "out":
        out = inputs[op["out"]]
        getattr(torch, name)(a, b, out=out, **kw)
        return out
    getattr(a, name + "_")(b, **kw)
    return a


def record(case: dict) -> dict:
    inputs = {name: make_input(spec) for name, spec in case["inputs"].items()}
    try:
        r = run_op(case["op"], inputs)
    except ERRORS as e:
        kind = next(t.__name__ for t in ERRORS if isinstance(e, t))
        return {**case, "expect": {"error": kind}}
    expect = {"dtype": dtype_name(r.dtype), "sizes": list(r.shape), "strides": list(r.stride()),
              "storage_offset": r.storage_offset()}
    if case["op"]["name"] != "empty_like":  # uninitialised memory has no values to record
        expect["values"] = [encode(v) for v in r.reshape(-1).tolist()]
    return {**case, "expect": expect}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        plan = json.load(f)
    cases = []
    for k, case in enumerate(plan["cases"]):
        try:
            cases.append(record({key: v for key, v in case.items() if key != "expect"}))
        except (PlanError, KeyError) as e:
            print(f"record_cases: {argv[0]}: cases[{k}] (id {case.get('id')!r}): {e}", file=sys.stderr)
            return 1
    out = {"format": "tensor-cts/cases", "version": 1,
           "source": f"torch {torch.__version__} (generators/record_cases.py from {argv[0].rsplit('/', 1)[-1]})",
           "cases": cases}
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"record_cases: {len(cases)} cases recorded with torch {torch.__version__} -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
