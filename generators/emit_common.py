"""Helpers shared by the emitters: the generated-file header, C++ literals, writing."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import traceback
from typing import Callable

import strided_model


def header(sources: str, generator: str, comment: str = "//") -> str:
    return f"{comment} GENERATED from {sources} by {generator} — do not edit.\n"


def cstr(text: str) -> str:
    """A C++ string literal (JSON escaping is a subset of C++'s for printable text)."""
    return json.dumps(text, ensure_ascii=True)


def cbool(v: bool) -> str:
    return "true" if v else "false"


def cdouble(v: float) -> str:
    """An exact C++ double literal (hex float)."""
    return float(v).hex() if v == v else "std::numeric_limits<double>::quiet_NaN()"


def dims(values) -> str:
    """A Dims literal {n, {v...}} (conformance/checks/common.h)."""
    values = list(values)
    if len(values) > 16:
        raise ValueError(f"{values}: more than 16 entries")
    return "{" + str(len(values)) + ", {" + ", ".join(str(v) for v in values) + "}}"


# C++ DType enumerator -> canonical name, of every enumerator dt() wrote (row_dtypes reads it).
_DTYPE_NAMES: dict[str, str] = {}
# Fields that name a dtype only to fill a slot the check does not read: a scalar operand's
# (OperandKind::kScalar, DType::kBool, ...) and an unused arithmetic storage ({false, DType::kBool, ...}).
_FILLERS = re.compile(r"OperandKind::kScalar, DType::k\w+|\{false, DType::k\w+")


def dt(spec, name: str) -> str:
    """The C++ DType enumerator of a dtype name: float32 -> DType::kFloat32."""
    enumerator = "DType::" + spec.by_name[name].cxx
    _DTYPE_NAMES[enumerator] = name
    return enumerator


def row_dtypes(fields: list[str]) -> str:
    """The dtypes a row's C++ fields name (RowMeta::dtypes: canonical names, space-separated,
    sorted), fillers left out: what a candidate must declare for the case to run."""
    text = _FILLERS.sub("", ", ".join(fields))
    return " ".join(sorted({_DTYPE_NAMES[e] for e in re.findall(r"DType::k\w+", text)}))


def ident(row_id: str) -> str:
    """A GoogleTest-safe test name from a row id: promote_types.int8.uint8 -> promote_types_int8_uint8."""
    return "".join(c if c.isalnum() else "_" for c in row_id)


def cxx_file(sources: str, generator: str, includes: list[str], body: str) -> str:
    """A generated C++ source: the header line, includes, and body inside tcts::{anonymous}."""
    inc = "\n".join(f"#include {i}" for i in includes)
    return header(sources, generator) + f"""{inc}

namespace tcts {{
namespace {{

{body}
}}  // namespace
}}  // namespace tcts
"""


def write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main(argv: list[str], doc: str, emit: Callable, suites: list[str] | None = None) -> int:
    """The command line every emitter shares: [--suite S] --out FILE spec/*.toml.

    A malformed spec prints "spec error: <file>: <row>: <reason>" and returns 1, so the
    genrule (and the build) fails naming what is wrong. Anything else that goes wrong is a
    generator bug, or malformed input no check catches yet: one line naming the exception and
    where it was raised, status 2 (TCTS_GENERATOR_TRACEBACK=1 shows the traceback instead).
    """
    from spec_model import Spec, SpecError  # here, so this module stays importable alone

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if suites:
        ap.add_argument("--suite", required=True, choices=suites)
    ap.add_argument("--out", required=True)
    ap.add_argument("spec", nargs="+")
    args = ap.parse_args(argv)
    try:
        spec = Spec.load(args.spec)
        text = emit(spec, args.suite) if suites else emit(spec)
    except SpecError as e:
        print(f"spec error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 (the command line's last line of defence)
        if os.environ.get("TCTS_GENERATOR_TRACEBACK"):
            raise
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f"internal error: {type(e).__name__}: {e} (at {os.path.basename(where.filename)}:{where.lineno}, "
              f"reading {' '.join(args.spec)}); a generator bug, or malformed input no check catches yet: "
              "TCTS_GENERATOR_TRACEBACK=1 shows the traceback", file=sys.stderr)
        return 2
    write(args.out, text)
    return 0


def enumerator(name: str, suffix: str = "") -> str:
    """The C++ enumerator of a spec name, `suffix` dropped: as_strided -> kAsStrided,
    channels_last_3d -> kChannelsLast3d, ("contiguous_format", "_format") -> kContiguous."""
    if suffix and name.endswith(suffix):
        name = name[:-len(suffix)]
    return "k" + "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def binary_op_cxx(op: str) -> str:
    """A binary op's C++ value (spec/binary_ops.inc's enumerator): bitwise_and -> BinaryOp::kBitwiseAnd."""
    return "BinaryOp::" + enumerator(op)


def format_enumerator(name: str) -> str:
    """A memory format's enumerator (spec/memory_formats.inc): preserve_format -> kPreserve."""
    return enumerator(name, "_format")


# ------------------------------------------------------------------ row fields shared by tables
def format_cxx(name: str) -> str:
    return "MemoryFormat::" + format_enumerator(name)


def no_error() -> str:
    return '{false, ErrorKind::kRuntimeError, ""}'


def error_cxx(err: dict) -> str:
    return f"{{true, ErrorKind::k{err['kind']}, {cstr(err['message'])}}}"


def step_cxx(step: list) -> str:
    op, args = step[0], list(step[1:])
    kind = "ViewKind::" + enumerator(op)
    if op in strided_model.COPY_OPS:
        return f"{{{kind}, {dims([])}, {format_cxx(args[0])}}}"
    return f"{{{kind}, {dims(args)}, MemoryFormat::kContiguous}}"


def step_text(step: list) -> str:
    op, args = step[0], list(step[1:])
    if op == "as_strided":
        k = len(args) // 2
        return f"as_strided({args[:k]}, {args[k:2 * k]}, {args[-1]})"
    if op in ("permute", "expand", "view", "reshape"):
        return f"{op}({args})"
    return f"{op}({', '.join(str(a) for a in args)})".replace(str(strided_model.INT64_MAX), "INT64_MAX")
