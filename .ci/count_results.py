"""Counts test cases from Bazel's test results (bazel-testlogs/**/test.xml).

Usage: count_results.py [--label=NAME] TESTLOGS_DIR TARGET...
Reads the test.xml of each target (every shard) and prints one line:
  N passed, N failed, N skipped
A target without a test.xml counts as one failed case; a file whose <testsuite> counts more
failures than its test cases show counts the larger number. Conformance targets write one
<testcase> per spec case (conformance/runner/run.py, reports/junit.py): XFAIL passes,
NOT_SUPPORTED is skipped, FAIL/XPASS/CRASH/TIMEOUT and stale expectations fail.
Standard library only.
"""

import glob
import os
import sys
import xml.etree.ElementTree as ET


def count(testlogs: str, targets: list[str]):
    passed = failed = skipped = 0
    for target in targets:
        rel = target.lstrip("/").replace(":", "/")
        files = glob.glob(os.path.join(testlogs, rel, "test.xml")) + \
            glob.glob(os.path.join(testlogs, rel, "shard_*_of_*", "test.xml"))
        if not files:
            print(f"count_results: no test.xml for {target}", file=sys.stderr)
            failed += 1
            continue
        for path in files:
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                print(f"count_results: unreadable {path}: {e}", file=sys.stderr)
                failed += 1
                continue
            f_passed = f_failed = 0
            for tc in root.iter("testcase"):
                if tc.find("failure") is not None or tc.find("error") is not None:
                    f_failed += 1
                elif tc.get("result") == "skipped" or tc.find("skipped") is not None or tc.get("status") == "notrun":
                    skipped += 1
                else:
                    f_passed += 1
            # A writer that counts failures on the <testsuite> without marking the test cases
            # (subtests, say) must not turn them into passes.
            declared = 0
            for ts in root.iter("testsuite"):
                for attr in ("failures", "errors"):
                    try:
                        declared += int(ts.get(attr) or 0)
                    except ValueError:
                        pass
            if declared > f_failed:
                moved = min(declared - f_failed, f_passed)
                f_passed -= moved
                f_failed = declared
            passed += f_passed
            failed += f_failed
    return passed, failed, skipped


if __name__ == "__main__":
    args = sys.argv[1:]
    label = ""
    if args and args[0].startswith("--label="):
        label = args.pop(0)[len("--label="):] + ": "
    p, f, s = count(args[0], args[1:])
    print(f"{label}{p} passed, {f} failed, {s} skipped")
