"""spec/features.toml: the conformance level of each feature of the candidate interface.

    [[feature]]
    name = "sparse_layout"        # FeatureName() (generated from this row)
    enumerator = "kSparseLayout"  # the C++ enumerator
    level = "optional"            # "required" or "optional"
    clause = "002#torch.layout"
    basis = "doc"                 # or "pytorch: <source>"
    reason = "..."

load() validates the file (errors name the file, the row and the problem); check() compares
it with the features a suite binary announces. Standard library only (tomllib).
"""

from __future__ import annotations

import tomllib

LEVELS = ("required", "optional")
FIELDS = ("name", "enumerator", "level", "clause", "basis", "reason")


class FeaturesError(Exception):
    pass


def parse(path: str, data: bytes) -> list[dict]:
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise FeaturesError(f"{path}: not valid TOML: {e}") from None
    unknown = sorted(set(doc) - {"feature"})
    if unknown:
        raise FeaturesError(f"{path}: unknown table(s) {unknown} (only [[feature]] rows)")
    rows = doc.get("feature", [])
    if not isinstance(rows, list) or not rows:
        raise FeaturesError(f"{path}: no [[feature]] rows")
    seen = set()
    for n, row in enumerate(rows, 1):
        where = f"{path}: [[feature]] #{n}" + (f" ({row.get('name')!r})" if isinstance(row, dict) else "")
        if not isinstance(row, dict):
            raise FeaturesError(f"{where}: not a table")
        missing = [f for f in FIELDS if f not in row]
        extra = sorted(set(row) - set(FIELDS))
        if missing or extra:
            raise FeaturesError(f"{where}: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown field(s) {', '.join(extra)}"] if extra else [])))
        for f in FIELDS:
            if not isinstance(row[f], str) or not row[f].strip():
                raise FeaturesError(f"{where}: '{f}' must be a non-empty string")
        if row["level"] not in LEVELS:
            raise FeaturesError(f"{where}: level {row['level']!r} is not one of {', '.join(LEVELS)}")
        if row["basis"] != "doc" and not row["basis"].startswith("pytorch: "):
            raise FeaturesError(f"{where}: basis {row['basis']!r} is neither 'doc' nor 'pytorch: <source>'")
        if row["name"] in seen:
            raise FeaturesError(f"{where}: feature {row['name']!r} is listed twice")
        seen.add(row["name"])
    return [dict(r) for r in rows]


def load(path: str) -> list[dict]:
    try:
        with open(path, "rb") as f:
            return parse(path, f.read())
    except OSError as e:
        raise FeaturesError(f"cannot read '{path}': {e.strerror}") from None


def check(path: str, rows: list[dict], announced: list[str]) -> None:
    """The binary's features (FeatureName(), in order) and the file's rows must name the same set."""
    names = [r["name"] for r in rows]
    no_row = [f for f in announced if f not in names]
    no_feature = [n for n in names if n not in announced]
    problems = []
    if no_row:
        problems.append(f"no row for feature(s) {', '.join(no_row)} of the candidate interface: add them with a level")
    if no_feature:
        problems.append(f"row(s) {', '.join(no_feature)} name no feature of the candidate interface")
    if problems:
        raise FeaturesError(f"{path}: " + "; ".join(problems))
