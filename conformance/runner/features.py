"""The conformance level of each feature of the candidate interface (spec/features.toml), as the
generated spec.json holds it (tables.features: the generators checked every row against
generators/spec_schema.py before they wrote it):

    [[feature]]
    name = "sparse_layout"        # FeatureName() (generated from this row)
    enumerator = "kSparseLayout"  # the C++ enumerator
    level = "optional"            # "required" or "optional"
    clause = "002#torch.layout"
    basis = "doc"                 # or "pytorch: <source>"
    reason = "..."

rows() reads them from a loaded spec.json (reports/report.py load_spec); check() compares them
with the features a suite binary announces. Standard library only.
"""

from __future__ import annotations


class FeaturesError(Exception):
    pass


def rows(spec: dict) -> tuple[list[dict], str]:
    """The feature rows of a loaded spec.json, in file order, and the spec file they come from
    (spec/features.toml, as spec.json's generated_from names it)."""
    source = next((f for f in spec["generated_from"] if f.rsplit("/", 1)[-1] == "features.toml"), "features.toml")
    return [dict(r) for r in spec["tables"]["features"]["feature"]], source


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
