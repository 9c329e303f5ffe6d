"""A candidate's run history: one JSON line per run, and a static page of it.

    /usr/bin/python3 -m reports.history append report.json HISTORY.jsonl
    /usr/bin/python3 -m reports.history render HISTORY.jsonl OUT.html
    bazel run //reports:history -- append|render ...          tcts history append|render ...

append adds the run's line (line(): the candidate's name, version and build, the device, the
suite commit, the date, the verdict and headline, the score in all, per spec file and per
required feature, the outcome counts, and each case that did not PASS, as a map id -> outcome;
a case absent from it passed, so a line stays small for a conformant candidate) to the file,
creating it. One file may hold many candidates.

render writes a self-contained HTML page: per candidate (name and device) its score over time
(a line chart and a table of the runs), and per case that changed outcome between two of its
runs, when it last changed (from what to what, the date, version and suite commit), the latest
change first; cases that never changed are counted per outcome. A case missing from a run's
map is taken as PASS there, so a run of fewer cases (a filter) reads as passing the others:
keep one history per kind of run. Every line read is checked against history.schema.json (types,
outcome names, bounds; at most 256 MB a file): a line of another shape is refused with its line
number, and append refuses to write a line that read would refuse (a 100,000-character name).

Exit status: 0 done; 2 bad usage or input (the message names the file and line). Needs
python3-jsonschema to read a report and python3-jinja2 for the page (/usr/bin/python3).
"""

from __future__ import annotations

import collections
import functools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
from . import cli
from . import report_schema
from . import report_score
from . import report_terminal

FORMAT = "tensor-cts/history 1"
SCHEMA = os.path.join(HERE, "history.schema.json")  # every line read is checked against it
MAX_BYTES = 256 << 20  # a history file, read whole: some 20,000 runs of a partial candidate


class HistoryError(Exception):
    """Bad input: the message names the file and the line."""


def _scores(rows: list[dict]) -> dict:
    return {r["name"]: [r["conformant"], r["cases"]] for r in rows}


def line(doc: dict) -> dict:
    """A run's line of the history, from its report (schema version 3)."""
    score = doc.get("conformance") or report_score.conformance(doc["cases"], doc.get("features", []), doc.get("dtypes"))
    s = doc["summary"]
    return {
        "format": FORMAT,
        "date": doc["generated"],
        "candidate": {k: doc["candidate"][k] for k in ("name", "version", "build")},
        "device": doc["run"]["device"],
        "suite_commit": doc["tool"]["commit"],
        "verdict": report_score.verdict(doc),
        "headline": report_score.headline_of(doc),
        "headline_class": report_score.headline_class(doc),  # its colour: ok (green), partial, bad
        "score": {"percent": score["percent"], "conformant": score["conformant"], "cases": score["cases"]},
        "by_spec_file": _scores(score["by_spec_file"]),
        "by_feature": _scores(score["by_feature"]),
        "total": s["total"],
        "outcomes": dict(s["outcomes"]),
        "stale": None if doc["expectations"]["stale"] is None else len(doc["expectations"]["stale"]),
        "not_pass": {c["id"]: c["outcome"] for c in doc["cases"] if c["outcome"] != "PASS"},
    }


def append(doc: dict, path: str) -> dict:
    """Appends the run's line to the history file `path` (created if missing); returns it. The
    line is written in one write() of a file opened for appending, so two jobs appending at once
    never interleave their lines."""
    entry = line(doc)
    check(entry, f"the line of {report_terminal.inert(doc['candidate']['name'], 80)}'s run")  # what read() will accept
    text = json.dumps(entry, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        data = text.encode("utf-8")
        if os.fstat(fd).st_size:  # a file cut short (no final newline) must not swallow this line
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    data = b"\n" + data
        os.write(fd, data)
    finally:
        os.close(fd)
    return entry


def read(path: str) -> list[dict]:
    """The history's lines, in file order, each checked against history.schema.json;
    HistoryError naming the file and line otherwise (never a traceback: a line of another
    shape, NaN or 10^400 for a number, nesting too deep, an unknown outcome are all refused)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise HistoryError(f"cannot read history '{path}': {e.strerror}") from None
    if len(data) > MAX_BYTES:
        raise HistoryError(f"'{path}' is larger than the {MAX_BYTES} bytes a history may have")
    try:
        raw = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        raise HistoryError(f"'{path}' is not UTF-8") from None
    out = []
    for n, text in enumerate(raw, 1):
        if not text.strip():
            continue
        try:
            entry = report_schema.strict_json(text)
        except ValueError as e:
            raise HistoryError(f"{path}:{n}: not JSON: {e}") from None
        except RecursionError:
            raise HistoryError(f"{path}:{n}: nested too deeply to be a history line") from None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT:
            raise HistoryError(f"{path}:{n}: not a line of {FORMAT!r}")
        check(entry, f"{path}:{n}")
        out.append(entry)
    return out


@functools.cache
def _schema() -> dict:
    with open(SCHEMA, encoding="utf-8") as f:
        return json.load(f)


def check(entry: dict, where: str) -> None:
    """HistoryError naming `where` unless `entry` is a line history.schema.json allows."""
    try:
        problems = report_schema.check_schema(entry, _schema(), limit=3)
    except RecursionError:
        raise HistoryError(f"{where}: nested too deeply to be a history line") from None
    if problems:
        raise HistoryError(f"{where}: not a line of {FORMAT!r} (reports/history.schema.json): "
                           + "; ".join(p.replace("report", "line", 1) for p in problems))


# ---------------------------------------------------------------- what changed
def series(entries: list[dict]) -> dict[tuple, list[dict]]:
    """Candidate (name, device) -> its runs, oldest first (by date; equal dates in file order)."""
    out: dict[tuple, list[dict]] = collections.defaultdict(list)
    for e in entries:
        out[(e["candidate"]["name"], e["device"])].append(e)
    return {k: sorted(v, key=lambda e: e["date"]) for k, v in sorted(out.items())}


def outcome(entry: dict, case_id: str) -> str:
    return entry["not_pass"].get(case_id, "PASS")


def changes(runs: list[dict]) -> tuple[list[dict], collections.Counter]:
    """Per case that changed outcome between two consecutive runs: its last change (the run
    where it changed, the outcome before and after, and how many times it changed), the latest
    first; and the cases that never changed, counted by outcome (the non-PASS ones only: a case
    every run passed is in no map)."""
    ids = sorted({i for r in runs for i in r["not_pass"]})
    changed, steady = [], collections.Counter()
    for i in ids:
        seq = [outcome(r, i) for r in runs]
        flips = [k for k in range(1, len(seq)) if seq[k] != seq[k - 1]]
        if not flips:
            steady[seq[0]] += 1
            continue
        k = flips[-1]
        changed.append({"id": i, "now": seq[-1], "before": seq[k - 1], "to": seq[k], "date": runs[k]["date"],
                        "version": runs[k]["candidate"]["version"], "suite_commit": runs[k]["suite_commit"],
                        "changes": len(flips), "run": k})
    changed.sort(key=lambda c: (-c["run"], c["id"]))
    return changed, steady


# ---------------------------------------------------------------- the page
CHART_W, CHART_H, PAD = 640, 180, 36


def chart(runs: list[dict]) -> dict:
    """An SVG polyline of the score (0-100 %) per run, in run order."""
    pts = []
    n = len(runs)
    for k, r in enumerate(runs):
        pct = r["score"]["percent"]
        if pct is None:
            continue
        x = PAD + (CHART_W - 2 * PAD) * (k / (n - 1) if n > 1 else 0.5)
        y = PAD / 2 + (CHART_H - PAD) * (1 - pct / 100.0)
        pts.append({"x": round(x, 1), "y": round(y, 1), "pct": pct, "label": f"{r['date']} {r['candidate']['version']}"})
    return {"w": CHART_W, "h": CHART_H, "pad": PAD, "points": pts,
            "path": " ".join(f"{p['x']},{p['y']}" for p in pts),
            "grid": [{"pct": g, "y": round(PAD / 2 + (CHART_H - PAD) * (1 - g / 100.0), 1)} for g in (0, 50, 100)]}


CHANGES_SHOWN = 500  # per candidate; the rest are counted


def page(entries: list[dict], source: str) -> str:
    from . import pages

    candidates = []
    for (name, device), runs in series(entries).items():
        changed, steady = changes(runs)
        latest = runs[-1]
        files = sorted({f for r in runs for f in r["by_spec_file"]})
        candidates.append({
            "name": name, "device": device, "runs": list(reversed(runs)), "chart": chart(runs),
            "latest": latest, "files": files, "changed": changed[:CHANGES_SHOWN],
            "more": max(0, len(changed) - CHANGES_SHOWN), "steady": sorted(steady.items()),
        })
    return pages.templates().get_template("history.html.j2").render(
        {"source": source, "candidates": candidates, "runs": len(entries)})


def render(history: str, out: str) -> str:
    text = page(read(history), os.path.basename(history))
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)
    return out


def main(argv: list[str]) -> int:
    p = cli.parser("history.py", __doc__)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("append", help="append a run's line")
    a.add_argument("report", metavar="report.json")
    a.add_argument("history", metavar="HISTORY.jsonl")
    r = sub.add_parser("render", help="write the history page")
    r.add_argument("history", metavar="HISTORY.jsonl")
    r.add_argument("out", metavar="OUT.html")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    where = cli.working_directory()
    try:
        if args.command == "append":
            entry = append(report_schema.load(os.path.join(where, args.report)), os.path.join(where, args.history))
            print(report_terminal.inert(f"{args.history}: {entry['candidate']['name']} {entry['candidate']['version']} "
                                   f"{entry['date']}: {entry['headline']}"))
        else:
            print(render(os.path.join(where, args.history), os.path.join(where, args.out)))
    except (report_schema.ReportError, HistoryError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"history: cannot write: {cli.os_error(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
