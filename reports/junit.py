"""A run's cases as a JUnit XML file (Bazel's test.xml), one <testcase> per case.

How each outcome reads to a JUnit consumer (CI counts cases from these files:
.ci/count_results.py):

    PASS, XFAIL                      passed (an XFAIL says so and why in <system-out>)
    NOT_SUPPORTED                    <skipped>, naming the feature and its level
    FAIL, XPASS, CRASH, TIMEOUT      <failure>, with expected, observed, reason and rerun command
    a stale expectations entry       a <testcase> of its own with a <failure>

The report's headline (summary.headline; reports/report.py headline_of) and verdict are
<property>s of the test suite, the headline first. Characters XML 1.0 cannot carry (most
control characters) are replaced by U+FFFD. Standard library only (and reports/report.py).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
UNEXPECTED = ("FAIL", "XPASS", "CRASH", "TIMEOUT")


def _text(value) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def _seconds(ms) -> str:
    return f"{(ms or 0) / 1000:.3f}"


def testsuite(doc: dict, name: str) -> ET.Element:
    cases = doc["cases"]
    stale = doc["expectations"]["stale"] or []
    levels = {f["name"]: f["level"] for f in doc.get("features", [])}
    failures = sum(1 for c in cases if c["outcome"] in UNEXPECTED) + len(stale)
    skipped = sum(1 for c in cases if c["outcome"] == "NOT_SUPPORTED")
    total_ms = sum(c["duration_ms"] or 0 for c in cases)
    suite = ET.Element("testsuite", name=_text(name), tests=str(len(cases) + len(stale)), failures=str(failures),
                       errors="0", skipped=str(skipped), time=_seconds(total_ms))
    props = ET.SubElement(suite, "properties")
    cand = doc["candidate"]
    verdict = doc["summary"].get("verdict") or ("CONFORMS" if doc["summary"]["conforms"] else "DOES NOT CONFORM")
    # The headline first (summary.headline): a candidate that passes only by its own list of
    # deviations does not read like one without any; the gate's verdict follows it.
    from . import report_score

    for key, value in (("candidate", f"{cand['name']} {cand['version']}".strip()),
                       ("headline", report_score.headline_of(doc)), ("verdict", verdict),
                       ("why", "; ".join(doc["summary"].get("why", []))), ("seed", doc["run"]["seed"]),
                       ("command", doc["run"]["command"])):
        ET.SubElement(props, "property", name=key, value=_text(value))
    for c in cases:
        tc = ET.SubElement(suite, "testcase", name=_text(c["id"]), classname=_text(f"{c['suite']}.{c['clause']}"),
                           time=_seconds(c["duration_ms"]))
        outcome = c["outcome"]
        if outcome in UNEXPECTED:
            failure = ET.SubElement(tc, "failure", type=outcome,
                                    message=_text(f"{outcome}: expected {c['expected']}; observed {c['observed']}"[:1000]))
            lines = [f"{outcome} {c['id']}", f"  clause:   {c['clause']}", f"  basis:    {c['basis']}",
                     *([f"  spec row: {c['spec_row']}"] if c.get("spec_row") else []),
                     f"  row:      {c['statement']}", f"  expected: {c['expected']}", f"  observed: {c['observed']}"]
            if c["reason"]:
                lines.append(f"  note:     {c['reason']}")
            if c.get("seed"):
                lines.append(f"  seed:     {c['seed']}")
            lines.append(f"  rerun:    {c['rerun']}")
            if c["message"]:
                lines += ["", c["message"]]
            failure.text = _text("\n".join(lines))
        elif outcome == "NOT_SUPPORTED":
            feature = c.get("feature")
            level = levels.get(feature, "")
            ET.SubElement(tc, "skipped", message=_text(
                f"NOT_SUPPORTED: {c['observed']}" + (f" (feature {feature}, {level})" if feature else "")))
        elif outcome == "XFAIL":
            ET.SubElement(tc, "system-out").text = _text(f"XFAIL (expected deviation): {c['reason']}\n"
                                                         f"expected {c['expected']}; observed {c['observed']}")
    for s in stale:
        tc = ET.SubElement(suite, "testcase", name=_text(f"{doc['expectations']['file']}:{s['line']}"),
                           classname="expectations.stale", time="0.000")
        ET.SubElement(tc, "failure", type="STALE", message=_text(
            f"stale expectations entry: '{s['pattern']}' {s['outcome']} matches "
            + (f"only {s['not_supported']} NOT_SUPPORTED case(s)" if s.get("not_supported") else "no case")
            + f" ({s['reason']})"))
    return suite


def write(path: str, doc: dict, name: str) -> None:
    root = ET.Element("testsuites")
    suite = testsuite(doc, name)
    for key in ("tests", "failures", "errors", "skipped", "time"):
        root.set(key, suite.get(key))
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def write_empty(path: str, name: str) -> None:
    """A shard with no cases: a well-formed file with no test cases."""
    root = ET.Element("testsuites", tests="0", failures="0", errors="0", skipped="0", time="0.000")
    ET.SubElement(root, "testsuite", name=_text(name), tests="0", failures="0", errors="0", skipped="0", time="0.000")
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)
