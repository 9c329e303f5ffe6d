"""The binary operations: spec/promotion.toml's [[op]] rows, each an op's name and its Python
operator symbol, in spec order. The one list every end reads: spec_model.py (the suites' tables),
emit_cxx.py --suite binary_ops (the C++ BinaryOp enum, names and symbols), emit_interface.py (the
`binary_ops` of spec/interface.json, sent in `hello`) and record_cases.py. Stdlib only.
"""

from __future__ import annotations

import dataclasses
import re

import toml_file
from spec_rows import SpecError

NAME = re.compile(r"[a-z][a-z0-9_]*\Z")  # what an op's name must be: a C++ enumerator is made from it


@dataclasses.dataclass(frozen=True)
class BinaryOp:
    name: str  # "add": the protocol's binary_op value, the C++ enumerator's stem
    symbol: str  # "+": the Python operator PyTorch maps to it


def parse(doc: dict, path: str) -> list[BinaryOp]:
    """The [[op]] rows of promotion.toml's parsed document `doc`, in spec order."""
    rows = doc.get("op")
    if not isinstance(rows, list) or not rows:
        raise SpecError(path, "op", "no [[op]] rows: the binary operations are listed there")
    ops: list[BinaryOp] = []
    for i, row in enumerate(rows):
        where = row.get("id", f"op[{i}]") if isinstance(row, dict) else f"op[{i}]"
        if not isinstance(row, dict):
            raise SpecError(path, where, "not a table")
        name, symbol = row.get("name"), row.get("symbol")
        if not isinstance(name, str) or not NAME.match(name):
            raise SpecError(path, where, f"name {name!r} must be lower-case letters, digits and _ (a C++ enumerator is made of it)")
        if not isinstance(symbol, str) or not symbol or symbol.strip() != symbol or '"' in symbol or "\\" in symbol:
            raise SpecError(path, where, f"symbol {symbol!r} must be the operator's non-empty text, without spaces, quotes or backslashes")
        for other in ops:
            if other.name == name:
                raise SpecError(path, where, f"op {name!r} is listed twice")
            if other.symbol == symbol:
                raise SpecError(path, where, f"symbol {symbol!r} is {other.name!r}'s too")
        ops.append(BinaryOp(name, symbol))
    return ops


def load(path: str) -> list[BinaryOp]:
    """The binary ops of the promotion.toml at `path` (TomlFileError or SpecError when malformed)."""
    return parse(toml_file.load(path), path)
