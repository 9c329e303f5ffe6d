"""Why a candidate deviates: root causes (the deviating cases traced through what each spec row
derives from), the deviations in an error's wording alone, and the promotion family its answers
follow (reports/families.py)."""

from __future__ import annotations

import collections
import re

from . import families
from .report_spec import failing_checks


DEVIATING = ("FAIL", "XFAIL", "CRASH", "TIMEOUT")


SPEC_TABLES_SKIPPED = ("statements", "sources", "features")  # spec.json tables that state no rule


def spec_derivations(spec: dict) -> dict[str, list]:
    """What each spec row derives from (`derives_from` in spec/*.toml; the generators checked the
    ids and that there is no cycle), from a loaded spec.json: {row id: [[parent row, [checks it
    decides]], ...]}, [] for every check; the tables in the order of their files' names."""
    edges: dict[str, list] = {}

    def walk(value):
        if isinstance(value, dict):
            rid = value.get("id", value.get("id_prefix"))
            if isinstance(rid, str) and isinstance(value.get("derives_from"), list):
                edges[rid] = [[p, c.split(",") if c else []] for p, _, c in
                              (str(d).partition(":") for d in value["derives_from"])]
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for name in sorted(spec["tables"], key=lambda n: n + ".toml"):
        if name not in SPEC_TABLES_SKIPPED:
            walk(spec["tables"][name])
    return edges


_ERROR_KIND = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception))\b")


def _error_kind(text: str) -> str:
    """The error kind a mismatch's text names (its first ...Error), else "no error" (an answer)."""
    m = _ERROR_KIND.search((text or "")[:120])
    return m.group(1) if m else "no error"


def signature(case: dict) -> str:
    """What a deviating case observed, coarsely: per mismatch kind (spec/interface.toml [[check]]),
    an error check as 'error kind EXPECTED → OBSERVED'; a crash or a hang as itself."""
    if case["outcome"] in ("CRASH", "TIMEOUT"):
        return case["outcome"]
    parts = []
    for m in case.get("mismatches", []):
        kind = m.get("kind") or "unknown check"
        want, got = _error_kind(m.get("expected", "")), _error_kind(m.get("observed", ""))
        text = (f"error kind {want} → {got}" if want != got else f"error {want}, message differs") \
            if kind == "error" else f"{kind} differs"
        if text not in parts:
            parts.append(text)
    return " + ".join(sorted(parts)) or "failed outside its checks"


def _operand(token: str) -> tuple[str, str]:
    """An input token (RowMeta::inputs) as (what it holds, its kind): 't_int32' -> ('int32', 't'),
    's_float' -> ('float', 's'), a dtype alone 'int32' -> ('int32', '')."""
    kind, sep, what = token.partition("_")
    return (what, kind) if sep and kind in ("t", "z", "s") else (token, "")


def same_inputs(above: tuple, below: tuple) -> bool:
    """Whether a case of a row above (its inputs, as _operand pairs sorted) is about the same
    inputs as a case below: the same things held (dtypes, scalar kinds) in any order, each pair of
    the same kind, where a dtype alone (promote_types' pairs) stands for a tensor of that dtype,
    zero-dim or not, never for a Python scalar."""
    return len(above) == len(below) and all(
        wa == wb and (ka == kb or (ka == "" and kb != "s") or (kb == "" and ka != "s"))
        for (wa, ka), (wb, kb) in zip(above, below))


def _inputs_key(case: dict) -> tuple | None:
    return tuple(sorted(_operand(t) for t in case["inputs"])) if case.get("inputs") else None


def root_causes(cases: list[dict], edges: dict[str, list], per_case: dict | None = None) -> dict:
    """Root deviations: the deviating cases (FAIL, XFAIL, CRASH, TIMEOUT) traced through what each
    spec row derives from (`edges`, spec_derivations). A case of row R is *derived* when one of R's
    derivations that decides a check the case failed (every derivation, for a crash or a hang
    only those that decide every check) leads, through any rows above, to a row that deviates on
    the case's own inputs; it is R's *own* deviation otherwise. A row deviates on a case's inputs
    when one of its deviating cases is about the same inputs (same_inputs: the same dtypes and
    operand kinds, from the cases' `inputs`); a row none of whose cases name inputs, or a case that
    names none, is compared by row alone (the row deviates somewhere). A root is a row with an own deviation: none of its
    ancestors explains it. Each root explains its own cases and the derived cases below it (a case
    under two roots counts for each; `explained` in the summary counts each case once). Roots that
    explain nothing below them are not listed as roots: their cases are grouped by observed
    signature (signature()), as are any deviating cases without a spec row. `per_case`, when given,
    receives each deviating case's roots by case id (write_expectations.py --by-root)."""
    deviating = [c for c in cases if c["outcome"] in DEVIATING]
    by_row: dict[str, list] = collections.defaultdict(list)
    for c in deviating:
        by_row[c.get("spec_row") or ""].append(c)
    typed_rows = {c.get("spec_row") for c in cases if c.get("inputs")}  # rows whose cases name inputs
    key_of = {c["id"]: _inputs_key(c) for c in deviating}
    deviating_inputs: dict[str, set] = collections.defaultdict(set)
    for c in deviating:
        if key_of[c["id"]] is not None:
            deviating_inputs[c.get("spec_row") or ""].add(key_of[c["id"]])

    def deviates_on(rid: str, c: dict) -> bool:
        """Whether row `rid` deviates on case c's inputs (by row alone where either names none)."""
        if not by_row.get(rid):
            return False
        key = key_of[c["id"]]
        if key is None or rid not in typed_rows:
            return True
        return any(same_inputs(k, key) for k in deviating_inputs.get(rid, ()))

    ancestors_memo: dict[str, set] = {}

    def ancestors(rid: str, trail=()) -> set:
        if rid not in ancestors_memo:
            out = set()
            for p, _ in edges.get(rid, []):
                if p not in trail:
                    out |= {p} | ancestors(p, trail + (rid,))
            ancestors_memo[rid] = out
        return ancestors_memo[rid]

    def above(c: dict) -> set:
        """The rows a deviating case's failed checks lead to."""
        failed = set() if c["outcome"] in ("CRASH", "TIMEOUT") else failing_checks(c)
        out = set()
        for p, checks in edges.get(c.get("spec_row") or "", []):
            if not checks or failed & set(checks):
                out |= {p} | ancestors(p)
        return out

    ups = {c["id"]: above(c) for c in deviating}
    own = {c["id"] for c in deviating if c.get("spec_row") and not any(deviates_on(r, c) for r in ups[c["id"]])}
    explained: dict[str, list] = {r: [] for r in sorted({c.get("spec_row") for c in deviating if c["id"] in own})}

    def nearest_roots(c: dict) -> set:
        """The roots nearest a derived case that deviate on its inputs: up from the rows its failed
        checks lead to, stopping at each such root (a root's own ancestors do not explain what it
        explains); a root that does not deviate on the case's inputs is passed through."""
        failed = set() if c["outcome"] in ("CRASH", "TIMEOUT") else failing_checks(c)
        todo = [p for p, checks in edges.get(c.get("spec_row") or "", []) if not checks or failed & set(checks)]
        seen, out = set(), set()
        while todo:
            r = todo.pop()
            if r in seen:
                continue
            seen.add(r)
            if r in explained and deviates_on(r, c):
                out.add(r)
            else:
                todo += [p for p, _ in edges.get(r, [])]
        return out

    # A derived case whose deviating ancestors lead to no root on its inputs (a row above deviates
    # on them only through a row compared by row alone) is its own row's deviation after all.
    while True:
        nearest = {c["id"]: sorted(nearest_roots(c)) for c in deviating if c["id"] not in own and c.get("spec_row")}
        lost = {cid for cid, found in nearest.items() if not found}
        if not lost:
            break
        own |= lost
        explained.update({c["spec_row"]: [] for c in deviating if c["id"] in lost})
    roots = sorted(explained)
    roots_of: dict[str, list] = {}
    for c in deviating:
        roots_of[c["id"]] = [c["spec_row"]] if c["id"] in own else nearest.get(c["id"], [])
        for r in roots_of[c["id"]]:
            explained[r].append(c)
    if per_case is not None:
        per_case.update(roots_of)
    listed, rest = [], []
    for r in roots:
        mine = [c for c in explained[r] if c.get("spec_row") == r]
        below = [c for c in explained[r] if c.get("spec_row") != r]
        if not below:
            rest += mine
            continue
        first = mine[0]
        sigs = collections.Counter(signature(c) for c in mine)
        listed.append({"row": r, "spec_file": first["spec_file"], "clause": first["clause"], "own": len(mine),
                       "downstream": len(below), "xfail": sum(c["outcome"] == "XFAIL" for c in explained[r]),
                       "rows": sorted({c.get("spec_row") for c in below}),
                       "signatures": [{"signature": k, "cases": n} for k, n in sigs.most_common(5)],
                       "example": first["id"]})
    listed.sort(key=lambda x: (-(x["own"] + x["downstream"]), x["row"]))
    rest += [c for c in deviating if not c.get("spec_row")]
    groups: dict[str, list] = collections.defaultdict(list)
    for c in rest:
        groups[signature(c)].append(c)
    other = [{"signature": k, "cases": len(v), "xfail": sum(c["outcome"] == "XFAIL" for c in v),
              "rows": sorted({c.get("spec_row") or "" for c in v})[:20], "example": v[0]["id"]}
             for k, v in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    under = {c["id"] for r in listed for c in explained[r["row"]]}
    return {"deviations": len(deviating), "xfail": sum(c["outcome"] == "XFAIL" for c in deviating),
            "roots": listed, "explained": len(under),
            "explained_xfail": sum(c["outcome"] == "XFAIL" for c in deviating if c["id"] in under),
            "other": other, "edges": {k: edges[k] for k in sorted(edges)}}


def whole_reason(doc: dict, case: dict) -> str:
    """A case's reason, whole: a reason cut in the case (reason_ref) from expectations.reasons."""
    ref, whole = case.get("reason_ref"), doc["expectations"].get("reasons") or []
    return whole[ref] if isinstance(ref, int) and 0 <= ref < len(whole) else case["reason"]


def is_wording_only(c: dict) -> bool:
    """Whether case `c` is an expected deviation (XFAIL) in an error's wording alone: the message
    check failed and no other (the error's kind is as the spec says). An unexpected FAIL is
    counted as such, never here."""
    return (c["outcome"] == "XFAIL"
            and [k for k, v in (c.get("checks") or {}).items() if v == "FAIL"] == ["message"])


def wording_only(cases: list[dict]) -> int:
    """The deviations in an error's wording alone (is_wording_only)."""
    return sum(1 for c in cases if is_wording_only(c))


def documented_messages(doc: dict) -> set:
    """The statements of the documents that quote an error's message (spec/statements.toml rows
    whose `checks` name 'message'), by id, from the report's spec_coverage."""
    return {s["id"] for s in (doc.get("spec_coverage") or {}).get("statements", [])
            if "message" in (s.get("checks") or ())}


def wording_text(cases: list[dict], documented: set = frozenset()) -> str:
    """The sentence the pages and the terminal show apart from the semantic deviations ("" when
    no deviation is in its wording alone), saying how many of them are of a message the documents
    state (a case of a statement in `documented`, documented_messages) and that the rest are
    PyTorch's wording, which the documents do not state."""
    worded = [c for c in cases if is_wording_only(c)]
    if not worded:
        return ""
    stated = sum(1 for c in worded if documented & set(c.get("statements", ())))
    return (f"{len(worded)} of the expected deviations are in an error's wording alone: the error's kind is as the spec "
            f"says, its message is the library's own (the check 'message'); " +
            (f"{stated} of them of a message the documents state, the rest of PyTorch's wording, which they do not"
             if stated else "every one of PyTorch's wording, which the documents do not state"))


def promotion_family(cases: list[dict]) -> dict | None:
    """The promotion family the candidate's promote_types, result_type and can_cast answers
    follow most closely (reports/families.py, the families under reports/families/)."""
    return families.classify(cases)
