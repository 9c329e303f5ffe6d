"""Emits the whole spec as one JSON document (bazel run //spec:json prints it).

  tables      every spec file (spec/<name>.toml as "<name>"), every row and field, copied by
              walking the schema (spec_schema.FILES): what the schema admits is exported, so
              nothing can be left out. TOML's non-finite floats, which JSON lacks, are the
              strings "inf", "-inf" and "nan".
  statements_of_row
              each spec row's statements (spec/statements.toml): the rows -> statements
              cross-reference; rows no statement claims are in tables.statements.silent.
  the views   derived from the tables, with canonical names: dtypes, extended_dtypes,
              categories, promote_types, promote_types_barebones (null without that table),
              promotion_lattice, result_type, ops, can_cast,
              can_cast_rules, output_casting, layouts, address, memory_formats, is_contiguous,
              preserve_format, views, devices, asarray, dlpack.
Deterministic: keys keep spec order, output ends with a newline; strict JSON (no NaN).

Usage: emit_json.py --out FILE spec/*.toml
"""

from __future__ import annotations

import json
import math
import sys

import emit_common as ec
import spec_schema
import strided_model
from spec_model import SPEC_FILES, Spec

SCHEMA_VERSION = 2  # 2: tables and statements_of_row


def table_value(value, t: spec_schema.Type):
    """`value`, checked against `t`, as JSON: every key of a table, typed by the schema."""
    if isinstance(t, spec_schema.OneOf):
        t = next(x for x in t.types if spec_schema._accepts(x, value))
    if isinstance(t, spec_schema.Table):
        out = {}
        for k, v in value.items():
            fld = t.fields.get(k)
            out[k] = table_value(v, fld.type if fld else t.extra)
        return out
    if isinstance(t, spec_schema.MapOf):
        return {k: table_value(v, t.value) for k, v in value.items()}
    if isinstance(t, spec_schema.List):
        return [table_value(v, t.item) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def tables(spec: Spec) -> dict:
    """Every spec file, as the schema describes it."""
    out = {}
    for name in SPEC_FILES:
        _, doc = spec.files[name]
        schema = spec_schema.FILES[name]
        out[name.removesuffix(".toml")] = {k: table_value(v, schema[k].type) for k, v in doc.items()}
    return out


def dtype_obj(d) -> dict:
    obj = {"name": d.name, "id": d.id, "aliases": list(d.aliases), "short": d.short,
           "legacy_constructor": d.legacy_constructor or None, "c10_name": d.c10_name,
           "itemsize": d.itemsize, "category": d.category, "is_signed": d.is_signed,
           "is_floating_point": d.is_floating_point, "is_complex": d.is_complex,
           "documented": d.documented, "clause": d.clause, "basis": d.basis}
    if d.bits:
        obj["bits"] = dict(zip(("sign", "exponent", "significand"), d.bits))
    if d.part:
        obj["part"] = d.part
    return obj


def promote_types_barebones(spec: Spec) -> dict | None:
    """promotion.toml [promote_types_barebones] as a view: the dtypes, the refusal, and every pair
    with one of them, answered (a dtype name) or refused (null)."""
    if not spec.barebones:
        return None
    pairs: dict[str, dict[str, str | None]] = {}
    for a, b in spec.barebones_pairs():
        pairs.setdefault(a, {})[b] = spec.promote_barebones(a, b)
    kind, message = spec.barebones_error
    return {"dtypes": [d.name for d in spec.barebones], "error": {"kind": kind, "message": message},
            "clause": spec.barebones_source.clause, "basis": spec.barebones_source.basis, "pairs": pairs}


def export(spec: Spec) -> dict:
    names = [d.name for d in spec.documented]
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_from": [f"spec/{name}" for name in SPEC_FILES],
        "tables": tables(spec),
        "statements_of_row": spec.statements_of,
        "dtypes": [dtype_obj(d) for d in spec.documented],
        "extended_dtypes": [dtype_obj(d) for d in spec.dtypes if not d.documented],
        "categories": list(spec.category_order),
        "promote_types": {a: {b: spec.matrix[(a, b)] for b in names} for a in names},
        "promote_types_source": {"clause": spec.promote_source.clause, "basis": spec.promote_source.basis},
        "promote_types_barebones": promote_types_barebones(spec),
        "promotion_lattice": [list(e) for e in spec.lattice_edges],
        "result_type": {
            "clause": spec.result_type_source.clause,
            "basis": spec.result_type_source.basis,
            "operand_classes": ["dimensioned", "zero_dim", "scalar"],
            "scalar_dtype": spec.scalar_dtype,
            "default_dtypes": spec.default_dtypes,
            "initial_default": spec.initial_default,
            "default_complex": spec.default_complex,
            "to_complex": spec.to_complex_map,
            "examples": [{"id": rid, "a": str(a), "b": str(b), "result": res, "text": text, "basis": src.basis}
                         for (rid, a, b, res, text, src) in spec.examples],
        },
        "ops": {name: {"basis": op["source"].basis, "bool_error": op["bool_error"],
                       "integer_to_default_float": op["integer_to_default_float"],
                       **({"refuses": {**{k: v for k, v in op["refuses"].items() if k != "source"},
                                       "basis": op["refuses"]["source"].basis}} if op["refuses"] else {})}
                for name, op in spec.ops.items()},
        "can_cast": {a: {b: spec.can_cast(a, b) for b in names} for a in names},
        "can_cast_rules": [{"id": r["id"], "text": r["text"], "from": r["from"], "to": r["to"],
                            "basis": r["source"].basis} for r in spec.cast_rules],
        "output_casting": {"error_kind": spec.cast_error_kind, "message": spec.cast_message,
                           "doc_message": spec.cast_doc_message, "basis": spec.output_casting_source.basis,
                           "examples": spec.cast_examples},
        "layouts": [{"name": l["name"], "id": l["id"], "required": l["required"], "text": l["text"],
                     **src(l["source"])} for l in spec.layouts],
        "address": {"id": spec.address["id"], "text": spec.address["text"], **src(spec.address["source"]),
                    "examples": [{k: (list(v) if isinstance(v, tuple) else v) for k, v in ex.items() if k != "source"}
                                 for ex in spec.address["examples"]]},
        "memory_formats": [format_obj(spec, f) for f in spec.formats.values()],
        "stride_notes": [{"id": n["id"], "text": n["text"], **src(n["source"])} for n in spec.stride_notes],
        "is_contiguous": {"id": spec.is_contiguous["id"], "text": spec.is_contiguous["text"],
                          **src(spec.is_contiguous["source"]),
                          "examples": [{"id": ex["id"], "sizes": list(ex["sizes"]), "strides": list(ex["strides"]),
                                        **ex["expected"]} for ex in spec.is_contiguous["examples"]]},
        "preserve_format": {"id": spec.preserve["id"], "text": spec.preserve["text"], **src(spec.preserve["source"]),
                            "examples": [{"id": ex["id"], "sizes": list(ex["sizes"]), "strides": list(ex["strides"]),
                                          "expected": list(ex["expected"])} for ex in spec.preserve["examples"]]},
        "dim_wrap": {"id": spec.dim_wrap["id"], "text": spec.dim_wrap["text"], "error": spec.dim_wrap["error"],
                     **src(spec.dim_wrap["source"])},
        "views": {op: {"id": v["id"], "text": v["text"], "copies": v["copies"], "errors": v["errors"],
                       **src(v["source"])} for op, v in spec.views.items()},
        **interop(spec),
    }


def rule(r: dict, *keys: str) -> dict:
    """A spec rule's id, text and source, plus the named fields."""
    return {"id": r["id"], "text": r["text"], **src(r["source"]), **{k: r[k] for k in keys}}


def interop(spec: Spec) -> dict:
    m = spec.interop
    return {
        "devices": {
            "grammar": {**rule(m.grammar), "pattern": m.pattern, "max_index": m.max_index},
            "types": [{"name": t["name"], "id": t["id"], "documented": t["documented"], **src(t["source"])}
                      for t in m.device_types],
            "errors": {**m.device_errors, "source": m.errors_source},
            "examples": [{"id": e["id"], "args": e["args"], "repr": e["repr"], **src(e["source"])}
                         for e in m.device_examples],
            "inputs": [{"id": i["id"], "args": i["args"], "error": None if i["error"] == "none" else i["error"],
                        "why": i["why"]} for i in m.device_inputs],
            "str": rule(m.str_rule), "repr": rule(m.repr_rule),
            "equality": rule(m.equality),
            "default_device": {**rule(m.default_device), "initial": m.default_initial,
                               "cases": [{"id": c["id"], "text": c["text"],
                                          "steps": [{"step": k, "device": a, "expect": e} for k, a, e in c["steps"]]}
                                         for c in m.default_cases]},
        },
        "asarray": {
            "sources": {k: {**rule(v, "aliases", "dtype", "device"), "copy_false_error": v["copy_false"]}
                        for k, v in m.sources.items()},
            "mismatch": rule(m.mismatch, "device_error", "dtype_error"),
            "inference": {**rule(m.inference), "order": ["bool", "int64", "default_float", "default_complex"],
                          "ragged_error": m.ragged_error, "not_sequence_error": m.not_sequence_error,
                          "complex_to_real_error": m.complex_to_real_error,
                          "complex_to_integer_error": m.complex_to_integer_error,
                          "examples": [{"id": e["id"], "value": e["literal"], "default": e["default"]}
                                       for e in m.inference_examples]},
            "buffer": rule(m.buffer, "length_error", "empty_error"),
            "array": rule(m.array, "stride_error", "negative_error"),
            "doc_examples": [{k: e[k] for k in ("id", "text", "kind", "dtype", "values", "as_dtype", "copy", "shares")}
                             for e in m.doc_examples],
            **({"autograd": {
                **rule(m.autograd, "history_grad_fn", "clone_grad_fn", "to_grad_fn", "integer_error"),
                "examples": [rule(e, "kind", "history", "src_dtype", "literal", "requires_grad", "copy", "as_dtype",
                                  "source_only") for e in m.autograd_examples]}} if m.autograd else {}),
        },
        "dlpack": {
            "type_codes": m.dl_codes, "device_codes": m.dl_device_codes,
            "dtypes": {**rule(m.dl_dtype), "codes": {n: {"code": c, "code_name": cn, "bits": b, "lanes": 1}
                                                     for n, (cn, c, b) in m.dl_dtype_codes.items()}},
            "devices": rule(m.dl_devices, "cpu", "cuda", "unpackable", "export_error"),
            "export": {**rule(m.dl_export), "normalize_strides": m.dl_export["normalize"]},
            "import": {**rule(m.dl_import),
                       "invalid": [{k: r[k] for k in ("id", "text", "code", "bits", "lanes", "device", "error")}
                                   for r in m.dl_import_invalid]},
            "round_trip": rule(m.dl_round_trip, "peer", "geometries"),
        },
    }


def src(s) -> dict:
    return {"clause": s.clause, "basis": s.basis}


def format_obj(spec: Spec, f: dict) -> dict:
    """A memory format, with its strides for a sample shape so the formula reads concretely."""
    obj = {"name": f["name"], "id": f["id"], "allocates": f["allocates"], "text": f["text"], **src(f["source"])}
    if f["allocates"]:
        obj.update(rank=f["rank"], order=f["order"], size_floor=f["size_floor"])
        if "rank_error" in f:
            obj["rank_error"] = f["rank_error"]
        sample = (2, 3, 4, 5) if f["rank"] in ("any", 4) else (2, 3, 4, 5, 6)
        obj["example"] = {"sizes": list(sample), "strides": list(strided_model.format_strides(f, sample))}
    else:
        obj.update(empty_error=f["empty_error"], contiguous_error=f["contiguous_error"])
    return obj


if __name__ == "__main__":
    sys.exit(ec.main(sys.argv[1:], __doc__, lambda spec: json.dumps(export(spec), indent=2, allow_nan=False) + "\n"))
