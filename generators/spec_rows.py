"""The bottom of the generators' spec layer: the error a malformed spec raises, where a fact
comes from (Source), and the typed rows the loaders hand on. It imports no other generator
module, so every loader (spec_schema.py, spec_model.py, interop_model.py) imports it and none
of them imports another to get these. Python 3.11 standard library only.
"""

from __future__ import annotations

import dataclasses


class SpecError(Exception):
    """A malformed spec table: names the file, the row and the reason."""

    def __init__(self, path: str, row: str, reason: str):
        super().__init__(f"{path}: {row}: {reason}")
        self.path, self.row, self.reason = path, row, reason


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a fact comes from: the spec row that states it (its id), and that row's clause and
    basis (doc | pytorch:<source file>). Every generated case carries one: a case made from a
    literal row names that row; a case a sweep derives from a rule names the rule's row."""

    clause: str
    basis: str
    row: str  # the spec row's id (a swept table's id_prefix), as spec/*.toml spells it

    def for_row(self, row: str) -> "Source":
        """The same clause and basis, stated by `row` (a literal row that inherits them)."""
        return dataclasses.replace(self, row=row)

    def with_basis(self, basis: str) -> "Source":
        return dataclasses.replace(self, basis=basis)


def source_of(table: dict, row: str) -> Source:
    """The Source of a row the schema has checked (spec_schema.SOURCE: clause, basis "doc" or
    "pytorch", and source where basis is "pytorch"), named by its id (a swept table's
    id_prefix; else `row`, the name the caller gives it)."""
    rid = next((table[k] for k in ("id", "id_prefix") if isinstance(table.get(k), str) and table[k]), row)
    basis = "doc" if table["basis"] == "doc" else f"pytorch: {table['source']}"
    return Source(table["clause"], basis, rid)


@dataclasses.dataclass(frozen=True)
class DType:
    id: str
    name: str
    short: str
    aliases: tuple[str, ...]
    legacy_constructor: str
    c10_name: str
    itemsize: int
    category: str
    is_signed: bool
    is_floating_point: bool
    is_complex: bool
    bits: tuple[int, int, int] | None  # sign, exponent, significand
    documented: bool
    clause: str
    basis: str
    part: str | None = None  # a complex dtype's: the floating dtype of its real and imaginary parts

    @property
    def source(self) -> Source:
        """The dtype's row: its clause and basis, named by its id."""
        return Source(self.clause, self.basis, self.id)

    @property
    def cxx(self) -> str:
        """The C++ enumerator: float32 -> kFloat32, bool -> kBool."""
        return "k" + self.name[0].upper() + self.name[1:]

