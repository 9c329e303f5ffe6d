"""Which promotion rule a library follows (issue 37 item 3): the report's promote_types,
result_type and can_cast answers held against known families of rules, each one TOML file
under reports/families/ (read by the standard library's tomllib):

    pytorch     PyTorch (torch docs, torch.dtype "Type promotion"; c10 promoteTypes)
    legacy      NumPy 1.x value-based promotion (NumPy 1.24's default; NEP 50 describes it)
    weak        NEP 50 "weak" Python scalars (NumPy 1.24 opt-in, NumPy 2's default)
    jax         JAX's type promotion lattice, with weak Python scalars
    array_api   the Array API standard's promotion table: mixed kinds unspecified ("?")
    cxx         C++'s usual arithmetic conversions ([expr.arith.conv], [conv.prom])
    none        one type per operation: no promotion at all

A family file holds its name, its source, and three parts:

- [promote_types]: a table in spec/promotion.toml's form (rows and columns of dtype short
  codes): each cell a dtype's short code, "-" where the family refuses the pair (an error), or
  "?" where it says nothing (the cell is not compared);
- [can_cast]: the same, each cell "y", "n" or "?";
- [result_type]: how each class of operand takes part: `tensor` (a dimensioned tensor) always
  by its dtype; `zero_dim` and `scalar` (a Python number) each one of
      strong    by its dtype (a scalar: scalar_dtype of its kind), through promote_types
      category  PyTorch's: a lower class counts only where its category (bool < integral <
                floating < complex) is higher; a complex one over a floating one gives
                to_complex of the floating dtype
      weak      NEP 50: the other operand's dtype where the category is not higher; else
                promote_types with scalar_dtype (a complex over a floating: to_complex)
      value     NumPy 1.x: where a dimensioned tensor of at least its category is present, by
                the smallest dtype that holds its value (the suite's 3, 2 and True); else strong
      same_kind the Array API: the other operand's dtype where the category is not higher (a
                bool only beside bool; a complex beside a real floating dtype: to_complex),
                else unsaid ("?": the standard leaves the mix unspecified)
      adopt     the other operand's dtype whatever it is
  `categories` (lowest first; default bool, integral, floating, complex; NumPy 1.x: "floating
  complex" as one) is what the modes compare. Two operands of one class promote as strong.

Answers are read from a report's cases (find_answers): promote_types.<a>.<b> and
can_cast.<a>.<b> cases carry the spec's answer as `answer`, result_type.<a>.<b> cases in their
statement; where a case passed, the candidate answered the spec's answer; where it deviated,
its first mismatch's observed value (a dtype name; anything else is an error, "-"). Cases
without an answer (NOT_SUPPORTED, CRASH, ...) are left out. result_type cases of another
default dtype (result_type.default_float64.*) are left out: a family's scalar_dtype is fixed.

The operations answer too (kind "operations"): binary.<op>.<a>.<b> of the ops whose result
dtype is result_type's alone (RESULT_TYPE_OPS), their result's dtype ("-" where the library
refused the pair), held against the family's result_type. So a library with no result_type of
its own still has a family (ONNX Runtime: every mixed pair refused, "one type per operation"),
and one whose operations give another dtype than its own result_type says so (`disagreements`).

    /usr/bin/python3 -m reports.families report.json     prints the closest family and the counts
"""

from __future__ import annotations

import os
import re
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILY_DIR = os.path.join(HERE, "families")
# The order in which families are tried; a tie goes to the earlier.
ORDER = ("pytorch", "legacy", "weak", "jax", "array_api", "cxx", "none")
SHORT = {"u1": "uint8", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "f2": "float16",
         "f4": "float32", "f8": "float64", "c2": "complex32", "c4": "complex64", "c8": "complex128",
         "b1": "bool", "bf": "bfloat16"}
CODE = {v: k for k, v in SHORT.items()}
CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1, "float16": 2, "bfloat16": 2,
            "float32": 2, "float64": 2, "complex32": 3, "complex64": 3, "complex128": 3}
SCALAR_CATEGORY = {"bool": 0, "int": 1, "float": 2, "complex": 3}
KINDS = ("bool", "integral", "floating", "complex")  # CATEGORY's numbers, by name
MODES = ("strong", "category", "weak", "value", "same_kind", "adopt")
ERROR, UNSAID = "-", "?"
PROMOTE = re.compile(r"promote_types\.(\w+)\.(\w+)\Z")
CAN_CAST = re.compile(r"can_cast\.(\w+)\.(\w+)\Z")
RESULT_TYPE = re.compile(r"result_type\.([tzs]_\w+?)\.([tzs]_\w+)\Z")
# spec/promotion.toml's [[op]] rows whose result dtype is result_type(a, b) and nothing else (their
# basis is the doc's type promotion): sub refuses bool and div promotes integers to floating.
RESULT_TYPE_OPS = ("add", "mul")
OPERATION = re.compile(r"binary\.(" + "|".join(RESULT_TYPE_OPS) + r")\.([tzs]_\w+?)\.([tzs]_\w+)\Z")
_RESULT_DTYPE = re.compile(r"-> dtype (\S+)")
KINDS_COMPARED = ("promote_types", "result_type", "can_cast", "operations")


class FamilyError(Exception):
    pass


# ---------------------------------------------------------------- the families, as data
def _table(path: str, part: dict, key: str, cell) -> dict:
    cols = part.get("columns")
    if not isinstance(cols, list) or not all(c in SHORT for c in cols):
        raise FamilyError(f"{path}: [{key}] columns must be dtype short codes ({', '.join(SHORT)})")
    out = {}
    for row in part.get("rows", []):
        if not isinstance(row, list) or len(row) != len(cols) + 1 or row[0] not in SHORT:
            raise FamilyError(f"{path}: [{key}] row {row!r}: a short code, then one cell per column")
        for col, value in zip(cols, row[1:]):
            out[(SHORT[row[0]], SHORT[col])] = cell(value)
    return out


def read_toml(path: str, what: str, error: type) -> dict:
    """A TOML file (stdlib tomllib); `error` naming `what` and the problem where it cannot be
    read or is not TOML."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise error(f"{what}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{what}: not valid TOML: {e}") from None


def load_family(path: str) -> dict:
    doc = read_toml(path, path, FamilyError)
    for k in ("key", "name", "source"):
        if not isinstance(doc.get(k), str):
            raise FamilyError(f"{path}: needs {k} (a string)")

    def dtype_cell(v):
        if v in (ERROR, UNSAID):
            return v
        if v not in SHORT:
            raise FamilyError(f"{path}: [promote_types] cell {v!r} is no short code, '-' or '?'")
        return SHORT[v]

    def bool_cell(v):
        if v not in ("y", "n", UNSAID):
            raise FamilyError(f"{path}: [can_cast] cell {v!r} is not y, n or ?")
        return {"y": "true", "n": "false"}.get(v, v)

    rt = doc.get("result_type", {})
    for k in ("zero_dim", "scalar"):
        if rt.get(k) not in MODES:
            raise FamilyError(f"{path}: [result_type] {k} must be one of {', '.join(MODES)}")
    # The categories the result_type modes compare, lowest first (NumPy 1.x's value-based rule
    # holds floating and complex as one: "floating complex").
    cats = rt.get("categories", list(KINDS))
    rank = {k: i for i, group in enumerate(cats) for k in str(group).split()}
    if sorted(rank) != sorted(KINDS):
        raise FamilyError(f"{path}: [result_type] categories must name each of {', '.join(KINDS)} once")
    return {"key": doc["key"], "name": doc["name"], "source": doc["source"], "note": doc.get("note", ""),
            "promote_types": _table(path, doc.get("promote_types", {}), "promote_types", dtype_cell),
            "can_cast": _table(path, doc.get("can_cast", {}), "can_cast", bool_cell),
            "result_type": {"zero_dim": rt["zero_dim"], "scalar": rt["scalar"],
                            "scalar_dtype": dict(rt.get("scalar_dtype", {})),
                            "category": [rank[k] for k in KINDS],
                            "to_complex": {SHORT.get(k, k): SHORT.get(v, v) for k, v in rt.get("to_complex", {}).items()}}}


_FAMILIES = None


def families() -> list[dict]:
    """Every family of reports/families/, in ORDER."""
    global _FAMILIES
    if _FAMILIES is None:
        _FAMILIES = [load_family(os.path.join(FAMILY_DIR, f"{k}.toml")) for k in ORDER]
    return _FAMILIES


# ---------------------------------------------------------------- a family's answers
def promote(fam: dict, a: str, b: str) -> str:
    return fam["promote_types"].get((a, b), UNSAID)


def _min_value_dtype(kind: str, signed_ok: bool) -> str:
    """NumPy 1.x's smallest dtype holding the suite's operand values (3, 2, True) of a kind."""
    return {0: "bool", 1: "int8" if signed_ok else "uint8", 2: "float16", 3: "complex64"}[kind]


def result_type(fam: dict, a: str, b: str) -> str:
    """The family's answer to result_type(a, b): operands as the suite's case ids name them
    (t_<dtype>, z_<dtype>, s_<bool|int|float|complex>)."""
    rt = fam["result_type"]
    ops = []
    for tok in (a, b):
        cls, what = tok[0], tok[2:]
        if cls == "s":
            ops.append({"cls": "scalar", "kind": what, "cat": rt["category"][SCALAR_CATEGORY[what]],
                        "dtype": rt["scalar_dtype"].get(what, UNSAID), "mode": rt["scalar"]})
        else:
            ops.append({"cls": "tensor" if cls == "t" else "zero_dim", "kind": None, "cat": rt["category"][CATEGORY[what]],
                        "dtype": what, "mode": "strong" if cls == "t" else rt["zero_dim"]})
    def strong(x, y):
        return UNSAID if UNSAID in (x["dtype"], y["dtype"]) else promote(fam, x["dtype"], y["dtype"])

    x, y = ops
    if x["mode"] == "strong" and y["mode"] == "strong" or x["cls"] == y["cls"]:
        return strong(x, y)
    # One operand is weaker: the other (hi) is strong, or else of the higher class.
    rank = {"tensor": 0, "zero_dim": 1, "scalar": 2}
    hi, lo = sorted(ops, key=lambda o: (o["mode"] != "strong", rank[o["cls"]]))
    mode = lo["mode"]
    if mode == "adopt":
        return hi["dtype"]
    if mode == "value":
        if hi["cls"] != "tensor" or lo["cat"] > hi["cat"]:  # no dimensioned tensor of its category
            return strong(hi, lo)
        smallest = _min_value_dtype(CATEGORY.get(lo["dtype"], SCALAR_CATEGORY.get(lo["kind"])), hi["dtype"] != "uint8")
        return strong(hi, {"dtype": smallest})
    if mode == "same_kind" and lo["kind"] == "bool" and lo["cat"] != hi["cat"]:
        return UNSAID  # the Array API: a Python bool beside a bool array only; the rest unspecified
    if lo["cat"] <= hi["cat"]:
        return hi["dtype"]
    if mode == "same_kind":
        # ... and a Python complex beside a real floating array: its complex dtype (2023.12 on);
        # a higher kind else (a float beside an integer array) is unspecified
        return rt["to_complex"].get(hi["dtype"], UNSAID) if lo["kind"] == "complex" else UNSAID
    if rt["to_complex"].get(hi["dtype"]) and (lo["dtype"] in ("complex64", "complex128") or lo["kind"] == "complex"):
        return rt["to_complex"][hi["dtype"]]
    # category (PyTorch) and weak (NEP 50): a higher category counts by its dtype.
    return strong(hi, lo)


def predict(fam: dict, kind: str, a: str, b: str) -> str:
    if kind == "promote_types":
        return promote(fam, a, b)
    if kind == "can_cast":
        return fam["can_cast"].get((a, b), UNSAID)
    return result_type(fam, a, b)  # result_type and the operations


# ---------------------------------------------------------------- a report's answers
_STATED = re.compile(r"= (\S+)\s*\Z")


def _answer(case: dict, spec_answer: str | None) -> str | None:
    """What the candidate answered: the spec's answer where it passed, its first mismatch's
    observed value where it deviated (a dtype name or true/false; else an error, '-')."""
    if case["outcome"] in ("PASS", "XPASS"):
        return spec_answer
    if case["outcome"] in ("FAIL", "XFAIL") and case.get("mismatches"):
        got = case["mismatches"][0]["observed"].strip()
        return got if got in CATEGORY or got in ("true", "false") else ERROR
    return None


def _operation_answer(case: dict) -> tuple[str, str | None]:
    """A binary operation case's (spec's result dtype or '-', the candidate's): the spec's where it
    passed; where it deviated, the observed dtype of a dtype mismatch, '-' where it raised and the
    spec expects a result; None where what it gave cannot be read (it raised nothing where the spec
    expects an error, or failed in its values alone: its dtype was the spec's)."""
    m = _RESULT_DTYPE.search(case["statement"])
    spec = m[1] if m else ERROR
    if case["outcome"] in ("PASS", "XPASS"):
        return spec, spec
    if case["outcome"] not in ("FAIL", "XFAIL"):
        return spec, None
    kinds = {x.get("kind"): x for x in case.get("mismatches", [])}
    if "dtype" in kinds and kinds["dtype"]["observed"].strip() in CATEGORY:
        return spec, kinds["dtype"]["observed"].strip()
    if "error" in kinds:
        return spec, ERROR if spec != ERROR else None
    return spec, spec if (case.get("checks") or {}).get("dtype") == "PASS" else None


def find_answers(cases: list[dict]) -> list[tuple[str, str, str, str, str]]:
    """(kind, a, b, the spec's answer, the candidate's answer) of every promote_types, can_cast and
    result_type case (of the initial default dtype) the candidate answered, and of every operation
    of RESULT_TYPE_OPS (kind "operations:<op>", a and b as result_type's operands)."""
    out = []
    for c in cases:
        m = OPERATION.match(c["id"])
        if m:
            spec, got = _operation_answer(c)
            if got is not None:
                out.append((f"operations:{m[1]}", m[2], m[3], spec, got))
            continue
        for kind, pattern in (("promote_types", PROMOTE), ("can_cast", CAN_CAST), ("result_type", RESULT_TYPE)):
            m = pattern.match(c["id"])
            if not m:
                continue
            if kind != "result_type" and not (m[1] in CATEGORY and m[2] in CATEGORY):
                break  # the families' tables hold the documents' dtypes: uint16's cells are left out
            if kind == "result_type":
                stated = _STATED.search(c["statement"])
                spec = stated[1] if stated else None
            else:
                spec = c.get("answer")
            if spec is None:
                break
            got = _answer(c, spec)
            if got is not None:
                out.append((kind, m[1], m[2], spec, got))
            break
    return out


def disagreements(answers: list[tuple]) -> list[dict]:
    """Where the library's operations give another dtype than its own result_type for the same
    operands (uint8 + 1 -> int64 where result_type says uint8): one entry per operation and pair.
    An operation that refused the pair is left out: a refusal may have causes outside promotion
    (the Array API's add refuses bool arrays; Eigen does not broadcast a zero-dim operand)."""
    said = {(a, b): got for kind, a, b, _, got in answers if kind == "result_type"}
    return [{"a": a, "b": b, "op": kind.partition(":")[2], "result_type": said[(a, b)], "observed": got}
            for kind, a, b, _, got in answers
            if kind.startswith("operations:") and got != ERROR and (a, b) in said and said[(a, b)] != got]


def classify(cases: list[dict], fams: list[dict] | None = None, residual_limit: int = 200) -> dict | None:
    """report.json's `promotion_family`: per family the cells compared, agreeing and differing
    (per kind too), the closest family (the most agreeing less differing cells, then the largest
    share agreeing, then ORDER) and its residual cells; where the library's operations disagree with its own
    result_type, those cells. None where the report holds no such answer."""
    answers = find_answers(cases)
    if not answers:
        return None
    fams = fams or families()
    rows = []
    for fam in fams:
        per = {k: [0, 0] for k in KINDS_COMPARED}
        residual = []
        for kind, a, b, spec, got in answers:
            group, _, op = kind.partition(":")
            want = predict(fam, group, a, b)
            if want == UNSAID:
                continue
            per[group][1] += 1
            if want == got:
                per[group][0] += 1
            else:  # an operation's cell named by its op: add(t_int8, s_float)
                residual.append({"kind": op or kind, "a": a, "b": b, "family": want, "observed": got})
        agree = sum(v[0] for v in per.values())
        compared = sum(v[1] for v in per.values())
        rows.append({"key": fam["key"], "name": fam["name"], "source": fam["source"], "agree": agree,
                     "compared": compared, "by_kind": {k: {"agree": v[0], "compared": v[1]} for k, v in per.items()},
                     "residual": residual})
    # The closest family: the most cells agreeing less the cells differing. A cell a family
    # leaves unsaid (the Array API's mixed kinds) counts neither way, so a family gains by saying
    # more only where what it says holds more often than not, and a family stating refusals the
    # library shares but promotions it does not ('none' for array_api_strict) loses by them.
    # Then the largest share agreeing, then ORDER.
    def net(r):
        return 2 * r["agree"] - r["compared"]
    best = min(range(len(rows)), key=lambda i: (-net(rows[i]), -rows[i]["agree"] / max(rows[i]["compared"], 1), i))
    closest = rows[best]
    split = disagreements(answers)
    return {"closest": closest["key"], "name": closest["name"], "cells": len(answers),
            "families": [{k: v for k, v in r.items() if k != "residual"} for r in rows],
            "residual": closest["residual"][:residual_limit], "residual_total": len(closest["residual"]),
            **({"disagreements": split[:residual_limit], "disagreements_total": len(split)} if split else {})}


def disagreement_text(d: dict) -> str:
    """A disagreement in words: add(t_uint8, s_int) -> int64, its result_type(t_uint8, s_int) says uint8."""
    return f"{d['op']}({d['a']}, {d['b']}) -> {d['observed']}, its result_type({d['a']}, {d['b']}) says {d['result_type']}"


def cell_text(r: dict) -> str:
    """A residual cell in words: result_type(t_int8, s_float): family float64, observed float32."""
    return f"{r['kind']}({r['a']}, {r['b']}): family {r['family']}, observed {r['observed']}"


def main(argv: list[str]) -> int:
    import json

    if len(argv) != 1:
        print("usage: families.py report.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        doc = json.load(f)
    got = doc.get("promotion_family") or classify(doc["cases"])
    if got is None:
        print("no promote_types, result_type or can_cast answers in this report")
        return 0
    print(f"follows: {got['name']} ({got['closest']})")
    for r in got["families"]:
        print(f"  {r['key']:<10} {r['agree']:>5} of {r['compared']:>5} cells agree  "
              + "  ".join(f"{k} {v['agree']}/{v['compared']}" for k, v in r["by_kind"].items()))
    if got.get("disagreements_total"):
        print(f"its operations disagree with its own result_type in {got['disagreements_total']} cells:")
        for d in got["disagreements"][:20]:
            print("  " + disagreement_text(d))
    print(f"residual cells ({got['residual_total']}):")
    for r in got["residual"][:50]:
        print("  " + cell_text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
