"""Loads and validates the spec tables (spec/*.toml) and derives what they imply.

Python 3.11 standard library only. Every emitter reads the spec through this module,
so validation happens once and a malformed table fails the build with
"<file>: <row>: <reason>". spec_schema.py checks every file first (tables, fields, types, clauses);
the _load_* functions here read the checked rows and keep only what the schema cannot say: names
that must be known (dtypes, categories, ops), ids claimed once, fields one row needs by what it
is, and tables that must agree with their rules. The error type and Source are spec_rows.py's.

Derived facts (all from the tables, never from a library under test):
  * promote_types from the literal matrix, and the lattice join to cross-check it;
  * result_type over operand kinds (promotion.toml [result_type] rules);
  * can_cast from the disallow rules (casting.toml);
  * the outcome of add/sub/mul/div, functional, out= and in-place;
  * which statements of the documents each row tests (statements.toml).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import string
from typing import Iterable

import arith_model
import binary_ops
import interop_model
import spec_schema
import strided_model
import toml_file
from spec_rows import DType, Source, SpecError, source_of


CATEGORY_ORDER_DEFAULT = ("bool", "integral", "floating", "complex")
SCALAR_KINDS = ("bool", "int", "float", "complex")
OPERAND_KINDS = ("tensor", "zerodim", "scalar")
SPEC_FILES = ("sources.toml", "dtypes.toml", "promotion.toml", "casting.toml", "strided.toml", "arithmetic.toml",
              "devices.toml", "asarray.toml", "dlpack.toml", "statements.toml", "features.toml")
# Checked too (its shape; interface_model.py checks the rest), and read for its [[error]] and
# [[check]] names: the error kinds a row's expected error may name, the checks a row may name.
INTERFACE_FILE = "interface.toml"
SPEC_INPUTS = SPEC_FILES + (INTERFACE_FILE,)  # what Spec.load needs: //spec:tables
VIEW_OPS = tuple(strided_model.VIEW_CAUSES)  # the view ops the strided model implements


@dataclasses.dataclass(frozen=True)
class Operand:
    """One operand of a binary operation: kind is tensor | zerodim | scalar."""

    kind: str
    what: str  # a dtype name for tensors, a scalar kind for scalars

    @staticmethod
    def parse(text: str, spec: "Spec", path: str, row: str) -> "Operand":
        kind, sep, what = text.partition(":")
        if not sep or kind not in OPERAND_KINDS:
            raise SpecError(path, row, f"operand {text!r} is not '<tensor|zerodim|scalar>:<dtype or kind>'")
        if kind == "scalar":
            if what not in SCALAR_KINDS:
                raise SpecError(path, row, f"operand {text!r}: scalar kind must be one of {', '.join(SCALAR_KINDS)}")
        elif what not in spec.by_name:
            raise SpecError(path, row, f"operand {text!r}: unknown dtype {what!r}")
        return Operand(kind, what)

    def __str__(self) -> str:
        return f"{self.kind}:{self.what}"

    @property
    def token(self) -> str:
        """A short identifier-safe form used in row ids: t_int8, z_int8, s_float."""
        return {"tensor": "t", "zerodim": "z", "scalar": "s"}[self.kind] + "_" + self.what


class Spec:
    """The whole spec, validated. Construct with Spec.load(spec_dir or file list)."""

    def __init__(self, files: dict[str, dict]):
        self.files = files
        self._check_schema()
        self._seen_ids: dict[str, str] = {}
        self._load_dtypes()
        self._load_promotion()
        self._load_casting()
        self._load_strided()
        self._load_arithmetic()
        self._check_examples()
        self.interop = interop_model.Interop(
            self, {name: self.files[name] for name in ("devices.toml", "asarray.toml", "dlpack.toml")})
        self._load_statements()

    # ----------------------------------------------------------------- loading
    @staticmethod
    def load(paths: Iterable[str]) -> "Spec":
        files: dict[str, dict] = {}
        for path in paths:
            base = os.path.basename(path)
            try:
                files[base] = (path, toml_file.load(path))
            except toml_file.TomlFileError as e:
                raise SpecError(path, "(file)", e.reason) from None
        for needed in SPEC_INPUTS:
            if needed not in files:
                raise SpecError(needed, "(file)", "missing from the spec inputs")
        return Spec(files)

    def _file(self, base: str) -> tuple[str, dict]:
        return self.files[base]

    def _check_schema(self) -> None:
        """Every file against spec_schema.py: no unknown table or field, every value of its
        type, every clause citing a document of sources.toml (checked first)."""
        path, doc = self.files["sources.toml"]
        spec_schema.check_file("sources.toml", path, doc, None)
        self.documents, implementation = spec_schema.documents_of(doc)
        path, doc = self.files[INTERFACE_FILE]
        spec_schema.check_file(INTERFACE_FILE, path, doc, self.documents, implementation)
        kinds = tuple(e["name"] for e in doc["error"] if e["raised_by"] == "pytorch")
        checks = tuple(c["name"] for c in doc.get("check", []))
        for name in SPEC_FILES[1:]:
            spec_schema.check_file(name, *self.files[name], self.documents, implementation, kinds, checks)

    def _claim_id(self, row_id: str, path: str) -> None:
        if not row_id or any(c.isspace() for c in row_id):
            raise SpecError(path, repr(row_id), "row id must be a non-empty string without spaces")
        if row_id in self._seen_ids:
            raise SpecError(path, row_id, f"duplicate row id (first defined in {self._seen_ids[row_id]})")
        self._seen_ids[row_id] = path

    def _load_dtypes(self) -> None:
        path, doc = self._file("dtypes.toml")
        rows = doc.get("dtype")
        if not isinstance(rows, list) or not rows:
            raise SpecError(path, "(file)", "expected [[dtype]] rows")
        self.dtypes: list[DType] = []
        self.by_name: dict[str, DType] = {}
        self.by_short: dict[str, DType] = {}
        for i, r in enumerate(rows):
            row = r.get("id", f"dtype[{i}]")
            row_id = r["id"]
            self._claim_id(row_id, path)
            name = r["name"]
            if row_id != f"dtype.{name}":
                raise SpecError(path, row, f"id must be 'dtype.{name}'")
            category = r["category"]
            if category not in CATEGORY_ORDER_DEFAULT:
                raise SpecError(path, row, f"category {category!r} is not one of {', '.join(CATEGORY_ORDER_DEFAULT)}")
            is_fp = r["is_floating_point"]
            is_cx = r["is_complex"]
            if is_fp != (category == "floating") or is_cx != (category == "complex"):
                raise SpecError(path, row, "is_floating_point/is_complex disagree with category")
            b = r.get("bits")
            bits = None if b is None else (b["sign"], b["exponent"], b["significand"])
            if is_fp and bits is None:
                raise SpecError(path, row, "floating dtypes need bits = { sign, exponent, significand }")
            itemsize = r["itemsize"]
            if bits is not None and sum(bits) != itemsize * 8:
                raise SpecError(path, row, f"bits add up to {sum(bits)}, itemsize says {itemsize * 8}")
            src = source_of(r, row)
            d = DType(
                id=row_id, name=name, short=r["short"],
                aliases=tuple(r["aliases"]),
                legacy_constructor=r["legacy_constructor"],
                c10_name=r["c10_name"], itemsize=itemsize,
                category=category, is_signed=r["is_signed"],
                is_floating_point=is_fp, is_complex=is_cx, bits=bits,
                documented=r["documented"],
                clause=src.clause, basis=src.basis, part=r.get("part"))
            if is_cx != ("part" in r):
                raise SpecError(path, row, "a complex dtype names its `part` (the floating dtype of its real and "
                                           "imaginary components), and only a complex dtype has one")
            for key in [name, *d.aliases]:
                if key in self.by_name:
                    raise SpecError(path, row, f"name or alias {key!r} is already used by {self.by_name[key].name}")
                self.by_name[key] = d
            if d.short in self.by_short:
                raise SpecError(path, row, f"short code {d.short!r} is already used")
            self.by_short[d.short] = d
            self.dtypes.append(d)
        for d in self.dtypes:
            if d.is_complex:
                part = self.by_name.get(d.part)
                if part is None or part.name != d.part or not part.is_floating_point or part.itemsize * 2 != d.itemsize:
                    raise SpecError(path, d.id, f"part {d.part!r} must be the name of a floating dtype of half "
                                                f"its bits ({d.itemsize * 4})")
            if d.is_floating_point:
                if d.bits[1] < 2:
                    raise SpecError(path, d.id, "bits.exponent must be at least 2 (an IEEE 754 binary format)")
                fmt = arith_model.Format.of_bits(d.bits[1], d.bits[2])
                if fmt.p > arith_model.DOUBLE.p or fmt.emin < arith_model.DOUBLE.emin or fmt.emax > arith_model.DOUBLE.emax:
                    raise SpecError(path, d.id, f"bits: the model holds values in a double ({arith_model.DOUBLE}); "
                                                f"{fmt} does not fit in it")
        self.documented = [d for d in self.dtypes if d.documented]
        self.numbers = arith_model.Dtypes(self.dtypes)
        # A tensor of each barebones dtype keeps its dtype (the dtypes are promotion.toml's list,
        # read by _load_promotion). A spec without the table (the generators' fixture) has none.
        bt = doc.get("barebones_tensor")
        self.barebones_tensor: tuple[Source, str, list[int]] | None = None
        if bt is not None:
            self._claim_id(bt["id"], path)
            self.barebones_tensor = (source_of(bt, "barebones_tensor"), bt["text"], list(bt["values"]))

    def dtype(self, name: str, path: str, row: str) -> DType:
        if name not in self.by_name:
            raise SpecError(path, row, f"unknown dtype {name!r}")
        return self.by_name[name]

    def _short(self, code, path: str, row: str) -> DType:
        if not isinstance(code, str) or code not in self.by_short:
            raise SpecError(path, row, f"unknown dtype code {code!r} (codes are dtypes.toml `short`)")
        return self.by_short[code]

    def _load_promotion(self) -> None:
        path, doc = self._file("promotion.toml")
        cats = doc.get("categories")
        if not isinstance(cats, dict):
            raise SpecError(path, "categories", "missing [categories] table")
        self._claim_id(cats["id"], path)
        order = cats["order"]
        if sorted(order) != sorted(CATEGORY_ORDER_DEFAULT):
            raise SpecError(path, "categories", f"order must list exactly {', '.join(CATEGORY_ORDER_DEFAULT)}")
        self.category_order = tuple(order)
        self.categories_source = source_of(cats, "categories")

        # -- the literal matrix
        pt = doc.get("promote_types")
        if not isinstance(pt, dict):
            raise SpecError(path, "promote_types", "missing [promote_types] table")
        self.promote_source = source_of(pt, "promote_types")
        self.promote_prefix = pt["id_prefix"]
        columns = [self._short(c, path, "promote_types.columns") for c in pt["columns"]]
        if sorted(d.name for d in columns) != sorted(d.name for d in self.documented):
            raise SpecError(path, "promote_types.columns", "columns must be exactly the documented dtypes")
        self.matrix: dict[tuple[str, str], str] = {}
        rows = pt["rows"]
        if len(rows) != len(columns):
            raise SpecError(path, "promote_types.rows", f"{len(rows)} rows for {len(columns)} columns")
        for line in rows:
            if not isinstance(line, list) or not line:
                raise SpecError(path, "promote_types.rows", f"row {line!r} is not a list")
            a = self._short(line[0], path, "promote_types.rows")
            cells = line[1:]
            if len(cells) != len(columns):
                raise SpecError(path, f"promote_types row {a.short}", f"{len(cells)} cells for {len(columns)} columns")
            for b, cell in zip(columns, cells):
                r = self._short(cell, path, f"promote_types[{a.short}][{b.short}]")
                if (a.name, b.name) in self.matrix:
                    raise SpecError(path, f"promote_types row {a.short}", "row listed twice")
                self.matrix[(a.name, b.name)] = r.name
        for a in self.documented:
            for b in self.documented:
                if (a.name, b.name) not in self.matrix:
                    raise SpecError(path, f"promote_types row {a.short}", f"no cell for column {b.short}")
        for a, b in self.matrix:
            self._claim_id(self.promote_id(a, b), path)

        # -- the dtypes outside the twelve that promote by PyTorch's "barebones" rule
        # A spec without them (the generators' fixture) has no such table.
        bb = doc.get("promote_types_barebones", {"dtypes": [], "error": None})
        self.barebones_error = None
        if "id" in bb:
            self._claim_id(bb["id"], path)
            self.barebones_source = source_of(bb, "promote_types_barebones")
            self.barebones_error = (bb["error"]["kind"], bb["error"]["message"])
        self.barebones = [self._short(c, path, "promote_types_barebones.dtypes") for c in bb["dtypes"]]
        for d in self.barebones:
            if d.documented or d.category != "integral" or d.is_signed:
                raise SpecError(path, "promote_types_barebones.dtypes",
                                f"{d.name} is not an unsigned integral dtype outside the documented twelve")
        if len({d.name for d in self.barebones}) != len(self.barebones):
            raise SpecError(path, "promote_types_barebones.dtypes", "a dtype is listed twice")
        for a, b in self.barebones_pairs():
            self._claim_id(self.promote_id(a, b), path)

        # -- the lattice
        lat = doc.get("promotion_lattice")
        if not isinstance(lat, dict):
            raise SpecError(path, "promotion_lattice", "missing [promotion_lattice] table")
        self._claim_id(lat["id"], path)
        self.lattice_source = source_of(lat, "promotion_lattice")
        self.lattice_edges: list[tuple[str, str]] = []
        for e in lat["edges"]:
            lo = self._short(e[0], path, "promotion_lattice.edges")
            hi = self._short(e[1], path, "promotion_lattice.edges")
            self.lattice_edges.append((lo.name, hi.name))

        # -- result_type rules
        rt = doc.get("result_type")
        if not isinstance(rt, dict):
            raise SpecError(path, "result_type", "missing [result_type] table")
        self._claim_id(rt["id"], path)
        self.result_type_source = source_of(rt, "result_type")
        # The operand classes and scalar kinds the rules above are written for: a table that
        # names others describes rules the model does not implement.
        for key, want in (("classes", ["dimensioned", "zero_dim", "scalar"]), ("scalar_kinds", list(SCALAR_KINDS))):
            if rt.get(key, want) != want:
                raise SpecError(path, "result_type", f"{key} must be {want} (the rules the generators implement)")
        sd = rt["scalar_dtype"]
        if sorted(sd) != sorted(SCALAR_KINDS):
            raise SpecError(path, "result_type.scalar_dtype", f"must map exactly {', '.join(SCALAR_KINDS)}")
        self.scalar_dtype = dict(sd)
        for k, v in sd.items():
            if v not in ("default", "default_complex"):
                self.dtype(v, path, f"result_type.scalar_dtype.{k}")
        self.default_dtypes = [self.dtype(n, path, "result_type.default_dtypes").name
                               for n in rt["default_dtypes"]]
        dc = rt["default_complex"]
        self.default_complex = {}
        for k in self.default_dtypes:
            if k not in dc:
                raise SpecError(path, "result_type.default_complex", f"no complex default for {k}")
            self.default_complex[k] = self.dtype(dc[k], path, "result_type.default_complex").name
        self.initial_default = self.dtype(rt["initial_default"],
                                          path, "result_type.initial_default").name
        if self.initial_default not in self.default_dtypes:
            raise SpecError(path, "result_type.initial_default", "must be one of default_dtypes")
        tc = rt["to_complex"]
        self.to_complex_map = {}
        for d in self.dtypes:
            if d.category == "floating":
                if d.name not in tc:
                    raise SpecError(path, "result_type.to_complex", f"no complex counterpart for {d.name}")
                c = self.dtype(tc[d.name], path, "result_type.to_complex")
                if c.category != "complex":
                    raise SpecError(path, "result_type.to_complex", f"{d.name} maps to non-complex {c.name}")
                self.to_complex_map[d.name] = c.name
        self.examples = []
        for kind in ("example", "pytorch"):
            for i, ex in enumerate(rt.get(kind, [])):
                row = ex.get("id", f"result_type.{kind}[{i}]")
                self._claim_id(ex["id"], path)
                a = Operand.parse(ex["a"], self, path, row)
                b = Operand.parse(ex["b"], self, path, row)
                res = self.dtype(ex["result"], path, row).name
                text = ex.get("expr") or ex.get("why") or ""
                src = self.result_type_source.for_row(row)  # the example's own row, the rules' clause
                if kind == "example":
                    src = src.with_basis("doc")
                self.examples.append((row, a, b, res, text, src))

        # -- the ops
        # The binary ops, in spec order (binary_ops.py reads their names and symbols, for every end).
        listed = binary_ops.parse(doc)
        self.ops: dict[str, dict] = {}
        for i, (op, bop) in enumerate(zip(doc["op"], listed)):
            row = op.get("id", f"op[{i}]")
            self._claim_id(op["id"], path)
            name = bop.name
            if name not in arith_model.OPS:
                raise SpecError(path, row, f"op '{name}' has no arithmetic in the generators' value model, the one "
                                           "oracle of expected values (generators/arith_model.py computes "
                                           f"{', '.join(arith_model.OPS)}): add its element arithmetic there, an OpArith "
                                           "registered in OPS")
            self._check_arithmetic(path, row, name, op)
            entry = {"source": source_of(op, row), "symbol": bop.symbol, "bool_error": None,
                     "integer_to_default_float": False}
            if "bool_error" in op:
                be = op["bool_error"]
                entry["bool_error"] = {k: be[k] for k in ("kind", "both", "one")}
            if op.get("integer_to_default_float", False):
                entry["integer_to_default_float"] = True
            entry["refuses"] = None
            if "refuses" in op:
                ref = op["refuses"]
                for c in ref["categories"]:
                    if c not in CATEGORY_ORDER_DEFAULT:
                        raise SpecError(path, row, f"refuses: unknown category {c!r} (one of {', '.join(CATEGORY_ORDER_DEFAULT)})")
                try:
                    fields = {f for _, f, _, _ in string.Formatter().parse(ref["message"]) if f is not None}
                except ValueError as e:  # an unclosed or stray brace
                    raise SpecError(path, row, f"refuses: the message's braces do not parse ({e}); name the "
                                               "refused dtype as {dtype}, and write a literal brace twice") from None
                if fields != {"dtype"}:
                    raise SpecError(path, row, "refuses: the message must name the refused dtype as {dtype}, and "
                                               "nothing else in braces")
                entry["refuses"] = {"categories": tuple(ref["categories"]), "kind": ref["kind"], "message": ref["message"],
                                    "source": source_of(op, row).with_basis(f"pytorch: {ref['source']}")}
            self.ops[name] = entry
        self.op_names = tuple(self.ops)  # every binary op, in spec order

    # What an op's OpArith must write for each category its row lets reach the kernel: a category
    # is left out by `refuses`, bool also by `bool_error`, bool and integral by
    # integer_to_default_float (they are computed as the default float).
    ARITHMETIC = {"floating": ("special", "exact", "zero", "rounding_terms"), "complex": ("complex", "rounding_terms"),
                  "integral": ("integer",), "bool": ("boolean",)}

    @classmethod
    def _check_arithmetic(cls, path: str, row: str, name: str, op: dict) -> None:
        """Refuses an [[op]] row whose OpArith lacks the arithmetic of a category the row lets
        reach the kernel, naming the row, the category and the methods."""
        arith = arith_model.OPS[name]
        left_out = set(op.get("refuses", {}).get("categories", ()))
        if op.get("integer_to_default_float", False):
            left_out |= {"bool", "integral"}
        if "bool_error" in op:
            left_out.add("bool")
        for category, methods in cls.ARITHMETIC.items():
            missing = [m for m in methods if getattr(type(arith), m) is getattr(arith_model.OpArith, m)]
            if category not in left_out and missing:
                raise SpecError(path, row, f"op '{name}': {type(arith).__name__} in generators/arith_model.py OPS "
                                           f"has no {category} arithmetic ({', '.join(missing)}): write it there, "
                                           f"or say in the row that the op refuses {category} (refuses.categories)")

    def _load_casting(self) -> None:
        path, doc = self._file("casting.toml")
        cc = doc.get("can_cast")
        if not isinstance(cc, dict) or not isinstance(cc.get("disallow"), list):
            raise SpecError(path, "can_cast", "missing [[can_cast.disallow]] rules")
        self._claim_id(cc["id"], path)
        self.can_cast_source = source_of(cc, "can_cast")  # the rule "allowed unless disallowed"
        self.cast_rules = []
        for i, r in enumerate(cc["disallow"]):
            row = r.get("id", f"can_cast.disallow[{i}]")
            self._claim_id(r["id"], path)
            frm = r["from"]
            to = r["to"]
            for c in [*frm, *to]:
                if c not in self.category_order:
                    raise SpecError(path, row, f"unknown category {c!r}")
            self.cast_rules.append({"id": row, "text": r["text"],
                                    "from": frm, "to": to, "source": source_of(r, row)})
        for a in self.documented:
            for b in self.documented:
                self._claim_id(self.can_cast_id(a.name, b.name), path)
        oc = doc.get("output_casting")
        if not isinstance(oc, dict):
            raise SpecError(path, "output_casting", "missing [output_casting] table")
        self._claim_id(oc["id"], path)
        self.output_casting_source = source_of(oc, "output_casting")
        self.cast_error_kind = oc["error_kind"]
        self.cast_message = oc["message"]
        for field in ("{result}", "{output}"):
            if field not in self.cast_message:
                raise SpecError(path, "output_casting", f"message must contain {field}")
        self.cast_doc_message = oc["doc_message"]
        if oc["value_path"] != "result_then_output":
            raise SpecError(path, "output_casting", "value_path must be 'result_then_output'")
        self.cast_examples = []
        for i, ex in enumerate(oc.get("example", [])):
            row = ex.get("id", f"output_casting.example[{i}]")
            self._claim_id(ex["id"], path)
            self.cast_examples.append({
                "id": row, "expr": ex["expr"],
                "self": self.dtype(ex["self"], path, row).name,
                "other": self.dtype(ex["other"], path, row).name,
                "allowed": ex["allowed"]})

    def _error(self, table, key: str, path: str, row: str) -> dict:
        """An error spec `{ kind, message }` (message: a fragment every conforming message contains;
        its fields and kinds are spec_schema.ERROR's)."""
        e = table[key]
        return {"kind": e["kind"],
                "message": e["message"]}

    def _ints(self, table, key: str, path: str, row: str, lo: int = 0) -> tuple[int, ...]:
        v = table[key]
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= lo for x in v):
            raise SpecError(path, row, f"field '{key}' must be a list of integers >= {lo}, got {v!r}")
        return tuple(v)

    def _load_strided(self) -> None:
        path, doc = self._file("strided.toml")

        def claimed(table, row_hint):
            row = table["id"]
            self._claim_id(row, path)
            return row

        def rule(table, row_hint, **fields) -> dict:
            """A rule or example row: its claimed id, text and source, plus `fields` read by
            the given functions (each called as f(table, row))."""
            row = claimed(table, row_hint)
            out = {"id": row, "text": table["text"], "source": source_of(table, row)}
            out.update({k: f(table, row) for k, f in fields.items()})
            if "strides" in out and len(out["strides"]) != len(out["sizes"]):
                raise SpecError(path, row, f"sizes {list(out['sizes'])} and strides {list(out['strides'])} "
                                           "differ in length")
            return out

        def ints(key, lo=0):
            return lambda t, row: self._ints(t, key, path, row, lo)

        def section(key) -> dict:
            return doc[key]

        self.layouts = [rule(r, f"layout[{i}]", name=lambda t, row: t["name"],
                             required=lambda t, row: t["required"])
                        for i, r in enumerate(doc.get("layout", []))]
        if [l["name"] for l in self.layouts] != ["strided", "sparse_coo"]:
            raise SpecError(path, "layout", "expected the layouts strided and sparse_coo, in that order")

        def write(t, row):
            if "write_storage" not in t:
                return None
            w = t["write_storage"]
            return (w["index"], w["value"])

        addr = section("address")
        self.address = rule(addr, "address")
        self.address["examples"] = [
            rule(ex, f"address.example[{i}]", sizes=ints("sizes"), values=ints("values", -2**31),
                 strides=ints("strides"), offset=lambda t, row: t["storage_offset"],
                 write=write, after=lambda t, row: self._ints(t, "after", path, row, -2**31) if "after" in t else ())
            for i, ex in enumerate(addr.get("example", []))]
        for ex in self.address["examples"]:
            if (ex["write"] is None) != (not ex["after"]):
                raise SpecError(path, ex["id"], "write_storage and after go together")

        self.formats: dict[str, dict] = {}
        for i, r in enumerate(doc.get("memory_format", [])):
            row = claimed(r, f"memory_format[{i}]")

            def needs(*keys, why=""):
                # Fields the schema leaves optional that a format needs by what it is (why).
                for key in keys:
                    if key not in r:
                        raise SpecError(path, row, f"missing field '{key}': {why}")
            name = r["name"]
            f = {"id": row, "name": name, "allocates": r["allocates"],
                 "text": r["text"], "source": source_of(r, row)}
            if f["allocates"]:
                rank = r.get("rank")
                if rank != "any" and not (isinstance(rank, int) and rank > 0):
                    raise SpecError(path, row, "rank must be \"any\" or a positive integer")
                order = r.get("order")
                if order != "reverse" and not (isinstance(order, list) and isinstance(rank, int) and
                                               sorted(order) == list(range(rank))):
                    raise SpecError(path, row, "order must be \"reverse\" or a permutation of range(rank)")
                needs("size_floor", why="a format that allocates says its size floor")
                floor = r["size_floor"]
                if floor not in (0, 1):
                    raise SpecError(path, row, "size_floor must be 0 or 1")
                f.update(rank=rank, order=order, size_floor=floor)
                if rank != "any":
                    needs("rank_error", why="a format for one rank says the error for another")
                    f["rank_error"] = self._error(r, "rank_error", path, row)
            else:
                f["rank"] = "any"
                needs("empty_error", "contiguous_error", why="a format that does not allocate says the errors "
                                                             "of empty() and contiguous() with it")
                f["empty_error"] = self._error(r, "empty_error", path, row)
                f["contiguous_error"] = self._error(r, "contiguous_error", path, row)
            self.formats[name] = f
        if list(self.formats) != ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]:
            raise SpecError(path, "memory_format", "expected contiguous_format, channels_last, channels_last_3d, "
                                                   "preserve_format, in that order")
        # The formats a new tensor can be allocated in (strided.toml: allocates = true), in spec order.
        self.allocating_formats = tuple(n for n, f in self.formats.items() if f["allocates"])
        self.stride_notes = [rule(n, f"stride_note[{i}]") for i, n in enumerate(doc.get("stride_note", []))]

        ic = section("is_contiguous")
        self.is_contiguous = rule(ic, "is_contiguous")
        self.is_contiguous["examples"] = [
            rule(ex, f"is_contiguous.example[{i}]", sizes=ints("sizes"), strides=ints("strides"),
                 expected=lambda t, row: {n: t[n] for n in self.allocating_formats})
            for i, ex in enumerate(ic.get("example", []))]

        pf = section("preserve_format")
        self.preserve = rule(pf, "preserve_format")
        self.preserve["examples"] = [
            rule(ex, f"preserve_format.example[{i}]", sizes=ints("sizes"), strides=ints("strides"),
                 expected=ints("expected"))
            for i, ex in enumerate(pf.get("example", []))]

        self.dim_wrap = rule(section("dim_wrap"), "dim_wrap",
                             error=lambda t, row: self._error(t, "error", path, row))

        self.views: dict[str, dict] = {}
        for i, r in enumerate(doc.get("view", [])):
            v = rule(r, f"view[{i}]")
            row = v["id"]
            op = r["op"]
            if op not in VIEW_OPS or op in self.views:
                raise SpecError(path, row, f"op {op!r} is unknown or listed twice (ops: {', '.join(VIEW_OPS)})")
            copies = r.get("copies")
            if copies not in (True, False, "when_view_fails", "unless_contiguous"):
                raise SpecError(path, row, "copies must be true, false, \"when_view_fails\" or \"unless_contiguous\"")
            errors = r["errors"]
            want = strided_model.VIEW_CAUSES[op]
            if set(errors) != want:
                missing, extra = sorted(want - set(errors)), sorted(set(errors) - want)
                raise SpecError(path, row, "errors must specify exactly what the rules raise for "
                                           f"{op}: {', '.join(sorted(want)) or 'nothing'}"
                                           + (f"; missing {', '.join(missing)}" if missing else "")
                                           + (f"; unknown {', '.join(extra)}" if extra else ""))
            self.views[op] = {**v, "op": op, "copies": copies,
                              "errors": {cause: self._error(errors, cause, path, row) for cause in errors}}
        if set(self.views) != set(VIEW_OPS):
            raise SpecError(path, "view", f"missing view rows for {', '.join(sorted(set(VIEW_OPS) - set(self.views)))}")

        sw = doc["sweep"]
        self._claim_id(sw["id"], path)
        for key in ("empty_shapes", "layout_shapes"):
            for j, s in enumerate(sw[key]):
                self._ints(s, "ranks", path, f"sweep.{key}[{j}]")
                self._ints(s, "sizes", path, f"sweep.{key}[{j}]")
        variants = sw["layout_variants"]
        unknown = [v for v in variants if v not in strided_model.VARIANTS]
        if unknown:
            raise SpecError(path, "sweep", f"unknown layout variants {unknown} (known: {', '.join(strided_model.VARIANTS)})")
        self.sweep = sw
        self.view_bases = []
        for j, b in enumerate(sw["view_bases"]):
            brow = f"sweep.view_bases[{j}]"
            bid = b["id"]
            sizes = self._ints(b, "sizes", path, brow)
            chain = b.get("chain", [])
            g = self._chain_geometry(sizes, chain, path, brow)
            self.view_bases.append({"id": bid, "sizes": sizes, "chain": [list(s) for s in chain], "geometry": g})

    # ----------------------------------------------------------------- arithmetic.toml
    def _value(self, v, dtype: str, path: str, row: str):
        """A TOML value as the model holds it for `dtype`: it must be exact in that dtype."""
        cat = self.by_name[dtype].category
        ok = {"bool": isinstance(v, bool),
              "integral": isinstance(v, int) and not isinstance(v, bool),
              "floating": isinstance(v, (int, float)) and not isinstance(v, bool),
              "complex": isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v)}[cat]
        if not ok:
            raise SpecError(path, row, f"value {v!r} is not a {cat} value for {dtype}")
        if cat == "complex":
            v = complex(float(v[0]), float(v[1]))
        elif cat == "floating":
            v = float(v)
        if self.compute.cast(v, dtype) != v and not (cat == "floating" and v != v):
            raise SpecError(path, row, f"value {v!r} is not exactly representable in {dtype}")
        return v

    def _load_arithmetic(self) -> None:
        path, doc = self._file("arithmetic.toml")

        def section(key) -> dict:
            t = doc[key]
            row = t["id"]
            self._claim_id(row, path)
            return {"id": row, "text": t["text"], "source": source_of(t, row), "raw": t}

        self.arith = {k: section(k) for k in ("formula", "compute", "scalars", "alpha", "values", "broadcast",
                                              "output_layout", "out", "inplace", "overlap", "error_leaves_output")}
        comp = self.arith["compute"]["raw"]
        opmath = comp["opmath"]
        via = comp["via_float32"]
        for name in [*opmath, *opmath.values(), *via]:
            self.dtype(name, path, "compute")
        if (comp.get("bool_add"), comp.get("bool_mul")) != ("or", "and"):
            raise SpecError(path, "compute", "bool_add must be \"or\" and bool_mul \"and\" (the only rule the model implements)")
        self.compute = arith_model.Compute(self.numbers, opmath, via)

        self.tolerances = []
        for i, t in enumerate(doc.get("tolerance", [])):
            row = t["id"]
            self._claim_id(row, path)
            ops = t["ops"]
            cats = t["categories"]
            if not set(ops) <= set(self.op_names) or not set(cats) <= set(CATEGORY_ORDER_DEFAULT):
                raise SpecError(path, row, f"ops must be among {', '.join(self.op_names)} and categories among " + ", ".join(CATEGORY_ORDER_DEFAULT))
            k = t["eps_multiple"]
            if k < 1:
                raise SpecError(path, row, "eps_multiple must be >= 1")
            self.tolerances.append({"id": row, "ops": ops, "categories": cats, "alpha": bool(t.get("alpha_not_one", False)),
                                    "k": k, "text": t["text"], "source": source_of(t, row)})

        sc = self.arith["scalars"]["raw"]
        sv = sc["values"]
        if sorted(sv) != sorted(SCALAR_KINDS):
            raise SpecError(path, "scalars.values", f"must list values for {', '.join(SCALAR_KINDS)}")
        kind_dtype = {"bool": "bool", "int": "int64", "float": "float64", "complex": "complex128"}
        self.scalar_values = {k: [self._value(v, kind_dtype[k], path, "scalars.values") for v in sv[k]] for k in SCALAR_KINDS}

        al = self.arith["alpha"]["raw"]
        self.alpha_errors = {k: self._error(al, k, path, "alpha") for k in ("bool_error", "float_error", "complex_error")}
        av = al["values"]
        if sorted(av) != sorted(CATEGORY_ORDER_DEFAULT):
            raise SpecError(path, "alpha.values", f"must list values for {', '.join(CATEGORY_ORDER_DEFAULT)}")
        cat_dtype = {"bool": "bool", "integral": "int64", "floating": "float64", "complex": "complex128"}
        self.alpha_values = {c: [self._value(v, cat_dtype[c], path, "alpha.values") for v in av[c]] for c in av}

        vs = self.arith["values"]["raw"]
        sets = vs["sets"]
        if sorted(sets) != sorted(d.name for d in self.documented):
            raise SpecError(path, "values.sets", "must list values for exactly the documented dtypes")
        self.value_sets = {d: [self._value(v, d, path, f"values.sets.{d}") for v in sets[d]]
                           for d in sets}
        self.value_mixed = vs["mixed"]
        self.value_examples = []
        for i, ex in enumerate(vs.get("example", [])):
            row = ex["id"]
            self._claim_id(row, path)
            op = ex["op"]
            if op not in self.op_names:
                raise SpecError(path, row, f"op {op!r} is not one of {', '.join(self.op_names)}")
            da = self.dtype(ex.get("a_dtype", ex.get("dtype", "")), path, row).name
            db = self.dtype(ex.get("b_dtype", ex.get("dtype", "")), path, row).name
            outcome = self.op_outcome(op, Operand("tensor", da), Operand("tensor", db), self.initial_default)
            if outcome[0] != "ok":
                raise SpecError(path, row, f"the rules reject this op: {outcome[2]}")
            r = outcome[1]
            if ex.get("result_dtype", da if da == db else None) not in (r, None) or ("result_dtype" not in ex and da != db):
                raise SpecError(path, row, f"result_dtype must be stated when it is not the operands' dtype; the rules give {r}")
            a, b = self._value(ex.get("a"), da, path, row), self._value(ex.get("b"), db, path, row)
            alpha = ex.get("alpha")
            if alpha is not None and op not in ("add", "sub"):
                raise SpecError(path, row, "alpha exists for add and sub only")
            expected = self._value(ex["expected"], r, path, row)
            got = self.compute.element(op, self.compute.cast(a, r), self.compute.cast(b, r), r, alpha)
            if not same_value(got, expected):
                raise SpecError(path, row, f"the rules give {got!r}, the row says {expected!r}: the table contradicts itself")
            self.value_examples.append({"id": row, "op": op, "a_dtype": da, "b_dtype": db, "a": a, "b": b, "alpha": alpha,
                                        "result": r, "expected": expected, "text": ex["text"],
                                        "source": self.arith["values"]["source"].for_row(row)})

        bc = self.arith["broadcast"]["raw"]
        self.broadcast_error = self._error(bc, "error", path, "broadcast")
        self.broadcast_shapes = []
        for j, pair in enumerate(bc["shapes"]):
            self.broadcast_shapes.append(tuple(self._ints({"s": s}, "s", path, f"broadcast.shapes[{j}]") for s in pair))
        self.inplace_error = self._error(self.arith["inplace"]["raw"], "error", path, "inplace")
        ov = self.arith["overlap"]["raw"]
        self.overlap_errors = {k: self._error(ov, k, path, "overlap") for k in ("internal_error", "partial_error")}

        ls = doc["layout_sweep"]
        self._claim_id(ls["id"], path)
        shape = self._ints(ls, "shape", path, "layout_sweep")

        def recipe(r, where, want_shape):
            rid = r["id"]
            base = self._ints(r, "base", path, where)
            g = self._chain_geometry(base, r.get("chain", []), path, where)
            if want_shape is not None and g.sizes != want_shape:
                raise SpecError(path, where, f"the recipe makes shape {list(g.sizes)}, the sweep shape is {list(want_shape)}")
            return {"id": rid, "base": base, "chain": [list(s) for s in r.get("chain", [])], "geometry": g}

        self.layout_shape = shape
        self.layouts_same = [recipe(r, f"layout_sweep.layouts[{j}]", shape) for j, r in enumerate(ls["layouts"])]
        self.layouts_broadcast = [recipe(r, f"layout_sweep.broadcast[{j}]", None) for j, r in enumerate(ls["broadcast"])]
        for r in self.layouts_broadcast:
            try:
                arith_model.broadcast(shape, r["geometry"].sizes)
            except arith_model.ArithError:
                raise SpecError(path, "layout_sweep.broadcast", f"{r['id']} does not broadcast with {list(shape)}") from None
        self.layout_dtypes = []
        for pair in ls["dtypes"]:
            self.layout_dtypes.append(tuple(self.dtype(d, path, "layout_sweep.dtypes").name for d in pair))
        self.layout_extra = []
        for j, e in enumerate(ls["extra"]):
            where = f"layout_sweep.extra[{j}]"
            fmts = e["formats"]
            if not set(fmts) <= set(self.allocating_formats):
                raise SpecError(path, where, f"formats must be among {', '.join(self.allocating_formats)}")
            self.layout_extra.append({"id": e["id"], "base": self._ints(e, "base", path, where),
                                      "formats": fmts})
        self.layout_pairs = []
        for j, e in enumerate(ls.get("pairs", [])):
            where = f"layout_sweep.pairs[{j}]"
            self.layout_pairs.append({"id": e["id"], "a": recipe({"id": "a", **e["a"]}, where + ".a", None),
                                      "b": recipe({"id": "b", **e["b"]}, where + ".b", None)})

    def tolerance_for(self, op: str, result: str, alpha) -> tuple[str, int] | None:
        """The [[tolerance]] row (id, eps multiple) that applies, or None: compare exactly."""
        cat = self.by_name[result].category
        for t in self.tolerances:
            if op in t["ops"] and cat in t["categories"] and (not t["alpha"] or (alpha is not None and alpha != 1)):
                return t["id"], t["k"]
        return None

    def _chain_geometry(self, sizes, chain, path: str, where: str) -> "strided_model.Geometry":
        """The geometry a table's chain of strided.toml view steps gives a new tensor of
        `sizes` (a copying step starts a storage of its own); a step the rules reject fails
        the build naming the row."""
        g = strided_model.allocated_geometry(sizes, self.formats)
        numel = g.numel  # elements in the storage the next step sees
        for step in chain:
            if not isinstance(step, list) or not step or step[0] not in VIEW_OPS:
                raise SpecError(path, where, f"chain step {step!r} is not [op, args...]")
            try:
                out = strided_model.apply(step[0], list(step[1:]), g, numel, self.formats)
            except strided_model.RuleError as e:
                raise SpecError(path, where, f"chain step {step!r} is rejected by the rules: {e}") from None
            g, numel = out.geometry, (out.geometry.numel if out.copies else numel)
        return g

    def rule_error(self, e: "strided_model.RuleError") -> tuple[dict, Source, str]:
        """The error spec, source and row id that a RuleError from the strided rules refers to."""
        path = self.files["strided.toml"][0]
        if e.row == self.dim_wrap["id"]:
            return self.dim_wrap["error"], self.dim_wrap["source"], e.row
        for f in self.formats.values():
            if e.row == f["id"]:
                key = {"rank": "rank_error", "empty": "empty_error", "contiguous": "contiguous_error"}[e.cause]
                return f[key], f["source"], e.row
        for v in self.views.values():
            if e.row == v["id"]:
                if e.cause not in v["errors"]:
                    raise SpecError(path, e.row, f"the rules reject this ({e.detail}) but the row lists no "
                                                 f"'{e.cause}' error")
                return v["errors"][e.cause], v["source"], e.row
        raise SpecError(path, e.row, f"no spec row for rule error {e}")

    def _load_statements(self) -> None:
        """statements.toml: each statement names the rows that test it or says why none does;
        every row that states a fact is claimed by a statement or listed as [[silent]] (the
        documents say nothing of it: its basis is PyTorch's implementation)."""
        path, doc = self._file("statements.toml")
        facts = spec_schema.fact_rows({k: self.files[k] for k in SPEC_FILES if k != "statements.toml"})
        self.statements: list[dict] = []
        self.statements_of: dict[str, list[str]] = {}  # row id -> the statements it tests, in file order

        def known(rid: str, row: str, field: str) -> None:
            if rid not in facts:
                near = difflib.get_close_matches(rid, list(facts), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise SpecError(path, row, f"{field} names {rid!r}, which is no row of spec/ that states a fact{hint}")

        for s in doc["statement"]:
            sid = s["id"]
            self._claim_id(sid, path)
            if ("rows" in s) == ("untested" in s):
                raise SpecError(path, sid, "a statement has either rows (the spec rows that test it) or untested "
                                           "(why none does)" + (", not both" if "rows" in s else ": it has neither"))
            rows = s.get("rows", [])
            if "rows" in s and not rows:
                raise SpecError(path, sid, "rows is empty: name the rows that test it, or say why none does (untested)")
            if len(set(rows)) != len(rows):
                raise SpecError(path, sid, "rows names a row twice")
            for rid in rows:
                known(rid, sid, "rows")
                self.statements_of.setdefault(rid, []).append(sid)
            self.statements.append({"id": sid, "clause": s["clause"], "quote": s["quote"], "rows": list(rows),
                                    "untested": s.get("untested")})
        self.silent: dict[str, str] = {}  # row id -> why no statement claims it
        for i, group in enumerate(doc.get("silent", [])):
            for rid in group["rows"]:
                known(rid, f"silent[{i}]", "silent")
                if rid in self.statements_of:
                    raise SpecError(path, f"silent[{i}]", f"{rid!r} is tested by {self.statements_of[rid][0]}: "
                                                          "a claimed row is not silent")
                if rid in self.silent:
                    raise SpecError(path, f"silent[{i}]", f"{rid!r} is listed twice")
                if facts[rid].basis != "pytorch":
                    raise SpecError(path, f"silent[{i}]", f"{rid!r} has basis {facts[rid].basis!r}: a row the "
                                                          "documents state is claimed by the statement it tests")
                self.silent[rid] = group["why"]
        self._check_derivations(facts)
        for rid, fact in facts.items():
            if rid not in self.statements_of and rid not in self.silent:
                raise SpecError(path, rid, f"the row ({fact.file}, {fact.clause}) tests no statement: name it in "
                                           "the rows of the statements it tests, or (basis pytorch, the documents "
                                           "silent) in [[silent]]")

    def _check_derivations(self, facts: dict) -> None:
        """Each row's derives_from names other fact rows (of any spec file), once each, and the
        rows' derivations form no cycle: what reports/report.py's root causes walk."""
        self.derives_from: dict[str, tuple] = {}
        for rid, fact in facts.items():
            parents = tuple(p for p, _ in fact.derives_from)
            if not parents:
                continue
            path = self.files[fact.file][0]
            if len(set(parents)) != len(parents):
                raise SpecError(path, rid, "derives_from names a row twice")
            for p in parents:
                if p == rid:
                    raise SpecError(path, rid, "derives_from names the row itself")
                if p not in facts:
                    near = difflib.get_close_matches(p, list(facts), n=1)
                    hint = f"; did you mean {near[0]!r}?" if near else ""
                    raise SpecError(path, rid, f"derives_from names {p!r}, which is no row of spec/ that states "
                                               f"a fact{hint}")
            self.derives_from[rid] = parents
        state: dict[str, int] = {}  # 1 on the path, 2 done

        def visit(rid: str, trail: list) -> None:
            if state.get(rid) == 2:
                return
            if state.get(rid) == 1:
                cycle = trail[trail.index(rid):] + [rid]
                raise SpecError(self.files[facts[rid].file][0], rid, "derives_from makes a cycle: " + " -> ".join(cycle))
            state[rid] = 1
            for p in self.derives_from.get(rid, ()):
                visit(p, trail + [rid])
            state[rid] = 2

        for rid in self.derives_from:
            visit(rid, [])

    def _check_examples(self) -> None:
        """The literal rows must agree with the rules: a table that contradicts itself fails."""
        strided = self.files["strided.toml"][0]
        for ex in self.is_contiguous["examples"]:
            for name, want in ex["expected"].items():
                got = strided_model.is_contiguous(self.formats[name], ex["sizes"], ex["strides"])
                if got != want:
                    raise SpecError(strided, ex["id"], f"the rule gives is_contiguous({name}) = {got}, "
                                                       f"the row says {want}: the table contradicts itself")
        for ex in self.preserve["examples"]:
            got = strided_model.preserve_strides(self.formats, ex["sizes"], ex["strides"])
            if got != ex["expected"]:
                raise SpecError(strided, ex["id"], f"the rule gives strides {list(got)}, the row says "
                                                   f"{list(ex['expected'])}: the table contradicts itself")
        for ex in self.address["examples"]:
            if len(ex["values"]) != strided_model.Geometry(ex["sizes"], ex["strides"]).numel:
                raise SpecError(strided, ex["id"], "values do not fill the shape")
            got = strided_model.format_strides(self.formats["contiguous_format"], ex["sizes"])
            if got != ex["strides"]:
                raise SpecError(strided, ex["id"], f"a new tensor of these sizes has strides {list(got)}, "
                                                   f"the row says {list(ex['strides'])}")
        for (row_id, a, b, res, _text, _src) in self.examples:
            derived = self.result_type(a, b, self.initial_default)
            if derived != res:
                raise SpecError(self.files["promotion.toml"][0], row_id,
                                f"the rules give {derived}, the row says {res}: the table contradicts itself")
        for ex in self.cast_examples:
            outcome = self.op_outcome("mul", Operand("tensor", ex["self"]), Operand("tensor", ex["other"]),
                                      self.initial_default, ex["self"])
            if (outcome[0] == "ok") != ex["allowed"]:
                raise SpecError(self.files["casting.toml"][0], ex["id"],
                                f"the rules and the example's `allowed = {str(ex['allowed']).lower()}` disagree")

    # ----------------------------------------------------------------- ids
    def promote_id(self, a: str, b: str) -> str:
        return f"{self.promote_prefix}.{a}.{b}"

    @staticmethod
    def can_cast_id(a: str, b: str) -> str:
        return f"can_cast.{a}.{b}"

    # ----------------------------------------------------------------- rules
    def cat_rank(self, dtype: str) -> int:
        return self.category_order.index(self.by_name[dtype].category)

    def promote(self, a: str, b: str) -> str:
        """promote_types from the literal matrix (complex32 handled as PyTorch's table does)."""
        if (a, b) in self.matrix:
            return self.matrix[(a, b)]
        # complex32 is outside the twelve; only result_type's rule 2 produces it, and
        # promote_types(complex32, x) is only needed for it with itself.
        if a == b:
            return a
        raise KeyError(f"promote_types({a}, {b}) is outside the spec's matrix")

    def barebones_pairs(self) -> list[tuple[str, str]]:
        """Every (a, b) of the documented dtypes and the barebones ones with a barebones one among
        them, in spec order ([promote_types_barebones])."""
        names = [d.name for d in (*self.documented, *self.barebones)]
        bare = {d.name for d in self.barebones}
        return [(a, b) for a in names for b in names if a in bare or b in bare]

    def promote_barebones(self, a: str, b: str) -> str | None:
        """promote_types(a, b) where a or b is barebones: PyTorch's rule as promotion.toml
        [promote_types_barebones] states it; None where it is refused (the table's `error`)."""
        if not {a, b} & {d.name for d in self.barebones}:
            raise ValueError(f"promote_barebones({a}, {b}): neither is one of {[d.name for d in self.barebones]}")
        if a == b:
            return a
        for d in (a, b):
            if self.by_name[d].category == "floating":
                return d
        return None

    def lattice_join(self, a: str, b: str) -> str | None:
        """The least upper bound of a and b in the promotion lattice (None if not unique)."""
        up: dict[str, set[str]] = {d.name: {d.name} for d in self.documented}
        changed = True
        while changed:  # transitive closure; the lattice is tiny
            changed = False
            for lo, hi in self.lattice_edges:
                for d, s in up.items():
                    if lo in s and hi not in s:
                        s.add(hi)
                        changed = True
        common = up[a] & up[b]
        least = [c for c in common if all(x in up[c] for x in common)]
        return least[0] if len(least) == 1 else None

    def to_complex(self, dtype: str) -> str:
        """toComplexType, from the spec: the complex dtype whose value type has dtype's precision."""
        if self.by_name[dtype].category == "complex":
            return dtype
        return self.to_complex_map[dtype]

    def operand_dtype(self, o: Operand, default: str) -> str:
        if o.kind != "scalar":
            return o.what
        v = self.scalar_dtype[o.what]
        if v == "default":
            return default
        if v == "default_complex":
            return self.default_complex[default]
        return v

    def _combine(self, higher: str | None, lower: str | None) -> str | None:
        def cat(x):
            return None if x is None else self.by_name[x].category

        if cat(higher) == "complex":
            return higher
        if cat(lower) == "complex":
            return self.to_complex(higher) if cat(higher) == "floating" else lower
        if cat(higher) == "floating":
            return higher
        if higher is None or cat(higher) == "bool" or cat(lower) == "floating":
            if higher is None:
                return lower
            if lower is None:
                return higher
            return self.promote(higher, lower)
        return higher

    def result_type(self, a: Operand, b: Operand, default: str) -> str:
        classes: dict[str, str | None] = {"tensor": None, "zerodim": None, "scalar": None}
        for o in (a, b):
            d = self.operand_dtype(o, default)
            prev = classes[o.kind]
            classes[o.kind] = d if prev is None else self.promote(prev, d)
        return self._combine(classes["tensor"], self._combine(classes["zerodim"], classes["scalar"]))

    def can_cast(self, frm: str, to: str) -> bool:
        return self.cast_rule_violated(frm, to) is None

    def cast_rule_violated(self, frm: str, to: str) -> dict | None:
        cf, ct = self.by_name[frm].category, self.by_name[to].category
        for r in self.cast_rules:
            if cf in r["from"] and ct in r["to"]:
                return r
        return None

    @staticmethod
    def operand_is_bool(o: Operand) -> bool:
        """A bool tensor or a Python bool: the scalar kind and the dtype are both spelled "bool"."""
        return o.what == "bool"

    def op_outcome(self, op: str, a: Operand, b: Operand, default: str, out: str | None = None,
                   refusal: bool = True):
        """What op(a, b[, out]) must do: ("error", kind, message) or ("ok", result dtype, output dtype).
        refusal=False leaves out the row's `refuses` (op_refusal), for a caller that checks the
        operands' shapes first, as the kernel is chosen only then."""
        be = self.ops[op]["bool_error"]
        if be is not None:
            na = int(self.operand_is_bool(a)) + int(self.operand_is_bool(b))
            if na:
                return ("error", be["kind"], be["both"] if na == 2 else be["one"])
        r = self.result_type(a, b, default)
        if self.ops[op]["integer_to_default_float"] and self.by_name[r].category in ("bool", "integral"):
            r = default
        if out is not None and not self.can_cast(r, out):
            msg = self.cast_message.format(result=self.by_name[r].c10_name, output=self.by_name[out].c10_name)
            return ("error", self.cast_error_kind, msg)
        refused = self.op_refusal(op, r) if refusal else None
        if refused is not None:
            return ("error", *refused)
        return ("ok", r, r if out is None else out)

    def op_refusal(self, op: str, result: str) -> tuple[str, str] | None:
        """(kind, message) when op's kernel has no loop for the result dtype (the row's `refuses`),
        else None. The kernel is chosen once the operands, their shapes and the output are
        checked, so this error comes after those."""
        refuses = self.ops[op]["refuses"]
        if refuses is None or self.by_name[result].category not in refuses["categories"]:
            return None
        return refuses["kind"], refuses["message"].format(dtype=self.by_name[result].c10_name)

    def all_operands(self) -> list[Operand]:
        out = []
        for kind in ("tensor", "zerodim"):
            out += [Operand(kind, d.name) for d in self.documented]
        out += [Operand("scalar", k) for k in SCALAR_KINDS]
        return out


def same_value(a, b) -> bool:
    """Exact equality of model values: NaN equals NaN, the sign of zero counts."""
    import math
    if isinstance(a, complex) or isinstance(b, complex):
        a, b = complex(a), complex(b)
        return same_value(a.real, b.real) and same_value(a.imag, b.imag)
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b
