"""The shape of every spec table, in one place.

For each spec file: which top-level tables it may have, and for each kind of row its fields,
their types and which are required. Spec.load (spec_model.py) checks every file against this
before any rule is read (interface_model.py checks spec/interface.toml and spec/features.toml
against it too, for the interface's emitters), so a typo'd table (`[[tolerence]]`), an unknown field, a value of the
wrong type (`expected = "-128"`) or a clause citing a document spec/sources.toml does not list
fails with "<file>: <row>: <reason>" instead of being ignored or crashing a loader. What the
schema cannot say (a name must be a known dtype, a table must agree with its rules) the
loaders check after it.

A row is named by its `id` where it has one, else by its TOML path (`sweep.view_bases[3]`),
followed by its name where its kind has one (`op[3] (transpose)`); a field by its path inside
the row (`bits.sign`, `values.sets.int8[2]`).

Every kind of row that states a fact says where the fact comes from (`cites`):
  OWN          the row has its own clause and basis (both required);
  "<table>"    the row inherits the clause and basis of that table of its file;
  NONE(why)    the row is no fact: sweep parameters, code numbers, the document list.
"""

from __future__ import annotations

import dataclasses
import difflib
import re

from spec_rows import SpecError

OWN = "own"


def NONE(why: str) -> str:
    return "none: " + why


# ------------------------------------------------------------------ types
class Type:
    what = "a value"

    def check(self, c: "_Checker", value, row: str, field: str) -> None:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Str(Type):
    choices: tuple = ()
    pattern: str = ""

    @property
    def what(self) -> str:
        if self.choices:
            return "one of " + ", ".join(repr(x) for x in self.choices)
        return "a string"

    def check(self, c, value, row, field):
        if not isinstance(value, str):
            c.wrong_type(self, value, row, field)
        if self.choices and value not in self.choices:
            c.fail(row, f"field '{field}' must be {self.what}, got {value!r}")
        if self.pattern and not re.fullmatch(self.pattern, value):
            c.fail(row, f"field '{field}' {value!r} does not match {self.pattern}")


class CheckKind(Type):
    """A check kind: spec/interface.toml's [[check]] names (the checker's check_kinds)."""

    what = "a check kind"

    def check(self, c, value, row, field):
        if not isinstance(value, str):
            c.wrong_type(self, value, row, field)
        if c.check_kinds and value not in c.check_kinds:
            c.fail(row, f"field '{field}' must be a check kind (spec/interface.toml [[check]]: "
                        f"{', '.join(c.check_kinds)}), got {value!r}")


class ErrorKind(Type):
    """An error kind PyTorch raises: spec/interface.toml's [[error]] rows with raised_by = "pytorch"
    (the checker's error_kinds)."""

    what = "an error kind PyTorch raises"

    def check(self, c, value, row, field):
        if not isinstance(value, str):
            c.wrong_type(self, value, row, field)
        if c.error_kinds and value not in c.error_kinds:  # () for a reader of one row kind alone (check_rows)
            c.fail(row, f"field '{field}' must be an error kind PyTorch raises (spec/interface.toml, "
                        f"raised_by = \"pytorch\": {', '.join(c.error_kinds)}), got {value!r}")


@dataclasses.dataclass(frozen=True)
class Int(Type):
    lo: int | None = None
    what = "an integer"

    def check(self, c, value, row, field):
        if not isinstance(value, int) or isinstance(value, bool):
            c.wrong_type(self, value, row, field)
        if self.lo is not None and value < self.lo:
            c.fail(row, f"field '{field}' must be >= {self.lo}, got {value}")


class Bool(Type):
    what = "true or false"

    def check(self, c, value, row, field):
        if not isinstance(value, bool):
            c.wrong_type(self, value, row, field)


class Num(Type):
    what = "a number"

    def check(self, c, value, row, field):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            c.wrong_type(self, value, row, field)


@dataclasses.dataclass(frozen=True)
class List(Type):
    item: Type
    length: int | None = None
    unique_key: str | tuple = ""  # the items are tables whose `unique_key` field (each of a tuple's) must differ

    @property
    def what(self) -> str:
        return "a list" if self.length is None else f"a list of {self.length}"

    def check(self, c, value, row, field):
        if not isinstance(value, list):
            c.wrong_type(self, value, row, field)
        if self.length is not None and len(value) != self.length:
            c.fail(row, f"field '{field}' must have {self.length} entries, got {len(value)}")
        for i, item in enumerate(value):
            self.item.check(c, item, row, f"{field}[{i}]")
        keys = (self.unique_key,) if isinstance(self.unique_key, str) else self.unique_key
        for key in filter(None, keys):
            seen: dict = {}
            for i, item in enumerate(value):
                k = item.get(key)
                if k in seen:
                    if field:  # a list inside a row: the row, and the field inside it
                        c.fail(row, f"field '{field}[{i}].{key}' {k!r} is used twice "
                                    f"(also {field}[{seen[k]}])")
                    c.fail(f"{row}[{i}]", f"field '{key}' {k!r} is used twice (also {row}[{seen[k]}])")
                seen[k] = i


@dataclasses.dataclass(frozen=True)
class OneOf(Type):
    types: tuple
    name: str = ""  # how a message names it (default: the alternatives)

    @property
    def what(self) -> str:
        return self.name or " or ".join(t.what for t in self.types)

    def check(self, c, value, row, field):
        errors = []
        for t in self.types:
            try:
                t.check(c, value, row, field)
                return
            except _Invalid as e:
                errors.append((t, e))
        # A list or table that only one alternative could be: that alternative's own error,
        # which names the entry at fault (`order[0]`).
        same = [e for t, e in errors if isinstance(value, list) and isinstance(t, List) or
                isinstance(value, dict) and isinstance(t, (Table, MapOf))]
        if len(same) == 1:
            raise same[0]
        c.fail(row, f"field '{field}' must be {self.what}, got {_show(value)}")


@dataclasses.dataclass(frozen=True)
class MapOf(Type):
    """A table whose keys are names (dtypes, codes) and whose values all have one type."""

    value: Type
    keys: tuple = ()  # when given: the keys it may have

    @property
    def what(self) -> str:
        return "a table"

    def check(self, c, value, row, field):
        if not isinstance(value, dict):
            c.wrong_type(self, value, row, field)
        for k, v in value.items():
            if self.keys and k not in self.keys:
                c.unknown(row, f"{field}.{k}", k, self.keys)
            self.value.check(c, v, row, f"{field}.{k}")


class Clause(Type):
    """"<document>#<section>", the document and its section listed in spec/sources.toml."""

    what = "a clause '<document>#<section>'"

    def check(self, c, value, row, field):
        if not isinstance(value, str):
            c.wrong_type(self, value, row, field)
        m = re.fullmatch(r"([^#\s]+)#([^#\s]+)", value)
        if not m:
            c.fail(row, f"field '{field}' {value!r} is not '<document>#<section>' (e.g. '002#type-promotion')")
        if c.documents is None:
            return  # sources.toml itself
        doc, section = m.groups()
        if doc not in c.documents:
            c.fail(row, f"clause {value!r} cites document {doc!r}, which spec/sources.toml does not list "
                        f"(documents: {', '.join(c.documents)})")
        if section not in c.documents[doc]:
            c.fail(row, f"clause {value!r} cites section {section!r}, which spec/sources.toml does not list "
                        f"for document {doc} (sections: {', '.join(c.documents[doc]) or 'none'})")


@dataclasses.dataclass(frozen=True)
class Field:
    type: Type
    required: bool = True


def opt(t: Type) -> Field:
    return Field(t, False)


@dataclasses.dataclass(frozen=True)
class Table(Type):
    """A table of known fields. A row kind when `cites` is set (see the module doc)."""

    fields: dict
    cites: str = ""
    extra: Type | None = None  # the type of keys not in `fields` (None: such keys are errors)
    named_by: str = ""  # a row without an id: the field that names it in messages (`op[3] (transpose)`)

    what = "a table"

    def __post_init__(self):
        # A table that cites a clause states a fact, and every case generated from it names
        # it (Source.row, a case's spec_row): it needs an id (a swept table: its id_prefix).
        if "clause" in self.fields and not self.cites.startswith("none: ") and \
                not any(k in self.fields and self.fields[k].required for k in ("id", "id_prefix")):
            raise TypeError(f"a table with a clause needs a required id or id_prefix (fields: {', '.join(self.fields)})")

    def check(self, c, value, row, field):
        if not isinstance(value, dict):
            c.wrong_type(self, value, row, field)
        derives = self.cites and not self.cites.startswith("none: ")
        if self.cites:  # a row: named by its id, else by where it is (`dtype[3]`)
            rid = value.get("id")
            if "id" in self.fields and isinstance(rid, str) and rid:
                row, field = rid, ""
            elif field:
                row, field = row + ("" if field.startswith("[") else ".") + field, ""
                if self.named_by and isinstance(value.get(self.named_by), str):
                    row += f" ({value[self.named_by]})"
        prefix = field + "." if field else ""
        for k, v in value.items():
            if k in self.fields:
                continue
            if derives and k in DERIVATION:  # any row that states a fact may say what it derives from
                DERIVATION[k].check(c, v, row, prefix + k)
                continue
            if self.extra is None:
                c.unknown(row, prefix + k, k, tuple(self.fields))
            self.extra.check(c, v, row, prefix + k)
        for k, f in self.fields.items():
            if k not in value:
                if f.required:
                    c.fail(row, f"missing field '{prefix + k}'")
                continue
            f.type.check(c, value[k], row, prefix + k)
        if self.cites == OWN and value.get("basis") == "pytorch" and "source" not in value:
            c.fail(row, f"missing field '{prefix}source': basis \"pytorch\" names the PyTorch source that decides")
        clause = value.get("clause")
        if c.documents is not None and isinstance(clause, str) and clause.split("#")[0] == c.implementation \
                and not str(value.get("basis")).startswith("pytorch"):
            c.fail(row, f"clause {clause!r} cites PyTorch's implementation: basis must be \"pytorch\"")


# ------------------------------------------------------------------ the checker
class _Invalid(Exception):
    def __init__(self, row: str, reason: str):
        super().__init__(reason)
        self.row, self.reason = row, reason


def _show(value) -> str:
    kind = {bool: "bool", int: "integer", float: "float", str: "string", list: "list", dict: "table"}.get(type(value))
    text = repr(value)
    return f"{kind or type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


class _Checker:
    def __init__(self, path: str, documents: dict | None, implementation: str = "", error_kinds: tuple = (),
                 check_kinds: tuple = ()):
        self.path, self.documents, self.implementation = path, documents, implementation
        self.error_kinds, self.check_kinds = error_kinds, check_kinds

    def fail(self, row: str, reason: str):
        raise _Invalid(row, reason)

    def wrong_type(self, t: Type, value, row: str, field: str):
        self.fail(row, f"{f'field {field!r}' if field else 'the value'} must be {t.what}, got {_show(value)}")

    def unknown(self, row: str, field: str, key: str, known: tuple):
        near = difflib.get_close_matches(key, known, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        self.fail(row, f"unknown field '{field}'{hint} (fields: {', '.join(known)})")


def _label(key: str, value) -> str:
    """How TOML writes a top-level key: [[rows]], [table] or key; `value` is a value or a Type."""
    if isinstance(value, List) and isinstance(value.item, Table) or \
            isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        return f"[[{key}]]"
    return f"[{key}]" if isinstance(value, (dict, Table, MapOf)) else key


def check_rows(name: str, key: str, path: str, doc: dict) -> None:
    """Checks one row kind of a parsed file (`key`, e.g. "op") against FILES[name][key], for a
    reader that needs only those rows (binary_ops.load); raises SpecError as check_file does. What
    needs the other files (an error kind's row in interface.toml) is check_file's."""
    fld = FILES[name][key]
    if key not in doc:
        raise SpecError(path, _label(key, fld.type), "missing")
    try:
        fld.type.check(_Checker(path, None), doc[key], key, "")
    except _Invalid as e:
        raise SpecError(path, e.row, e.reason) from None


def check_file(name: str, path: str, doc: dict, documents: dict | None, implementation: str = "",
               error_kinds: tuple = (), check_kinds: tuple = ()) -> None:
    """Checks one parsed file against FILES[name]; raises SpecError naming file, row and reason.
    error_kinds: the kinds an expected error may name (spec/interface.toml, raised_by "pytorch")."""
    schema = FILES[name]
    c = _Checker(path, documents, implementation, error_kinds, check_kinds)
    known = [_label(k, fld.type) for k, fld in schema.items()]
    for key, value in doc.items():
        if key not in schema:
            label = _label(key, value)
            near = difflib.get_close_matches(label, known, n=1)
            hint = f"; did you mean {near[0]}?" if near else ""
            what = "unknown table" if label.startswith("[") else "unknown key"
            raise SpecError(path, label, f"{what}{hint} ({name} has {', '.join(known)})")
    for key, fld in schema.items():
        if key not in doc:
            if fld.required:
                raise SpecError(path, _label(key, fld.type), "missing")
            continue
        try:
            # A top-level row kind is named by its key (`errors`) until a row's id names it.
            fld.type.check(c, doc[key], key, "")
        except _Invalid as e:
            raise SpecError(path, e.row, e.reason) from None


def documents_of(doc: dict) -> tuple[dict[str, tuple], str]:
    """The citable documents of a checked sources.toml: {id: sections}, and the id of PyTorch's
    implementation (a clause citing it needs basis = "pytorch")."""
    out = {d["id"]: tuple(d["sections"]) for d in doc["document"]}
    out[doc["implementation"]["id"]] = tuple(doc["implementation"]["sections"])
    return out, doc["implementation"]["id"]


# ------------------------------------------------------------------ the spec's row kinds
ID = Str(pattern=r"\S+")
NAME = Str(pattern=r"\S+")  # a name local to its list (recipes, geometries)
TEXT = Str()
INTS = List(Int())
SIGNED_INTS = List(Int())
DTYPE = Str()  # a dtype name: the loaders check it is one
CHAIN = List(List(OneOf((Str(), Int()))))  # strided.toml view steps: [op, args...]
VALUE = OneOf((Bool(), Num(), List(Num(), length=2)), "a bool, a number or a [real, imaginary] pair")
SOURCE = {"clause": Field(Clause()), "basis": Field(Str(choices=("doc", "pytorch"))), "source": opt(TEXT)}


def ERROR(**more) -> Table:
    """An error spec: kind and a message fragment every conforming message contains."""
    return Table({"kind": Field(ErrorKind()), "message": Field(TEXT), "source": opt(TEXT),
                  **{k: opt(t) for k, t in more.items()}})


def rule(cites: str = OWN, **fields) -> Table:
    """A row kind: its id, plus `fields`; clause and basis when it cites them itself."""
    own = SOURCE if cites == OWN else {}
    return Table({"id": Field(ID), **own, **fields}, cites=cites)


def text_rule(cites: str = OWN, **fields) -> Table:
    return rule(cites, text=Field(TEXT), **fields)


def f(t: Type) -> Field:
    return Field(t)


# What a row derives from (the root-cause analysis of reports/report.py root_causes): every row
# kind that states a fact may name the rows whose rules decide it, `derives_from = ["ROW",
# "ROW:CHECK,CHECK"]` — fact rows of any spec file (spec_model.py refuses an unknown id, the row
# itself and a cycle), each optionally with the checks of this row it decides
# (spec/interface.toml [[check]] names; none: every check). add's result dtype derives from
# result_type ("result_type.rules:dtype"); its values do not.
class Derivation(Type):
    what = "a row id, optionally followed by ':' and check kinds separated by commas"

    def check(self, c, value, row, field):
        if not isinstance(value, str):
            c.wrong_type(self, value, row, field)
        if not re.fullmatch(r"[^\s:]+(:[a-z_]+(,[a-z_]+)*)?", value):
            c.fail(row, f"field '{field}' must be {self.what} (\"view.dim_wrap:error\"), got {value!r}")
        for kind in value.partition(":")[2].split(",") if ":" in value else ():
            CheckKind().check(c, kind, row, field)


def derivation(entry: str) -> tuple[str, tuple]:
    """A derives_from entry as (row id, the checks it decides; () every check)."""
    rid, _, checks = entry.partition(":")
    return rid, tuple(checks.split(",")) if checks else ()


DERIVATION = {"derives_from": List(Derivation())}


DEVICE_ARGS = List(OneOf((Str(), Int())))

# spec/interface.toml's vocabulary
IDENT = Str(pattern=r"[a-z_][a-z0-9_]*")  # an op, argument or check name: an identifier in every kit's language
FEATURE = Str(pattern=r"[a-z0-9_]+")  # a feature's name (features.toml)
ENUMERATOR = Str(pattern=r"k[A-Za-z0-9]+")  # its C++ enumerator
# An argument of an op or a field of a record: its wire type ("T?": T or null; a record's name).
ARG = Table({"name": f(IDENT), "type": f(Str(pattern=r"[A-Za-z][A-Za-z0-9_]*\??")),
             "cxx": opt(TEXT),  # the C++ parameter type, where not the wire type's
             "cxx_name": opt(IDENT),  # the C++ parameter name, where not the wire name
             "default": opt(OneOf((Bool(), Num(), Str()), "a bool, a number or a string")),  # a record field's, when absent
             "inline": opt(Bool())})  # its fields are the request's own
INTERFACE = NONE("the candidate interface: what crosses the seam, no rule a case tests")

# The fields of a dtype row: pytorch_basis may annotate any of them.
_DTYPE_FIELDS = {
    "name": f(Str(pattern=r"[a-z0-9]+")), "short": f(Str(pattern=r"[a-z0-9]{2}")), "aliases": f(List(Str())),
    "legacy_constructor": f(TEXT), "c10_name": f(Str()), "itemsize": f(Int(lo=1)),
    "category": f(Str()), "is_signed": f(Bool()), "is_floating_point": f(Bool()), "is_complex": f(Bool()),
    "bits": opt(Table({"sign": f(Int(lo=0)), "exponent": f(Int(lo=0)), "significand": f(Int(lo=0))})),
    "documented": f(Bool()),
    "part": opt(DTYPE),  # complex dtypes only: the floating dtype of each component (the loader checks)
}
_DTYPE_FIELDS["pytorch_basis"] = opt(MapOf(TEXT, keys=tuple(_DTYPE_FIELDS)))

FILES: dict[str, dict[str, Field]] = {
    "sources.toml": {
        "document": f(List(Table({
            "id": f(Str(pattern=r"[0-9]{3}")), "file": f(Str(pattern=r"[0-9]{3}_\S+")), "title": f(TEXT),
            "url": f(TEXT), "text": f(TEXT), "sections": f(List(NAME))},
            cites=NONE("the documents clauses cite")), unique_key="id")),
        "implementation": f(Table({
            "id": f(Str(pattern=r"[a-z]+")),  # letters: never a document's number
            "title": f(TEXT), "url": f(TEXT), "text": f(TEXT), "sections": f(List(NAME))},
            cites=NONE("what clauses cite where the documents are silent"))),
    },
    "dtypes.toml": {
        "dtype": f(List(rule(**_DTYPE_FIELDS))),
        # a tensor of each barebones dtype (promotion.toml lists them) keeps its dtype
        "barebones_tensor": opt(text_rule(values=f(List(Int(lo=0))))),
    },
    "promotion.toml": {
        "categories": f(rule(order=f(List(Str())))),
        "promote_types": f(Table({**SOURCE, "id_prefix": f(NAME), "columns": f(List(Str())),
                                  "rows": f(List(List(Str())))}, cites=OWN)),
        "promote_types_barebones": opt(rule(dtypes=f(List(Str())), error=f(ERROR()))),
        "promotion_lattice": f(rule(edges=f(List(List(Str(), length=2))))),
        "result_type": f(rule(
            classes=opt(List(Str())), scalar_kinds=opt(List(Str())), scalar_dtype=f(MapOf(Str())),
            default_dtypes=f(List(DTYPE)), initial_default=f(DTYPE), to_complex=f(MapOf(DTYPE)),
            to_complex_source=opt(TEXT), default_complex=f(MapOf(DTYPE)), default_complex_source=opt(TEXT),
            example=opt(List(rule("result_type", expr=f(TEXT), a=f(Str()), b=f(Str()), result=f(DTYPE)))),
            pytorch=opt(List(rule("result_type", why=f(TEXT), a=f(Str()), b=f(Str()), result=f(DTYPE)))))),
        # The binary ops: name, the C++ enumerator's stem and the protocol's binary_op value; symbol,
        # the Python operator's text (binary_ops.py reads them for every end).
        "op": f(List(rule(
            name=f(Str(pattern=r"[a-z][a-z0-9_]*")), symbol=f(Str(pattern=r'[^\s"\\]+')), symbol_source=f(TEXT),
            integer_to_default_float=opt(Bool()),
            bool_error=opt(Table({"kind": f(ErrorKind()), "both": f(TEXT), "one": f(TEXT)})),
            # The result dtypes the op's kernel has no loop for, by category (PyTorch: the
            # AT_DISPATCH list the kernel is compiled for): an error after promotion, `{dtype}` in
            # the message standing for the result dtype's c10 name.
            refuses=opt(Table({"categories": f(List(Str())), "kind": f(ErrorKind()), "message": f(TEXT),
                               "source": f(TEXT)}))),
            unique_key=("name", "symbol"))),
    },
    "casting.toml": {
        "can_cast": f(text_rule(disallow=f(List(text_rule(**{"from": f(List(Str())), "to": f(List(Str()))}))))),
        "output_casting": f(rule(
            error_kind=f(ErrorKind()), message=f(TEXT), doc_message=f(TEXT), value_path=f(Str()),
            value_path_source=opt(TEXT),
            example=opt(List(rule("output_casting", expr=f(TEXT), self=f(DTYPE), other=f(DTYPE),
                                  allowed=f(Bool())))))),
    },
    "strided.toml": {
        "layout": f(List(text_rule(name=f(NAME), required=f(Bool())))),
        "address": f(text_rule(example=opt(List(text_rule(
            sizes=f(INTS), values=f(SIGNED_INTS), strides=f(INTS), storage_offset=f(Int(lo=0)),
            write_storage=opt(Table({"index": f(Int(lo=0)), "value": f(Int())})), after=opt(SIGNED_INTS)))))),
        "memory_format": f(List(text_rule(
            name=f(NAME), allocates=f(Bool()), rank=opt(OneOf((Str(choices=("any",)), Int(lo=1)))),
            order=opt(OneOf((Str(choices=("reverse",)), INTS))), size_floor=opt(Int()),
            rank_error=opt(ERROR()), empty_error=opt(ERROR()), contiguous_error=opt(ERROR())))),
        "stride_note": opt(List(text_rule())),
        "is_contiguous": f(text_rule(example=opt(List(text_rule(
            sizes=f(INTS), strides=f(INTS), contiguous_format=f(Bool()), channels_last=f(Bool()),
            channels_last_3d=f(Bool())))))),
        "preserve_format": f(text_rule(example=opt(List(text_rule(sizes=f(INTS), strides=f(INTS),
                                                                   expected=f(INTS)))))),
        "dim_wrap": f(text_rule(error=f(ERROR()))),
        "view": f(List(text_rule(
            op=f(Str()), copies=f(OneOf((Bool(), Str(choices=("when_view_fails", "unless_contiguous"))))),
            errors=f(MapOf(ERROR()))))),
        "sweep": f(Table({
            "id": f(ID),
            "empty_shapes": f(List(Table({"ranks": f(INTS), "sizes": f(INTS)}))),
            "layout_shapes": f(List(Table({"ranks": f(INTS), "sizes": f(INTS)}))),
            "layout_variants": f(List(Str())),
            "view_bases": f(List(Table({"id": f(NAME), "sizes": f(INTS), "chain": opt(CHAIN)}), unique_key="id"))},
            cites=NONE("sweep parameters: each generated case cites the rule it tests"))),
    },
    "arithmetic.toml": {
        "formula": f(text_rule()),
        "compute": f(text_rule(opmath=f(MapOf(DTYPE)), via_float32=f(List(DTYPE)), bool_add=f(Str()),
                               bool_mul=f(Str()), ieee=opt(Bool()))),
        "tolerance": opt(List(text_rule(ops=f(List(Str())), categories=f(List(Str())), eps_multiple=f(Int()),
                                        alpha_not_one=opt(Bool()), excludes=opt(TEXT)))),
        "scalars": f(text_rule(values=f(Table({"bool": f(List(Bool())), "int": f(List(Int())),
                                               "float": f(List(Num())), "complex": f(List(List(Num(), length=2)))})))),
        "alpha": f(text_rule(bool_error=f(ERROR()), float_error=f(ERROR()), complex_error=f(ERROR()),
                             values=f(Table({"bool": f(List(Bool())), "integral": f(List(Int())),
                                             "floating": f(List(Num())),
                                             "complex": f(List(List(Num(), length=2)))})))),
        "values": f(text_rule(
            mixed=f(Int(lo=0)), sets=f(MapOf(List(VALUE))),
            example=opt(List(text_rule(
                "values", op=f(Str()), dtype=opt(DTYPE), a_dtype=opt(DTYPE), b_dtype=opt(DTYPE), a=f(VALUE),
                b=f(VALUE), alpha=opt(VALUE), expected=f(VALUE), result_dtype=opt(DTYPE)))))),
        "broadcast": f(text_rule(error=f(ERROR()), shapes=f(List(List(INTS, length=2))))),
        "output_layout": f(text_rule(cpu_column=f(List(Str())), other_column=f(List(Str())), column_basis=f(Str()))),
        "out": f(text_rule()),
        "inplace": f(text_rule(error=f(ERROR()))),
        "overlap": f(text_rule(internal_error=f(ERROR()), partial_error=f(ERROR()))),
        "error_leaves_output": f(text_rule()),
        "layout_sweep": f(Table({
            "id": f(ID), "shape": f(INTS),
            "layouts": f(List(Table({"id": f(NAME), "base": f(INTS), "chain": opt(CHAIN)}), unique_key="id")),
            "broadcast": f(List(Table({"id": f(NAME), "base": f(INTS), "chain": opt(CHAIN)}), unique_key="id")),
            "dtypes": f(List(List(DTYPE, length=2))),
            "extra": f(List(Table({"id": f(NAME), "base": f(INTS), "formats": f(List(Str()))}), unique_key="id")),
            "pairs": opt(List(Table({"id": f(NAME), "a": f(Table({"base": f(INTS), "chain": opt(CHAIN)})),
                                     "b": f(Table({"base": f(INTS), "chain": opt(CHAIN)}))}), unique_key="id"))},
            cites=NONE("sweep parameters: each generated case cites the rule it tests"))),
    },
    "devices.toml": {
        "grammar": f(text_rule(pattern=f(TEXT), max_index=f(Int(lo=0)))),
        "errors": f(Table({**{k: f(ERROR(lists_types=Bool())) for k in (
            "empty", "malformed", "unknown_type", "index_range", "index_unparsable", "cpu_index", "index_twice",
            "negative_index")}, "errors_source": f(TEXT)}, cites="grammar")),
        "device_type": f(List(rule(name=f(NAME), documented=f(Bool())))),
        "device_types_pytorch": f(rule(names=f(List(NAME)))),
        "example": opt(List(rule(args=f(DEVICE_ARGS), repr=f(TEXT)))),
        "input": opt(List(rule("grammar", args=f(DEVICE_ARGS), error=f(Str()), why=f(TEXT)))),
        "str": f(text_rule()),
        "repr": f(text_rule()),
        "equality": f(text_rule(devices=f(List(DEVICE_ARGS)))),
        "default_device": f(text_rule(
            initial=f(Str()), resolve_source=opt(TEXT),
            case=opt(List(rule("default_device", text=f(TEXT), steps=f(List(List(Str())))))))),
    },
    "asarray.toml": {
        "source": f(List(text_rule(kind=f(Str()), aliases=f(Bool()), dtype=f(Str()), device=f(Str()),
                                   copy_false=opt(ERROR())))),
        "mismatch": f(text_rule(device_error=f(ERROR()), dtype_error=f(ERROR()))),
        "sweep": f(Table({
            "other_device": f(Str()),
            **{k: f(Table({"dtype": f(DTYPE), "sizes": f(INTS), "other_dtype": f(DTYPE)}))
               for k in ("tensor", "array", "dlpack", "array_scalar")},
            "buffer": f(Table({"bytes": f(Int(lo=0)), "other_dtype": f(DTYPE)})),
            **{k: f(Table({"value": f(TEXT), "other_dtype": f(DTYPE)})) for k in ("sequence", "scalar")},
            "dtype_pairs": f(Bool())},
            cites=NONE("sweep parameters: each generated case cites the rule it tests"))),
        "inference": f(text_rule(order=f(List(Str())), ragged_error=f(ERROR()), not_sequence_error=f(ERROR()),
                                 complex_to_real_error=f(ERROR()), complex_to_integer_error=f(ERROR()),
                                 example=opt(List(rule("inference", value=f(TEXT), default=f(DTYPE),
                                                       dtype=opt(DTYPE)))))),
        "buffer": f(text_rule(length_error=f(ERROR()), empty_error=f(ERROR()), lengths=f(INTS))),
        "array": f(text_rule(stride_error=f(ERROR()), negative_error=f(ERROR()),
                             example=opt(List(rule("array", dtype=f(DTYPE), sizes=f(INTS),
                                                   byte_strides=f(SIGNED_INTS)))))),
        "autograd": opt(text_rule(
            history_grad_fn=f(NAME), clone_grad_fn=f(NAME), to_grad_fn=f(NAME), integer_error=f(ERROR()),
            example=opt(List(text_rule(obj=f(Str(choices=("tensor", "array", "dlpack", "array_scalar", "buffer",
                                                           "sequence", "scalar"))),
                                       history=opt(Str(choices=("none", "leaf", "add"))), dtype=opt(DTYPE),
                                       value=opt(TEXT), requires_grad=opt(Bool()), copy=opt(Bool()),
                                       as_dtype=opt(DTYPE), source_only=opt(Bool())))))),
        "doc_example": opt(List(rule("source", text=f(TEXT), source=f(Str()), dtype=f(DTYPE),
                                     values=f(List(Num())), copy=opt(Bool()), as_dtype=opt(DTYPE),
                                     shares=f(Bool())))),
    },
    "dlpack.toml": {
        "codes": f(MapOf(Int(lo=0))),
        "device_codes": f(MapOf(Int(lo=0))),
        "dtype_codes": f(Table({"id": f(ID), **SOURCE, "text": f(TEXT)}, cites=OWN,
                               extra=Str())),  # dtype = "code name": the loader checks both
        "devices": f(text_rule(
            cpu=f(Table({"device_type": f(Str()), "device_id": f(OneOf((Int(lo=0), Str(choices=("index",)))))})),
            cuda=f(Table({"device_type": f(Str()), "device_id": f(OneOf((Int(lo=0), Str(choices=("index",)))))})),
            unpackable=f(List(Str())), export_error=f(ERROR()))),
        "export": f(text_rule(
            normalize_strides=f(Bool()), normalize_text=opt(TEXT),
            geometry=opt(List(Table({"name": f(NAME), "base": f(INTS), "chain": f(CHAIN)}),
                              unique_key="name")))),
        "import": f(text_rule(
            geometry=opt(List(Table({"name": f(NAME), "sizes": f(INTS), "strides": f(INTS),
                                     "byte_offset": f(Int(lo=0))}), unique_key="name")),
            invalid=opt(List(text_rule(
                "import", dtype=opt(Table({"code": f(OneOf((Str(), Int(lo=0)))), "bits": f(Int(lo=1)),
                                 "lanes": f(Int(lo=1))})),
                device=opt(Str()), error=f(ERROR())))))),
        "round_trip": f(text_rule(peer=f(NAME), geometries=f(List(NAME)))),
    },
    # The candidate interface (interface_model.py builds its rows from the checked file and checks
    # what the schema cannot say: an op's feature has a row in features.toml, every type is a wire
    # type or a record, a record field needs no session, a fact's shape, answer_features).
    "interface.toml": {
        "protocol_versions": f(List(Int(lo=1))),
        "answer_features": f(List(FEATURE)),
        "declared_by_default": opt(List(FEATURE)),
        "error": f(List(Table({
            "name": f(Str(pattern=r"[A-Z][A-Za-z]*")), "enumerator": f(ENUMERATOR),
            # "pytorch": a Python exception class PyTorch raises (what a spec row's expected error may
            # name); "suite": an answer only a candidate or the suite gives (NotSupported, Internal)
            "raised_by": f(Str(choices=("pytorch", "suite"))), "doc": f(TEXT)},
            cites=INTERFACE, named_by="name"), unique_key="name")),
        "check": opt(List(Table({"name": f(IDENT), "enumerator": f(ENUMERATOR), "needs": opt(FEATURE), "doc": f(TEXT)},
                                cites=INTERFACE, named_by="name"), unique_key="name")),
        "record": f(List(Table({"name": f(Str(pattern=r"[A-Z][A-Za-z0-9]*")), "doc": f(TEXT),
                                "fields": f(List(ARG, unique_key="name"))},
                               cites=INTERFACE, named_by="name"), unique_key="name")),
        "op": f(List(Table({
            "name": f(IDENT), "feature": f(FEATURE), "args": f(List(ARG, unique_key="name")),
            "result": f(Str(pattern=r"[A-Za-z][A-Za-z0-9_]*")), "doc": f(TEXT), "aliases": opt(Bool()),
            "custom": opt(Bool()), "cxx_params": opt(TEXT), "fact": opt(Bool())},
            cites=INTERFACE, named_by="name"), unique_key="name")),
    },
    # The conformance level of each feature of the candidate interface: what a NotSupported answer
    # costs (the verdict), read by the runner from spec.json. Its basis is "doc" or "pytorch: <source>".
    "features.toml": {
        "feature": f(List(Table({
            "name": f(FEATURE), "enumerator": f(ENUMERATOR),
            "level": f(Str(choices=("required", "optional"))), "clause": f(Clause()),
            "basis": f(Str(pattern=r"doc|pytorch: \S.*")), "reason": f(Str(pattern=r"\S.*"))},
            cites=NONE("a feature's conformance level: what NotSupported costs, no rule a case tests"), named_by="name"),
            unique_key="name")),
    },
    # The documents' statements and the rows that test them (spec_model.py _load_statements
    # checks the rows; generators_test.py StatementTable checks each quote against its document).
    "statements.toml": {
        "statement": f(List(Table({
            "id": f(ID), "clause": f(Clause()), "quote": f(Str(pattern=r"\S(.*\S)?")),
            "rows": opt(List(ID)), "untested": opt(Str(pattern=r"\S.*")),
            # The checks the statement is about (spec/interface.toml [[check]]): a case breaks it only
            # by failing one of them (reports/report.py spec_coverage). Absent: every check but setup
            # and declaration, which are about the candidate's harness, not the statement.
            "checks": opt(List(CheckKind()))},
            cites=NONE("a statement of a document: the rows it names test it")), unique_key="id")),
        "silent": opt(List(Table({"why": f(Str(pattern=r"\S.*")), "rows": f(List(ID))},
                                 cites=NONE("spec rows no statement claims: the documents say nothing of them")))),
    },
}


def row_kinds() -> list[tuple[str, str, Table]]:
    """Every Table in the schema as (file, TOML path, table): for the invariant tests."""
    out = []

    def walk(file: str, path: str, t: Type):
        if isinstance(t, Table):
            out.append((file, path, t))
            for k, fld in t.fields.items():
                walk(file, f"{path}.{k}" if path else k, fld.type)
        elif isinstance(t, List):
            walk(file, path, t.item)
        elif isinstance(t, (MapOf,)):
            walk(file, path + ".*", t.value)
        elif isinstance(t, OneOf):
            for x in t.types:
                walk(file, path, x)

    for file, tables in FILES.items():
        for key, fld in tables.items():
            walk(file, key, fld.type)
    return out


def _accepts(t: Type, value) -> bool:
    try:
        t.check(_Checker("", None), value, "", "x")
        return True
    except _Invalid:
        return False


@dataclasses.dataclass(frozen=True)
class FactRow:
    file: str    # the spec file that holds it
    clause: str  # its clause, its own or its table's
    basis: str   # "doc" or "pytorch", its own or its table's
    derives_from: tuple = ()  # (row id, checks) of each row whose rules decide it (DERIVATION)


def fact_rows(files: dict) -> dict[str, FactRow]:
    """The rows of the spec that state facts (row kinds that cite a clause, their own or their
    table's), by id (a swept table: its id_prefix): what a case's spec_row may name and what
    a statement's rows name. `files` maps each spec file name to (path, parsed TOML); a file
    the schema does not know is skipped."""
    out: dict[str, FactRow] = {}

    def walk(file: str, doc: dict, value, t: Type):
        if isinstance(t, OneOf):
            t = next((x for x in t.types if _accepts(x, value)), None)
        if isinstance(t, Table) and isinstance(value, dict):
            if t.cites and not t.cites.startswith("none: "):
                cited = value if t.cites == OWN else doc.get(t.cites)
                if isinstance(cited, list):  # inherited from rows ([[source]]): what they all say
                    pairs = {(c.get("clause"), c.get("basis")) for c in cited if isinstance(c, dict)}
                    cited = dict(zip(("clause", "basis"), pairs.pop())) if len(pairs) == 1 else {}
                cited = cited if isinstance(cited, dict) else {}
                for k in ("id", "id_prefix"):
                    if isinstance(value.get(k), str):
                        out[value[k]] = FactRow(file, str(cited.get("clause", "")), str(cited.get("basis", "")),
                                                tuple(derivation(d) for d in value.get("derives_from", ())))
            for k, v in value.items():
                if k in t.fields:
                    walk(file, doc, v, t.fields[k].type)
        elif isinstance(t, MapOf) and isinstance(value, dict):
            for v in value.values():
                walk(file, doc, v, t.value)
        elif isinstance(t, List) and isinstance(value, list):
            for v in value:
                walk(file, doc, v, t.item)

    for fname, (_, doc) in files.items():
        for key, fld in FILES.get(fname, {}).items():
            if key in doc:
                walk(fname, doc, doc[key], fld.type)
    return out
