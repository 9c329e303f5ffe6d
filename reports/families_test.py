"""Tests of reports/families.py and the families under reports/families/: the NumPy families
against the real NumPy (1.24: np._set_promotion_state('legacy' | 'weak')) where numpy is
importable, cell by cell, for promote_types, can_cast and result_type over the suite's
operands (dimensioned arrays, 0-d arrays, Python numbers; values 3, 2 and True as the suite's
checks make them); the PyTorch family against spec/promotion.toml (its table and its result_type
examples); the classification of a report's answers (the closest family, the counts, the
residual cells) and its place in report.json, report.md, report.html and the comparison page.
"""

import os
import shutil
import subprocess
import tempfile
import tomllib
import unittest

from . import compare
from . import families
from . import render

from .reports_test import case, make

try:
    import numpy as np
except ImportError:  # not Debian's interpreter, or python3-numpy missing
    np = None

FAM = {f["key"]: f for f in families.families()}
DTYPES = [d for d in families.CATEGORY if d != "complex32"]
OPERANDS = [f"t_{d}" for d in DTYPES] + [f"z_{d}" for d in DTYPES] + ["s_bool", "s_int", "s_float", "s_complex"]


def numpy_operand(tok: str, first: bool):
    """The operand as the suite's checks make it (conformance/checks/binary.cc OperandValue):
    3 for the first, 2 for the second, True for bool; a dimensioned tensor has one element."""
    v = 3 if first else 2
    cls, what = tok[0], tok[2:]
    if cls == "s":
        return {"bool": True, "int": v, "float": float(v), "complex": complex(v, 0)}[what]
    value = True if what == "bool" else v
    return np.full((1,) if cls == "t" else (), value, dtype=what)


def numpy_answer(fn, *args) -> str:
    try:
        return fn(*args).name
    except TypeError:
        return families.ERROR


@unittest.skipIf(np is None or not hasattr(np, "_set_promotion_state"),
                 "numpy with np._set_promotion_state (NumPy 1.24) is not importable here")
class NumPyFamilies(unittest.TestCase):
    def setUp(self):
        self.state = np._get_promotion_state()

    def tearDown(self):
        np._set_promotion_state(self.state)

    def check(self, state: str, fam: dict):
        np._set_promotion_state(state)
        self.assertEqual(np._get_promotion_state(), state)
        wrong, compared = [], 0
        numeric = [d for d in DTYPES if d != "bfloat16"]  # NumPy has no bfloat16
        for a in numeric:
            for b in numeric:
                for kind, got in (
                        ("promote_types", numpy_answer(np.promote_types, np.dtype(a), np.dtype(b))),
                        ("can_cast", "true" if np.can_cast(np.dtype(a), np.dtype(b), casting="same_kind") else "false")):
                    compared += 1
                    if families.predict(fam, kind, a, b) != got:
                        wrong.append(f"{kind}({a}, {b}): family {families.predict(fam, kind, a, b)}, numpy {got}")
        for a in OPERANDS:
            for b in OPERANDS:
                if "bfloat16" in a + b:
                    continue
                got = numpy_answer(np.result_type, numpy_operand(a, True), numpy_operand(b, False))
                compared += 1
                if families.result_type(fam, a, b) != got:
                    wrong.append(f"result_type({a}, {b}): family {families.result_type(fam, a, b)}, numpy {got}")
        self.assertEqual(wrong, [], f"{len(wrong)} of {compared} cells differ from NumPy {np.__version__} "
                                    f"in promotion state '{state}'")
        self.assertEqual(compared, 11 * 11 * 2 + 26 * 26)

    def test_legacy_is_numpy_1_value_based(self):
        self.check("legacy", FAM["legacy"])

    def test_weak_is_nep_50(self):
        self.check("weak", FAM["weak"])

    def test_the_two_states_differ_where_the_families_do(self):
        # Not vacuous: the states give different answers, and each family only matches its own.
        np._set_promotion_state("legacy")
        legacy = numpy_answer(np.result_type, numpy_operand("t_float32", True), numpy_operand("z_float64", False))
        np._set_promotion_state("weak")
        weak = numpy_answer(np.result_type, numpy_operand("t_float32", True), numpy_operand("z_float64", False))
        self.assertEqual((legacy, weak), ("float32", "float64"))
        self.assertEqual(families.result_type(FAM["legacy"], "t_float32", "z_float64"), "float32")
        self.assertEqual(families.result_type(FAM["weak"], "t_float32", "z_float64"), "float64")


class PyTorchFamily(unittest.TestCase):
    def test_the_table_and_the_examples_are_spec_promotion_toml(self):
        with open(os.path.join("spec", "promotion.toml"), "rb") as f:
            spec = tomllib.load(f)
        pt = spec["promote_types"]
        for row in pt["rows"]:
            for col, want in zip(pt["columns"], row[1:]):
                self.assertEqual(families.promote(FAM["pytorch"], families.SHORT[row[0]], families.SHORT[col]),
                                 families.SHORT[want])
        token = {"tensor": "t", "zerodim": "z", "scalar": "s"}
        rows = spec["result_type"]["example"] + spec["result_type"]["pytorch"]
        for r in rows:
            a, b = (token[x.split(":")[0]] + "_" + x.split(":")[1] for x in (r["a"], r["b"]))
            self.assertEqual(families.result_type(FAM["pytorch"], a, b), r["result"], r["id"])
        self.assertGreater(len(rows), 12)


class DtypeCodes(unittest.TestCase):
    def test_the_short_codes_and_categories_are_spec_dtypes_toml(self):
        """The families' dtype codes (SHORT: a family file's cells) and categories (CATEGORY, in
        KINDS' order) are spec/dtypes.toml's `short` and `category` of each dtype they name: a code
        or category changed in the spec and not here fails."""
        with open(os.path.join("spec", "dtypes.toml"), "rb") as f:
            rows = {d["name"]: d for d in tomllib.load(f)["dtype"]}
        for code, name in families.SHORT.items():
            self.assertIn(name, rows, f"families.SHORT names {name}, which spec/dtypes.toml has not")
            self.assertEqual(rows[name]["short"], code, name)
            self.assertEqual(families.KINDS[families.CATEGORY[name]], rows[name]["category"], name)
        self.assertEqual(set(families.CATEGORY), set(families.SHORT.values()))


# The C++ element type each dtype stands for in cxx.toml (float16 and bfloat16 have none: "?").
CXX_TYPES = {"uint8": "std::uint8_t", "int8": "std::int8_t", "int16": "std::int16_t", "int32": "std::int32_t",
             "int64": "std::int64_t", "float32": "float", "float64": "double", "complex64": "std::complex<float>",
             "complex128": "std::complex<double>", "bool": "bool"}
CXX_PROGRAM = r"""
#include <complex>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>
template <class T> const char* Name() { return "other"; }
%(names)s
// What a + b is (decltype), or "-" where the expression is ill-formed (SFINAE).
template <class A, class B, class = void> struct Sum { static const char* name() { return "-"; } };
template <class A, class B> struct Sum<A, B, std::void_t<decltype(std::declval<A>() + std::declval<B>())>> {
  static const char* name() { return Name<std::decay_t<decltype(std::declval<A>() + std::declval<B>())>>(); }
};
int main() {
%(rows)s
}
"""


@unittest.skipUnless(shutil.which("g++"), "g++ not found")
class CxxFamily(unittest.TestCase):
    """cxx.toml against the compiler itself (issue 48 item 6): g++ -std=c++17 says, for every two
    element types, decltype(a + b) (or that a + b is ill-formed) and std::is_convertible — the
    family's promote_types and can_cast, cell by cell."""

    @classmethod
    def setUpClass(cls):
        names = "\n".join(f'template <> const char* Name<{t}>() {{ return "{d}"; }}' for d, t in CXX_TYPES.items())
        rows = []
        for a, ta in CXX_TYPES.items():
            for b, tb in CXX_TYPES.items():
                rows.append(f'  std::printf("%s %s %s %s\\n", "{a}", "{b}", Sum<{ta}, {tb}>::name(), '
                            f'std::is_convertible<{ta}, {tb}>::value ? "true" : "false");')
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as d:
            src, exe = os.path.join(d, "cxx_family.cc"), os.path.join(d, "cxx_family")
            with open(src, "w", encoding="utf-8") as f:
                f.write(CXX_PROGRAM % {"names": names, "rows": "\n".join(rows)})
            subprocess.run(["g++", "-std=c++17", "-o", exe, src], check=True, capture_output=True, text=True)
            out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        cls.compiler = {(a, b): (plus, conv) for a, b, plus, conv in (line.split() for line in out.splitlines())}

    def test_every_stated_cell_is_what_the_compiler_says(self):
        fam = FAM["cxx"]
        compared = 0
        for (a, b), (plus, convertible) in self.compiler.items():
            with self.subTest(a=a, b=b):
                self.assertEqual(families.promote(fam, a, b), plus, f"decltype({CXX_TYPES[a]} + {CXX_TYPES[b]})")
                self.assertEqual(fam["can_cast"][(a, b)], convertible,
                                 f"std::is_convertible<{CXX_TYPES[a]}, {CXX_TYPES[b]}>")
                compared += 1
        self.assertEqual(compared, len(CXX_TYPES) ** 2)
        # The cells it leaves unsaid are exactly those of the types C++ does not have.
        unsaid = {k for k, v in fam["promote_types"].items() if v == families.UNSAID}
        self.assertEqual({d for pair in unsaid for d in pair if d not in CXX_TYPES}, {"float16", "bfloat16"})
        self.assertTrue(all(a not in CXX_TYPES or b not in CXX_TYPES for a, b in unsaid))



def answers_report(name, family, deviate=()):
    """A report whose promote_types, can_cast and result_type cases the spec (PyTorch) states,
    answered as `family` does: a cell where the two differ is an XFAIL with the family's answer."""
    pytorch, fam = FAM["pytorch"], FAM[family]
    cases = []
    short = ["int8", "uint8", "float32", "float64"]
    for kind in ("promote_types", "can_cast"):
        for a in short:
            for b in short:
                spec = families.predict(pytorch, kind, a, b)
                got = families.predict(fam, kind, a, b)
                cases.append(cell(f"{kind}.{a}.{b}", spec, got, answer=spec))
    for a in ("t_int8", "t_float32", "z_int64", "z_float64", "s_int", "s_float"):
        for b in ("t_int8", "t_float32", "z_int64", "z_float64", "s_int", "s_float"):
            spec = families.result_type(pytorch, a, b)
            got = families.result_type(fam, a, b)
            cases.append(cell(f"result_type.{a}.{b}", spec, got, statement=f"result_type({a}, {b}) = {spec}"))
    cases.append(case("result_type.default_float64.s_float.s_int", "PASS",
                      statement="result_type(s_float, s_int) = float64 [default dtype float64]"))
    cases.append(case("promote_types.int8.int16", "NOT_SUPPORTED", answer="int16", feature="promote_types"))
    doc = make(cases)
    doc["candidate"]["name"] = name
    return doc


def cell(case_id, spec, got, **extra):
    if got in (spec, families.UNSAID):
        return case(case_id, "PASS", **extra)
    return case(case_id, "XFAIL", mismatches=[{"check": case_id, "expected": spec,
                                               "observed": got if got != families.ERROR else "TypeError: refused"}],
                **extra)


class Classify(unittest.TestCase):
    def test_each_family_is_named_from_its_own_answers(self):
        for key in ("pytorch", "legacy", "weak"):
            with self.subTest(key):
                got = families.classify(answers_report(key, key)["cases"])
                self.assertEqual(got["closest"], key)
                row = next(r for r in got["families"] if r["key"] == key)
                self.assertEqual(row["agree"], row["compared"])
                self.assertEqual(got["residual"], [])
                self.assertEqual(got["cells"], 2 * 16 + 36)  # the other default, NOT_SUPPORTED: left out

    def test_the_closest_family_counts_agreeing_less_differing_cells(self):
        """A library that promotes within a kind as the Array API does and refuses every mixed pair
        (array_api_strict) agrees with every cell the standard states; 'one type per operation'
        states every refusal too, and refuses the promotions within a kind the library makes. By
        agreeing less differing cells it is the Array API's; by the most agreeing cells (the old
        rule) it was 'none'. And a family does not win by saying less: a library that also
        promotes int8 with float32 as NumPy 1.x does stays 'legacy', though the Array API, silent on
        mixed kinds, disagrees with it on fewer cells."""
        arr, pytorch, legacy = FAM["array_api"], FAM["pytorch"], FAM["legacy"]
        dtypes = ["bool", "uint8", "int8", "int16", "int32", "float32", "float64"]

        def report(answer):
            cases = []
            for a in dtypes:
                for b in dtypes:
                    spec = families.promote(pytorch, a, b)
                    cases.append(cell(f"promote_types.{a}.{b}", spec, answer(a, b), answer=spec))
            return cases

        def strict(a, b):  # mixed kinds refused
            want = families.promote(arr, a, b)
            return families.ERROR if want == families.UNSAID else want
        got = families.classify(report(strict))
        rows = {r["key"]: r for r in got["families"]}
        self.assertEqual((rows["array_api"]["agree"], rows["array_api"]["compared"]), (4 * 4 + 2 * 2 + 1,) * 2)
        self.assertGreater(rows["none"]["agree"], rows["array_api"]["agree"])  # the old rule's pick
        self.assertEqual(got["closest"], "array_api")

        def numpy_like(a, b):  # NumPy 1.x's table, but bool refused beside a number
            if "bool" in (a, b) and a != b:
                return families.ERROR
            return families.promote(legacy, a, b)
        got = families.classify(report(numpy_like))
        rows = {r["key"]: r for r in got["families"]}
        share = {k: rows[k]["agree"] / rows[k]["compared"] for k in ("legacy", "array_api")}
        self.assertGreater(share["array_api"], share["legacy"])  # a share rule would pick array_api
        self.assertEqual(got["closest"], "legacy")

    def test_counts_and_residual_cells(self):
        got = families.classify(answers_report("legacy", "legacy")["cases"])
        pytorch = next(r for r in got["families"] if r["key"] == "pytorch")
        self.assertLess(pytorch["agree"], pytorch["compared"])
        self.assertEqual(pytorch["by_kind"]["promote_types"], {"agree": 16, "compared": 16})
        # result_type(t_int8, z_int64): PyTorch int8, NumPy 1.x value-based int8 too; s_float with int8 differ.
        cases = answers_report("legacy", "legacy")["cases"]
        rows = {r["key"]: r for r in families.classify(cases)["families"]}
        self.assertEqual(rows["legacy"]["by_kind"]["result_type"], {"agree": 36, "compared": 36})
        forced = families.classify(cases, [FAM["pytorch"]])  # only PyTorch to choose from: residual cells listed
        self.assertEqual(forced["closest"], "pytorch")
        self.assertEqual(forced["residual_total"], pytorch["compared"] - pytorch["agree"])
        self.assertIn({"kind": "result_type", "a": "t_int8", "b": "s_float", "family": "float32",
                       "observed": "float64"}, forced["residual"])

    def operations_report(self, answer, result_type=None):
        """add and mul of every pair of a few operands, each answered by `answer(a, b)` (a dtype or
        ERROR); the spec's (PyTorch's) dtype in the statement, as binary rows state it; and, where
        given, the library's own result_type answers."""
        pytorch = FAM["pytorch"]
        ops = ("t_int8", "t_uint8", "t_float32", "z_int64", "s_int", "s_float")
        cases = []
        for op in ("add", "mul", "div"):
            for a in ops:
                for b in ops:
                    spec = families.result_type(pytorch, a, b)
                    got = answer(a, b)
                    mism = [] if got == spec else [
                        {"check": f"{op}({a}, {b})", "kind": "error", "expected": f"a result of dtype {spec}",
                         "observed": "RuntimeError: Type Error: bound to different types"} if got == families.ERROR
                        else {"check": f"{op}({a}, {b})", "kind": "dtype", "expected": spec, "observed": got}]
                    cases.append(case(f"binary.{op}.{a}.{b}", "PASS" if not mism else "XFAIL", mismatches=mism,
                                      statement=f"{op}({a}, {b}) -> dtype {spec}"))
                    if result_type and op == "add":
                        rt = result_type(a, b)
                        cases.append(cell(f"result_type.{a}.{b}", spec, rt, statement=f"result_type({a}, {b}) = {spec}"))
        return cases

    def test_a_library_without_result_type_is_judged_by_its_operations(self):
        """ONNX Runtime's shape: no promote_types, result_type or can_cast, every mixed pair
        refused by its operations: one type per operation. div is not compared (it promotes
        integers to floating)."""
        def one_type(a, b):  # tensors of two types refused; a Python number takes its tensor's type
            if a[0] == b[0] == "s":  # two Python numbers: the spec's (no family here states them)
                return families.result_type(FAM["pytorch"], a, b)
            if "s" in (a[0], b[0]):
                return families.result_type(FAM["none"], a, b)
            return a[2:] if a[2:] == b[2:] else families.ERROR
        got = families.classify(self.operations_report(one_type))
        self.assertEqual(got["closest"], "none")
        self.assertEqual(got["cells"], 2 * 36)
        self.assertEqual(next(r for r in got["families"] if r["key"] == "none")["by_kind"]["operations"]["compared"] > 0,
                         True)
        self.assertNotIn("disagreements", got)
        self.assertIn("add, mul (result dtype)", render.FAMILY_HEADER)

    def test_operations_that_disagree_with_their_own_result_type_are_named(self):
        """uint8 + 1 -> int64 while the library's result_type(uint8, 1) says uint8."""
        pytorch = FAM["pytorch"]

        def add(a, b):
            if {a, b} == {"t_uint8", "s_int"}:
                return "int64"
            return families.result_type(pytorch, a, b)
        got = families.classify(self.operations_report(add, lambda a, b: families.result_type(pytorch, a, b)))
        self.assertEqual(got["closest"], "pytorch")
        self.assertEqual(got["disagreements_total"], 4)  # add and mul, both operand orders
        self.assertIn({"a": "t_uint8", "b": "s_int", "op": "add", "result_type": "uint8", "observed": "int64"},
                      got["disagreements"])
        self.assertIn({"kind": "add", "a": "t_uint8", "b": "s_int", "family": "uint8", "observed": "int64"},
                      got["residual"])
        self.assertIn("disagree with its own result_type in 4 cells", render.family_intro(got))
        # A refusal is no disagreement: its cause may be outside promotion.
        refused = families.classify(self.operations_report(lambda a, b: families.ERROR,
                                                           lambda a, b: families.result_type(pytorch, a, b)))
        self.assertNotIn("disagreements", refused)

    def test_no_answers_no_family(self):
        self.assertIsNone(families.classify([case("a", "PASS")]))

    def test_the_report_names_the_family_everywhere(self):
        doc = answers_report("np", "weak")
        self.assertEqual(doc["promotion_family"]["closest"], "weak")  # built by report.build, schema-valid
        md = render.markdown(doc)
        self.assertIn("## Promotion family", md)
        self.assertIn("follows **NEP 50 'weak' Python scalars**", md)
        page = render.html(doc)
        self.assertIn("id=promotion-family", page)
        self.assertIn("NEP 50 &#39;weak&#39; Python scalars", page)
        cols = [compare.Column("np", "np/report.json", doc),
                compare.Column("torch", "torch/report.json", answers_report("torch", "pytorch"))]
        cmp = compare.markdown(cols)
        self.assertIn("| follows |", cmp)
        self.assertIn("NEP 50 'weak' Python scalars", cmp)
        self.assertIn("<th>follows</th>", compare.html(cols))

    def test_a_family_file_is_checked(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.toml")
            with open(p, "w") as f:
                f.write('key = "x"\nname = "x"\nsource = "s"\n[result_type]\nzero_dim = "loud"\nscalar = "weak"\n')
            with self.assertRaisesRegex(families.FamilyError, "zero_dim must be one of"):
                families.load_family(p)


if __name__ == "__main__":
    unittest.main(verbosity=2)
