"""Tests of the generators.

  Fixture     generators/testdata/fixture/*.toml is a small hand-written spec: a few rows of
              every table kind. Every suite of every emitter runs over it and its output is
              compared with testdata/golden/<emitter>.<suite>: the output itself when it is
              small, else an excerpt (long runs of similar lines keep their first two and last
              line; the rest become one line with their count and sha256), so a golden is a few
              KB yet pins every byte.
  Malformed   edits of the fixture that must fail naming file, row and reason, on one line,
              with exit status 1 and no traceback (one case per kind of malformation).
  Schema      every field of every fixture row given a value of the wrong type, deleted, or
              joined by an unknown field: each fails with a SpecError naming the file, the row
              and the field, and nothing crashes.
  ExitCodes   exit_codes_header.py over stream.schema.json: one constant per status, and a
              malformed table refused naming the file and the entry.
  RealSpec    invariants of spec/ itself: every emitter succeeds for every suite and is
              deterministic (two runs, different hash seeds), row ids are unique, every row
              cites a clause and a basis, every generated case names its row, cites a clause
              of a listed document and appears in the case manifest, and every case and
              property names the spec row it comes from (spec_row: an id of spec/*.toml; a
              literal row's case its own id).

Run: python3 generators/generators_test.py [--update]   (--update rewrites the goldens)
Under Bazel (//generators:generators_test) it writes JUnit XML to $XML_OUTPUT_FILE.
"""

from __future__ import annotations

import ast
import copy
import glob
import hashlib
import json
import os
import re
import runpy
import shutil
import struct
import subprocess
import sys
import tempfile
import tomllib
import unittest
import xml.sax.saxutils as sx

HERE = os.path.dirname(os.path.abspath(__file__))

import spec_schema  # noqa: E402
from spec_model import SPEC_FILES, SPEC_INPUTS, Operand, Spec, SpecError  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "fixture")
GOLDEN = os.path.join(HERE, "testdata", "golden")
SPEC = os.path.join(HERE, "..", "spec")
UPDATE = "--update" in sys.argv


# ------------------------------------------------------------------ running the emitters
def outputs() -> list[tuple[str, str, str | None]]:
    """(output name, emitter script, suite or None) for everything the emitters can write.

    The emitters are generators/emit_*.py (emit_common.py is their shared code); an emitter
    with suites lists them in SUITES. Output names are "<emitter>.<suite>" (or "<emitter>")."""
    out = []
    for script in sorted(glob.glob(os.path.join(HERE, "emit_*.py"))):
        stem = os.path.basename(script)[:-3]
        if stem == "emit_common" or stem.endswith("_test"):
            continue
        suites = getattr(__import__(stem), "SUITES", None)
        if suites is None:
            out.append((stem, script, None))
        else:
            out += [(f"{stem}.{s}", script, s) for s in sorted(suites)]
    return out


def emit_all(spec_dir: str, out_dir: str) -> None:
    """Runs every emitter's command line (as `python3 EMITTER [--suite S] --out OUT spec/*.toml`
    runs it) in this process; writes each exit status to out_dir/exit_status.json."""
    specs = sorted(glob.glob(os.path.join(spec_dir, "*.toml")))
    status = {}
    for name, script, suite in outputs():
        sys.argv = [script, *(["--suite", suite] if suite else []), "--out", os.path.join(out_dir, name), *specs]
        try:
            runpy.run_path(script, run_name="__main__")
            status[name] = 0
        except SystemExit as e:
            status[name] = e.code or 0
    with open(os.path.join(out_dir, "exit_status.json"), "w") as f:
        json.dump(status, f)


def start_emit_all(spec_dir: str, out_dir: str, hash_seed: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), "--emit-all", spec_dir, out_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish_emit_all(p: subprocess.Popen, out_dir: str) -> dict:
    _, err = p.communicate()
    if p.returncode != 0:
        raise AssertionError(f"emitting all outputs failed:\n{err}")
    with open(os.path.join(out_dir, "exit_status.json")) as f:
        return json.load(f)


def run_emitter(script: str, suite: str | None, spec_dir: str, out: str) -> subprocess.CompletedProcess:
    args = [sys.executable, os.path.join(HERE, script), *(["--suite", suite] if suite else []), "--out", out,
            *[os.path.join(spec_dir, f) for f in SPEC_INPUTS]]
    return subprocess.run(args, capture_output=True, text=True)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


# ------------------------------------------------------------------ goldens
def _run_key(line: str) -> str:
    return re.sub(r"[0-9]", "#", line[:4])


def golden(text: str) -> str:
    """What a golden holds of an output: all of it up to 8 KB, else its excerpt."""
    return text if len(text.encode()) <= 8192 else excerpt(text)


def excerpt(text: str, head: int = 2, tail: int = 1, min_run: int = 6) -> str:
    """`text` with each run of >= min_run lines that start alike (first 4 characters, digits
    ignored) cut to its first `head` and last `tail` lines; the cut lines become one line with
    their count and a sha256 of their text, so the excerpt still changes when any byte does."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        j = i
        while j < len(lines) and _run_key(lines[j]) == _run_key(lines[i]):
            j += 1
        run = lines[i:j]
        if len(run) >= min_run:
            cut = run[head:len(run) - tail]
            digest = hashlib.sha256("\n".join(cut).encode()).hexdigest()[:16]
            run = run[:head] + [f"<<< {len(cut)} lines cut, sha256 {digest} >>>"] + run[len(run) - tail:]
        out += run
        i = j
    return "\n".join(out)


class Fixture(unittest.TestCase):
    """Every emitter's every suite over the fixture spec, against the goldens."""

    def test_outputs_match_goldens(self):
        with tempfile.TemporaryDirectory() as tmp:
            status = finish_emit_all(start_emit_all(FIXTURE, tmp, "0"), tmp)
            names = [name for name, _, _ in outputs()]
            if UPDATE:
                for old in glob.glob(os.path.join(GOLDEN, "*")):
                    os.remove(old)
            for name in names:
                with self.subTest(output=name):
                    self.assertEqual(status[name], 0, f"{name} failed on the fixture")
                    got = golden(read(os.path.join(tmp, name)))
                    if UPDATE:
                        with open(os.path.join(GOLDEN, name), "w", encoding="utf-8", newline="\n") as f:
                            f.write(got)
                    self.assertEqual(got, read(os.path.join(GOLDEN, name)),
                                     f"the output differs from generators/testdata/golden/{name}; if the change "
                                     "is intended, rerun with --update and read the golden's diff")
            self.assertEqual(sorted(os.listdir(GOLDEN)), sorted(names), "a golden without an output, or the reverse")


# ------------------------------------------------------------------ malformed input
# (file, old text, new text, fragments of the one-line error: file, row, reason). Each edits
# the fixture; the first occurrence of `old` is replaced.
MALFORMED = [
    # --- the schema: tables, fields, types, clauses
    ("arithmetic.toml", 'error = { kind = "RuntimeError", message = "The size of tensor a',
     'error = { kind = "NotSupported", message = "The size of tensor a',
     ["arithmetic.toml", "must be an error kind PyTorch raises (spec/interface.toml", "RuntimeError, TypeError, ValueError, IndexError, NotImplementedError)",
      "got 'NotSupported'"]),
    ("interface.toml", 'raised_by = "pytorch"', 'raised_by = "torch"',
     ["interface.toml", "error[0] (RuntimeError): field 'raised_by' must be one of 'pytorch', 'suite', got 'torch'"]),
    ("arithmetic.toml", "[[tolerance]]", "[[tolerence]]",
     ["arithmetic.toml", "[[tolerence]]", "unknown table; did you mean [[tolerance]]?"]),
    ("arithmetic.toml", "expected = -2147483648", 'expected = "-2147483648"',
     ["arithmetic.toml", "arith.example.int32_overflow_wraps",
      "field 'expected' must be a bool, a number or a [real, imaginary] pair, got string '-2147483648'"]),
    ("arithmetic.toml", "eps_multiple = 8", "eps_multiple = 8\nepsilon = 1",
     ["arithmetic.toml", "arith.tolerance.complex_div", "unknown field 'epsilon'"]),
    ("dtypes.toml", "significand = 23 }", 'significand = "23" }',
     ["dtypes.toml", "dtype.float32", "field 'bits.significand' must be an integer, got string '23'"]),
    ("dtypes.toml", "pytorch_basis = { is_signed", "pytorch_basis = { is_sgned",
     ["dtypes.toml", "dtype.float32", "unknown field 'pytorch_basis.is_sgned'; did you mean 'is_signed'?"]),
    # --- dtypes.toml: a complex dtype's part, a floating dtype's bits (arith_model.Dtypes reads both)
    ("dtypes.toml", 'is_complex = true\npart = "float32"\n', 'is_complex = true\n',
     ["dtypes.toml", "dtype.complex64", "a complex dtype names its `part`"]),
    ("dtypes.toml", 'part = "float32"', 'part = "float64"',
     ["dtypes.toml", "dtype.complex64", "part 'float64' must be the name of a floating dtype of half its bits (32)"]),
    ("dtypes.toml", 'part = "float32"', 'part = "float"',
     ["dtypes.toml", "dtype.complex64", "part 'float' must be the name of a floating dtype"]),
    ("dtypes.toml", 'part = "float16"', 'part = "int32"',
     ["dtypes.toml", "dtype.complex32", "part 'int32' must be the name of a floating dtype of half its bits (16)"]),
    ("dtypes.toml", 'is_complex = false\nbits', 'is_complex = false\npart = "float32"\nbits',
     ["dtypes.toml", "dtype.float32", "only a complex dtype has one"]),
    ("dtypes.toml", "exponent = 11, significand = 52", "exponent = 12, significand = 51",
     ["dtypes.toml", "dtype.float64", "the model holds values in a double", "does not fit in it"]),
    ("dtypes.toml", "exponent = 8, significand = 23", "exponent = 1, significand = 30",
     ["dtypes.toml", "dtype.float32", "bits.exponent must be at least 2"]),
    ("devices.toml", "documented = true", 'documented = "yes"',
     ["devices.toml", "device.type.cpu", "field 'documented' must be true or false, got string 'yes'"]),
    ("dlpack.toml", 'name = "transposed"', 'nam = "transposed"',
     ["dlpack.toml", "dlpack.export", "unknown field 'geometry[0].nam'; did you mean 'name'?"]),
    ("promotion.toml", '[[op]]\nid = "op.mul"\n', "[[op]]\n",
     ["promotion.toml", "op[2]", "missing field 'id'"]),
    ("dtypes.toml", 'clause = "002#torch.dtype"', 'clause = "005#torch.dtype"',
     ["dtypes.toml", "dtype.float32", "clause '005#torch.dtype' cites document '005', which spec/sources.toml "
                                      "does not list"]),
    ("asarray.toml", 'clause = "003#torch.asarray"', 'clause = "003#torch.asarry"',
     ["asarray.toml", "asarray.source.tensor", "cites section 'torch.asarry', which spec/sources.toml does not list "
                                               "for document 003"]),
    ("arithmetic.toml", 'clause = "002#type-promotion"\nbasis = "pytorch"', 'clause = "pytorch#arithmetic"\nbasis = "doc"',
     ["arithmetic.toml", "arith.error_leaves_output", "cites PyTorch's implementation: basis must be \"pytorch\""]),
    ("strided.toml", 'clause = "002#torch.layout"', 'clause = "002-torch.layout"',
     ["strided.toml", "layout.strided", "is not '<document>#<section>'"]),
    ("casting.toml", 'source = "aten/src/ATen/TensorIterator.cpp compute_types"\n', "",
     ["casting.toml", "output_casting.rule", "missing field 'source'"]),
    ("sources.toml", 'url = ""', 'uri = ""',
     ["sources.toml", "003", "unknown field 'uri'; did you mean 'url'?"]),
    ("casting.toml", 'id = "output_casting.rule"', 'id = "op.add"',
     ["casting.toml", "op.add", "duplicate row id (first defined in"]),
    ("casting.toml", "[output_casting]", "[output_casting",
     ["casting.toml", "(file)", "not valid TOML"]),
    # --- the loaders: names, and tables that contradict their rules
    ("dtypes.toml", 'itemsize = 4\ncategory = "floating"', 'itemsize = 2\ncategory = "floating"',
     ["dtypes.toml", "dtype.float32", "bits add up to 32, itemsize says 16"]),
    ("dtypes.toml", 'category = "integral"', 'category = "whole"',
     ["dtypes.toml", "dtype.int32", "category 'whole' is not one of"]),
    ("dtypes.toml", 'id = "dtype.bool"', 'id = "dtype.int32"',
     ["dtypes.toml", "dtype.int32", "duplicate row id"]),
    ("dtypes.toml", "is_signed = false\n", "",
     ["dtypes.toml", "dtype.bool", "missing field 'is_signed'"]),
    ("promotion.toml", '["i4",   "i4", "i8", "f4", "f8", "c4", "c8", "i4"]',
     '["i4",   "i4", "i8", "f4", "f8", "c4", "c8", "zz"]',
     ["promotion.toml", "promote_types[i4][b1]", "unknown dtype code 'zz'"]),
    ("promotion.toml", '["f4",   "f4", "f4", "f4", "f8", "c4", "c8", "f4"],', '["f4",   "f4", "f4", "f8", "c4", "c8", "f4"],',
     ["promotion.toml", "promote_types row f4", "6 cells for 7 columns"]),
    ("promotion.toml", 'result = "int32"', 'result = "float32"',
     ["promotion.toml", "result_type.doc.int_tensor_add_5", "the rules give int32, the row says float32"]),
    ("promotion.toml", 'a = "tensor:int32"', 'a = "matrix:int32"',
     ["promotion.toml", "result_type.doc.int_tensor_add_5", "operand 'matrix:int32'"]),
    ("casting.toml", 'to = ["integral"]', 'to = ["integer"]',
     ["casting.toml", "can_cast.rule.float_to_integral", "unknown category 'integer'"]),
    ("casting.toml", "allowed = false", "allowed = true",
     ["casting.toml", "output_casting.doc.int_mul_float", "disagree"]),
    ("strided.toml", "channels_last = true\n", "channels_last = false\n",
     ["strided.toml", "is_contiguous.example.both_formats", "the rule gives is_contiguous(channels_last) = True"]),
    ("strided.toml", "expected = [2, 1]", "expected = [4, 2]",
     ["strided.toml", "preserve_format.example.stepped_slice", "the rule gives strides [2, 1]"]),
    ("strided.toml", "order = [1, 3, 2, 0]", "order = [1, 3, 2]",
     ["strided.toml", "memory_format.channels_last", "order must be"]),
    ("strided.toml", 'errors = { rank = { kind = "RuntimeError", message = "t() expects',
     'errors = { rnk = { kind = "RuntimeError", message = "t() expects',
     ["strided.toml", "view.t", "errors must specify exactly", "missing rank", "unknown rnk"]),
    ("strided.toml", 'message = "slice step must be positive" }', 'message = "slice step must be positive", kind2 = 1 }',
     ["strided.toml", "view.slice", "unknown field 'errors.step.kind2'"]),
    ("arithmetic.toml", "a = 7\nb = 2\nexpected = 3.5", "a = 7\nb = 2\nexpected = 3.0",
     ["arithmetic.toml", "arith.example.int_true_division", "the rules give 3.5, the row says 3.0"]),
    ("arithmetic.toml", "float32 = [1.5, inf]", "float32 = [1.5, 0.1]",
     ["arithmetic.toml", "values.sets.float32", "not exactly representable in float32"]),
    ("arithmetic.toml", 'chain = [["t"]] }', 'chain = [["transpose", 1, 7]] }',
     ["arithmetic.toml", "layout_sweep.layouts[1]", "rejected by the rules"]),
    ("arithmetic.toml", "eps_multiple = 8", "eps_multiple = 0",
     ["arithmetic.toml", "arith.tolerance.complex_div", "eps_multiple must be >= 1"]),
    ("devices.toml", 'error = "malformed"\nwhy = "a leading zero"', 'error = "none"\nwhy = "a leading zero"',
     ["devices.toml", "device.invalid.leading_zero", "the grammar gives", "the row says none"]),
    ("devices.toml", "repr = \"device(type='mps', index=0)\"", "repr = \"device(type='mps')\"",
     ["devices.toml", "device.doc.mps_ordinal", "the row says device(type='mps')"]),
    ("devices.toml", '["enter", "cpu"], ["factory"], ["exit"]', '["enter", "cpu"], ["factory"]',
     ["devices.toml", "device.default.context_over_set", "a device context is left open"]),
    ("asarray.toml", 'as_dtype = "float32"\nshares = false', 'as_dtype = "float32"\nshares = true',
     ["asarray.toml", "asarray.doc.array_dtype_copies", "the row says shares = True"]),
    ("asarray.toml", 'value = "[1, 2.5]"', 'value = "[1, 2.5"',
     ["asarray.toml", "asarray.infer.int_float", "is not a Python literal"]),
    ("dlpack.toml", 'int32 = "kDLInt"', 'int32 = "kDLFloat"',
     ["dlpack.toml", "dtype_codes", "two dtypes share a (code, bits)"]),
    ("promotion.toml", 'name = "mul"\nsymbol = "*"', 'name = "pow"\nsymbol = "**"',
     ["promotion.toml", "op.mul", "op 'pow' has no arithmetic in the generators' value model"]),
    # An op's class refusing a category (Sub's bool, Div's integers) has no arithmetic for it:
    # a row that stops saying so is refused, not generated with the category's rows left out.
    ("promotion.toml", 'bool_error = { kind = "RuntimeError", both = "Subtraction', '# bool_error = { kind = "RuntimeError", both = "Subtraction',
     ["promotion.toml", "op.sub", "Sub in generators/arith_model.py OPS has no bool arithmetic (boolean)"]),
    ("promotion.toml", "integer_to_default_float = true", "integer_to_default_float = false",
     ["promotion.toml", "op.div", "Div in generators/arith_model.py OPS has no integral arithmetic (integer)"]),
    # --- the statement table: rows or a reason, rows that exist, every row claimed
    ("statements.toml", 'untested = "a stability notice: no behaviour to observe"\n', "",
     ["statements.toml", "002.layout.beta", "either rows", "it has neither"]),
    ("statements.toml", 'rows = ["dtype.float32"', 'untested = "why not"\nrows = ["dtype.float32"',
     ["statements.toml", "002.dtype.twelve", "either rows", "not both"]),
    ("statements.toml", 'rows = ["dtype.float32"', 'rows = ["dtype.float33", "dtype.float32"',
     ["statements.toml", "002.dtype.twelve", "'dtype.float33', which is no row of spec/", "did you mean 'dtype.float32'"]),
    ("statements.toml", 'rows = ["dtype.float32", ', 'rows = [',
     ["statements.toml", "dtype.float32", "(dtypes.toml, 002#torch.dtype) tests no statement"]),
    ("statements.toml", 'rows = ["dtype.float32", "dtype.float64", "dtype.complex64", "dtype.complex128", "dtype.int32", '
                        '"dtype.int64", "dtype.bool", "dtype.float16"]',
     'untested = "moved"\n\n[[silent]]\nwhy = "none"\nrows = ["dtype.float32"]',
     ["statements.toml", "silent[0]", "'dtype.float32' has basis 'doc'"]),
    ("statements.toml", 'rows = ["dtype.complex32"]', 'rows = ["dtype.complex32", "dtype.float32"]',
     ["statements.toml", "silent[1]", "'dtype.float32' is tested by 002.dtype.twelve"]),
    ("statements.toml", 'clause = "002#torch.dtype"', 'clause = "002#torch.dtyp"',
     ["statements.toml", "002.dtype.twelve", "cites section 'torch.dtyp'"]),
    # An op's refusals (`refuses`): categories of the spec's, a message naming the dtype, a source.
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complx"], kind = "RuntimeError", message = "no {dtype}", source = "k" }',
     ["promotion.toml", "op.mul", "refuses: unknown category 'complx'"]),
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complex"], kind = "RuntimeError", message = "no loop", source = "k" }',
     ["promotion.toml", "op.mul", "must name the refused dtype as {dtype}"]),
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complex"], kind = "RuntimeError", message = "no {dtype} {op}", source = "k" }',
     ["promotion.toml", "op.mul", "must name the refused dtype as {dtype}"]),
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complex"], kind = "RuntimeError", message = "no {dtype}" }',
     ["promotion.toml", "op.mul", "source"]),
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complex"], kind = "Oops", message = "no {dtype}", source = "k" }',
     ["promotion.toml", "op.mul", "Oops"]),
    ("promotion.toml", 'symbol = "*"',
     'symbol = "*"\nrefuses = { categories = ["complex"], kind = "RuntimeError", message = "no {dtype", source = "k" }',
     ["promotion.toml", "op.mul", "refuses: the message's braces", "expected '}' before end of string"]),
]

# spec/features.toml, mutated (the runner reads its rows from spec.json, so the schema is their one
# check): loaded in process, as every emitter loads the spec the same way.
FEATURES_MALFORMED = [
    ("features.toml", 'level = "optional"', 'level = "mandatory"',
     ["features.toml", "feature[2]", "field 'level' must be one of 'required', 'optional', got 'mandatory'"]),
    ("features.toml", 'basis = "doc"\nreason = "fixture"\n\n[[feature]]\nname = "views"',
     'basis = "pytorch"\nreason = "fixture"\n\n[[feature]]\nname = "views"',
     ["features.toml", "feature[0]", "field 'basis' 'pytorch' does not match"]),
    ("features.toml", 'name = "views"', 'name = "promote_types"',
     ["features.toml", "feature[1]", "field 'name' 'promote_types' is used twice (also feature[0])"]),
    ("features.toml", 'reason = "fixture"', 'reason = " "',
     ["features.toml", "feature[0]", "field 'reason'"]),
]

# Which suite to run for an edit of each file (the others run emit_cxx and emit_json).
SUITE_OF = {"strided.toml": "strided", "arithmetic.toml": "arithmetic", "devices.toml": "devices",
            "asarray.toml": "asarray", "dlpack.toml": "dlpack"}


# spec/interface.toml and spec/features.toml, mutated: (file, old, new, fragments the one-line error names).
INTERFACE_MALFORMED = [
    ("interface.toml", 'feature = "views"\nargs = [{ name = "t", type = "tensor" }, { name = "dim0"',
     'feature = "viewz"\nargs = [{ name = "t", type = "tensor" }, { name = "dim0"', ["transpose", "viewz", "features.toml"]),
    ("interface.toml", '{ name = "dim0", type = "int" }', '{ name = "dim0", type = "integer" }', ["transpose", "dim0", "integer"]),
    ("interface.toml", 'result = "DTypeInfo"', 'result = "DTypeInfos"', ["dtype_info", "DTypeInfos"]),
    # A fact (protocol version 3) takes only the tensor t and answers a record.
    ("interface.toml", 'result = "DTypeInfo"', 'result = "DTypeInfo"\nfact = true', ["dtype_info", "a fact takes only the tensor t"]),
    ("interface.toml", 'name = "data_ptr"', 'name = "transpose"', ["interface.toml", "op[4]", "field 'name' 'transpose' is used twice (also op[2])"]),
    ("interface.toml", '{ name = "itemsize", type = "int32" }', '{ name = "itemsize", type = "tensor" }', ["itemsize", "tensor"]),
    ("interface.toml", 'doc = "torch.promote_types(a, b)."', 'doc = "x"\ncolour = "red"', ["interface.toml", "op[0] (promote_types)", "unknown field 'colour'"]),
    ("interface.toml", 'answer_features = ["device_repr"]', 'answer_features = []', ["device_repr", "no operation"]),
    ("features.toml", 'enumerator = "kViews"\n', '', ["features.toml", "feature[1] (views)", "missing field 'enumerator'"]),
    # The schema's rules for interface.toml (spec_schema.FILES["interface.toml"]), one case each.
    ("interface.toml", "[[op]]", "[[opp]]", ["interface.toml", "[[opp]]", "unknown table; did you mean [[op]]?"]),
    ("interface.toml", 'protocol_versions = [2, 3]', 'protocol_versions = ["2", 3]',
     ["interface.toml", "protocol_versions", "field '[0]' must be an integer, got string '2'"]),
    ("interface.toml", 'answer_features = ["device_repr"]', 'answer_features = "device_repr"',
     ["interface.toml", "answer_features: the value must be a list, got string 'device_repr'"]),
    ("interface.toml", 'result = "dtype"\n', '', ["interface.toml", "op[0] (promote_types)", "missing field 'result'"]),
    ("interface.toml", 'aliases = true', 'aliases = "yes"',
     ["interface.toml", "op[2] (transpose)", "field 'aliases' must be true or false, got string 'yes'"]),
    ("interface.toml", 'name = "transpose"', 'name = "Transpose"',
     ["interface.toml", "op[2] (Transpose)", "field 'name' 'Transpose' does not match"]),
    ("interface.toml", 'feature = "promote_types"', 'feature = "promote types"',
     ["interface.toml", "op[0] (promote_types)", "field 'feature' 'promote types' does not match"]),
    ("interface.toml", '{ name = "dim0", type = "int" }', '{ name = "dim0", type = "int", kind = 1 }',
     ["interface.toml", "op[2] (transpose)", "unknown field 'args[1].kind'"]),
    ("interface.toml", '{ name = "dim1", type = "int?" }', '{ name = "dim0", type = "int?" }',
     ["interface.toml", "op[2] (transpose)", "field 'args[2].name' 'dim0' is used twice (also args[1])"]),
    ("interface.toml", '{ name = "dim0", type = "int" }', '{ name = "dim0", type = "int??" }',
     ["interface.toml", "op[2] (transpose)", "field 'args[1].type' 'int??' does not match"]),
    ("interface.toml", '{ name = "index", type = "int?" }', '{ name = "itemsize", type = "int?" }',
     ["interface.toml", "record[0] (DTypeInfo)", "field 'fields[3].name' 'itemsize' is used twice (also fields[0])"]),
    ("interface.toml", 'default = ""', 'default = []',
     ["interface.toml", "record[0] (DTypeInfo)", "field 'fields[2].default' must be a bool, a number or a string"]),
    ("interface.toml", 'enumerator = "kTypeError"', 'enumerator = "TypeError"',
     ["interface.toml", "error[1] (TypeError)", "field 'enumerator' 'TypeError' does not match"]),
    ("interface.toml", 'name = "TypeError"', 'name = "RuntimeError"',
     ["interface.toml", "error[1]", "field 'name' 'RuntimeError' is used twice (also error[0])"]),
    ("interface.toml", "[[record]]", '[[check]]\nname = "dtype"\nenumerator = "kDType"\ndoc = "x"\nneeds = 3\n\n[[record]]',
     ["interface.toml", "check[0] (dtype)", "field 'needs' must be a string, got integer 3"]),
    ("interface.toml", "[[record]]", '[[check]]\nname = "dtype"\nenumerator = "kDType"\ndoc = "x"\nneeds = "viewz"\n\n[[record]]',
     ["interface.toml", "check[0] (dtype)", "needs feature 'viewz', which has no row in"]),
    # The binary ops (promotion.toml [[op]], binary_ops.py): the binary_op type's values, in hello.
    ("promotion.toml", 'symbol = "-"', 'symbol = "+"', ["promotion.toml", "op[1]", "field 'symbol' '+' is used twice (also op[0])"]),
    ("promotion.toml", 'name = "mul"', 'name = "Mul"', ["promotion.toml", "op.mul", "field 'name' 'Mul' does not match [a-z][a-z0-9_]*"]),
    ("promotion.toml", 'symbol = "*"', 'symbol = "* "', ["promotion.toml", "op.mul", "field 'symbol' '* ' does not match"]),
    ("promotion.toml", 'name = "div"', 'name = "add"', ["promotion.toml", "op[3]", "field 'name' 'add' is used twice (also op[0])"]),
]

# What emit_interface.py reads.
INTERFACE_INPUTS = ["interface.toml", "features.toml", "promotion.toml"]


def mutated_copy(self, files: list, fname: str, old: str, new: str, tmp: str) -> str:
    """Copies the fixture's `files` into tmp with `old` replaced by `new` in `fname`; its path."""
    for f in files:
        shutil.copy(os.path.join(FIXTURE, f), tmp)
    path = os.path.join(tmp, fname)
    text = read(path)
    self.assertIn(old, text, "fixture changed: update the malformed case")
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))
    return path


class InterfaceMalformed(unittest.TestCase):
    """A malformed interface description fails with one line naming the file, the row and the
    problem, and writes nothing."""

    def test_malformed_interface_fails_naming_file_row_and_reason(self):
        for i, (fname, old, new, fragments) in enumerate(INTERFACE_MALFORMED):
            with self.subTest(case=i, change=new[:40]), tempfile.TemporaryDirectory() as tmp:
                mutated_copy(self, INTERFACE_INPUTS, fname, old, new, tmp)
                out = os.path.join(tmp, "out")
                r = subprocess.run([sys.executable, os.path.join(HERE, "emit_interface.py"), "--suite", "enums", "--out", out,
                                    *[os.path.join(tmp, f) for f in INTERFACE_INPUTS]],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 1, f"accepted: {new!r}\n{r.stderr}")
                self.assertNotIn("Traceback", r.stderr)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertTrue(r.stderr.startswith(f"emit_interface.py: {tmp}/"), r.stderr)
                for frag in fragments:
                    self.assertIn(frag, r.stderr)
                self.assertFalse(os.path.exists(out), "an output was written")

    def test_real_interface_covers_every_feature_once(self):
        import interface_model
        iface = interface_model.load(os.path.join(SPEC, "interface.toml"), os.path.join(SPEC, "features.toml"))
        for f in iface.features:
            self.assertTrue(f.ops or f.name in iface.answer_features, f.name)
        self.assertEqual(len({f.enumerator for f in iface.features}), len(iface.features))


class Malformed(unittest.TestCase):
    def test_malformed_features_fail_naming_file_row_and_reason(self):
        for fname, old, new, fragments in FEATURES_MALFORMED:
            with self.subTest(change=new[:40]), tempfile.TemporaryDirectory() as tmp:
                mutated_copy(self, SPEC_INPUTS, fname, old, new, tmp)
                with self.assertRaises(SpecError) as e:
                    Spec.load([os.path.join(tmp, f) for f in SPEC_INPUTS])
                for frag in fragments:
                    self.assertIn(frag, str(e.exception))

    def test_malformed_spec_fails_naming_file_row_and_reason(self):
        for i, (fname, old, new, fragments) in enumerate(MALFORMED):
            with self.subTest(case=i, file=fname, change=new[:40]), tempfile.TemporaryDirectory() as tmp:
                path = mutated_copy(self, SPEC_INPUTS, fname, old, new, tmp)
                gtest = ("emit_gtest.py", SUITE_OF.get(fname, "casting"))
                for script, suite in (gtest, ("emit_cxx.py", "dtypes"), ("emit_json.py", None)):
                    r = run_emitter(script, suite, tmp, os.path.join(tmp, "out"))
                    self.assertEqual(r.returncode, 1, f"{script} accepted a malformed spec: {new!r}")
                    self.assertNotIn("Traceback", r.stderr)
                    self.assertEqual(len(r.stderr.splitlines()), 1, f"not one line: {r.stderr}")
                    self.assertTrue(r.stderr.startswith(f"spec error: {path}: "), r.stderr)
                    if script == gtest[0]:
                        for frag in fragments:
                            self.assertIn(frag, r.stderr)
                    self.assertFalse(os.path.exists(os.path.join(tmp, "out")), "an output was written")

    def test_a_byte_that_is_not_utf8_is_named_with_its_line_and_column(self):
        # A Latin-1 "é" in a comment of line 3: the spec emitters and the interface's both fail
        # with one line naming the file, the line, the column and the byte.
        for fname in ("dtypes.toml", "interface.toml"):
            with self.subTest(file=fname), tempfile.TemporaryDirectory() as tmp:
                for f in SPEC_INPUTS:
                    shutil.copy(os.path.join(FIXTURE, f), tmp)
                path = os.path.join(tmp, fname)
                with open(path, "rb") as f:
                    lines = f.read().split(b"\n")
                lines.insert(2, b"# caf\xe9 cr\xe8me")
                with open(path, "wb") as f:
                    f.write(b"\n".join(lines))
                out = os.path.join(tmp, "out")
                if fname == "interface.toml":
                    r = subprocess.run([sys.executable, os.path.join(HERE, "emit_interface.py"), "--suite", "enums",
                                        "--out", out, path, os.path.join(tmp, "features.toml"),
                                        os.path.join(tmp, "promotion.toml")],
                                       capture_output=True, text=True)
                    prefix = f"emit_interface.py: {path}: "
                else:
                    r = run_emitter("emit_cxx.py", "dtypes", tmp, out)
                    prefix = f"spec error: {path}: (file): "
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertEqual(r.stderr.strip(), prefix + "line 3, column 6: byte 0xE9 is not UTF-8 (a TOML file is UTF-8 text)")
                self.assertFalse(os.path.exists(out), "an output was written")

    def test_an_unexpected_error_is_one_line_not_a_traceback(self):
        import contextlib
        import io
        import emit_common

        def broken(spec):
            return {}["no such key"]

        err = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(err):
            code = emit_common.main(["--out", os.path.join(tmp, "out"),
                                     *[os.path.join(FIXTURE, f) for f in SPEC_INPUTS]], "", broken)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out")))
        self.assertEqual(code, 2)
        self.assertEqual(len(err.getvalue().splitlines()), 1, err.getvalue())
        self.assertRegex(err.getvalue(), r"^internal error: KeyError: 'no such key' \(at generators_test\.py:\d+")

    def test_missing_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(HERE, "emit_cxx.py"), "--suite", "dtypes", "--out",
                                os.path.join(tmp, "o"), os.path.join(FIXTURE, "dtypes.toml")],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("sources.toml: (file): missing from the spec inputs", r.stderr)


# ------------------------------------------------------------------ the schema, field by field
def load_files(spec_dir: str) -> dict:
    files = {}
    for name in SPEC_INPUTS:
        path = os.path.join(spec_dir, name)
        with open(path, "rb") as f:
            files[name] = (path, tomllib.load(f))
    return files


def rejects(t: spec_schema.Type, value) -> bool:
    try:
        t.check(spec_schema._Checker("", None), value, "", "x")
        return False
    except spec_schema._Invalid:
        return True


WRONG = ["zz", 12345, True, 1.5, ["zz"], {"zz": 1}]


def mutations(files: dict):
    """(what, file, edit) for each field of the fixture: a value of the wrong type, the field
    deleted, and an unknown field beside it. Each field path is edited once (its first row)."""
    seen = set()

    def walk(fname, value, t, keys, shape):
        if isinstance(t, spec_schema.OneOf):
            t = next((x for x in t.types if not rejects(x, value)), t)
        if isinstance(t, spec_schema.Table) and isinstance(value, dict):
            if ("unknown",) + shape not in seen:
                seen.add(("unknown",) + shape)
                yield "unknown field", fname, keys + ["zz_unknown"], "add", "zz_unknown"
            for k, v in value.items():
                ft = t.fields[k].type if k in t.fields else t.extra
                yield from field(fname, v, ft, keys + [k], shape + (k,), k)
        elif isinstance(t, spec_schema.MapOf) and isinstance(value, dict):
            for k, v in value.items():
                yield from field(fname, v, t.value, keys + [k], shape + ("*",), k)
        elif isinstance(t, spec_schema.List) and isinstance(value, list):
            for i, v in enumerate(value):
                yield from field(fname, v, t.item, keys + [i], shape + ("[]",), f"[{i}]")

    def field(fname, value, t, keys, shape, name):
        if shape not in seen:
            seen.add(shape)
            wrong = next(w for w in WRONG if rejects(t, w))
            yield "wrong type", fname, keys, ("set", wrong), name
            yield "deleted", fname, keys, "delete", name
        yield from walk(fname, value, t, keys, shape)

    for fname in SPEC_INPUTS:  # every file of the schema, interface.toml included
        _, doc = files[fname]
        for key, fld in spec_schema.FILES[fname].items():
            if key in doc:
                yield from field(fname, doc[key], fld.type, [key], (fname, key), key)
        yield "unknown table", fname, ["zz_unknown"], "add", "zz_unknown"


def apply(files: dict, fname: str, keys: list, edit) -> dict:
    files = copy.deepcopy(files)
    node = files[fname][1]
    for k in keys[:-1]:
        node = node[k]
    if edit == "add":
        node[keys[-1]] = "zz"
    elif edit == "delete":
        del node[keys[-1]]
    else:
        node[keys[-1]] = edit[1]
    return files


class Schema(unittest.TestCase):
    def test_every_field_of_every_row_kind_is_checked(self):
        files = load_files(FIXTURE)
        Spec(copy.deepcopy(files))  # the fixture itself is valid
        count = 0
        for what, fname, keys, edit, name in mutations(files):
            count += 1
            with self.subTest(what=what, file=fname, field=".".join(map(str, keys))):
                try:
                    Spec(apply(files, fname, keys, edit))
                    accepted = True
                except SpecError as e:
                    accepted = False
                    self.assertTrue(e.row and e.reason, str(e))
                    self.assertNotIn("\n", str(e))
                    if what != "deleted":  # a deletion may surface elsewhere (a dtype row, a document)
                        self.assertEqual(os.path.basename(e.path), fname)
                        self.assertIn(name, str(e))
                if what == "deleted":
                    continue  # an optional field may go, or a loader may need it: either way, no crash
                self.assertFalse(accepted, f"{what} accepted")
        self.assertGreater(count, 300)

    def test_row_kinds_say_where_their_facts_come_from(self):
        kinds = spec_schema.row_kinds()
        own = {(f, p) for f, p, t in kinds if t.cites == spec_schema.OWN}
        for file, path, t in kinds:
            if not t.cites:
                continue
            with self.subTest(file=file, row_kind=path):
                if t.cites == spec_schema.OWN:
                    self.assertTrue(t.fields["clause"].required and t.fields["basis"].required)
                elif t.cites.startswith("none: "):
                    self.assertGreater(len(t.cites), len("none: "))
                else:
                    self.assertIn((file, t.cites), own, f"inherits from {t.cites}, which cites nothing itself")
                    self.assertNotIn("clause", t.fields)

    def test_a_table_with_a_clause_has_an_id(self):
        """Cases name the spec row they come from by its id (a swept table's id_prefix)."""
        for file, path, t in spec_schema.row_kinds():
            if "clause" in t.fields and not t.cites.startswith("none: "):
                with self.subTest(file=file, row_kind=path):
                    self.assertTrue(any(k in t.fields and t.fields[k].required for k in ("id", "id_prefix")))
        with self.assertRaises(TypeError):
            spec_schema.Table({**spec_schema.SOURCE, "names": spec_schema.f(spec_schema.List(spec_schema.NAME))})


# ------------------------------------------------------------------ the real spec
ROW = re.compile(r'^  \{\{"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", '
                 r'"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", "([a-z0-9 ]*)", "([a-z0-9_ ]*)"\}')  # ..., answer, spec_row, dtypes, inputs
# id, clause, statement, spec_row
PROP = re.compile(r'^  _\(\w+, "(property\.[^"]*)", "([^"]*)", "([^"]*)", "([^"]*)"\)')


def spec_row_ids(files: dict) -> set[str]:
    """The ids of the rows of spec/*.toml that state facts (row kinds that cite a clause, their
    own or their table's), and the id_prefix of a swept table: what a case's spec_row may name."""
    return set(spec_schema.fact_rows(files))


def own_citations(files: dict) -> dict[str, tuple[str, str]]:
    """(clause, basis as cases print it) of every spec row that cites a clause of its own."""
    cited = {}

    def walk(value):
        if isinstance(value, dict):
            if isinstance(value.get("id"), str) and isinstance(value.get("clause"), str) and "basis" in value:
                basis = "doc" if value["basis"] == "doc" else f"pytorch: {value.get('source', '')}"
                cited[value["id"]] = (value["clause"], basis)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for _, doc in files.values():
        walk(doc)
    return cited


class ExitCodes(unittest.TestCase):
    SCHEMA = os.path.join(os.path.dirname(HERE), "conformance", "harness", "stream.schema.json")

    def run_emitter(self, schema_path: str) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "exit_codes.h")
            proc = subprocess.run([sys.executable, os.path.join(HERE, "exit_codes_header.py"), "--out", out,
                                   schema_path], capture_output=True, text=True)
            proc.text = open(out, encoding="utf-8").read() if proc.returncode == 0 else ""
            return proc

    def test_every_status_of_the_schema_becomes_one_constant(self):
        with open(self.SCHEMA, encoding="utf-8") as f:
            table = json.load(f)["x-exit-codes"]
        proc = self.run_emitter(self.SCHEMA)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        found = dict(re.findall(r"constexpr int (kExit\w+) = (\d+);", proc.text))
        self.assertEqual(sorted(int(v) for v in found.values()), sorted(int(c) for c in table))
        self.assertEqual(found["kExitTesteeDied"], "86")
        self.assertEqual(found["kExitUsage"], "2")

    def test_a_malformed_table_is_refused_naming_the_file_and_entry(self):
        for table, words in [({"86": {"name": "Testee-Died"}}, "'86'"), ({"x": {"name": "ok"}}, "'x'"),
                             ({"0": {"name": "ok"}, "1": {"name": "ok"}}, "given twice"), ({}, "x-exit-codes")]:
            with self.subTest(table=table), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "bad.schema.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump({"x-exit-codes": table}, f)
                proc = self.run_emitter(path)
                self.assertEqual(proc.returncode, 1)
                self.assertIn("bad.schema.json", proc.stderr)
                self.assertIn(words, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


class RealSpec(unittest.TestCase):
    """Invariants of spec/: its tables load, and what the emitters make of them holds together."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs = [os.path.join(cls.tmp.name, d) for d in ("a", "b")]
        for d in cls.runs:
            os.mkdir(d)
        procs = [start_emit_all(SPEC, d, seed) for d, seed in zip(cls.runs, ("1", "2"))]
        cls.status = [finish_emit_all(p, d) for p, d in zip(procs, cls.runs)]
        cls.spec = Spec.load([os.path.join(SPEC, f) for f in SPEC_INPUTS])
        cls.files = load_files(SPEC)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def out(self, name: str) -> str:
        return read(os.path.join(self.runs[0], name))

    def test_every_emitter_succeeds_for_every_suite(self):
        for name, _, _ in outputs():
            with self.subTest(output=name):
                self.assertEqual(self.status[0][name], 0)
                text = self.out(name)
                if text.startswith("{"):  # JSON has no comments: it names its sources in a field
                    self.assertTrue(json.loads(text)["generated_from"])
                    continue
                first = text.splitlines()[0]
                self.assertIn("GENERATED " + "from spec/", first)  # split: not itself a generated file
                self.assertIn("do not edit", first)

    def test_outputs_are_deterministic(self):
        for name, _, _ in outputs():
            with self.subTest(output=name):
                self.assertEqual(self.out(name), read(os.path.join(self.runs[1], name)),
                                 "two runs (PYTHONHASHSEED 1 and 2) differ")

    def test_row_ids_are_unique_across_files(self):
        seen = {}

        def walk(fname, value, t):
            if isinstance(t, spec_schema.OneOf):
                t = next((x for x in t.types if not rejects(x, value)), None)
            if isinstance(t, spec_schema.Table) and isinstance(value, dict):
                if t.cites and isinstance(value.get("id"), str) and t.fields["id"].type is spec_schema.ID:
                    rid = value["id"]
                    self.assertNotIn(rid, seen, f"{fname}: {rid} is also in {seen.get(rid)}")
                    seen[rid] = fname
                for k, v in value.items():
                    if k in t.fields:
                        walk(fname, v, t.fields[k].type)
            elif isinstance(t, spec_schema.MapOf) and isinstance(value, dict):
                for v in value.values():
                    walk(fname, v, t.value)
            elif isinstance(t, spec_schema.List) and isinstance(value, list):
                for v in value:
                    walk(fname, v, t.item)

        for fname in SPEC_FILES:
            _, doc = self.files[fname]
            for key, fld in spec_schema.FILES[fname].items():
                if key in doc:
                    walk(fname, doc[key], fld.type)
        self.assertGreater(len(seen), 100)
        # ... and every one is a row the loaders read (claimed as a row id)
        self.assertLessEqual(set(seen) - {d for d in self.spec.documents}, set(self.spec._seen_ids))

    def test_every_row_cites_a_clause_and_a_basis(self):
        """Each row with an id has a clause and a basis, or inherits them from a table that has."""
        for file, path, t in spec_schema.row_kinds():
            if not t.cites or t.cites.startswith("none: "):
                continue
            doc = self.files[file][1]
            node = doc
            for k in path.split("."):
                node = node.get(k) if isinstance(node, dict) else None
            rows = node if isinstance(node, list) else [node] if isinstance(node, dict) else []
            # inherited: from a table, or from rows ([[source]] for asarray's doc examples)
            parent = doc.get(t.cites)
            parents = parent if isinstance(parent, list) else [parent]
            for r in rows:
                with self.subTest(file=file, row=r.get("id", path)):
                    for cited in [r] if t.cites == spec_schema.OWN else parents:
                        self.assertIsInstance(cited, dict, f"{t.cites} is not a table of {file}")
                        self.assertTrue(cited.get("clause") and cited.get("basis"))

    def manifest(self) -> dict[str, tuple[str, str]]:
        """case id -> (suite, spec row), from the case manifest."""
        manifest = {}
        for line in self.out("emit_gtest.manifest").splitlines()[1:]:
            suite, rid, spec_row = line.split("\t")
            self.assertNotIn(rid, manifest, f"case id {rid} in two suites")
            manifest[rid] = (suite, spec_row)
        return manifest

    def generated_cases(self) -> list[tuple[str, str, str, str, str | None]]:
        """(suite, case id, clause, spec_row, basis) of every table case and property the emitters
        write (a property prints no basis: None)."""
        cases = []
        for name, _, suite in outputs():
            if name.startswith("emit_gtest.") and suite not in ("manifest", "spec_consistency"):
                rows = map(ROW.match, self.out(name).splitlines())
                cases += [(suite, m.group(1), m.group(2), m.group(6), m.group(3)) for m in rows if m]
            elif name.startswith("emit_rapidcheck."):
                props = map(PROP.match, self.out(name).splitlines())
                cases += [(suite, m.group(1), m.group(2), m.group(4), None) for m in props if m]
        return cases

    def test_every_case_lists_the_dtypes_it_needs(self):
        """RowMeta::dtypes: a promote_types row needs its two dtypes and its answer; a result_type
        row with a scalar operand does not need the scalar slot's filler dtype (bool)."""
        seen = 0
        for name, _, suite in outputs():
            if name != "emit_gtest.promotion":
                continue
            for m in map(ROW.match, self.out(name).splitlines()):
                if m and m.group(1).startswith("promote_types."):
                    a, b = m.group(1).split(".")[1:3]  # a refused pair (uint16, int32) has no answer
                    self.assertEqual(m.group(7).split(), sorted({a, b, m.group(5)} - {"-"}), m.group(1))
                    seen += 1
                if m and m.group(1) == "result_type.t_int8.s_int":
                    # int8 and the default dtype the row runs under; not the scalar slot's bool.
                    self.assertEqual(m.group(7), "float32 int8")
                    seen += 1
        self.assertGreater(seen, 100)

    def test_operand_cases_name_their_inputs(self):
        """RowMeta::inputs (the report's root causes compare them): promote_types names its two
        dtypes, result_type and the binary rows their operands' tokens (t_, z_, s_), in order, and
        the arithmetic rows theirs; can_cast names none (a (from, to) pair is no operand pair)."""
        token = re.compile(r"([tzs]_)?[a-z][a-z0-9]*")
        want = {"promote_types.int8.uint8": "int8 uint8", "result_type.t_int8.s_int": "t_int8 s_int",
                "binary.add.z_float16.t_int32": "z_float16 t_int32", "can_cast.int8.uint8": "",
                "arith.mixed.div.int32.float32": "t_int32 t_float32"}
        found, named = {}, 0
        for name in ("emit_gtest.promotion", "emit_gtest.casting", "emit_gtest.arithmetic"):
            for m in filter(None, map(ROW.match, self.out(name).splitlines())):
                found[m.group(1)] = m.group(8)
                named += bool(m.group(8))
                for t in m.group(8).split():
                    self.assertRegex(t, token, m.group(1))
        self.assertEqual({k: found.get(k) for k in want}, want)
        self.assertGreater(named, 5000)

    def test_every_case_names_the_spec_row_it_comes_from(self):
        """Every table case and property carries spec_row, an id of spec/*.toml (a swept
        table's id_prefix) that states a fact; a case that is a row of the spec names that row
        itself; the manifest lists the same spec row."""
        ids = spec_row_ids(self.files)
        manifest = self.manifest()
        cases = self.generated_cases()
        self.assertEqual(len(cases), len(manifest))
        cited = own_citations(self.files)
        for suite, rid, clause, spec_row, basis in cases:
            with self.subTest(case=rid):
                self.assertTrue(spec_row, "no spec_row")
                self.assertTrue(spec_row in ids, f"spec_row {spec_row!r} is no row of spec/")
                if rid in ids:
                    self.assertEqual(spec_row, rid, "a literal row's case names another row")
                if rid in cited and basis is not None:  # a row citing its own clause: the case cites it too
                    self.assertEqual((clause, basis.replace('\\"', '"')), cited[rid],
                                     "a literal row's case cites another row's clause or basis")
                self.assertEqual(manifest[rid], (suite, spec_row), "the manifest disagrees")
        # Sweeps name their rule: more cases than rows, every row kind that makes cases seen.
        self.assertGreater(len(cases), 10 * len({c[3] for c in cases}))

    def test_asarray_values_as_data_are_what_the_call_names(self):
        """Each asarray row holds its values twice: as PyNode data (what the check builds the
        source from) and as the text its call prints; the nodes spell exactly the value the text
        names, number types included."""
        text = self.out("emit_gtest.asarray")
        pools = dict(re.findall(r"^const PyNode (kPyValue\d+)\[\] = \{(.*)\};$", text, re.M))
        leaf = {"Bool": lambda i, r, m: bool(int(i)), "Int": lambda i, r, m: int(i),
                "Float": lambda i, r, m: float.fromhex(r),
                "Complex": lambda i, r, m: complex(float.fromhex(r), float.fromhex(m))}
        node = re.compile(r"\{(true|false), (\d+), \{Scalar::Kind::k(\w+), (-?\d+)(?:LL)?, ([^,]+), ([^}]+)\}\}")
        rows = re.findall(r'^  \{\{"([^"]*)".*?\}\}, (kPyValue\d+|nullptr), (\d+), ("(?:[^"\\]|\\.)*"), ', text, re.M)
        self.assertEqual(len(rows), text.count("\n  {{"))
        for rid, pool, count, literal in rows:
            with self.subTest(row=rid):
                literal = json.loads(literal)
                if pool == "nullptr":  # a buffer: no values
                    self.assertEqual((count, literal), ("0", ""))
                    continue
                nodes = iter(node.findall(pools[pool]))

                def build():
                    is_list, n, kind, i, re_, im = next(nodes)
                    return [build() for _ in range(int(n))] if is_list == "true" else leaf[kind](i, re_, im)

                value, want = build(), ast.literal_eval(literal)
                self.assertIsNone(next(nodes, None), "nodes left over")
                self.assertEqual(repr(value), repr(want))  # repr: 1, 1.0, True and 1j differ
                self.assertEqual(int(count), len(re.findall(r"\{(?:true|false), ", pools[pool])))

    def test_every_generated_case_names_its_row_and_is_in_the_manifest(self):
        manifest = {rid: suite for rid, (suite, _) in self.manifest().items()}
        cases = 0
        for name, _, suite in outputs():
            if not name.startswith("emit_gtest.") or suite in ("manifest", "spec_consistency"):
                continue
            with self.subTest(suite=suite):
                ids = []
                for line in self.out(name).splitlines():
                    m = ROW.match(line)
                    if m:
                        ids.append(m.group(1))
                        self.check_citation(m.group(1), m.group(2), m.group(3), m.group(4))
                        if m.group(1).startswith(("promote_types.", "can_cast.", "inplace.")):
                            # The reports' matrices read these rows' answers as data.
                            self.assertTrue(m.group(5), f"{m.group(1)}: no answer")
                self.assertEqual(len(ids), len(set(ids)), "a case id twice")
                # The manifest also holds the suite's properties (emit_rapidcheck's rows).
                self.assertEqual(sorted(ids), sorted(i for i, s in manifest.items()
                                                     if s == suite and not i.startswith("property.")))
                cases += len(ids)
        self.assertEqual(cases, len([i for i in manifest if not i.startswith("property.")]))

    def test_every_property_cites_a_clause(self):
        for name, _, suite in outputs():
            if name.startswith("emit_rapidcheck."):
                with self.subTest(suite=suite):
                    props = [PROP.match(line) for line in self.out(name).splitlines()]
                    props = [m for m in props if m]
                    self.assertTrue(props)
                    for m in props:
                        self.check_citation(m.group(1), m.group(2), "property", m.group(3))
                        self.assertTrue(m.group(4), f"{m.group(1)}: no spec row")

    def check_citation(self, rid: str, clause: str, basis: str, text: str) -> None:
        doc, _, section = clause.partition("#")
        self.assertIn(section, self.spec.documents.get(doc, ()), f"{rid}: clause {clause!r}")
        self.assertTrue(basis in ("doc", "property") or re.fullmatch(r"(doc; )?pytorch: \S.*", basis),
                        f"{rid}: basis {basis!r}")
        self.assertTrue(rid and text, rid)

    def test_spec_build_lists_every_table_and_inc(self):
        build = os.path.join(SPEC, "BUILD")
        if not os.path.exists(build):
            self.skipTest("spec/BUILD is not among the test's inputs")
        text = read(build)
        tables = re.search(r'name = "tables",\s*srcs = \[([^\]]*)\]', text).group(1)
        self.assertEqual(sorted(re.findall(r'"([^"]+)"', tables)), sorted(SPEC_INPUTS))
        import emit_cxx
        block = re.search(r"^INCS = \[\n(.*?)^\]", text, re.S | re.M).group(1)
        incs = re.findall(r'^\s*"(\w+)",', block, re.M)
        self.assertEqual(sorted(incs), sorted(emit_cxx.SUITES), "spec/BUILD's INCS and emit_cxx.py's suites differ")

    def test_json_export_is_the_whole_spec(self):
        """emit_json's tables hold every file, row and field of spec/*.toml with its value,
        compared field by field with the TOML (non-finite floats as "inf", "-inf", "nan"); its
        statements_of_row is the statement table's rows, inverted."""
        export = json.loads(self.out("emit_json"))
        self.assertEqual(sorted(export["tables"]), sorted(f.removesuffix(".toml") for f in SPEC_FILES))
        compared = 0

        def same(got, want, where: str):
            nonlocal compared
            if isinstance(want, dict):
                self.assertIsInstance(got, dict, where)
                self.assertEqual(sorted(got), sorted(want), f"{where}: the export's fields differ from the TOML's")
                for k in want:
                    same(got[k], want[k], f"{where}.{k}")
            elif isinstance(want, list):
                self.assertIsInstance(got, list, where)
                self.assertEqual(len(got), len(want), f"{where}: the export has {len(got)} entries, the TOML {len(want)}")
                for i, (g, w) in enumerate(zip(got, want)):
                    same(g, w, f"{where}[{i}]")
            else:
                if isinstance(want, float) and want != want:
                    self.assertEqual(got, "nan", where)
                elif isinstance(want, float) and want in (float("inf"), float("-inf")):
                    self.assertEqual(got, "inf" if want > 0 else "-inf", where)
                else:
                    self.assertEqual((type(got), got), (type(want), want), where)
                compared += 1

        for fname in SPEC_FILES:
            _, doc = self.files[fname]
            same(export["tables"][fname.removesuffix(".toml")], doc, fname)
        self.assertGreater(compared, 3000)
        inverted = {}
        for st in self.files["statements.toml"][1]["statement"]:
            for r in st.get("rows", []):
                inverted.setdefault(r, []).append(st["id"])
        self.assertEqual(export["statements_of_row"], inverted)

    def test_vectors_hello_names_the_spec_dtypes(self):
        """The protocol vectors' hello lists spec/dtypes.toml's dtypes, in its order (one truth)."""
        import vectors
        self.assertEqual(vectors.DTYPES, [d.name for d in self.spec.dtypes])

    def test_barebones_unsigned_promote_as_pytorch_s_promote_types(self):
        """promotion.toml [promote_types_barebones]: c10's promoteTypes returns the dtype for two
        equal ones, the floating one beside uint16/32/64, and refuses the rest; 81 cells, each a
        case of PromoteTypes (answered) or PromoteTypesRefused (a RuntimeError)."""
        sp = self.spec
        self.assertEqual([d.name for d in sp.barebones], ["uint16", "uint32", "uint64"])
        self.assertEqual(len(sp.barebones_pairs()), 15 * 15 - 12 * 12)
        want = {("uint16", "uint16"): "uint16", ("uint16", "float16"): "float16", ("bfloat16", "uint64"): "bfloat16",
                ("uint32", "float64"): "float64", ("uint16", "int32"): None, ("uint32", "uint16"): None,
                ("uint8", "uint64"): None, ("bool", "uint16"): None, ("complex64", "uint32"): None}
        self.assertEqual({k: sp.promote_barebones(*k) for k in want}, want)
        self.assertEqual(sp.barebones_error, ("RuntimeError", "Promotion for uint16, uint32, uint64 types is not supported"))
        with open(os.path.join(self.runs[0], "emit_gtest.promotion")) as f:
            text = f.read()
        answered = [a for a, b in sp.barebones_pairs() if sp.promote_barebones(a, b)]
        refused = re.findall(r'\{\{"(promote_types\.[a-z0-9]+\.[a-z0-9]+)".*\{true, ErrorKind::kRuntimeError, '
                             r'"Promotion for uint16, uint32, uint64 types is not supported"\}\},', text)
        self.assertEqual(len(refused), 81 - len(answered))
        self.assertIn("promote_types.uint16.int32", refused)
        self.assertIn('"promote_types(uint16, float16) = float16", "float16", "promote_types.barebones"', text)

    def test_a_tensor_of_each_barebones_dtype_keeps_it(self):
        """dtypes.toml [barebones_tensor]: one case per dtype promotion.toml's barebones list names
        (one enumeration), each citing the table's row and basis, its values the table's."""
        text = self.out("emit_gtest.dtypes")
        cases = re.findall(r'\{\{"(dtype\.[a-z0-9]+\.tensor)", "002#torch\.dtype", "pytorch: [^"]*CopyKernel[^"]*", '
                           r'"[^"]*", "([a-z0-9]+)", "dtype\.barebones\.tensor", "([a-z0-9]+)", ""\}, '
                           r'DType::k\w+, \{2, \{0, 1\}\}\},', text)
        self.assertEqual(cases, [(f"dtype.{d}.tensor", d, d) for d in ("uint16", "uint32", "uint64")])
        self.assertIn("TEST_P(DTypeBarebonesTensor, Case)", text)

    def test_json_exports_the_barebones_promotion(self):
        """spec.json's promote_types_barebones view: the three dtypes, c10's refusal, and the 81
        pairs with one of them, a dtype where PyTorch answers and null where it refuses."""
        view = json.loads(self.out("emit_json"))["promote_types_barebones"]
        self.assertEqual(view["dtypes"], ["uint16", "uint32", "uint64"])
        self.assertEqual(view["error"], {"kind": "RuntimeError",
                                         "message": "Promotion for uint16, uint32, uint64 types is not supported"})
        cells = [(a, b, r) for a, row in view["pairs"].items() for b, r in row.items()]
        self.assertEqual(len(cells), 15 * 15 - 12 * 12)
        self.assertEqual(view["pairs"]["uint16"]["float16"], "float16")
        self.assertEqual(view["pairs"]["uint32"]["uint32"], "uint32")
        self.assertIsNone(view["pairs"]["uint16"]["int32"])
        self.assertIsNone(view["pairs"]["bool"]["uint64"])

    def test_promote_types_is_the_lattice_join(self):
        self.assertEqual(len(self.spec.documented), 12)
        self.assertEqual(len(self.spec.matrix), 144)
        for (a, b), r in self.spec.matrix.items():
            self.assertEqual(self.spec.lattice_join(a, b), r, f"promote_types({a}, {b})")


# ------------------------------------------------------------------ the statement table
def spec_sources_dir() -> str | None:
    """The documents (spec-sources/, outside the repository): $TCTS_SPEC_SOURCES, else
    shared/spec-sources in an ancestor of this file's real path (the main checkout's
    ../shared/spec-sources; under Bazel the runfile links back to the source tree)."""
    if os.environ.get("TCTS_SPEC_SOURCES"):
        return os.environ["TCTS_SPEC_SOURCES"]
    for start in (HERE, os.path.dirname(os.path.realpath(__file__))):
        d = start
        while True:
            if os.path.isdir(os.path.join(d, "shared", "spec-sources")):
                return os.path.join(d, "shared", "spec-sources")
            if os.path.dirname(d) == d:
                break
            d = os.path.dirname(d)
    return None


def normalise(text: str) -> str:
    """Every run of whitespace as one space: a quote may join the document's line breaks."""
    return re.sub(r"\s+", " ", text).strip()



class Formats(unittest.TestCase):
    """The value model's floating formats come from dtypes.toml's bits (arith_model.Format):
    its largest finite value, smallest normal value and eps agree with the host's IEEE 754
    decoding of the same bit patterns (struct: binary16 'e', binary32 'f', binary64 'd';
    a bfloat16 is the upper half of a binary32)."""

    DECODE = {
        "float16": lambda n: struct.unpack("<e", n.to_bytes(2, "little"))[0],
        "bfloat16": lambda n: struct.unpack("<f", (n << 16).to_bytes(4, "little"))[0],
        "float32": lambda n: struct.unpack("<f", n.to_bytes(4, "little"))[0],
        "float64": lambda n: struct.unpack("<d", n.to_bytes(8, "little"))[0],
    }

    def test_formats_agree_with_the_bit_patterns(self):
        import arith_model as am
        spec = Spec.load([os.path.join(SPEC, f) for f in SPEC_INPUTS])
        floating = [d for d in spec.dtypes if d.is_floating_point]
        self.assertEqual(sorted(d.name for d in floating), sorted(self.DECODE), "a floating dtype with no decoder here")
        for d in floating:
            with self.subTest(dtype=d.name):
                decode, (_, e, t) = self.DECODE[d.name], d.bits
                fmt = spec.numbers.format(d.name)
                self.assertEqual(am.max_finite(fmt), decode(((2 ** e - 2) << t) | (2 ** t - 1)))
                self.assertEqual(am.tiny(fmt), decode(1 << t))
                one = (2 ** (e - 1) - 1) << t
                self.assertEqual(decode(one), 1.0)
                self.assertEqual(am.eps(fmt), decode(one + 1) - 1.0)
                self.assertEqual(am.round_to(am.max_finite(fmt) * (1 + am.eps(fmt)), fmt), float("inf"))
        for d in spec.dtypes:
            if d.is_complex:
                with self.subTest(dtype=d.name):
                    self.assertEqual(spec.numbers.format(d.name), spec.numbers.format(d.part))
                    self.assertEqual(spec.by_name[d.part].itemsize * 2, d.itemsize)
        self.assertEqual(am.DOUBLE, spec.numbers.format("float64"))


class Derivations(unittest.TestCase):
    """derives_from (spec_schema.DERIVATION): what a row derives from, for the reports' root
    causes. The real spec's graph is acyclic and names only fact rows; an unknown id, the row
    itself, a cycle or an unknown check kind is refused naming the file and the row; a
    statement's `checks` must be check kinds too."""

    def load_mutated(self, fname: str, old: str, new: str):
        with tempfile.TemporaryDirectory() as tmp:
            for f in SPEC_INPUTS:
                shutil.copy(os.path.join(SPEC, f), tmp)
            path = os.path.join(tmp, fname)
            text = read(path)
            self.assertIn(old, text)
            with open(path, "w") as f:
                f.write(text.replace(old, new, 1))
            return Spec.load([os.path.join(tmp, f) for f in SPEC_INPUTS])

    def test_real_spec_derivations(self):
        spec = Spec.load([os.path.join(SPEC, f) for f in SPEC_INPUTS])
        self.assertEqual(spec.derives_from["op.add"], ("result_type.rules",))
        self.assertIn("promote_types", spec.derives_from["result_type.rules"])
        self.assertIn("can_cast.rules", spec.derives_from["output_casting.rule"])
        self.assertIn("memory_format.contiguous_format", spec.derives_from["view.transpose"])

    def test_bad_derivations_are_refused(self):
        add = 'id = "op.add"\nderives_from = ["result_type.rules:dtype"]'
        for old, new, fragments in [
            (add, 'id = "op.add"\nderives_from = ["result_type.rulez:dtype"]',
             ["op.add", "derives_from names 'result_type.rulez'", "did you mean 'result_type.rules'"]),
            (add, 'id = "op.add"\nderives_from = ["op.add"]', ["op.add", "names the row itself"]),
            (add, 'id = "op.add"\nderives_from = ["result_type.rules:dtyp"]', ["op.add", "must be a check kind"]),
            (add, 'id = "op.add"\nderives_from = ["result_type.rules :dtype"]', ["op.add", "must be a row id"]),
            ('derives_from = ["promotion.lattice"]', 'derives_from = ["promotion.lattice", "op.add"]',
             ["derives_from makes a cycle", "promote_types"]),
        ]:
            with self.subTest(new=new):
                with self.assertRaises(SpecError) as e:
                    self.load_mutated("promotion.toml", old, new)
                for frag in fragments:
                    self.assertIn(frag, str(e.exception))

    def test_statement_checks_must_be_check_kinds(self):
        with self.assertRaises(SpecError) as e:
            self.load_mutated("statements.toml", 'id = "002.promotion.minimum_dtype"\nchecks = ["answer", "dtype"]',
                              'id = "002.promotion.minimum_dtype"\nchecks = ["answer", "dtypes"]')
        self.assertIn("must be a check kind", str(e.exception))

class OpRefusals(unittest.TestCase):
    """An [[op]] row's `refuses`: the result dtypes of the categories it names are refused after
    promotion, the output's cast check and the shapes' checks, with the row's kind and message
    ({dtype}: the result dtype's c10 name); every table that sweeps the op expects that error and
    cites the refusal's source."""

    REFUSES = ('symbol = "-"', 'symbol = "-"\nrefuses = { categories = ["complex"], kind = "RuntimeError", '
               'message = "\\"sub_cpu\\" not implemented for \'{dtype}\'", source = "BinaryOpsKernel.cpp sub_kernel" }')

    def test_the_model_refuses_after_promotion_and_the_cast_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            mutated = os.path.join(tmp, "spec")
            os.mkdir(mutated)
            for f in SPEC_INPUTS:
                shutil.copy(os.path.join(SPEC, f), mutated)
            path = os.path.join(mutated, "promotion.toml")
            text = read(path)
            self.assertIn(self.REFUSES[0], text)
            with open(path, "w") as f:
                f.write(text.replace(*self.REFUSES, 1))
            spec = Spec.load([os.path.join(mutated, f) for f in SPEC_INPUTS])
            t = lambda d: Operand("tensor", d)  # noqa: E731
            refused = ("error", "RuntimeError", "\"sub_cpu\" not implemented for 'ComplexFloat'")
            self.assertEqual(spec.op_outcome("sub", t("float32"), t("complex64"), "float32"), refused)
            self.assertEqual(spec.op_outcome("sub", t("complex64"), Operand("scalar", "int"), "float32"), refused)
            self.assertEqual(spec.op_outcome("sub", t("float32"), t("float32"), "float32"), ("ok", "float32", "float32"))
            self.assertEqual(spec.op_outcome("add", t("complex64"), t("complex64"), "float32"),
                             ("ok", "complex64", "complex64"))
            # The output's cast check comes first: complex64 cannot be written to a float32 output.
            cast = spec.op_outcome("sub", t("complex64"), t("complex64"), "float32", "float32")
            self.assertEqual(cast[:2], ("error", spec.cast_error_kind))
            self.assertIn("ComplexFloat can't be cast", cast[2])
            self.assertEqual(spec.op_outcome("sub", t("complex64"), t("complex64"), "float32", refusal=False),
                             ("ok", "complex64", "complex64"))
            # The tables: the swept value and promotion rows expect the refusal and cite its source.
            for suite, row in (("arithmetic", '"arith.values.sub.complex64"'),
                               ("promotion", '"binary.sub.t_complex64.t_complex64"')):
                out = os.path.join(tmp, suite + ".cc")
                r = run_emitter("emit_gtest.py", suite, mutated, out)
                self.assertEqual(r.returncode, 0, r.stderr)
                line = next(l for l in read(out).splitlines() if row in l)
                self.assertIn("BinaryOpsKernel.cpp sub_kernel", line)
                self.assertIn('true, ErrorKind::kRuntimeError, "\\"sub_cpu\\" not implemented for \'ComplexFloat\'"', line)
                kept = next(l for l in read(out).splitlines() if row.replace("complex64", "float32") in l)
                self.assertNotIn("not implemented", kept)


class NewBinaryOp(unittest.TestCase):
    """Issue 51 item 4: a binary op added to the spec needs its [[op]] row (with a statement or
    [[silent]] row naming it) and its arithmetic in the oracle (one arith_model.OpArith in OPS);
    every generated list takes it from there — the C++ BinaryOp enum, names and symbols, hello's
    binary_ops, spec.json, the promotion and arithmetic tables (refusals included). A scratch op
    (Python's modulus, `%`) is carried through here in memory; without its OpArith the spec is
    refused naming the row."""

    ROW = """
[[op]]
id = "op.remainder"
derives_from = ["result_type.rules:dtype"]
name = "remainder"
symbol = "%"
symbol_source = "pytorch: torch/csrc/autograd/python_variable_methods.cpp variable_methods: __mod__"
clause = "002#type-promotion"
basis = "pytorch"
source = "aten/src/ATen/native/BinaryOps.cpp remainder"
refuses = { categories = ["bool", "complex"], kind = "RuntimeError", message = "not implemented for '{dtype}'", source = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp remainder_kernel" }
"""
    SILENT = '\n[[silent]]\nwhy = "scratch"\nrows = ["op.remainder"]\n'

    def spec_dir(self, tmp: str) -> str:
        d = os.path.join(tmp, "spec")
        os.mkdir(d)
        for f in SPEC_INPUTS:
            shutil.copy(os.path.join(SPEC, f), d)
        for name, extra in (("promotion.toml", self.ROW), ("statements.toml", self.SILENT)):
            with open(os.path.join(d, name), "a", encoding="utf-8") as f:
                f.write(extra)
        return d

    @staticmethod
    def remainder():
        """The scratch op's arithmetic (real and integral only: its row refuses bool and complex)."""
        import math
        import arith_model as am

        class Remainder(am.OpArith):
            name = "remainder"

            def special(self, a, b):
                if b == 0 or math.isinf(a):
                    return math.nan
                if not math.isinf(b):
                    return None
                return a if a == 0 or (a < 0) == (b < 0) else b

            def exact(self, a, b):
                return a - b * math.floor(a / b)

            def zero(self, a, b):
                return math.copysign(0.0, a)

            def integer(self, a, b):
                if b == 0:
                    raise am.ArithError("internal", "integer remainder by zero raises")
                return a % b

            def rounding_terms(self, ar, ai, br, bi):
                return [ar - br * math.floor(ar / br)] if br else [], ()
        return Remainder()

    def test_a_scratch_op_reaches_every_generated_list(self):
        from unittest import mock
        import arith_model as am
        import emit_cxx
        import emit_gtest
        import emit_json
        with tempfile.TemporaryDirectory() as tmp:
            d = self.spec_dir(tmp)
            paths = [os.path.join(d, f) for f in SPEC_INPUTS]
            with self.assertRaises(SpecError) as e:
                Spec.load(paths)
            self.assertIn("op.remainder", str(e.exception))
            self.assertIn("registered in OPS", str(e.exception))
            # An OpArith that lacks a category the row lets through is refused, naming it.
            partial = type("PartialRemainder", (type(self.remainder()),), {"integer": am.OpArith.integer})()
            with mock.patch.dict(am.OPS, {"remainder": partial}), self.assertRaises(SpecError) as e:
                Spec.load(paths)
            for fragment in ("op.remainder", "PartialRemainder", "no integral arithmetic (integer)", "refuses"):
                self.assertIn(fragment, str(e.exception))
            with mock.patch.dict(am.OPS, {"remainder": self.remainder()}):
                spec = Spec.load(paths)
                self.assertEqual(spec.op_names[-1], "remainder")
                self.assertIn('_(kRemainder, "remainder", "%", false, false)', emit_cxx.emit(spec, "binary_ops"))
                self.assertEqual(list(emit_json.export(spec)["ops"]["remainder"]["refuses"]["categories"]), ["bool", "complex"])
                promotion = emit_gtest.emit(spec, "promotion")
                arithmetic = emit_gtest.emit(spec, "arithmetic")
            r = subprocess.run([sys.executable, os.path.join(HERE, "emit_interface.py"), "--suite", "json", "--out",
                                os.path.join(tmp, "interface.json"), *[os.path.join(d, f) for f in INTERFACE_INPUTS]],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            hello = json.loads(read(os.path.join(tmp, "interface.json")))
            self.assertIn({"name": "remainder", "symbol": "%"}, hello["binary_ops"])

        def row(text: str, row_id: str) -> str:
            return next(line for line in text.splitlines() if f'"{row_id}"' in line)
        self.assertIn("not implemented for 'ComplexFloat'", row(promotion, "binary.remainder.t_complex64.t_complex64"))
        self.assertIn("remainder_kernel", row(promotion, "binary.remainder.t_bool.t_bool"))
        self.assertIn("-> dtype int32", row(promotion, "binary.remainder.t_int32.t_int16"))
        self.assertIn("not implemented for 'Bool'", row(arithmetic, "arith.values.remainder.bool"))
        values = row(arithmetic, "arith.values.remainder.float32")
        self.assertIn("{false, ErrorKind::kRuntimeError, \"\"}", values)
        self.assertIn("BinaryOp::kRemainder", values)


class StatementTable(unittest.TestCase):
    """spec/statements.toml against the documents: every quote is in the document its clause
    names (after normalise()). That each statement has rows or a reason, that its rows exist
    and that every row is claimed (or silent) is the loader's (Malformed has a case of each)."""

    @classmethod
    def setUpClass(cls):
        cls.files = load_files(SPEC)
        cls.spec = Spec.load([os.path.join(SPEC, f) for f in SPEC_INPUTS])

    def documents(self) -> dict[str, str]:
        where = spec_sources_dir()
        if where is None:
            msg = ("SKIPPED: the quote check did not run: no spec-sources directory ($TCTS_SPEC_SOURCES, or "
                   f"shared/spec-sources in an ancestor of {HERE} or of {os.path.realpath(__file__)})")
            print(msg, file=sys.stderr)
            self.skipTest(msg)
        out = {}
        for d in self.files["sources.toml"][1]["document"]:
            path = os.path.join(where, d["file"])
            self.assertTrue(os.path.isfile(path), f"document {d['id']}: {path} is missing")
            out[d["id"]] = normalise(read(path))
        return out

    def test_every_quote_is_in_its_document(self):
        docs = self.documents()
        for st in self.spec.statements:
            with self.subTest(statement=st["id"]):
                doc = st["clause"].split("#")[0]
                self.assertTrue(normalise(st["quote"]) in docs[doc],
                                f"{st['id']}: the quote is not in document {doc}: {st['quote']!r}")
                # the check can fail: the quote with one more character is not found
                self.assertFalse(normalise(st["quote"]) + "\u2063" in docs[doc])

    def test_the_documents_are_covered(self):
        """Every document has statements, each under its own number; 001 only what the others lack."""
        by_doc = {}
        for st in self.spec.statements:
            doc = st["clause"].split("#")[0]
            self.assertTrue(st["id"].startswith(doc + "."), f"{st['id']}: the id does not start with {doc}.")
            by_doc.setdefault(doc, []).append(st)
        self.assertEqual(sorted(by_doc), ["000", "001", "002", "003", "004"])
        for doc, sts in sorted(by_doc.items()):
            tested = sum(1 for s in sts if s["rows"])
            print(f"statements of {doc}: {len(sts)}, tested {tested}, untested {len(sts) - tested}", file=sys.stderr)


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


if __name__ == "__main__":
    if sys.argv[1:2] == ["--emit-all"]:
        emit_all(*sys.argv[2:4])
        sys.exit(0)
    argv = [a for a in sys.argv if a != "--update"]
    suite = unittest.defaultTestLoader.loadTestsFromNames(argv[1:], sys.modules[__name__]) if argv[1:] else \
        unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    ids = [t.id() for group in suite for t in group]
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        write_junit(result, ids, os.environ["XML_OUTPUT_FILE"])
    sys.exit(0 if result.wasSuccessful() else 1)
