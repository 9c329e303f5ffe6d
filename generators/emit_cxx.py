"""Emits the X-macros C++ code expands spec facts from.

  --suite dtypes   spec/dtypes.inc: every C++ dtype enum and table
  --suite devices  spec/devices.inc: the device types a device string may name, the index range

Usage: emit_cxx.py --suite {dtypes,devices} --out FILE spec/*.toml
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
    lines += ["// (end of the X-macros)", ""]
    return "\n".join(lines)


SUITES = {"dtypes": emit_dtypes, "devices": emit_devices}

if __name__ == "__main__":
    sys.exit(emit_common.main(sys.argv[1:], __doc__, emit, sorted(SUITES)))
