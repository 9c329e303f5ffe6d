"""Summarizes conformance results (GoogleTest XML written by the suites) per clause.

Usage: summarize.py [--candidate=NAME] RESULT.xml...
Prints a table per clause (cases, PASS, XFAIL, FAIL, XPASS, NOT_SUPPORTED), the expected
deviations grouped by reason, and each unexpected outcome with its rerun command.
Exit status 1 when any case FAILed or XPASSed, 0 otherwise.

Each generated case records its row, clause and outcome as test properties (see
conformance/harness.cc); RapidCheck properties have none and count under "properties".
Python standard library only.
"""

from __future__ import annotations

import collections
import sys
import xml.etree.ElementTree as ET

OUTCOMES = ("PASS", "XFAIL", "FAIL", "XPASS", "NOT_SUPPORTED")


def cases(paths: list[str]):
    """Yields dicts: name, row, clause, outcome, reason, message."""
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError) as e:
            raise SystemExit(f"summarize: cannot read {path}: {e}")
        for tc in root.iter("testcase"):
            props = {p.get("name"): p.get("value") for p in tc.iter("property")}
            props.update({k: v for k, v in tc.attrib.items() if k in ("row", "clause", "outcome", "reason")})
            failure = tc.find("failure")
            skipped = tc.get("result") == "skipped" or tc.find("skipped") is not None
            outcome = props.get("outcome")
            if outcome is None:  # a property test, or a case that stopped before Finish()
                outcome = "FAIL" if failure is not None else ("NOT_SUPPORTED" if skipped else "PASS")
            elif failure is not None and outcome in ("PASS", "XFAIL"):
                outcome = "FAIL"  # a failure the harness did not classify
            yield {
                "name": f"{tc.get('classname')}.{tc.get('name')}",
                "row": props.get("row", f"{tc.get('classname')}.{tc.get('name')}"),
                "clause": props.get("clause", "properties"),
                "outcome": outcome,
                "reason": props.get("reason", ""),
                "message": failure.get("message", "") if failure is not None else "",
            }


def summarize(paths: list[str], candidate: str, out=sys.stdout) -> int:
    per_clause: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    reasons: collections.Counter = collections.Counter()
    unexpected = []
    for c in cases(paths):
        per_clause[c["clause"]][c["outcome"]] += 1
        if c["outcome"] == "XFAIL":
            reasons[c["reason"]] += 1
        if c["outcome"] in ("FAIL", "XPASS"):
            unexpected.append(c)
    total = collections.Counter()
    width = max([len("clause")] + [len(k) for k in per_clause])
    print(f"tensor-cts conformance summary: candidate {candidate}", file=out)
    header = f"{'clause':<{width}}  {'cases':>6}" + "".join(f"  {o:>13}" for o in OUTCOMES)
    print(header, file=out)
    print("-" * len(header), file=out)
    for clause in sorted(per_clause):
        cnt = per_clause[clause]
        total.update(cnt)
        print(f"{clause:<{width}}  {sum(cnt.values()):>6}" + "".join(f"  {cnt[o]:>13}" for o in OUTCOMES), file=out)
    print("-" * len(header), file=out)
    print(f"{'total':<{width}}  {sum(total.values()):>6}" + "".join(f"  {total[o]:>13}" for o in OUTCOMES), file=out)
    if reasons:
        print("\nexpected deviations (from the candidate's expectations file):", file=out)
        for reason, n in reasons.most_common():
            print(f"  {n:>5}  {reason}", file=out)
    if unexpected:
        print("\nunexpected outcomes:", file=out)
        for c in unexpected[:50]:
            first = c["message"].strip().splitlines()
            print(f"  {c['outcome']:<5} {c['row']}  [{c['clause']}]", file=out)
            for line in first:
                if line.strip().startswith(("expected:", "observed:", "rerun:")):
                    print(f"        {line.strip()}", file=out)
        if len(unexpected) > 50:
            print(f"  ... and {len(unexpected) - 50} more (see the logs)", file=out)
    ok = not unexpected and sum(total.values()) > 0
    verdict = "CONFORMS" if ok else "DOES NOT CONFORM"
    print(f"\nresult: {candidate} {verdict}: {total['PASS']} pass, {total['XFAIL']} expected deviations, "
          f"{total['FAIL']} fail, {total['XPASS']} unexpected passes, {total['NOT_SUPPORTED']} not supported", file=out)
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    candidate = "?"
    paths = []
    for a in argv:
        if a.startswith("--candidate="):
            candidate = a.split("=", 1)[1]
        else:
            paths.append(a)
    if not paths:
        print("summarize: no result files given", file=sys.stderr)
        return 2
    return summarize(paths, candidate)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
