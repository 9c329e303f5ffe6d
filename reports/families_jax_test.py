"""reports/families/jax.toml against JAX itself (issue 49 item 3), cell by cell: promote_types,
can_cast (casting='same_kind') over the suite's twelve dtypes and result_type over its operands
(a dimensioned array, a 0-d array, a Python number: conformance/checks/binary.cc OperandValue),
with jax_enable_x64 on, under the interpreter that has JAX (the PyPI venv's):

    /usr/bin/python3 reports/families_jax_test.py --python=/opt/tensor-cts/venv/bin/python

It fails on any cell where the family file and JAX differ, naming each.
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import families  # noqa: E402

PYTHON = ""
DTYPES = [d for d in families.CATEGORY if d != "complex32"]
OPERANDS = [f"t_{d}" for d in DTYPES] + [f"z_{d}" for d in DTYPES] + ["s_bool", "s_int", "s_float", "s_complex"]

# JAX's answers, computed in the interpreter that has JAX: a JSON object of cell -> dtype name
# ("-" where JAX refuses).
PROBE = r"""
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


class JaxFamily(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.family = next(f for f in families.families() if f["key"] == "jax")
        run = subprocess.run([PYTHON, "-c", PROBE, json.dumps([DTYPES, OPERANDS])], capture_output=True, text=True,
                             timeout=600)
        if run.returncode != 0:
            raise RuntimeError(f"{PYTHON} could not ask JAX (exit {run.returncode}): {run.stderr[-2000:]}")
        cls.jax = json.loads(run.stdout)

    def differences(self, fam):
        """Each cell where family `fam` and JAX differ, and how many cells it says something of."""
        cells = {}
        for a in DTYPES:
            for b in DTYPES:
                cells[f"promote_types({a}, {b})"] = families.predict(fam, "promote_types", a, b)
                cells[f"can_cast({a}, {b})"] = families.predict(fam, "can_cast", a, b)
        for a in OPERANDS:
            for b in OPERANDS:
                cells[f"result_type({a}, {b})"] = families.result_type(fam, a, b)
        said = {cell: want for cell, want in cells.items() if want != families.UNSAID}
        return [f"{cell}: family {want}, JAX {self.jax[cell]}" for cell, want in said.items()
                if self.jax[cell] != want], len(said)

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
        self.assertIn("promote_types(int64, float16): family float64, JAX float16", wrong)
        # result_type follows promote_types for two dimensioned arrays: that cell moves too.
        self.assertIn("result_type(t_int64, t_float16): family float64, JAX float16", wrong)


if __name__ == "__main__":
    for arg in list(sys.argv[1:]):
        if arg.startswith("--python="):
            PYTHON = arg.removeprefix("--python=")
            sys.argv.remove(arg)
    if not PYTHON:
        sys.exit("families_jax_test.py: --python=INTERPRETER (one that imports jax) is required")
    unittest.main()
