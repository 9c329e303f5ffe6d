"""The binary operations: spec/promotion.toml's [[op]] rows, each an op's name and its Python
operator symbol, in spec order. The one list every end reads: spec_model.py (the suites' tables),
emit_cxx.py --suite binary_ops (the C++ BinaryOp enum, names and symbols), emit_interface.py (the
`binary_ops` of spec/interface.json, sent in `hello`) and record_cases.py. Stdlib only.
"""

from __future__ import annotations

import dataclasses

import spec_schema
import toml_file


@dataclasses.dataclass(frozen=True)
class BinaryOp:
    name: str  # "add": the protocol's binary_op value, the C++ enumerator's stem
    symbol: str  # "+": the Python operator PyTorch maps to it


def parse(doc: dict) -> list[BinaryOp]:
    """The [[op]] rows of promotion.toml's parsed document `doc`, in spec order: a document the
    schema has checked (spec_schema.py "op": each name an identifier, each symbol an operator's
    text, neither used twice)."""
    return [BinaryOp(row["name"], row["symbol"]) for row in doc["op"]]


def load(path: str) -> list[BinaryOp]:
    """The binary ops of the promotion.toml at `path`, its [[op]] rows checked by the schema
    (TomlFileError or SpecError when malformed)."""
    doc = toml_file.load(path)
    spec_schema.check_rows("promotion.toml", "op", path, doc)
    return parse(doc)
