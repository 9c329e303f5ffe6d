"""Joins the reports of one candidate's sharded or matrix jobs into one report.

    bazel run //conformance/tools:merge -- A.json B.json ... --out=DIR [--expectations=FILE]
                                 [--[no-]stale-check] [--history=FILE]
    tcts merge A.json B.json ... --out=DIR                      (the suite bundle)

The inputs must be reports (schema version 3) of ONE candidate from one suite: the same
candidate.name, candidate.version and candidate.build, the same tool.commit (the suite's
commit), run.device, run.replay_file and expectations file (expectations.file and .entries),
and the same feature and dtype tables; their case sets must be disjoint. Otherwise nothing is
written and the message names the field (or the case) and both values, with their files.

The merged report is built by reports/report.py's own functions (report.build: the summary,
verdict, score, headline and promotion family of the union, then the schema check) and written
by its one writer (render.write_all: report.json, report.md, report.html, badge.json) into DIR.
Its tool.commit is the inputs'; its machine the first input's; `merged` lists each input (file,
machine, command, suites, start, wall time, cases); its run the union (suites, processes and jobs
summed, from the first start to the last end).

Stale expectations (entries that match no case, or only NOT_SUPPORTED cases) are checked over
the union, with the runner's own check (conformance/runner/expected.py stale_entries), when the
inputs carry what it needs: every input ran every case of its suites (its own stale check was
made), or is a shard of a `bazel test` target whose every shard is among the inputs ("(shard i
of n)" in run.command); none was filtered, replayed or run on a --device; and the
expectations file (--expectations, else the reports' expectations.file) is readable and has the
entries the reports counted. Otherwise the merged report's expectations.stale is null and the
merge says why on stderr. --stale-check insists (the inputs are every case: shards made outside
`bazel test`, say), and exits 2 if it cannot; --no-stale-check skips it.

--history=FILE appends the merged run's line to a history file (reports/history.py).

Exit status: as the runner's: 0 CONFORMS, 3 CONFORMS PARTIALLY, 1 DOES NOT CONFORM; 2 bad usage
or input (a file that is no report, reports that are not one candidate's, overlapping cases); 4
the report could not be written. Needs python3-jsonschema (/usr/bin/python3).
"""

from __future__ import annotations

import collections
import datetime
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the package root: a checkout's
from conformance.runner import expectations as expectations_file
from conformance.runner import expected as runner_expected
from reports import cli
from reports import render
from reports import report as report_lib
from reports import report_schema
from reports import report_spec
from reports import report_terminal

EXIT_CONFORMS, EXIT_DOES_NOT_CONFORM, EXIT_USAGE, EXIT_PARTIAL, EXIT_OUTPUT = 0, 1, 2, 3, 4
# The fields that make reports one candidate's run of one suite: each must be equal in all.
SAME = ("candidate.name", "candidate.version", "candidate.build", "tool.commit", "run.device",
        "run.replay_file", "expectations.file", "expectations.entries")
SHARD = re.compile(r"^bazel test (\S+).* \(shard (\d+) of (\d+)\)$")


class MergeError(Exception):
    """Bad input: the message names it. Exit status 2."""


def field(doc: dict, path: str):
    value = doc
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def check_one_candidate(paths: list[str], docs: list[dict]) -> None:
    """MergeError naming the field and both values where the reports are not one candidate's
    run of one suite."""
    for p, d in zip(paths, docs):
        if d["schema_version"] != report_schema.SCHEMA_VERSION:
            raise MergeError(f"{p} is a report of schema version {d['schema_version']}; merge joins reports of "
                             f"version {report_schema.SCHEMA_VERSION} (the runner's current)")
    for name in SAME:
        first = field(docs[0], name)
        for p, d in zip(paths[1:], docs[1:]):
            value = field(d, name)
            if value != first:
                raise MergeError(f"the reports differ in {name}: {first!r} ({paths[0]}) and {value!r} ({p}); "
                                 f"a merge joins the jobs of one candidate, on one suite commit")


def check_disjoint(paths: list[str], docs: list[dict]) -> None:
    where: dict[str, str] = {}
    shared = []
    for p, d in zip(paths, docs):
        for c in d["cases"]:
            if c["id"] in where:
                shared.append((c["id"], where[c["id"]], p))
            else:
                where[c["id"]] = p
    if shared:
        case_id, a, b = shared[0]
        more = f" (and {len(shared) - 1} more case(s) in two reports)" if len(shared) > 1 else ""
        raise MergeError(f"case {case_id} is in both {a} and {b}{more}: a merge joins jobs with disjoint cases "
                         f"(the same case twice would be counted twice)")


def _join_declared(what: str, a, b, pa: str, pb: str):
    """A declaration ("declared": true, false, or null when no process of that job said)."""
    if a is None:
        return b
    if b is not None and a != b:
        raise MergeError(f"the reports differ in {what}: {a!r} ({pa}) and {b!r} ({pb}): one candidate declares "
                         f"the same")
    return a


def merge_table(paths: list[str], docs: list[dict], key: str, fixed: tuple, counts: tuple) -> list[dict] | None:
    """The features (or dtypes) table of the union: rows by name in the first report's order,
    `fixed` fields equal in all, `declared` joined, `counts` summed (the case sets are disjoint)."""
    tables = [(p, d.get(key)) for p, d in zip(paths, docs) if d.get(key) is not None]
    if not tables:
        return None
    out: dict[str, dict] = {}
    source: dict[str, str] = {}
    for p, rows in tables:
        for r in rows:
            name = r["name"]
            if name not in out:
                out[name], source[name] = dict(r), p
                continue
            row = out[name]
            for f in fixed:
                if row[f] != r[f]:
                    raise MergeError(f"the reports differ in {key}[{name}].{f}: {row[f]!r} ({source[name]}) and "
                                     f"{r[f]!r} ({p})")
            row["declared"] = _join_declared(f"{key}[{name}].declared", row["declared"], r["declared"], source[name], p)
            for f in counts:
                row[f] += r[f]
    names = [r["name"] for r in tables[0][1]] + [n for n in out if n not in {r["name"] for r in tables[0][1]}]
    return [out[n] for n in names]


def statements(paths: list[str], docs: list[dict]) -> tuple[list[dict], str] | None:
    """The statement table the inputs' spec coverage was computed from (each input holds it),
    or None when an input has no spec coverage."""
    covs = [d.get("spec_coverage") for d in docs]
    if any(c is None for c in covs):
        return None
    keep = ("id", "clause", "quote", "rows", "untested", "checks")
    table = lambda cov: [{k: s[k] for k in keep if k in s} for s in cov["statements"]]  # noqa: E731
    first = table(covs[0])
    for p, cov in zip(paths[1:], covs[1:]):
        if table(cov) != first or cov["file"] != covs[0]["file"]:
            raise MergeError(f"the reports differ in spec_coverage (the statement table): {paths[0]} and {p}")
    return first, covs[0]["file"]


def _time(text: str):
    try:
        t = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def merged_run(docs: list[dict], command: str) -> dict:
    runs = [d["run"] for d in docs]
    distinct = lambda values: list(dict.fromkeys(values))  # noqa: E731
    filters = distinct(r["filter"] for r in runs)
    starts = [_time(r["started"]) for r in runs]
    if all(starts):
        first = min(starts)
        end = max(s + datetime.timedelta(seconds=r["wall_s"]) for s, r in zip(starts, runs))
        started, wall = first.isoformat(timespec="seconds"), round((end - first).total_seconds(), 3)
    else:
        started, wall = runs[0]["started"], max(r["wall_s"] for r in runs)
    facts = {k: sum(r.get("facts", {}).get(k, 0) for r in runs) for k in ("used", "checked")}
    return {"command": command, "suites": distinct(s for r in runs for s in r["suites"]),
            "filter": filters[0] if len(filters) == 1 else " | ".join(f or "(none)" for f in filters),
            "device": runs[0]["device"], "seed": ",".join(distinct(r["seed"] for r in runs)),
            "jobs": sum(r["jobs"] for r in runs), "case_timeout_s": max(r["case_timeout_s"] for r in runs),
            "processes": sum(r["processes"] for r in runs),
            "isolated_processes": sum(r["isolated_processes"] for r in runs),
            "started": started, "wall_s": wall, "replay_file": runs[0]["replay_file"],
            **({"facts": facts} if facts["used"] else {})}


# ---------------------------------------------------------------- stale expectations over the union
def stale_obstacles(paths: list[str], docs: list[dict], forced: bool) -> list[str]:
    """Why the union cannot be checked for stale entries (empty: it can). With `forced` (the user
    says the inputs are every case) an input whose own run made no stale check is taken as a part
    of the whole; a filter, a replay, a test filter, a --device run or a missing shard never is."""
    out = []
    shards: dict[tuple, set] = collections.defaultdict(set)
    for p, d in zip(paths, docs):
        run = d["run"]
        command = run["command"]
        m = SHARD.match(command)
        if run["filter"]:
            out.append(f"{p} is a filtered run (--filter={run['filter']})")
        elif run["replay_file"]:
            out.append(f"{p} is a replay ({run['replay_file']})")
        elif "--test_filter=" in command:
            out.append(f"{p} ran under a test filter")
        elif "--device=" in command:
            out.append(f"{p} is a --device run")
        elif m:
            shards[(m.group(1), int(m.group(3)))].add(int(m.group(2)))
        elif d["expectations"]["stale"] is None and not forced:
            out.append(f"{p} made no stale check of its own and is no `bazel test` shard (give --stale-check if "
                       f"the inputs together are every case of their suites)")
    for (target, n), got in sorted(shards.items()):
        missing = sorted(set(range(1, n + 1)) - got)
        if missing:
            out.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {n} of {target} "
                       f"{'are' if len(missing) > 1 else 'is'} not among the inputs")
    return out


def resolve(path: str) -> str:
    """A path as a report or the user names it: absolute; else from where the command was
    started, the workspace, or this checkout (a report names conformance/expectations/X.txt)."""
    if os.path.isabs(path):
        return path
    for base in (cli.working_directory(), cli.workspace(),
                 ROOT):
        if base and os.path.exists(os.path.join(base, path)):
            return os.path.join(base, path)
    return path


def stale_over_union(paths: list[str], docs: list[dict], cases: list[dict], given: str, mode) -> tuple:
    """(the stale entries of the union or None, why not)."""
    if mode is False:
        return None, "--no-stale-check"
    obstacles = stale_obstacles(paths, docs, forced=mode is True)

    path = given or docs[0]["expectations"]["file"]
    if not obstacles:
        try:
            entries = expectations_file.load(resolve(path))
        except expectations_file.ExpectationsError as e:
            obstacles.append(f"the expectations file cannot be read: {e}")
        else:
            if len(entries) != docs[0]["expectations"]["entries"]:
                obstacles.append(f"{path} has {len(entries)} entries, the reports counted "
                                 f"{docs[0]['expectations']['entries']}: not the file the jobs applied")
    if obstacles:
        if mode is True:
            raise MergeError("--stale-check: cannot check the union for stale expectations: " + "; ".join(obstacles))
        return None, "; ".join(obstacles)
    return runner_expected.stale_entries(entries, cases), ""


# ---------------------------------------------------------------- the merge
def merged_cases(docs: list[dict], order: dict) -> tuple[list[dict], list[str]]:
    """Every job's cases (copies), in the suites' order, and the jobs' long reasons
    (expectations.reasons) each once, the cases' reason_ref renumbered into that list."""
    cases: list[dict] = []
    index: dict[str, int] = {}
    for d in docs:
        own = d["expectations"].get("reasons") or []
        for c in d["cases"]:
            c = dict(c)
            if c.get("reason_ref") is not None:
                c["reason_ref"] = index.setdefault(own[c["reason_ref"]], len(index))
            cases.append(c)
    return sorted(cases, key=lambda c: order.get(c["suite"], len(order))), list(index)


def merge(paths: list[str], docs: list[dict], command: str, expectations: str = "", stale_check=None) -> tuple:
    """(the merged report, validated; why the stale check was not made, or "")."""
    if len(docs) < 2:
        raise MergeError("give two reports at least")
    check_one_candidate(paths, docs)
    check_disjoint(paths, docs)
    features = merge_table(paths, docs, "features", ("level", "clause", "basis", "reason"),
                           ("cases", "not_supported")) or []
    dtypes = merge_table(paths, docs, "dtypes", ("required",), ("not_supported",))
    run = merged_run(docs, command)
    order = {s: k for k, s in enumerate(run["suites"])}
    cases, reasons = merged_cases(docs, order)
    stale, why = stale_over_union(paths, docs, cases, expectations, stale_check)
    first = docs[0]["expectations"]
    table = statements(paths, docs)
    coverage = report_spec.spec_coverage(table[0], cases, table[1]) if table else None
    doc = report_lib.build(
        candidate=dict(docs[0]["candidate"]), run=run,
        expectations={"file": first["file"], "entries": first["entries"], "stale": stale,
                      **({"unreviewed": first["unreviewed"]} if "unreviewed" in first else {}),
                      **({"reasons": reasons} if reasons else {})},
        features=features, cases=cases, coverage=coverage, dtypes=dtypes,
        # The derivations the jobs' reports used (root_causes.edges: the same spec, one commit).
        derivations=next((d["root_causes"]["edges"] for d in docs if d.get("root_causes")), None))
    doc["tool"] = dict(docs[0]["tool"])  # the suite's commit the jobs ran, not this checkout's
    doc["machine"] = dict(docs[0]["machine"])
    doc["merged"] = [{"file": p, "generated": d["generated"], "machine": d["machine"], "command": d["run"]["command"],
                      "suites": d["run"]["suites"], "started": d["run"]["started"], "wall_s": d["run"]["wall_s"],
                      "cases": len(d["cases"])} for p, d in zip(paths, docs)]
    report_schema.validate(doc)
    return doc, why


def merge_command(argv: list[str]) -> str:
    import shlex

    return (os.environ.get("TCTS_MERGE_COMMAND") or "bazel run //conformance/tools:merge --") + " " + " ".join(
        shlex.quote(a) for a in argv)


def main(argv: list[str]) -> int:
    p = cli.parser("merge.py", __doc__)
    p.add_argument("reports", nargs="+", metavar="REPORT.json")
    p.add_argument("--out", required=True, metavar="DIR", help="where the merged report's files go")
    p.add_argument("--expectations", default="", metavar="FILE",
                   help="the expectations file the jobs applied (default: the reports' expectations.file)")
    p.add_argument("--stale-check", action=__import__("argparse").BooleanOptionalAction, default=None,
                   help="check the union for stale expectations (default: when the inputs carry what it needs)")
    p.add_argument("--history", default="", metavar="FILE", help="append the merged run to this history file")
    args = cli.parse(p, argv, sys.stderr)
    if isinstance(args, int):
        return args
    where = cli.working_directory()
    docs = []
    for path in args.reports:
        try:
            docs.append(report_schema.load(os.path.join(where, path)))
        except report_schema.ReportError as e:
            print(f"merge: bad input: {e}", file=sys.stderr)
            return EXIT_USAGE
    try:
        doc, why = merge(args.reports, docs, merge_command(argv), args.expectations and os.path.join(
            where, args.expectations), args.stale_check)
    except (MergeError, report_schema.ReportError) as e:
        print(f"merge: {e}; nothing written", file=sys.stderr)
        return EXIT_USAGE
    if why:
        print(f"merge: no stale check over the union (expectations.stale is null): {why}", file=sys.stderr)
    out = os.path.join(where, args.out)
    try:
        os.makedirs(out, exist_ok=True)
        paths = render.write_all(doc, out)
        if args.history:
            from . import history
            history.append(doc, os.path.join(where, args.history))
    except OSError as e:
        print(f"merge: cannot write into {out}: {cli.os_error(e)}", file=sys.stderr)
        return EXIT_OUTPUT
    print(report_terminal.text_summary(doc))
    print(f"merged {len(docs)} reports, {len(doc['cases'])} cases: " + ", ".join(paths))
    v = doc["summary"]["verdict"]
    return EXIT_CONFORMS if v == "CONFORMS" else EXIT_PARTIAL if v == "CONFORMS PARTIALLY" else EXIT_DOES_NOT_CONFORM


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
