"""Tests of the generators: golden outputs for a small fixture spec, determinism, and
malformed spec input failing with file, row and reason.

Run: python3 generators/generators_test.py [--update]   (--update rewrites the goldens)
Under Bazel (//generators:generators_test) it writes JUnit XML to $XML_OUTPUT_FILE.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.sax.saxutils as sx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "testdata", "spec")
GOLDEN = os.path.join(HERE, "testdata", "golden")
SPEC_FILES = ["dtypes.toml", "promotion.toml", "casting.toml", "strided.toml", "arithmetic.toml", "devices.toml",
              "asarray.toml", "dlpack.toml"]

# golden file -> emitter command line (without --out and spec files)
OUTPUTS = {
    "dtypes.inc": ["emit_cxx.py", "--suite", "dtypes"],
    "devices.inc": ["emit_cxx.py", "--suite", "devices"],
    "devices_gtest.cc": ["emit_gtest.py", "--suite", "devices"],
    "asarray_gtest.cc": ["emit_gtest.py", "--suite", "asarray"],
    "dlpack_gtest.cc": ["emit_gtest.py", "--suite", "dlpack"],
    "dtypes_gtest.cc": ["emit_gtest.py", "--suite", "dtypes"],
    "promotion_gtest.cc": ["emit_gtest.py", "--suite", "promotion"],
    "casting_gtest.cc": ["emit_gtest.py", "--suite", "casting"],
    "strided_gtest.cc": ["emit_gtest.py", "--suite", "strided"],
    "arithmetic_gtest.cc": ["emit_gtest.py", "--suite", "arithmetic"],
    "spec_consistency_test.cc": ["emit_gtest.py", "--suite", "spec_consistency"],
    "spec.json": ["emit_json.py"],
    "case_manifest.txt": ["emit_gtest.py", "--suite", "manifest"],
}


def run_emitter(cmd: list[str], spec_dir: str, out: str) -> subprocess.CompletedProcess:
    args = [sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:], "--out", out,
            *[os.path.join(spec_dir, f) for f in SPEC_FILES]]
    return subprocess.run(args, capture_output=True, text=True)


class Golden(unittest.TestCase):
    def test_outputs_match_goldens(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, cmd in OUTPUTS.items():
                with self.subTest(output=name):
                    out = os.path.join(tmp, name)
                    r = run_emitter(cmd, FIXTURE, out)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    got = open(out, encoding="utf-8").read()
                    if UPDATE:
                        with open(os.path.join(GOLDEN, name), "w", encoding="utf-8") as f:
                            f.write(got)
                    want = open(os.path.join(GOLDEN, name), encoding="utf-8").read()
                    self.assertEqual(got, want, f"{name} differs from generators/testdata/golden/{name}; "
                                                "if the change is intended, rerun with --update")

    def test_deterministic(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, cmd in OUTPUTS.items():
                a, b = os.path.join(tmp, "a_" + name), os.path.join(tmp, "b_" + name)
                self.assertEqual(run_emitter(cmd, FIXTURE, a).returncode, 0)
                self.assertEqual(run_emitter(cmd, FIXTURE, b).returncode, 0)
                self.assertEqual(open(a).read(), open(b).read(), name)

    def test_generated_files_say_where_they_come_from(self):
        for name in OUTPUTS:
            if name.endswith((".cc", ".inc")):
                first = open(os.path.join(GOLDEN, name), encoding="utf-8").readline()
                self.assertTrue(first.startswith("// GENERATED " + "from spec/"), name)  # split: not itself a generated file
                self.assertIn("do not edit", first)


# (file, old text, new text, expected fragments of the error: file, row, reason)
MALFORMED = [
    ("dtypes.toml", 'itemsize = 4\ncategory = "floating"', 'itemsize = 2\ncategory = "floating"',
     ["dtypes.toml", "dtype.float32", "bits add up to 32, itemsize says 16"]),
    ("dtypes.toml", 'category = "integral"', 'category = "whole"',
     ["dtypes.toml", "dtype.int32", "category 'whole' is not one of"]),
    ("dtypes.toml", 'id = "dtype.bool"', 'id = "dtype.int32"',
     ["dtypes.toml", "dtype.int32", "duplicate row id"]),
    ("dtypes.toml", 'is_signed = false\n', '',
     ["dtypes.toml", "dtype.bool", "missing field 'is_signed'"]),
    ("promotion.toml", '["i4", "i4", "i4", "f4", "c4"]', '["i4", "i4", "i4", "f4", "zz"]',
     ["promotion.toml", "promote_types[i4][c4]", "unknown dtype code 'zz'"]),
    ("promotion.toml", '["f4", "f4", "f4", "f4", "c4"],', '["f4", "f4", "f4", "c4"],',
     ["promotion.toml", "promote_types row f4", "3 cells for 4 columns"]),
    ("promotion.toml", 'result = "int32"', 'result = "float32"',
     ["promotion.toml", "result_type.doc.int_tensor_add_5", "the rules give int32, the row says float32"]),
    ("promotion.toml", 'a = "tensor:int32"', 'a = "matrix:int32"',
     ["promotion.toml", "result_type.doc.int_tensor_add_5", "operand 'matrix:int32'"]),
    ("casting.toml", 'to = ["integral"]', 'to = ["integer"]',
     ["casting.toml", "can_cast.rule.float_to_integral", "unknown category 'integer'"]),
    ("casting.toml", 'allowed = false', 'allowed = true',
     ["casting.toml", "output_casting.doc.int_mul_float", "disagree"]),
    ("casting.toml", '[output_casting]', '[output_casting',
     ["casting.toml", "(file)", "not valid TOML"]),
    ("strided.toml", 'channels_last = true\nchannels_last_3d = false\nclause = "002#torch.memory_format"',
     'channels_last = false\nchannels_last_3d = false\nclause = "002#torch.memory_format"',
     ["strided.toml", "is_contiguous.example.both_formats", "the rule gives is_contiguous(channels_last) = True"]),
    ("strided.toml", 'expected = [2, 1]', 'expected = [4, 2]',
     ["strided.toml", "preserve_format.example.stepped_slice", "the rule gives strides [2, 1]"]),
    ("strided.toml", 'order = [1, 3, 2, 0]', 'order = [1, 3, 2]',
     ["strided.toml", "memory_format.channels_last", "order must be"]),
    ("strided.toml", 'errors = { rank = { kind = "RuntimeError", message = "t() expects',
     'errors = { rnk = { kind = "RuntimeError", message = "t() expects',
     ["strided.toml", "view.t", "errors must specify exactly", "missing rank", "unknown rnk"]),
    ("strided.toml", 'message = "slice step must be positive" }', 'message = "slice step must be positive", kind2 = 1 }',
     ["strided.toml", "view.slice.step", "unknown field(s) kind2"]),
    ("arithmetic.toml", 'a = 7\nb = 2\nexpected = 3.5', 'a = 7\nb = 2\nexpected = 3.0',
     ["arithmetic.toml", "arith.example.int_true_division", "the rules give 3.5, the row says 3.0"]),
    ("arithmetic.toml", 'float32 = [3.4028234663852886e38, -3.0]', 'float32 = [3.4028234663852889e38, 0.1]',
     ["arithmetic.toml", "values.sets.float32", "not exactly representable in float32"]),
    ("arithmetic.toml", 'chain = [["contiguous", "channels_last"]]', 'chain = [["transpose", 1, 7]]',
     ["arithmetic.toml", "layout_sweep.layouts[1]", "rejected by the rules"]),
    ("arithmetic.toml", 'eps_multiple = 8', 'eps_multiple = 0',
     ["arithmetic.toml", "arith.tolerance.complex_div", "eps_multiple must be >= 1"]),
    ("devices.toml", 'error = "malformed"\nwhy = "a leading zero"', 'error = "none"\nwhy = "a leading zero"',
     ["devices.toml", "device.invalid.leading_zero", "the grammar gives", "the row says none"]),
    ("devices.toml", 'repr = "device(type=\'mps\', index=0)"', 'repr = "device(type=\'mps\')"',
     ["devices.toml", "device.doc.mps_ordinal", "the row says device(type='mps')"]),
    ("devices.toml", '["enter", "cpu"], ["factory"], ["exit"]', '["enter", "cpu"], ["factory"]',
     ["devices.toml", "device.default.context_over_set", "a device context is left open"]),
    ("asarray.toml", 'as_dtype = "float32"\nshares = false', 'as_dtype = "float32"\nshares = true',
     ["asarray.toml", "asarray.doc.array_dtype_copies", "the row says shares = True"]),
    ("asarray.toml", 'value = "[1, 2.5]"', 'value = "[1, 2.5"',
     ["asarray.toml", "asarray.infer.int_float", "is not a Python literal"]),
    ("dlpack.toml", 'int32 = "kDLInt"', 'int32 = "kDLFloat"',
     ["dlpack.toml", "dtype_codes", "two dtypes share a (code, bits)"]),
]


class Malformed(unittest.TestCase):
    def test_malformed_spec_fails_naming_file_row_and_reason(self):
        for i, (fname, old, new, fragments) in enumerate(MALFORMED):
            with self.subTest(case=i, file=fname, change=new[:40]), tempfile.TemporaryDirectory() as tmp:
                for f in SPEC_FILES:
                    shutil.copy(os.path.join(FIXTURE, f), tmp)
                path = os.path.join(tmp, fname)
                text = open(path).read()
                self.assertIn(old, text, "fixture changed: update the malformed case")
                open(path, "w").write(text.replace(old, new, 1))
                gtest = ["emit_gtest.py", "--suite", {"strided.toml": "strided", "arithmetic.toml": "arithmetic"}.get(fname, "casting")]
                for cmd in (gtest, ["emit_cxx.py", "--suite", "dtypes"], ["emit_json.py"]):
                    r = run_emitter(cmd, tmp, os.path.join(tmp, "out"))
                    self.assertEqual(r.returncode, 1, f"{cmd[0]} accepted a malformed spec: {new!r}")
                    if cmd is gtest:
                        for frag in fragments:
                            self.assertIn(frag, r.stderr)
                    self.assertNotIn("Traceback", r.stderr)

    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(HERE, "emit_cxx.py"), "--suite", "dtypes", "--out", os.path.join(tmp, "o"),
                                os.path.join(FIXTURE, "dtypes.toml")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("promotion.toml: (file): missing from the spec inputs", r.stderr)


class RealSpec(unittest.TestCase):
    """The real spec loads and its derived tables have the sizes the doc implies."""

    def test_real_spec(self):
        sys.path.insert(0, HERE)
        from spec_model import Spec
        spec_dir = os.path.join(HERE, "..", "spec")
        spec = Spec.load([os.path.join(spec_dir, f) for f in SPEC_FILES])
        self.assertEqual(len(spec.documented), 12)
        self.assertEqual(len(spec.matrix), 144)
        for (a, b), r in spec.matrix.items():
            self.assertEqual(spec.lattice_join(a, b), r, f"promote_types({a}, {b})")


def write_junit(result: unittest.TestResult, tests: list[str], path: str) -> None:
    failed = {t.id(): tb for t, tb in result.failures + result.errors}
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites tests="{len(tests)}" failures="{len(failed)}">',
             f'  <testsuite name="generators" tests="{len(tests)}" failures="{len(failed)}">']
    for t in tests:
        name = sx.quoteattr(t)
        if t in failed:
            lines.append(f'    <testcase name={name} status="run"><failure message="failed">'
                         f'{sx.escape(failed[t])}</failure></testcase>')
        else:
            lines.append(f'    <testcase name={name} status="run"/>')
    lines += ["  </testsuite>", "</testsuites>"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


UPDATE = "--update" in sys.argv

if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    ids = [t.id() for group in suite for t in group]
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        write_junit(result, ids, os.environ["XML_OUTPUT_FILE"])
    sys.exit(0 if result.wasSuccessful() else 1)
