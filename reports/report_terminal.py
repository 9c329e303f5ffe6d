"""A report for the terminal: the text summary the runner and `report.py summary` print, and
text a candidate controls made inert for a terminal."""

from __future__ import annotations

import collections
import unicodedata

from .report_causes import documented_messages, wording_text
from .report_schema import OUTCOMES, UNEXPECTED
from .report_score import denominator_text, headline_of, verdict


TERMINAL_TEXT_CHARS = 300  # a field of the text summary, at most


def inert(text, limit: int = TERMINAL_TEXT_CHARS) -> str:
    """Text a candidate controls, made inert for a terminal: control and format characters
    (ESC, CR, newlines, bidirectional overrides...) shown as escapes, cut to `limit`."""
    text = str(text)
    cut = len(text) > limit
    text = text[:limit]
    out = "".join(ch if unicodedata.category(ch)[0] not in "CZ" or ch == " " else
                  (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else
                   f"\\U{ord(ch):08x}") for ch in text)
    return out + ("..." if cut else "")


def per_key(cases: list[dict], key: str) -> dict:
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for c in cases:
        table[c[key]][c["outcome"]] += 1
    return dict(sorted(table.items()))


def text_summary(doc: dict, limit: int = 30) -> str:
    cases = doc["cases"]
    cand = doc["candidate"]
    lines = [f"tensor-cts conformance summary: {inert(cand['name'])} {inert(cand['version'])}".rstrip()]
    table = {inert(k): v for k, v in per_key(cases, "clause").items()}
    width = max([len("clause")] + [len(k) for k in table])
    header = f"{'clause':<{width}}  {'cases':>6}" + "".join(f"  {o:>13}" for o in OUTCOMES)
    lines += [header, "-" * len(header)]
    for clause, cnt in table.items():
        lines.append(f"{clause:<{width}}  {sum(cnt.values()):>6}" + "".join(f"  {cnt[o]:>13}" for o in OUTCOMES))
    lines.append("-" * len(header))
    total = doc["summary"]["outcomes"]
    lines.append(f"{'total':<{width}}  {doc['summary']['total']:>6}" + "".join(f"  {total[o]:>13}" for o in OUTCOMES))
    reasons = collections.Counter(c["reason"] for c in cases if c["outcome"] == "XFAIL")
    if reasons:
        lines.append("\nexpected deviations (from the candidate's expectations file):")
        worded = wording_text(cases, documented_messages(doc))
        if worded:
            lines.append(f"  ({worded})")
        lines += [f"  {n:>5}  {inert(reason)}" for reason, n in reasons.most_common()]
    if doc["expectations"].get("unreviewed"):
        lines.append(f"\n{doc['expectations']['unreviewed']} reason(s) in {inert(doc['expectations']['file'])} start "
                     f"with UNREVIEWED: replace each with the library's rule and its source")
    stale = doc["expectations"]["stale"]
    if stale:
        lines.append(f"\nstale expectations ({doc['expectations']['file']}): entries that match no case, or only "
                     "NOT_SUPPORTED cases")
        lines += [f"  line {s['line']}: {inert(s['pattern'])} {s['outcome']}  ({inert(s['reason'])})"
                  + (f"  [matches only {s['not_supported']} NOT_SUPPORTED case(s)]" if s.get("not_supported") else "")
                  for s in stale]
    unexpected = [c for c in cases if c["outcome"] in UNEXPECTED]
    if unexpected:
        lines.append("\nunexpected outcomes:")
        for c in unexpected[:limit]:
            lines.append(f"  {c['outcome']:<7} {inert(c['id'])}  [{inert(c['clause'])}]")
            lines.append(f"          expected: {inert(c['expected'])}")
            lines.append(f"          observed: {inert(c['observed'])}")
            if c.get("seed"):
                lines.append(f"          seed:     {c['seed']}" + (f" ({c['draws']} checked draws)" if "draws" in c else ""))
            lines.append(f"          rerun:    {inert(c['rerun'], 1000)}")
            if c.get("repro"):
                lines.append(f"          repro:    {inert(c['repro'], 1000)}")
        if len(unexpected) > limit:
            lines.append(f"  ... and {len(unexpected) - limit} more (report.md lists them all)")
    why = doc["summary"].get("why", [])
    if why:
        lines.append(f"\n{verdict(doc).lower()}: " + "; ".join(inert(w) for w in why))
    lines += score_lines(doc)
    # The headline, not the bare verdict: a candidate that conforms only to its own list of
    # deviations does not read like one without any (summary.headline, schema 3).
    lines.append(f"\nresult: {inert(cand['name'])} {headline_of(doc)}: "
                 f"{total['PASS']} pass, {total['XFAIL']} expected deviations, "
                 f"{total['FAIL']} fail, {total['XPASS']} unexpected passes, {total['NOT_SUPPORTED']} not supported, "
                 f"{total['CRASH']} crash, {total['TIMEOUT']} timeout"
                 + (f", {len(stale)} stale expectations" if stale else ""))
    return "\n".join(lines)


def score_lines(doc: dict) -> list[str]:
    """The conformance score beside the gate, for the terminal (none for reports before version 3)."""
    score = doc.get("conformance")
    if not score or score["percent"] is None:
        return []
    rf = score["required_features"]
    lines = [f"\nconformance (beside the verdict): {score['percent']:.1f} % — {denominator_text(score)}; required "
             f"features exercised: {rf['exercised']} of {rf['total']}"
             + (f"; {score['optional_excluded']} cases of optional features not counted" if score["optional_excluded"] else "")]
    width = max(len(r["name"]) for r in score["by_spec_file"])
    lines += [f"  {r['name']:<{width}}  {r['percent']:>5.1f} %  ({r['conformant']} of {r['cases']})"
              for r in score["by_spec_file"]]
    return lines
