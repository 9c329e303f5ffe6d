"""A report's verdict and its score beside the gate: the summary (the verdict and why), the
conformance score (of the cases of required features, how many behave as the spec says), the
headline that tells a candidate without deviations from one that conforms to its own list of
them, and the badge."""

from __future__ import annotations

import collections
import re

from .report_schema import OUTCOMES, UNEXPECTED


def verdict(doc: dict) -> str:
    """The report's verdict; version 1 reports had only `conforms`."""
    s = doc["summary"]
    return s.get("verdict") or ("CONFORMS" if s["conforms"] else "DOES NOT CONFORM")


_NEEDS = re.compile(r"\(needs ([a-z_]+)\)$")  # a skipped check's text names the feature it needs


def summary(cases: list[dict], stale, features: list[dict], dtypes: list[dict] | None = None) -> dict:
    """The verdict (see report.schema.json summary.verdict) and the reasons for it."""
    counts = collections.Counter(c["outcome"] for c in cases)
    outcomes = {o: counts[o] for o in OUTCOMES}
    required_ns = [{"feature": f["name"], "cases": f["not_supported"]}
                   for f in features if f["level"] == "required" and f["not_supported"]]
    # A required dtype the candidate does not declare costs the verdict once, with its cases.
    missing_dtypes = [{"dtype": d["name"], "cases": d["not_supported"]}
                      for d in dtypes or [] if d["required"] and d["declared"] is False]
    unnamed = sum(1 for c in cases if c["outcome"] == "NOT_SUPPORTED" and not c.get("feature") and not c.get("dtype"))
    # Cases judged without some of their checks: a check that needs a feature the candidate
    # declares unsupported (values, on the meta device) is NOT_SUPPORTED by itself, and the case
    # is judged on the rest. Each such feature, with the cases it left partly judged.
    partly = collections.Counter()
    for c in cases:
        if c["outcome"] == "NOT_SUPPORTED":
            continue
        for feature in {m.group(1) for text in c.get("skipped_checks", []) for m in [_NEEDS.search(text)] if m}:
            partly[feature] += 1
    levels = {f["name"]: f["level"] for f in features}
    partly_judged = [{"feature": name, "cases": n} for name, n in sorted(partly.items())]
    why = []
    if not cases:
        verdict = "DOES NOT CONFORM"
        why.append("no case ran")
    elif any(outcomes[o] for o in UNEXPECTED) or stale:
        verdict = "DOES NOT CONFORM"
        why += [f"{outcomes[o]} {o}" for o in UNEXPECTED if outcomes[o]]
        if stale:
            why.append(f"{len(stale)} stale expectation{'s' if len(stale) != 1 else ''}")
    else:
        why += [f"required feature {r['feature']} answered NotSupported: {r['cases']} case{'s' if r['cases'] != 1 else ''} "
                "not exercised" for r in required_ns]
        why += [f"required feature {p['feature']} declared unsupported: {p['cases']} case{'s' if p['cases'] != 1 else ''} "
                f"judged without the checks that need it" for p in partly_judged if levels.get(p["feature"]) == "required"]
        why += [f"required dtype {m['dtype']} not declared: {m['cases']} case{'s' if m['cases'] != 1 else ''} "
                "not exercised" for m in missing_dtypes]
        if unnamed:
            why.append(f"{unnamed} case{'s' if unnamed != 1 else ''} NOT_SUPPORTED without naming a feature")
        if not outcomes["PASS"] and not outcomes["XFAIL"]:
            why.append(f"no case was exercised: all {len(cases)} NOT_SUPPORTED")
        verdict = "CONFORMS PARTIALLY" if why else "CONFORMS"
    return {"total": len(cases), "outcomes": outcomes, "verdict": verdict, "conforms": verdict == "CONFORMS",
            "why": why, "required_not_supported": required_ns, "missing_dtypes": missing_dtypes,
            "partly_judged": partly_judged}


def _percent(n: int, d: int):
    return round(100.0 * n / d, 1) if d else None


def conformance(cases: list[dict], features: list[dict], dtypes: list[dict] | None = None) -> dict:
    """Of the cases of required features, how many behave as the spec says (raw PASS), in
    all, per spec file, per clause and per required feature; and the required features some
    case exercised. A case is left out when it answered NotSupported for an optional feature
    or its checks used one (a feature spec/features.toml does not name counts as required), or
    when it did not reach its row's operation (it did not run, or only its setup failed) and its
    row is about one (every case of the row that reached it used it; where none did, a case of
    the row answered NotSupported for it), or when it did not run for a dtype
    the library did not declare that is not required (`dtypes`, report.json's: complex32, uint16:
    spec/dtypes.toml `documented = false`), as an optional feature's."""
    level = {f["name"]: f["level"] for f in features}
    optional_dtypes = {d["name"] for d in dtypes or [] if not d.get("required", True)}
    tally = {k: collections.defaultdict(lambda: [0, 0]) for k in ("spec_file", "clause", "feature")}
    total, good, excluded, ran = 0, 0, 0, 0

    def optional(f: str) -> bool:
        return level.get(f, "required") != "required"

    def used_by(c: dict) -> set:
        return set(c.get("features", [])) | ({c["feature"]} if c.get("feature") else set())

    def reached(c: dict) -> bool:
        """Whether the case reached the operation its row is about: it ran, and not only its setup
        failed (a case whose one failed check is `setup` never called the row's operation)."""
        return c["outcome"] != "NOT_SUPPORTED" and c.get("checks") != {"setup": "FAIL"}
    # A case that did not run is about what its row is about: the features every case of its row
    # that ran used (a DLPack case of an undeclared bfloat16, or one whose setup view the candidate
    # lacks, is as optional as the row's float32 case that ran), or, where none of the row ran, the
    # optional features its cases that did not run named (to_dlpack NotSupported: dlpack).
    ran_common: dict[str, set] = {}
    unrun_optional: dict[str, set] = collections.defaultdict(set)
    for c in cases:
        row = c.get("spec_row")
        if not row:
            continue
        if reached(c):
            ran_common[row] = ran_common[row] & used_by(c) if row in ran_common else used_by(c)
        else:
            unrun_optional[row] |= {f for f in used_by(c) if optional(f)}
    for c in cases:
        if c["outcome"] == "NOT_SUPPORTED" and c.get("dtype") in optional_dtypes:
            excluded += 1
            continue
        used = used_by(c)
        if not reached(c) and c.get("spec_row"):
            row = c["spec_row"]
            used = used | (ran_common[row] if row in ran_common else unrun_optional[row])
        if any(optional(f) for f in used):
            excluded += 1
            continue
        ok = c["outcome"] in ("PASS", "XPASS")
        total += 1
        good += ok
        ran += c["outcome"] != "NOT_SUPPORTED"
        keys = {"spec_file": [c["spec_file"]], "clause": [c["clause"]], "feature": sorted(used)}
        for kind, names in keys.items():
            for name in names:
                tally[kind][name][0] += ok
                tally[kind][name][1] += 1

    def rows(kind):
        return [{"name": k, "conformant": n, "cases": d, "percent": _percent(n, d)}
                for k, (n, d) in sorted(tally[kind].items())]

    required = [f for f in features if f["level"] == "required"]
    return {"conformant": good, "cases": total, "percent": _percent(good, total), "optional_excluded": excluded,
            "ran": ran, "percent_of_ran": _percent(good, ran),
            "required_features": {"exercised": sum(1 for f in required if f["cases"] > 0), "total": len(required)},
            "by_spec_file": rows("spec_file"), "by_clause": rows("clause"), "by_feature": rows("feature")}


def denominator_text(score: dict) -> str:
    """What a score is a share of, in words, with the share of the cases that ran beside it:
    "6,300 of 15,190 cases of required features (every one, run or not) behave as the spec says;
    45.3 % of the 13,900 that ran" (`ran`: absent in reports before it existed)."""
    text = (f"{score['conformant']:,} of {score['cases']:,} cases of required features (every one, run or not) "
            "behave as the spec says")
    if score.get("ran") is not None and score["ran"] != score["cases"]:
        text += ("; none ran" if not score["ran"] else f"; {score['percent_of_ran']:.1f} % of the {score['ran']:,} that ran")
    return text


def headline(verdict_text: str, score: dict, xfail: int = 0) -> str:
    """The gate's verdict, told apart from a candidate without deviations: CONFORMS only when
    every counted case behaves as the spec says and no case is a listed deviation (`xfail`:
    the run's XFAIL cases, an optional feature's included); a candidate that conforms to its
    own list of deviations PASSES ITS EXPECTATIONS, with its score."""
    pct = score["percent"]
    if verdict_text == "CONFORMS":
        if score["conformant"] == score["cases"] and not xfail:
            return "CONFORMS"
        return "PASSES ITS EXPECTATIONS" + ("" if pct is None else f" — {pct:.1f} % conformant")
    return verdict_text if pct is None else f"{verdict_text} — {pct:.1f} % conformant"


def headline_of(doc: dict) -> str:
    """A report's headline: summary.headline, or for a report before version 3 the same from
    its verdict and cases. A report whose stored headline says CONFORMS while it lists
    deviations (written before optional features' XFAILs counted) is told as it is."""
    s = doc["summary"]
    xfail = s["outcomes"].get("XFAIL", 0)
    stored = s.get("headline")
    if stored and not (stored == "CONFORMS" and xfail):
        return stored
    score = doc.get("conformance") or conformance(doc["cases"], doc.get("features", []), doc.get("dtypes"))
    return headline(verdict(doc), score, xfail)


def headline_class(doc: dict) -> str:
    """The headline's colour (a class of reports/pages.py CSS): ok (green) only for CONFORMS
    with no listed deviation; bad (red) for DOES NOT CONFORM; partial (amber) otherwise —
    PASSES ITS EXPECTATIONS and CONFORMS PARTIALLY. Never the bare gate verdict's."""
    text = headline_of(doc)
    if text == "CONFORMS" and not doc["summary"]["outcomes"].get("XFAIL", 0):
        return "ok"
    return "bad" if text.startswith("DOES NOT CONFORM") else "partial"


# The badge's colour per headline class (headline_class): shields.io's named colours.
BADGE_COLORS = {"ok": "brightgreen", "partial": "yellow", "bad": "red"}


def badge(doc: dict) -> dict:
    """badge.json: the headline as a shields.io endpoint badge
    (https://shields.io/badges/endpoint-badge). Its colour is headline_class's: green only for
    CONFORMS with no listed deviation, yellow for PASSES ITS EXPECTATIONS and CONFORMS
    PARTIALLY, red for DOES NOT CONFORM."""
    return {"schemaVersion": 1, "label": "tensor-cts", "message": headline_of(doc),
            "color": BADGE_COLORS[headline_class(doc)]}
