"""Emits conformance/harness/exit_codes.h from the stream contract's exit statuses
(conformance/harness/stream.schema.json "x-exit-codes"), so the suite binary's C++ and the runner
(conformance/runner/contract.py, which reads the same table) never hold a status of their own.

Each status becomes `constexpr int kExit<Name>` (its name in CamelCase: "testee_died" ->
kExitTesteeDied), with its description as the comment.

(Not an emit_*.py: those read the spec tables; this reads the stream contract.)

Usage: exit_codes_header.py --out FILE stream.schema.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap

import emit_common

GEN = "generators/exit_codes_header.py"
SRC = "conformance/harness/stream.schema.json (x-exit-codes)"
NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def constants(schema: dict, path: str) -> list[tuple[str, int, str]]:
    """(constant, status, description) for every exit status, in status order; a malformed table
    raises ValueError naming the file and the entry."""
    table = schema.get("x-exit-codes")
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{path}: no 'x-exit-codes' table of exit statuses")
    out, seen = [], set()
    for code, entry in table.items():
        if not code.isdigit() or not 0 <= int(code) <= 255:
            raise ValueError(f"{path}: x-exit-codes: '{code}' is not an exit status (0-255)")
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not NAME.match(name):
            raise ValueError(f"{path}: x-exit-codes '{code}': its name must be lower_snake_case, got {name!r}")
        if name in seen:
            raise ValueError(f"{path}: x-exit-codes '{code}': the name '{name}' is given twice")
        seen.add(name)
        const = "kExit" + "".join(part.capitalize() for part in name.split("_"))
        out.append((const, int(code), str(entry.get("description", "")).strip()))
    return sorted(out, key=lambda c: c[1])


def emit(schema: dict, path: str) -> str:
    lines = [emit_common.header(SRC, GEN).rstrip("\n"), "#pragma once", "", "namespace tcts {", ""]
    for const, code, description in constants(schema, path):
        lines += textwrap.wrap(description, 100, initial_indent="// ", subsequent_indent="// ")
        lines.append(f"constexpr int {const} = {code};")
        lines.append("")
    lines.append("}  // namespace tcts")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("schema")
    args = parser.parse_args(argv)
    try:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)
        text = emit(schema, args.schema)
    except (OSError, ValueError) as e:
        print(f"exit_codes_header: {e}", file=sys.stderr)
        return 1
    emit_common.write(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
