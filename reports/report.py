"""report.json: building, validating, summarizing, and writing a run's report with its renderings.

report.json is the canonical form; its schema is reports/report.schema.json (versioned).
report.md and report.html are rendered from it by reports/render.py.

    python3 reports/report.py validate report.json      checks a report against the schema
    python3 reports/report.py summary report.json       prints the text summary
Standard library only.
"""

from __future__ import annotations

import collections
import datetime
import json
import os
import platform
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(HERE, "report.schema.json")
SCHEMA_VERSION = 1
OUTCOMES = ("PASS", "XFAIL", "FAIL", "XPASS", "NOT_SUPPORTED", "CRASH", "TIMEOUT")
UNEXPECTED = ("FAIL", "XPASS", "CRASH", "TIMEOUT")


class ReportError(Exception):
    pass


# ---------------------------------------------------------------- the schema
def _type_ok(value, t: str) -> bool:
    return {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
    }[t](value)


def check_schema(value, schema: dict, where: str = "report") -> list[str]:
    """The ways `value` breaks `schema` (the JSON Schema subset report.schema.json uses:
    type, const, enum, required, properties, additionalProperties: false, items)."""
    problems = []
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_type_ok(value, t) for t in types):
            return [f"{where}: expected {' or '.join(types)}, got {type(value).__name__} {value!r:.60}"]
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: expected {schema['const']!r}, got {value!r:.60}")
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r:.60} is not one of {schema['enum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{where}: missing '{key}'")
        props = schema.get("properties", {})
        for key, v in value.items():
            if key in props:
                problems += check_schema(v, props[key], f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                problems.append(f"{where}: unknown field '{key}'")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            problems += check_schema(v, schema["items"], f"{where}[{i}]")
            if len(problems) > 20:
                break
    return problems


def schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def validate(doc: dict) -> None:
    problems = check_schema(doc, schema())
    if problems:
        raise ReportError("report does not match reports/report.schema.json:\n  " + "\n  ".join(problems[:20]))


def load(path: str) -> dict:
    """A report.json, validated; ReportError naming the file otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError(f"cannot read report '{path}': {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ReportError(f"'{path}' is not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != "tensor-cts/report":
        raise ReportError(f"'{path}' is not a tensor-cts report (no \"schema\": \"tensor-cts/report\")")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise ReportError(f"'{path}' has schema_version {doc.get('schema_version')!r}; this tool reads {SCHEMA_VERSION}")
    try:
        validate(doc)
    except ReportError as e:
        raise ReportError(f"'{path}': {e}") from None
    return doc


# ---------------------------------------------------------------- building
def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    return {"hostname": socket.gethostname(), "os": f"{platform.system()} {platform.release()}",
            "cpu": cpu, "cpus": os.cpu_count() or 0, "memory_gib": memory, "python": platform.python_version()}


def tool_commit() -> str | None:
    where = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or HERE
    try:
        p = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None


def summary(cases: list[dict], stale) -> dict:
    counts = collections.Counter(c["outcome"] for c in cases)
    outcomes = {o: counts[o] for o in OUTCOMES}
    conforms = bool(cases) and not any(outcomes[o] for o in UNEXPECTED) and not stale
    return {"total": len(cases), "outcomes": outcomes, "conforms": conforms}


def build(candidate: dict, run: dict, expectations: dict, cases: list[dict]) -> dict:
    doc = {
        "schema": "tensor-cts/report",
        "schema_version": SCHEMA_VERSION,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tool": {"name": "tensor-cts", "commit": tool_commit()},
        "candidate": candidate,
        "machine": machine(),
        "run": run,
        "expectations": expectations,
        "summary": summary(cases, expectations["stale"]),
        "cases": cases,
    }
    validate(doc)
    return doc


def write_all(doc: dict, out_dir: str) -> list[str]:
    """Writes report.json, report.md and report.html into out_dir; returns their paths."""
    import render  # reports/render.py, beside this file

    paths = []
    for name, text in (("report.json", json.dumps(doc, indent=1, ensure_ascii=False) + "\n"),
                       ("report.md", render.markdown(doc)), ("report.html", render.html(doc))):
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- the text summary
def per_key(cases: list[dict], key: str) -> dict:
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for c in cases:
        table[c[key]][c["outcome"]] += 1
    return dict(sorted(table.items()))


def text_summary(doc: dict, limit: int = 30) -> str:
    cases = doc["cases"]
    cand = doc["candidate"]
    lines = [f"tensor-cts conformance summary: {cand['name']} {cand['version']}".rstrip()]
    table = per_key(cases, "clause")
    width = max([len("clause")] + [len(k) for k in table])
    header = f"{'clause':<{width}}  {'cases':>6}" + "".join(f"  {o:>13}" for o in OUTCOMES)
    lines += [header, "-" * len(header)]
    for clause, cnt in table.items():
        lines.append(f"{clause:<{width}}  {sum(cnt.values()):>6}" + "".join(f"  {cnt[o]:>13}" for o in OUTCOMES))
    lines.append("-" * len(header))
    total = doc["summary"]["outcomes"]
    lines.append(f"{'total':<{width}}  {doc['summary']['total']:>6}" + "".join(f"  {total[o]:>13}" for o in OUTCOMES))
    reasons = collections.Counter(c["reason"] for c in cases if c["outcome"] == "XFAIL")
    if reasons:
        lines.append("\nexpected deviations (from the candidate's expectations file):")
        lines += [f"  {n:>5}  {reason}" for reason, n in reasons.most_common()]
    stale = doc["expectations"]["stale"]
    if stale:
        lines.append(f"\nstale expectations ({doc['expectations']['file']}): entries that match no case")
        lines += [f"  line {s['line']}: {s['pattern']} {s['outcome']}  ({s['reason']})" for s in stale]
    unexpected = [c for c in cases if c["outcome"] in UNEXPECTED]
    if unexpected:
        lines.append("\nunexpected outcomes:")
        for c in unexpected[:limit]:
            lines.append(f"  {c['outcome']:<7} {c['id']}  [{c['clause']}]")
            lines.append(f"          expected: {c['expected']}")
            lines.append(f"          observed: {c['observed']}")
            if c.get("seed"):
                lines.append(f"          seed:     {c['seed']}" + (f" ({c['draws']} checked draws)" if "draws" in c else ""))
            lines.append(f"          rerun:    {c['rerun']}")
        if len(unexpected) > limit:
            lines.append(f"  ... and {len(unexpected) - limit} more (report.md lists them all)")
    verdict = "CONFORMS" if doc["summary"]["conforms"] else "DOES NOT CONFORM"
    lines.append(f"\nresult: {cand['name']} {verdict}: {total['PASS']} pass, {total['XFAIL']} expected deviations, "
                 f"{total['FAIL']} fail, {total['XPASS']} unexpected passes, {total['NOT_SUPPORTED']} not supported, "
                 f"{total['CRASH']} crash, {total['TIMEOUT']} timeout"
                 + (f", {len(stale)} stale expectations" if stale else ""))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("validate", "summary"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        doc = load(argv[1])
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    if argv[0] == "validate":
        print(f"{argv[1]}: valid tensor-cts report (schema_version {SCHEMA_VERSION}, {len(doc['cases'])} cases)")
    else:
        print(text_summary(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
