"""Case times kept for the next run, so that a run's processes share the work, not the count.

A run writes the time of each case that took 1 ms or more into its logs (logs/case_times.tsv,
published into --out with the rest of the logs). The next run of the same candidate into that
folder hands a checked copy of the file (previous: bounded, line by line; a damaged file is
ignored with a warning, and the run writes new times) to the suite binaries
(--tcts_weights), which deal the heaviest tests
first, each to the process with the least work so far (conformance/harness/stream.h,
Selection). Without it they weigh a property by its draws and a table case as one (a first run
into a fresh folder); round-robin, before that, put both of the torch testee's longest properties
(7 s and 5 s) in one process: it ran 13 s after the other had finished.
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


def previous(out: str, candidate: str, workdir: str) -> tuple[str, str]:
    """(the checked copy in `workdir` of the case times an earlier run of `candidate` left in
    OUT/logs, what is wrong with that file). The copy is "" when there is none to use; what is
    wrong is "" when nothing is (no file, or one all of whose lines were read), else a warning
    for the run to print: the file is not a regular file of at most MAX_BYTES, is another
    candidate's or not ours, or has lines that are not MS<TAB>TEST (left out)."""
    path = os.path.join(out, "logs", FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return "", ""
    except OSError as e:  # ELOOP: a symbolic link
        return "", f"{path}: not read ({'a symbolic link' if os.path.islink(path) else e.strerror})"
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return "", f"{path}: not a regular file, not read"
        if st.st_size > MAX_BYTES:
            return "", f"{path}: {st.st_size} bytes, more than the {MAX_BYTES} bytes case times may have; not read"
        data = f.read(MAX_BYTES + 1)
    first, _, rest = data.partition(b"\n")
    if len(data) > MAX_BYTES:
        return "", f"{path}: more than {MAX_BYTES} bytes; not read"
    if first + b"\n" != header(candidate).encode("utf-8"):
        return "", ""  # another candidate's times (or not ours): this run writes its own
    lines, bad = [], 0
    for line in rest.split(b"\n"):
        ms, tab, test = line.partition(b"\t")
        try:
            if not (tab and ms.isdigit() and 1 <= int(ms) <= MAX_MS and test and b"\t" not in test and b"\r" not in test):
                raise ValueError
            lines.append(f"{int(ms)}\t{test.decode('utf-8')}\n")
        except (ValueError, UnicodeDecodeError):
            bad += bool(line)  # the file's last line break leaves an empty one
    wrong = f"{path}: {bad} line(s) not MS<TAB>TEST left out" if bad else ""
    if not lines:
        return "", wrong
    checked = os.path.join(workdir, FILE)
    with open(checked, "w", encoding="utf-8") as f:
        f.write(header(candidate))
        f.writelines(lines)
    return checked, wrong


def write(log_dir: str, candidate: str, cases: list[dict]) -> None:
    """This run's case times into its logs (only whole, 1 ms or more; what the binary reads)."""
    lines = [f"{c['duration_ms']}\t{c['test']}\n" for c in cases
             if type(c.get("duration_ms")) is int and c["duration_ms"] >= 1 and "\n" not in c["test"]]
    with open(os.path.join(log_dir, FILE), "w", encoding="utf-8") as f:
        f.write(header(candidate))
        f.writelines(lines)
