"""The promotion families of libraries from PyPI against those libraries (issue 49 item 3), cell
by cell: promote_types, can_cast over the suite's twelve dtypes and result_type over its operands
(a dimensioned array, a 0-d array, a Python number: conformance/checks/binary.cc OperandValue),
under the interpreter that has them (the PyPI venv's):

    reports/families/jax.toml        JAX with jax_enable_x64 (can_cast: casting='same_kind')
    reports/families/array_api.toml  array_api_strict, the Array API standard's reference
                                     (promote_types: result_type of two dtypes; no float16,
                                     bfloat16: those cells are not compared)
    reports/families/weak.toml       NumPy 2, whose only promotion is NEP 50 (can_cast:
                                     casting='same_kind'; no bfloat16: not compared)

    /usr/bin/python3 -m reports.families_pypi_test --python=/opt/tensor-cts/venv/bin/python

It fails on any cell where a family file and its library differ, naming each.
"""

import json
import subprocess
import sys
import unittest

from . import families

PYTHON = ""
DTYPES = [d for d in families.CATEGORY if d != "complex32"]
OPERANDS = [f"t_{d}" for d in DTYPES] + [f"z_{d}" for d in DTYPES] + ["s_bool", "s_int", "s_float", "s_complex"]

# Each library's answers, computed in the interpreter that has it: a JSON object of cell -> dtype
# name ("-" where the library refuses, "?" where it has no such dtype).
PROBE_JAX = r"""
import json, os, sys
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["JAX_ENABLE_X64"] = "1"
import jax, jax.numpy as jnp
assert jax.config.jax_enable_x64
dtypes, operands = json.loads(sys.argv[1])

def operand(tok, first):
    v = 3 if first else 2
    cls, what = tok[0], tok[2:]
    if cls == "s":
        return {"bool": True, "int": v, "float": float(v), "complex": complex(v, 0)}[what]
    return jnp.full((1,) if cls == "t" else (), True if what == "bool" else v, dtype=what)

def answer(fn, *args):
    try:
        return jnp.dtype(fn(*args)).name
    except TypeError:
        return "-"

out = {"version": jax.__version__}
for a in dtypes:
    for b in dtypes:
        out[f"promote_types({a}, {b})"] = answer(jnp.promote_types, a, b)
        out[f"can_cast({a}, {b})"] = "true" if jnp.can_cast(jnp.dtype(a), jnp.dtype(b), casting="same_kind") else "false"
for a in operands:
    for b in operands:
        out[f"result_type({a}, {b})"] = answer(jnp.result_type, operand(a, True), operand(b, False))
print(json.dumps(out))
"""

PROBE_ARRAY_API = r"""
import json, sys
import array_api_strict as xp
dtypes, operands = json.loads(sys.argv[1])
have = {d: getattr(xp, d) for d in dtypes if hasattr(xp, d)}
names = {v: k for k, v in have.items()}

def operand(tok, first):
    v = 3 if first else 2
    cls, what = tok[0], tok[2:]
    if cls == "s":
        return {"bool": True, "int": v, "float": float(v), "complex": complex(v, 0)}[what]
    x = xp.asarray(True if what == "bool" else v, dtype=have[what])
    return xp.reshape(x, (1,)) if cls == "t" else x

def answer(fn, *args):
    try:
        return names[fn(*args)]
    except (TypeError, ValueError):
        return "-"

def known(*toks):
    return all(t[2:] in have or t[0] == "s" for t in toks)

out = {"version": xp.__version__}
for a in dtypes:
    for b in dtypes:
        ok = a in have and b in have
        out[f"promote_types({a}, {b})"] = answer(xp.result_type, have[a], have[b]) if ok else "?"
        out[f"can_cast({a}, {b})"] = ("true" if xp.can_cast(have[a], have[b]) else "false") if ok else "?"
for a in operands:
    for b in operands:
        out[f"result_type({a}, {b})"] = answer(xp.result_type, operand(a, True), operand(b, False)) if known(a, b) else "?"
print(json.dumps(out))
"""

PROBE_NUMPY2 = r"""
import json, sys
import numpy as np
assert int(np.__version__.split(".")[0]) >= 2
dtypes, operands = json.loads(sys.argv[1])
have = [d for d in dtypes if d != "bfloat16"]  # NumPy has no bfloat16

def operand(tok, first):
    v = 3 if first else 2
    cls, what = tok[0], tok[2:]
    if cls == "s":
        return {"bool": True, "int": v, "float": float(v), "complex": complex(v, 0)}[what]
    return np.full((1,) if cls == "t" else (), True if what == "bool" else v, dtype=what)

def answer(fn, *args):
    try:
        return np.dtype(fn(*args)).name
    except TypeError:
        return "-"

def known(*toks):
    return all(t[0] == "s" or t[2:] in have for t in toks)

out = {"version": np.__version__}
for a in dtypes:
    for b in dtypes:
        ok = a in have and b in have
        out[f"promote_types({a}, {b})"] = answer(np.promote_types, a, b) if ok else "?"
        out[f"can_cast({a}, {b})"] = (("true" if np.can_cast(np.dtype(a), np.dtype(b), casting="same_kind")
                                       else "false") if ok else "?")
for a in operands:
    for b in operands:
        out[f"result_type({a}, {b})"] = answer(np.result_type, operand(a, True), operand(b, False)) if known(a, b) else "?"
print(json.dumps(out))
"""


def ask(probe: str) -> dict:
    run = subprocess.run([PYTHON, "-c", probe, json.dumps([DTYPES, OPERANDS])], capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{PYTHON} could not ask the library (exit {run.returncode}): {run.stderr[-2000:]}")
    return json.loads(run.stdout)


def family(key: str) -> dict:
    return next(f for f in families.families() if f["key"] == key)


class Cells:
    """What a family predicts for each cell, and where it and the library (self.lib) differ."""

    def differences(self, fam):
        """Each cell where family `fam` and the library differ, and how many cells it says something of."""
        cells = {}
        for a in DTYPES:
            for b in DTYPES:
                cells[f"promote_types({a}, {b})"] = families.predict(fam, "promote_types", a, b)
                cells[f"can_cast({a}, {b})"] = families.predict(fam, "can_cast", a, b)
        for a in OPERANDS:
            for b in OPERANDS:
                cells[f"result_type({a}, {b})"] = families.result_type(fam, a, b)
        said = {cell: want for cell, want in cells.items() if want != families.UNSAID and self.lib[cell] != "?"}
        return [f"{cell}: family {want}, library {self.lib[cell]}" for cell, want in said.items()
                if self.lib[cell] != want], len(said)


class JaxFamily(Cells, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.family = family("jax")
        cls.lib = cls.jax = ask(PROBE_JAX)

    def test_every_cell_is_jax(self):
        wrong, said = self.differences(self.family)
        self.assertEqual(wrong, [], f"{len(wrong)} of {said} cells of reports/families/jax.toml differ from "
                                    f"JAX {self.jax['version']}")
        self.assertEqual(said, 12 * 12 * 2 + 28 * 28)  # every cell says something

    def test_it_is_not_nep_50(self):
        # Not vacuous: the lattice differs from NumPy's where the file says so, and JAX agrees.
        weak = next(f for f in families.families() if f["key"] == "weak")
        self.assertEqual(families.predict(weak, "promote_types", "int64", "float16"), "float64")
        self.assertEqual(families.predict(self.family, "promote_types", "int64", "float16"), "float16")
        self.assertEqual(self.jax["promote_types(int64, float16)"], "float16")
        self.assertEqual(self.jax["promote_types(bfloat16, float16)"], "float32")

    def test_a_changed_cell_is_found(self):
        changed = dict(self.family, promote_types=dict(self.family["promote_types"]))
        changed["promote_types"][("int64", "float16")] = "float64"
        wrong, _ = self.differences(changed)
        self.assertIn("promote_types(int64, float16): family float64, library float16", wrong)
        # result_type follows promote_types for two dimensioned arrays: that cell moves too.
        self.assertIn("result_type(t_int64, t_float16): family float64, library float16", wrong)


class ArrayApiFamily(Cells, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.family = family("array_api")
        cls.lib = ask(PROBE_ARRAY_API)

    def test_every_cell_is_array_api_strict(self):
        wrong, said = self.differences(self.family)
        self.assertEqual(wrong, [], f"{len(wrong)} of {said} cells of reports/families/array_api.toml differ from "
                                    f"array_api_strict {self.lib['version']}")
        # the ten dtypes it has: can_cast 10 x 10; promote_types within a kind only (integers
        # 5 x 5, real and complex floating 4 x 4, bool 1: the standard leaves mixed kinds
        # unspecified); result_type the 240 pairs of its 24 operands the standard states (no two
        # Python numbers, no mixed kinds, a Python scalar beside an array of its kind or a higher)
        self.assertEqual(said, 10 * 10 + (5 * 5 + 4 * 4 + 1) + 240)

    def test_the_scalar_rules_are_the_standards(self):
        # Not vacuous: a complex beside a real float, as the standard says; a bool beside a number
        # and a float beside an integer array, which the standard leaves unspecified (the family
        # says nothing: '?'), array_api_strict refuses.
        self.assertEqual(self.lib["result_type(t_float32, s_complex)"], "complex64")
        self.assertEqual(families.result_type(self.family, "t_float32", "s_complex"), "complex64")
        self.assertEqual(self.lib["result_type(t_int32, s_bool)"], "-")
        self.assertEqual(families.result_type(self.family, "t_int32", "s_bool"), "?")
        self.assertEqual(self.lib["result_type(t_int8, s_float)"], "-")
        self.assertEqual(families.result_type(self.family, "t_int8", "s_float"), "?")
        self.assertEqual(families.promote(self.family, "int8", "float32"), "?")

    def test_a_changed_cell_is_found(self):
        changed = dict(self.family, can_cast=dict(self.family["can_cast"]))
        changed["can_cast"][("float64", "float32")] = "true"
        wrong, _ = self.differences(changed)
        self.assertIn("can_cast(float64, float32): family true, library false", wrong)


class NumPy2Family(Cells, unittest.TestCase):
    """NEP 50 ('weak') against NumPy 2, where it is the only promotion state (numpy2, and
    TensorFlow's NumPy API, which promotes by np.result_type)."""

    @classmethod
    def setUpClass(cls):
        cls.family = family("weak")
        cls.lib = ask(PROBE_NUMPY2)

    def test_every_cell_is_numpy_2(self):
        wrong, said = self.differences(self.family)
        self.assertEqual(wrong, [], f"{len(wrong)} of {said} cells of reports/families/weak.toml differ from "
                                    f"NumPy {self.lib['version']}")
        self.assertGreater(said, 11 * 11 * 2 + 20 * 20)  # the eleven dtypes NumPy has, and more

    def test_python_numbers_are_weak(self):
        # Not vacuous: NEP 50's rule, where NumPy 1.x's legacy one differs (uint8 + 300 is uint8,
        # a float beside a float16 array float16).
        self.assertEqual(self.lib["result_type(t_uint8, s_int)"], "uint8")
        self.assertEqual(self.lib["result_type(t_float16, s_float)"], "float16")
        self.assertEqual(families.result_type(self.family, "t_float16", "s_float"), "float16")

    def test_a_changed_cell_is_found(self):
        changed = dict(self.family, promote_types=dict(self.family["promote_types"]))
        changed["promote_types"][("int64", "float16")] = "float16"
        wrong, _ = self.differences(changed)
        self.assertIn("promote_types(int64, float16): family float16, library float64", wrong)


if __name__ == "__main__":
    for arg in list(sys.argv[1:]):
        if arg.startswith("--python="):
            PYTHON = arg.removeprefix("--python=")
            sys.argv.remove(arg)
    if not PYTHON:
        sys.exit("families_jax_test.py: --python=INTERPRETER (one that imports jax) is required")
    unittest.main()
