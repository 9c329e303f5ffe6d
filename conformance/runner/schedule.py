"""Case times kept for the next run, so that a run's processes share the work, not the count.

A run writes the time of each case that took 1 ms or more into its logs (logs/case_times.tsv,
published into --out with the rest of the logs). The next run of the same candidate into that
folder hands a checked copy of the file (previous: bounded, line by line) to the suite binaries
(--tcts_weights), which deal the heaviest tests
first, each to the process with the least work so far (conformance/harness/stream.h,
Selection). Without it they deal round-robin, which put both of the torch testee's longest
properties (7 s and 5 s) in one process: it ran 13 s after the other had finished.
The times decide which process runs a case, never its outcome or its place in the report.
"""

from __future__ import annotations

import os
import stat

FILE = "case_times.tsv"


def header(candidate: str) -> str:
    return f"# tensor-cts: case times in ms of the candidate {candidate!r} (MS<TAB>TEST; --tcts_weights)\n"


# What the next run reads of an earlier run's file: a regular file (never a link, a FIFO or a
# device) of at most MAX_BYTES, read once; a line that is not "MS<TAB>TEST" (MS a whole number of
# ms, 1 to MAX_MS) is left out. A suite has some 15,000 cases: 2 MB of lines; the times only
# balance the processes, so a damaged file costs the balance, never the run.
MAX_BYTES = 8 << 20
MAX_MS = 10 ** 9


def previous(out: str, candidate: str, workdir: str) -> str:
    """The case times an earlier run of `candidate` left in OUT/logs, checked and copied into
    `workdir` (what the binaries read, --tcts_weights); "" when there are none, or they are
    another candidate's, or the file is not a regular file of at most MAX_BYTES."""
    path = os.path.join(out, "logs", FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return ""
        data = f.read(MAX_BYTES + 1)
    first, _, rest = data.partition(b"\n")
    if len(data) > MAX_BYTES or first + b"\n" != header(candidate).encode("utf-8"):
        return ""
    lines = []
    for line in rest.split(b"\n"):
        ms, tab, test = line.partition(b"\t")
        if tab and ms.isdigit() and 1 <= int(ms) <= MAX_MS and test and b"\t" not in test and b"\r" not in test:
            try:
                lines.append(f"{int(ms)}\t{test.decode('utf-8')}\n")
            except UnicodeDecodeError:
                pass
    if not lines:
        return ""
    checked = os.path.join(workdir, FILE)
    with open(checked, "w", encoding="utf-8") as f:
        f.write(header(candidate))
        f.writelines(lines)
    return checked


def write(log_dir: str, candidate: str, cases: list[dict]) -> None:
    """This run's case times into its logs (only whole, 1 ms or more; what the binary reads)."""
    lines = [f"{c['duration_ms']}\t{c['test']}\n" for c in cases
             if type(c.get("duration_ms")) is int and c["duration_ms"] >= 1 and "\n" not in c["test"]]
    with open(os.path.join(log_dir, FILE), "w", encoding="utf-8") as f:
        f.write(header(candidate))
        f.writelines(lines)
