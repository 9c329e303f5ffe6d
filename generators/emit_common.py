"""Helpers shared by the emitters: the generated-file header, C++ literals, writing."""

from __future__ import annotations

import json


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


def ident(row_id: str) -> str:
    """A GoogleTest-safe test name from a row id: promote_types.int8.uint8 -> promote_types_int8_uint8."""
    return "".join(c if c.isalnum() else "_" for c in row_id)


def write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
