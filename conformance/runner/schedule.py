"""Case times kept for the next run, so that a run's processes share the work, not the count.

A run writes the time of each case that took 1 ms or more into its logs (logs/case_times.tsv,
published into --out with the rest of the logs). The next run of the same candidate into that
folder hands the file to the suite binaries (--tcts_weights), which deal the heaviest tests
first, each to the process with the least work so far (conformance/harness/stream.h,
Selection). Without it they deal round-robin, which put both of the torch testee's longest
properties (7 s and 5 s) in one process: it ran 13 s after the other had finished.
The times decide which process runs a case, never its outcome or its place in the report.
"""

from __future__ import annotations

import os

FILE = "case_times.tsv"


def header(candidate: str) -> str:
    return f"# tensor-cts: case times in ms of the candidate {candidate!r} (MS<TAB>TEST; --tcts_weights)\n"


def previous(out: str, candidate: str) -> str:
    """The case times an earlier run of `candidate` left in OUT/logs; "" when there are none
    (or they are another candidate's)."""
    path = os.path.join(out, "logs", FILE)
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return ""
    return os.path.abspath(path) if first == header(candidate) else ""


def write(log_dir: str, candidate: str, cases: list[dict]) -> None:
    """This run's case times into its logs (only whole, 1 ms or more; what the binary reads)."""
    lines = [f"{c['duration_ms']}\t{c['test']}\n" for c in cases
             if type(c.get("duration_ms")) is int and c["duration_ms"] >= 1 and "\n" not in c["test"]]
    with open(os.path.join(log_dir, FILE), "w", encoding="utf-8") as f:
        f.write(header(candidate))
        f.writelines(lines)
