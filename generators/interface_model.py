"""The candidate interface (spec/interface.toml) and its features (spec/features.toml), loaded
and validated: the one model every end of the candidate seam is generated from
(generators/emit_interface.py). Errors name the file, the row and the field. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import binary_ops as binary_ops_model
import toml_file

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


RAISED_BY = ("pytorch", "suite")


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
            "checks": [c.name for c in self.checks],
            "binary_ops": [{"name": o.name, "symbol": o.symbol} for o in self.binary_ops],
            "records": {r.name: [arg(a) for a in r.fields] for r in self.records},
            "ops": [{"name": o.name, "feature": o.feature, "args": [arg(a) for a in o.args], "result": o.result,
                     "aliases": o.aliases, **({"fact": True} if o.fact else {})} for o in self.ops],
        }


def _load(path: str) -> dict:
    try:
        return toml_file.load(path)
    except toml_file.TomlFileError as e:
        raise InterfaceError(str(e)) from None


def _fields(where: str, row: object, required: tuple, optional: tuple = ()) -> dict:
    if not isinstance(row, dict):
        raise InterfaceError(f"{where}: not a table")
    missing = [k for k in required if k not in row]
    extra = sorted(set(row) - set(required) - set(optional))
    if missing or extra:
        raise InterfaceError(f"{where}: " + "; ".join(([f"missing {', '.join(missing)}"] if missing else []) +
                                                     ([f"unknown field(s) {', '.join(extra)}"] if extra else [])))
    return row


def error_kinds(interface_path: str, doc: dict) -> list[ErrorKind]:
    """The [[error]] rows of a parsed interface.toml (also read by generators/spec_model.py: the
    kinds a spec row may expect are those raised_by "pytorch")."""
    if not isinstance(doc.get("error"), list):
        raise InterfaceError(f"{interface_path}: needs [[error]] rows")
    errors = []
    for n, row in enumerate(doc["error"], 1):
        where = f"{interface_path}: [[error]] #{n}"
        r = _fields(where, row, ("name", "enumerator", "doc", "raised_by"))
        if r["raised_by"] not in RAISED_BY:
            raise InterfaceError(f"{where}: raised_by {r['raised_by']!r} is not one of {', '.join(RAISED_BY)}")
        errors.append(ErrorKind(r["name"], r["enumerator"], r["doc"], r["raised_by"]))
    return errors


def load(interface_path: str, features_path: str, promotion_path: str | None = None) -> Interface:
    """The interface; with promotion_path, the binary ops of that spec/promotion.toml too."""
    doc = _load(interface_path)
    _fields(interface_path, doc, ("protocol_versions", "answer_features", "error", "record", "op"), ("check",))
    errors = error_kinds(interface_path, doc)
    checks = []
    for n, row in enumerate(doc.get("check", []), 1):
        r = _fields(f"{interface_path}: [[check]] #{n} ({row.get('name')!r})", row, ("name", "enumerator", "doc"), ("needs",))
        checks.append(CheckKind(r["name"], r["enumerator"], r["doc"], r.get("needs", "")))
    records: list[Record] = []
    for n, row in enumerate(doc["record"], 1):
        where = f"{interface_path}: [[record]] #{n} ({row.get('name')!r})"
        r = _fields(where, row, ("name", "doc", "fields"))
        records.append(Record(r["name"], r["doc"], [_arg(f"{where}.fields[{k}]", a, record=True)
                                                       for k, a in enumerate(r["fields"])]))
    record_names = {r.name for r in records}
    ops: list[Op] = []
    for n, row in enumerate(doc["op"], 1):
        where = f"{interface_path}: [[op]] #{n} ({row.get('name')!r})"
        r = _fields(where, row, ("name", "feature", "args", "result", "doc"), ("aliases", "custom", "cxx_params", "fact"))
        ops.append(Op(r["name"], r["feature"], [_arg(f"{where}.args[{k}]", a) for k, a in enumerate(r["args"])],
                      r["result"], r["doc"], bool(r.get("aliases", False)), bool(r.get("custom", False)),
                      r.get("cxx_params"), bool(r.get("fact", False))))
        if ops[-1].fact and ([(a.name, a.type) for a in ops[-1].args] != [("t", "tensor")] or
                             ops[-1].result not in record_names or ops[-1].custom):
            raise InterfaceError(f"{where}: a fact takes only the tensor t and answers a record, and is not custom")
    fdoc = _load(features_path)
    features = []
    for n, row in enumerate(fdoc.get("feature", []), 1):
        if not isinstance(row, dict) or "name" not in row or "enumerator" not in row or "level" not in row:
            raise InterfaceError(f"{features_path}: [[feature]] #{n}: needs name, enumerator and level")
        features.append(Feature(row["name"], row["enumerator"], row["level"]))
    iface = Interface(doc["protocol_versions"], errors, records, ops, features, list(doc["answer_features"]), checks)
    _check(iface, interface_path, features_path, record_names)
    if promotion_path is not None:
        try:
            iface.binary_ops = binary_ops_model.load(promotion_path)
        except (toml_file.TomlFileError, binary_ops_model.SpecError) as e:
            raise InterfaceError(str(e)) from None
    return iface


def _arg(where: str, row: object, record: bool = False) -> Arg:
    r = _fields(where, row, ("name", "type"), ("cxx", "cxx_name", "default", "inline"))
    a = Arg(r["name"], r["type"], r.get("cxx"), r.get("cxx_name"), r.get("default"), "default" in r,
            bool(r.get("inline", False)))
    if record and a.base in STATEFUL:
        raise InterfaceError(f"{where} ({a.name!r}): a record field cannot be of type {a.base!r} (it needs the session)")
    return a


def _check(iface: Interface, ipath: str, fpath: str, record_names: set) -> None:
    def unique(what, names):
        seen = set()
        for n in names:
            if n in seen:
                raise InterfaceError(f"{ipath}: {what} {n!r} appears twice")
            seen.add(n)
    unique("op", [o.name for o in iface.ops])
    unique("record", [r.name for r in iface.records])
    unique("error kind", [e.name for e in iface.errors])
    unique("feature", [f.name for f in iface.features])
    unique("check", [c.name for c in iface.checks])
    features = {f.name: f for f in iface.features}
    for c in iface.checks:
        if c.needs and c.needs not in features:
            raise InterfaceError(f"{ipath}: check {c.name!r} needs feature {c.needs!r}, which has no row in {fpath}")
    for r in iface.records:
        for a in r.fields:
            if a.base not in VALUE_TYPES and a.base not in record_names:
                raise InterfaceError(f"{ipath}: record {r.name}.{a.name}: unknown type {a.type!r}")
    for o in iface.ops:
        if o.feature not in features:
            raise InterfaceError(f"{ipath}: op {o.name!r}: feature {o.feature!r} has no row in {fpath}")
        features[o.feature].ops.append(o.name)
        for a in o.args:
            if a.base not in VALUE_TYPES and a.base not in record_names:
                raise InterfaceError(f"{ipath}: op {o.name!r} argument {a.name!r}: unknown type {a.type!r}")
        if o.result not in VALUE_TYPES + RESULT_ONLY and o.result not in record_names:
            raise InterfaceError(f"{ipath}: op {o.name!r}: unknown result type {o.result!r}")
    for name in iface.answer_features:
        if name not in features:
            raise InterfaceError(f"{ipath}: answer_features names {name!r}, which has no row in {fpath}")
        if features[name].ops:
            raise InterfaceError(f"{ipath}: answer feature {name!r} has operations {features[name].ops}")
    for f in iface.features:
        if not f.ops and f.name not in iface.answer_features:
            raise InterfaceError(f"{fpath}: feature {f.name!r} has no operation in {ipath} and is not in answer_features")
