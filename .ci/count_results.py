"""Counts test cases from Bazel's test results (bazel-testlogs/**/test.xml).

Usage: count_results.py TESTLOGS_DIR TARGET...
Reads the test.xml of each target (every shard) and prints one line:
  N passed, N failed, N skipped
A target without a test.xml counts as one failed case. Standard library only.
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
            for tc in root.iter("testcase"):
                if tc.find("failure") is not None or tc.find("error") is not None:
                    failed += 1
                elif tc.get("result") == "skipped" or tc.find("skipped") is not None or tc.get("status") == "notrun":
                    skipped += 1
                else:
                    passed += 1
    return passed, failed, skipped


if __name__ == "__main__":
    p, f, s = count(sys.argv[1], sys.argv[2:])
    print(f"{p} passed, {f} failed, {s} skipped")
