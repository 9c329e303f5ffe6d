"""The candidate interface (spec/interface.toml) and its features (spec/features.toml), loaded
and validated: the one model every end of the candidate seam is generated from
(generators/emit_interface.py). spec_schema.py checks both files' shape (tables, fields, types,
names used once); this module builds the rows and checks the cross-references: an op's feature
has a row, every type is a wire type or a record, a record field needs no session, a fact's
shape, answer_features. Errors name the file, the row and the field. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import binary_ops as binary_ops_model
import spec_schema
import toml_file
from spec_rows import SpecError

# Wire types that are values (PROTOCOL.md "Values"); "T?" is T or null; a record's name is a record.
VALUE_TYPES = ("dtype", "int", "int32", "uint8", "uint16", "uint64", "uintptr", "bool", "string", "float",
               "ints", "scalar", "scalars", "operand", "tensor", "layout", "memory_format", "binary_op",
               "device_arg", "address", "asarray_source", "dlpack_import", "dlpack_export")
RESULT_ONLY = ("none",)
# Types only an operation's argument or result may have (they need the session: handles, regions).
STATEFUL = ("operand", "tensor", "address", "asarray_source", "dlpack_import", "dlpack_export")


class InterfaceError(Exception):
    pass


@dataclass
class Arg:
    name: str
    type: str
    cxx: str | None = None  # the C++ parameter type, where not the wire type's
    cxx_name: str | None = None  # the C++ parameter name, where not the wire name
    default: object = None  # a record field's value when absent
    has_default: bool = False
    inline: bool = False  # its fields are the request's own

    @property
    def base(self) -> str:
        return self.type.rstrip("?")

    @property
    def nullable(self) -> bool:
        return self.type.endswith("?")


@dataclass
class Record:
    name: str
    doc: str
    fields: list[Arg]


@dataclass
class Op:
    name: str
    feature: str
    args: list[Arg]
    result: str
    doc: str
    aliases: bool = False
    custom: bool = False
    cxx_params: str | None = None
    fact: bool = False  # version 3: its answer may come with the tensor's (interface.toml)


@dataclass
class Feature:
    name: str
    enumerator: str
    level: str
    ops: list[str] = field(default_factory=list)


@dataclass
class ErrorKind:
    name: str
    enumerator: str
    doc: str
    raised_by: str  # "pytorch": a Python exception class PyTorch raises; "suite": NotSupported, Internal


@dataclass
class CheckKind:
    """One aspect a case's checks judge ([[check]]): its verdict is recorded per case."""
    name: str
    enumerator: str
    doc: str
    needs: str  # the feature the check needs, "" for none


@dataclass
class Interface:
    protocol_versions: list[int]
    errors: list[ErrorKind]
    records: list[Record]
    ops: list[Op]
    features: list[Feature]
    answer_features: list[str]
    # The answer features a candidate has unless it says otherwise (interface.toml declared_by_default).
    declared_by_default: list[str] = field(default_factory=list)
    checks: list[CheckKind] = field(default_factory=list)
    # The values of the binary_op type: spec/promotion.toml's [[op]] rows (binary_ops.py).
    binary_ops: list[binary_ops_model.BinaryOp] = field(default_factory=list)

    def record(self, name: str) -> Record | None:
        return next((r for r in self.records if r.name == name), None)

    def as_json(self) -> dict:
        """The description as the suite sends it in `hello` (spec/interface.json)."""
        def arg(a: Arg) -> dict:
            d = {"name": a.name, "type": a.type}
            if a.has_default:
                d["default"] = a.default
            if a.inline:
                d["inline"] = True
            return d
        return {
            "protocol_versions": self.protocol_versions,
            "errors": [e.name for e in self.errors],
            "features": [f.name for f in self.features],
            "answer_features": self.answer_features,
            "declared_by_default": self.declared_by_default,
            "checks": [c.name for c in self.checks],
            "binary_ops": [{"name": o.name, "symbol": o.symbol} for o in self.binary_ops],
            "records": {r.name: [arg(a) for a in r.fields] for r in self.records},
            "ops": [{"name": o.name, "feature": o.feature, "args": [arg(a) for a in o.args], "result": o.result,
                     "aliases": o.aliases, **({"fact": True} if o.fact else {})} for o in self.ops],
        }


def _load(name: str, path: str) -> dict:
    """A file of the interface, read and checked against spec_schema.FILES[name] (its shape: tables,
    fields, types, names used once); what the schema cannot say, _check says."""
    try:
        doc = toml_file.load(path)
        # No documents: features.toml's clauses are checked for their shape only here (Spec.load
        # checks them against spec/sources.toml).
        spec_schema.check_file(name, path, doc, None)
    except toml_file.TomlFileError as e:
        raise InterfaceError(str(e)) from None
    except SpecError as e:
        raise InterfaceError(str(e)) from None
    return doc


def _arg(a: dict) -> Arg:
    return Arg(a["name"], a["type"], a.get("cxx"), a.get("cxx_name"), a.get("default"), "default" in a,
               a.get("inline", False))


def load(interface_path: str, features_path: str, promotion_path: str | None = None) -> Interface:
    """The interface; with promotion_path, the binary ops of that spec/promotion.toml too."""
    doc = _load("interface.toml", interface_path)
    fdoc = _load("features.toml", features_path)
    iface = Interface(
        protocol_versions=doc["protocol_versions"],
        errors=[ErrorKind(r["name"], r["enumerator"], r["doc"], r["raised_by"]) for r in doc["error"]],
        records=[Record(r["name"], r["doc"], [_arg(a) for a in r["fields"]]) for r in doc["record"]],
        ops=[Op(r["name"], r["feature"], [_arg(a) for a in r["args"]], r["result"], r["doc"], r.get("aliases", False),
                r.get("custom", False), r.get("cxx_params"), r.get("fact", False)) for r in doc["op"]],
        features=[Feature(r["name"], r["enumerator"], r["level"]) for r in fdoc["feature"]],
        answer_features=list(doc["answer_features"]),
        declared_by_default=list(doc.get("declared_by_default", [])),
        checks=[CheckKind(r["name"], r["enumerator"], r["doc"], r.get("needs", "")) for r in doc.get("check", [])])
    _check(iface, interface_path, features_path)
    if promotion_path is not None:
        try:
            iface.binary_ops = binary_ops_model.load(promotion_path)
        except (toml_file.TomlFileError, SpecError) as e:
            raise InterfaceError(str(e)) from None
    return iface


def _check(iface: Interface, ipath: str, fpath: str) -> None:
    """The cross-references the schema cannot check. A row is named as the schema names it:
    `op[3] (transpose)`."""
    def fail(row: str, reason: str):
        raise InterfaceError(f"{ipath}: {row}: {reason}")

    record_names = {r.name for r in iface.records}
    features = {f.name: f for f in iface.features}

    def known(t: str) -> bool:
        return t in VALUE_TYPES or t in record_names

    for i, c in enumerate(iface.checks):
        if c.needs and c.needs not in features:
            fail(f"check[{i}] ({c.name})", f"needs feature {c.needs!r}, which has no row in {fpath}")
    for i, r in enumerate(iface.records):
        for k, a in enumerate(r.fields):
            if not known(a.base):
                fail(f"record[{i}] ({r.name})", f"field 'fields[{k}].type' of {a.name!r}: unknown type {a.type!r}")
            if a.base in STATEFUL:
                fail(f"record[{i}] ({r.name})", f"field 'fields[{k}].type' of {a.name!r}: a record field cannot be of "
                                                f"type {a.base!r} (it needs the session)")
    for i, o in enumerate(iface.ops):
        row = f"op[{i}] ({o.name})"
        if o.feature not in features:
            fail(row, f"feature {o.feature!r} has no row in {fpath}")
        features[o.feature].ops.append(o.name)
        for k, a in enumerate(o.args):
            if not known(a.base):
                fail(row, f"field 'args[{k}].type' of argument {a.name!r}: unknown type {a.type!r}")
        if o.result not in RESULT_ONLY and not known(o.result):
            fail(row, f"unknown result type {o.result!r}")
        if o.fact and ([(a.name, a.type) for a in o.args] != [("t", "tensor")] or o.result not in record_names
                       or o.custom):
            fail(row, "a fact takes only the tensor t and answers a record, and is not custom")
    for name in iface.answer_features:
        if name not in features:
            fail("answer_features", f"names {name!r}, which has no row in {fpath}")
        if features[name].ops:
            fail("answer_features", f"answer feature {name!r} has operations {features[name].ops}")
    for name in iface.declared_by_default:
        if name not in iface.answer_features:
            fail("declared_by_default", f"names {name!r}, which answer_features does not list")
    for i, f in enumerate(iface.features):
        if not f.ops and f.name not in iface.answer_features:
            raise InterfaceError(f"{fpath}: feature[{i}] ({f.name}): no operation in {ipath} has this feature, "
                                 "and answer_features does not list it")
