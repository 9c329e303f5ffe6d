"""Where a Bazel command's time went, from its --profile (Chrome trace JSON, gzipped):
the action time by kind, the critical path, and the longest actions.

    python3 .ci/profile_summary.py PROFILE.gz [N]     (N longest actions, default 8)
"""

import collections
import gzip
import json
import sys


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    path, n = argv[1], int(argv[2]) if len(argv) == 3 else 8
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        print(f"ci: profile {path}: unreadable ({e})")
        return
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    actions = [e for e in events if e.get("ph") == "X" and e.get("cat") == "action processing"]
    by_kind = collections.Counter()
    for e in actions:
        by_kind[e.get("name", "").split(" ", 1)[0]] += e.get("dur", 0) / 1e6
    total = sum(by_kind.values())
    critical = sum(e.get("dur", 0) for e in events if e.get("ph") == "X" and e.get("cat") == "critical path component") / 1e6
    kinds = ", ".join(f"{k.lower()} {v:.0f} s ({100 * v / total:.0f} %)" for k, v in by_kind.most_common(3)) if total else "none"
    print(f"ci: profile: {len(actions)} actions, {total:.0f} s of action time: {kinds}; critical path {critical:.0f} s")
    for e in sorted(actions, key=lambda e: -e.get("dur", 0))[:n]:
        print(f"ci:   {e.get('dur', 0) / 1e6:7.1f} s  {e.get('name', '')}")


if __name__ == "__main__":
    main(sys.argv)
