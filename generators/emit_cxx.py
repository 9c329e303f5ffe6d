"""Emits the X-macros C++ code expands spec facts from: every enumeration of spec/ has one,
so no C++ file keeps a list of its own.

  --suite dtypes          spec/dtypes.inc: every C++ dtype enum and table
  --suite devices         spec/devices.inc: the device types a device string may name, the index range
  --suite device_types    spec/device_types.inc: the device types with an enumerator, documented ones marked
  --suite memory_formats  spec/memory_formats.inc: torch.memory_format (strided.toml [[memory_format]])
  --suite layouts         spec/layouts.inc: torch.layout (strided.toml [[layout]])
  --suite binary_ops      spec/binary_ops.inc: the binary ops, names and symbols (promotion.toml [[op]])
  --suite view_ops        spec/view_ops.inc: the view and copy operations (strided.toml [[view]])

Enumerators are k + the spec name in CamelCase (as_strided -> kAsStrided; a memory format drops
"_format": contiguous_format -> kContiguous).

Usage: emit_cxx.py --suite SUITE --out FILE spec/*.toml
"""

from __future__ import annotations

import sys

from spec_model import Spec, SpecError
import emit_common


def emit(spec: Spec, suite: str) -> str:
    return SUITES[suite](spec)


def emit_devices(spec: Spec) -> str:
    m = spec.interop
    lines = [emit_common.header("spec/devices.toml", "generators/emit_cxx.py", "//"),
             "// TCTS_FORALL_DEVICE_TYPES(_): _(\"name\"), the documented types first.",
             "#define TCTS_FORALL_DEVICE_TYPES(_) \\"]
    lines += [f"  _(\"{name}\") \\" for name in m.type_names]
    lines += ["", "// The largest device index ([grammar] max_index).", f"#define TCTS_DEVICE_MAX_INDEX {m.max_index}", ""]
    return "\n".join(lines)


def inc(sources: str, *macros: tuple[list[str], str, list[str]]) -> str:
    """A generated .inc of X-macros: each (comment lines, NAME, entries) is `#define NAME(_)`
    expanding `_(entry)` per entry."""
    lines = [emit_common.header(sources, "generators/emit_cxx.py", "//")]
    for doc, name, entries in macros:
        lines += [*[f"// {d}" for d in doc], f"#define {name}(_) \\", *[f"  _({e}) \\" for e in entries], ""]
    return "\n".join(lines + [""])


def named(name: str, *more) -> str:
    """An X-macro entry: enumerator, "name", then `more` (bools as true/false)."""
    return ", ".join([emit_common.enumerator(name), f'"{name}"',
                      *[emit_common.cbool(m) if isinstance(m, bool) else str(m) for m in more]])


def emit_device_types(spec: Spec) -> str:
    types = spec.interop.device_types
    return inc("spec/devices.toml", (
        ["TCTS_FORALL_DEVICE_TYPE_INFO(_): _(enumerator, \"name\", documented), the documented types first:",
         "every type a device string may name (spec/devices.inc lists the same names); documented: the",
         "docs name it ([[device_type]]), else only PyTorch's parse table does ([device_types_pytorch])."],
        "TCTS_FORALL_DEVICE_TYPE_INFO", [named(t["name"], t["documented"]) for t in types]), (
        ["TCTS_FORALL_DOCUMENTED_DEVICE_TYPES(_): _(enumerator, \"name\"): the types the docs name."],
        "TCTS_FORALL_DOCUMENTED_DEVICE_TYPES", [named(t["name"]) for t in types if t["documented"]]))


def emit_memory_formats(spec: Spec) -> str:
    return inc("spec/strided.toml", (
        ["TCTS_FORALL_MEMORY_FORMATS(_): _(enumerator, \"name\", rank, allocates), in spec order.",
         "rank: the rank the format needs, -1 for any; allocates: empty(sizes, memory_format=it) lays out",
         "a new tensor (false for preserve_format, which only *_like and clone accept)."],
        "TCTS_FORALL_MEMORY_FORMATS",
        [", ".join([emit_common.format_enumerator(f["name"]), f'"{f["name"]}"',
                    str(-1 if f["rank"] == "any" else f["rank"]), emit_common.cbool(f["allocates"])])
         for f in spec.formats.values()]))


def emit_layouts(spec: Spec) -> str:
    return inc("spec/strided.toml", (
        ["TCTS_FORALL_LAYOUTS(_): _(enumerator, \"name\", required), in spec order.",
         "required: a candidate must support it (false: it may declare it unsupported)."],
        "TCTS_FORALL_LAYOUTS", [named(l["name"], l["required"]) for l in spec.layouts]))


def emit_binary_ops(spec: Spec) -> str:
    return inc("spec/promotion.toml", (
        ["TCTS_FORALL_BINARY_OPS(_): _(enumerator, \"name\", \"symbol\", rejects_bool, integer_to_default_float),",
         "in spec order. symbol: the Python operator PyTorch maps to the op (\"+\"); rejects_bool: a bool",
         "operand is an error (the row's bool_error); integer_to_default_float: an integral or bool result",
         "dtype becomes the default dtype (div)."],
        "TCTS_FORALL_BINARY_OPS",
        [named(name, emit_common.cstr(op["symbol"]), op["bool_error"] is not None, op["integer_to_default_float"])
         for name, op in spec.ops.items()]))


# What a [[view]] row's `copies` says, as an enumerator of TCTS_FORALL_VIEW_COPIES.
VIEW_COPIES = {False: "never", True: "always", "when_view_fails": "when_view_fails",
               "unless_contiguous": "unless_contiguous"}


def emit_view_ops(spec: Spec) -> str:
    return inc("spec/strided.toml", (
        ["TCTS_FORALL_VIEW_COPIES(_): _(enumerator, \"name\"): when a view op copies (its `copies`)."],
        "TCTS_FORALL_VIEW_COPIES", [named(c) for c in VIEW_COPIES.values()]), (
        ["TCTS_FORALL_VIEW_OPS(_): _(enumerator, \"name\", copies), in spec order; copies is an",
         "enumerator of TCTS_FORALL_VIEW_COPIES: never (a view), always (a new storage), when_view_fails",
         "(reshape), unless_contiguous (contiguous)."],
        "TCTS_FORALL_VIEW_OPS",
        [named(op, emit_common.enumerator(VIEW_COPIES[v["copies"]])) for op, v in spec.views.items()]))


def emit_dtypes(spec: Spec) -> str:
    lines = [emit_common.header("spec/dtypes.toml, spec/promotion.toml", "generators/emit_cxx.py", "//"),
             "// TCTS_FORALL_CATEGORIES(_): _(enumerator, \"name\"), lowest category first.",
             "#define TCTS_FORALL_CATEGORIES(_) \\"]
    for c in spec.category_order:
        lines.append(f"  _(k{c[0].upper()}{c[1:]}, \"{c}\") \\")
    lines.append("")
    lines.append("// TCTS_FORALL_DTYPES(_): _(enumerator, \"name\", \"short\", \"c10_name\", itemsize, category,")
    lines.append("//                          is_signed, is_floating_point, is_complex, documented)")
    lines.append("// in spec order: the documented twelve first as the doc lists them, then extended dtypes.")
    lines.append("#define TCTS_FORALL_DTYPES(_) \\")
    for d in spec.dtypes:
        cat = "k" + d.category[0].upper() + d.category[1:]
        b = lambda v: "true" if v else "false"
        lines.append(f"  _({d.cxx}, \"{d.name}\", \"{d.short}\", \"{d.c10_name}\", {d.itemsize}, {cat}, "
                     f"{b(d.is_signed)}, {b(d.is_floating_point)}, {b(d.is_complex)}, {b(d.documented)}) \\")
    lines.append("")
    lines.append("// TCTS_FORALL_DTYPES_C10(_): _(enumerator, C10Name): PyTorch's ScalarType enumerator (c10_name)")
    lines.append("#define TCTS_FORALL_DTYPES_C10(_) \\")
    for d in spec.dtypes:
        if not d.c10_name.isidentifier():
            raise SpecError("dtypes.toml", d.id, f"c10_name {d.c10_name!r} is not an identifier")
        lines.append(f"  _({d.cxx}, {d.c10_name}) \\")
    lines.append("")
    lines.append("// TCTS_FORALL_DTYPE_NAMES(_): _(\"name or alias\", enumerator)")
    lines.append("#define TCTS_FORALL_DTYPE_NAMES(_) \\")
    for d in spec.dtypes:
        for n in (d.name, *d.aliases):
            lines.append(f"  _(\"{n}\", {d.cxx}) \\")
    lines.append("")
    lines.append("// torch.get_default_dtype() before any set_default_dtype (promotion.toml initial_default).")
    lines.append(f"#define TCTS_INITIAL_DEFAULT_DTYPE {spec.by_name[spec.initial_default].cxx}")
    lines.append("")
    lines += ["// (end of the X-macros)", ""]
    return "\n".join(lines)


SUITES = {"dtypes": emit_dtypes, "devices": emit_devices, "device_types": emit_device_types,
          "memory_formats": emit_memory_formats, "layouts": emit_layouts, "binary_ops": emit_binary_ops,
          "view_ops": emit_view_ops}

if __name__ == "__main__":
    sys.exit(emit_common.main(sys.argv[1:], __doc__, emit, sorted(SUITES)))
