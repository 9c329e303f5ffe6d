"""Tests of generators/emit_rapidcheck.py: over the real spec it emits, for each property
suite, only tables (comments and X-macro rows, no C++ logic), one row per property with a
unique case id, clause, statement and the spec row it states, the spec's formats and dtype
values, deterministically.

Run: python3 generators/emit_rapidcheck_test.py
Under Bazel (//generators:emit_rapidcheck_test) it runs from the workspace root.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "spec")
SUITES = ["promotion", "casting", "strided", "arithmetic"]
SHARED = ["dtype_values"]

# What a table may hold: comments, `#define TCTS_..._(_)` heads and `_(...)` rows.
LINE = re.compile(r"(//.*|#define TCTS_[A-Z0-9_]+\(_\) \\|  _\(.*\)( \\)?|)")
ROW = re.compile(r'  _\((\w+), ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)')


def emit(suite: str, out: str) -> subprocess.CompletedProcess:
    specs = sorted(os.path.join(SPEC, f) for f in os.listdir(SPEC) if f.endswith(".toml"))
    return subprocess.run([sys.executable, os.path.join(HERE, "emit_rapidcheck.py"), "--suite", suite, "--out", out,
                           *specs], capture_output=True, text=True)


def macros(text: str) -> dict[str, list[str]]:
    """X-macro name -> its rows."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"#define (\w+)\(_\)", line)
        if m:
            current = found.setdefault(m[1], [])
        elif line.startswith("  _(") and current is not None:
            current.append(line.rstrip(" \\"))
        else:
            current = None
    return found


class PropertyTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = {}
        with tempfile.TemporaryDirectory() as tmp:
            for suite in SUITES + SHARED:
                out = os.path.join(tmp, suite + ".inc")
                r = emit(suite, out)
                assert r.returncode == 0, r.stderr
                cls.text[suite] = open(out, encoding="utf-8").read()

    def test_only_tables(self):
        for suite, text in self.text.items():
            with self.subTest(suite=suite):
                self.assertTrue(text.startswith("// GENERATED from spec/"))
                for n, line in enumerate(text.splitlines(), 1):
                    self.assertRegex(line, LINE, f"{suite}_properties.inc:{n} is not a table line")
                self.assertFalse(text.rstrip("\n").endswith("\\"), "ends in a line continuation")

    def test_one_row_per_property(self):
        ids = set()
        for suite in SUITES:
            text = self.text[suite]
            with self.subTest(suite=suite):
                rows = macros(text)[f"TCTS_{suite.upper()}_PROPERTIES"]
                self.assertTrue(rows)
                names = set()
                for row in rows:
                    m = ROW.fullmatch(row)
                    self.assertIsNotNone(m, row)
                    name, case_id, clause, statement, spec_row = m[1], *(json.loads(s) for s in m.groups()[1:])
                    self.assertNotIn(name, names)
                    self.assertNotIn(case_id, ids)
                    names.add(name)
                    ids.add(case_id)
                    self.assertTrue(case_id.startswith("property."), case_id)
                    self.assertRegex(clause, r"^\w+#\S+$")
                    self.assertTrue(statement)
                    self.assertRegex(spec_row, r"^\S+$")  # generators_test checks it is a row of spec/

    def test_spec_values(self):
        casting = macros(self.text["casting"])["TCTS_CASTING_REJECTED_INPLACE"]
        self.assertGreater(len(casting), 100)
        for row in casting:
            self.assertRegex(row, r"^  _\(BinaryOp::k[A-Z]\w*, DType::k\w+, DType::k\w+\)$")
        formats = macros(self.text["strided"])["TCTS_STRIDED_FORMATS"]
        self.assertEqual(formats, [
            '  _(MemoryFormat::kContiguous, -1, true, 1, (), "memory_format.contiguous_format")',
            '  _(MemoryFormat::kChannelsLast, 4, false, 0, (1, 3, 2, 0), "memory_format.channels_last")',
            '  _(MemoryFormat::kChannelsLast3d, 5, false, 0, (1, 4, 3, 2, 0), "memory_format.channels_last_3d")'])

    def test_dtype_values(self):
        tables = macros(self.text["dtype_values"])
        self.assertIn("  _(DType::kUint8, 0, 255)", tables["TCTS_INTEGRAL_RANGES"])
        self.assertIn("  _(DType::kInt64, -9223372036854775807 - 1, 9223372036854775807)", tables["TCTS_INTEGRAL_RANGES"])
        # binary16: 11 bits of precision, smallest subnormal 2^-24, largest finite 2047 * 2^5 = 65504
        self.assertIn("  _(DType::kFloat16, 11, -24, 5)", tables["TCTS_FLOATING_FORMATS"])
        self.assertIn("  _(DType::kFloat64, 53, -1074, 971)", tables["TCTS_FLOATING_FORMATS"])
        self.assertIn("  _(DType::kBfloat16, 8, -133, 120)", tables["TCTS_FLOATING_FORMATS"])
        self.assertIn("  _(DType::kComplex64, DType::kFloat32)", tables["TCTS_COMPLEX_COMPONENTS"])

    def test_deterministic(self):
        with tempfile.TemporaryDirectory() as tmp:
            for suite in SUITES + SHARED:
                out = os.path.join(tmp, suite + ".inc")
                self.assertEqual(emit(suite, out).returncode, 0)
                self.assertEqual(open(out, encoding="utf-8").read(), self.text[suite], suite)


if __name__ == "__main__":
    unittest.main(verbosity=2)
