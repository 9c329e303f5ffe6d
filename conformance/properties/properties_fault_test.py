"""Every property can fail, and none passes vacuously.

Runs each property of the suites on the test-only candidate "faulty" (conformance/adapters/faulty.cc:
the reference, answering wrongly in the case its faults option names) and reads its record from the
result stream (conformance/harness/stream.h):
  - no fault: PASS, with every draw checked;
  - every call answering NotSupported while the features are declared supported: FAIL;
  - every call answering an error (no operand can be built): FAIL;
  - the features declared unsupported and answered so: NOT_SUPPORTED, naming the call, not PASS;
  - the wrong answers one property exists to catch: result_type inspecting values (NumPy 1.x's
    value-based promotion), and a library without channels_last that agrees with itself
    (empty, contiguous and is_contiguous): FAIL.
And every property draws only the dtypes the candidate declares (Candidate::supports_dtype):
  - the faulty candidate declaring NumPy's missing dtypes (bfloat16, complex32) missing: PASS;
  - declaring missing every dtype a property could use: NOT_SUPPORTED, naming them;
  - a testee declaring four dtypes (protocol/testdata/restricted_testee.py: NumPy restricted to
    float32, int32, bool and complex64, refusing any other dtype with TypeError 'Unknown data
    type' as such a library does) is never asked for another: no property meets that refusal.
Standard library only; runs from the runfiles root under Bazel
(//conformance/properties:properties_fault_test).
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

DRAWS = 100  # RapidCheck's max_success for these runs
PROPERTIES = {
    "promotion": ["property.promote_types.commutative", "property.promote_types.idempotent",
                  "property.promote_types.category", "property.result_type.ignores_values"],
    "casting": ["property.inplace.rejected_leaves_destination"],
    "strided": ["property.views.model", "property.views.share_storage", "property.views.write",
                "property.is_contiguous.definition", "property.clone.preserve_format", "property.contiguous.format",
                "property.transpose.involution", "property.views.invalid_requests"],
    "arithmetic": ["property.arith.random_layouts", "property.arith.out_and_inplace"],
}
# Faults one property exists to catch: (suite, property, mode).
TARGETED = [
    ("promotion", "property.result_type.ignores_values", "valuebased"),
    ("strided", "property.is_contiguous.definition", "ignore_format"),
    ("strided", "property.contiguous.format", "ignore_format"),
]


def run(suite: str, prop: str, mode: str | None, seed: str = "7", missing: list[str] = ()) -> dict:
    """The property's end event when the faulty candidate does `mode` in it and declares the
    dtypes `missing` missing (its option missing_dtypes), with the run's dtypes table
    ("dtypes": the begin event's, from spec/dtypes.toml)."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        stream = os.path.join(tmp, "stream.jsonl")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT"))}
        env.update(RC_PARAMS=f"max_success={DRAWS}")
        options = [f"--candidate_option=faults={mode}={prop}" if mode else "--candidate_option=faults=",
                   "--candidate_option=missing_dtypes=" + ",".join(missing)]
        binary = "conformance/faulty_bin"
        listing, cases = os.path.join(tmp, "cases.list"), os.path.join(tmp, "cases.txt")
        subprocess.run([binary, "--candidate=faulty", f"--tcts_suites={suite}", f"--tcts_list={listing}"], env=env, check=True,
                       capture_output=True, timeout=300)
        with open(listing, encoding="utf-8") as f:  # a listed case, as JSON, a line
            tests = [c["test"] for c in map(json.loads, f) if c["id"] == prop]
        with open(cases, "w", encoding="utf-8") as f:
            f.write("\n".join(tests) + "\n")
        p = subprocess.run([binary, "--candidate=faulty", *options, f"--seed={seed}", f"--tcts_cases={cases}",
                            f"--tcts_stream={stream}"],
                           env=env, capture_output=True, text=True, timeout=300)
        with open(stream, encoding="utf-8") as f:
            events = list(map(json.loads, f))
        ends = [e for e in events if e["event"] == "end"]
        assert len(ends) == 1, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        return {**ends[0], "dtypes": next(e for e in events if e["event"] == "begin")["dtypes"]}


class EveryPropertyCanFail(unittest.TestCase):
    def each(self):
        for suite, props in PROPERTIES.items():
            for prop in props:
                yield suite, prop

    def test_passes_with_every_draw_checked(self):
        for suite, prop in self.each():
            with self.subTest(prop=prop):
                e = run(suite, prop, None)
                self.assertEqual(e["outcome"], "PASS", e["message"])
                self.assertEqual(e["draws"], DRAWS)

    def test_not_supported_although_declared_supported_fails(self):
        for suite, prop in self.each():
            with self.subTest(prop=prop):
                e = run(suite, prop, "unsupported")
                self.assertEqual(e["outcome"], "FAIL")
                self.assertIn("is declared supported), observed NotSupported: faulty:", e["message"])

    def test_a_call_that_cannot_answer_fails(self):
        for suite, prop in self.each():
            with self.subTest(prop=prop):
                e = run(suite, prop, "broken")
                self.assertEqual(e["outcome"], "FAIL")
                self.assertIn("RuntimeError: faulty:", e["message"])

    def test_declared_unsupported_and_answered_so_is_not_supported(self):
        for suite, prop in self.each():
            with self.subTest(prop=prop):
                e = run(suite, prop, "undeclared")
                self.assertEqual(e["outcome"], "NOT_SUPPORTED", e["message"])
                self.assertTrue(e["not_supported"])
                self.assertEqual(e["draws"], 0)

    def test_the_wrong_answers_each_property_exists_to_catch(self):
        for suite, prop, mode in TARGETED:
            with self.subTest(prop=prop, mode=mode):
                self.assertEqual(run(suite, prop, None)["outcome"], "PASS")
                e = run(suite, prop, mode)
                self.assertEqual(e["outcome"], "FAIL", e)
                self.assertIn("Falsifiable", e["message"])


def each_property():
    for suite, props in PROPERTIES.items():
        for prop in props:
            yield suite, prop


# The dtypes the strided suite's fixtures may take, in order (checks/strided.h FixtureDTypes):
# the strided and arithmetic properties' fixtures take the first one declared.
FIXTURE_DTYPES = ["int64", "float32", "int32", "float64", "int16"]


class DrawsOnlyDeclaredDTypes(unittest.TestCase):
    def test_a_candidate_without_numpys_missing_dtypes_passes_every_property(self):
        for suite, prop in each_property():
            with self.subTest(prop=prop):
                e = run(suite, prop, None, missing=["bfloat16", "complex32"])
                self.assertEqual(e["outcome"], "PASS", e["message"])
                self.assertEqual(e["draws"], DRAWS)

    def test_fixtures_take_a_declared_dtype(self):
        # int64 missing: the fixtures are float32, and every draw checks.
        for suite in ("strided", "arithmetic"):
            for prop in PROPERTIES[suite]:
                with self.subTest(prop=prop):
                    e = run(suite, prop, None, missing=["int64"])
                    self.assertEqual(e["outcome"], "PASS", e["message"])
                    self.assertEqual(e["draws"], DRAWS)

    def test_nothing_declared_to_draw_is_not_supported_naming_the_dtypes(self):
        every = [d["name"] for d in run("promotion", PROPERTIES["promotion"][0], None)["dtypes"]]
        for suite, prop in each_property():
            missing = FIXTURE_DTYPES if suite in ("strided", "arithmetic") else every
            with self.subTest(prop=prop):
                e = run(suite, prop, None, missing=missing)
                self.assertEqual(e["outcome"], "NOT_SUPPORTED", e["message"])
                self.assertEqual(e["draws"], 0)
                self.assertEqual(e["feature"], "")
                self.assertIn(e["dtype"], missing)
                self.assertTrue(e["not_supported"].startswith("dtypes ") and e["not_supported"].endswith(" (not declared)"),
                                e["not_supported"])
                named = e["not_supported"][len("dtypes "):-len(" (not declared)")].split(", ")
                self.assertEqual(e["dtype"], named[0])
                self.assertTrue(set(named) <= set(missing), named)
                if suite in ("strided", "arithmetic"):
                    self.assertEqual(named, FIXTURE_DTYPES)
                if suite == "promotion":  # the documented twelve
                    self.assertEqual(named, [d["name"] for d in e["dtypes"] if d["required"]])

    def test_a_testee_with_four_dtypes_is_never_asked_for_another(self):
        root = os.getcwd()  # the runfiles root
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            shutil.copy(os.path.join(root, "conformance", "protocol", "testdata", "restricted_testee.py"), tmp)
            open(os.path.join(tmp, "none.txt"), "w").close()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
            env.update(BUILD_WORKING_DIRECTORY=tmp, RC_PARAMS=f"max_success={DRAWS}",
                       TCTS_NUMPY_TESTEE_DIR=os.path.join(root, "conformance", "testees", "numpy"))
            out = os.path.join(tmp, "out")
            p = subprocess.run(["/usr/bin/python3", "-m", "conformance.runner.run", "--suites=" + ",".join(PROPERTIES),
                                "--testee=/usr/bin/python3 restricted_testee.py", "--candidate=restricted",
                                "--expectations=none.txt", f"--out={out}", "--jobs=1", "--seed=7",
                                "--filter=property.*"], capture_output=True, text=True, env=env, timeout=900)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        self.assertEqual({d["name"] for d in report["dtypes"] if d["declared"]}, {"float32", "int32", "bool", "complex64"},
                         p.stdout[-2000:] + p.stderr[-2000:])
        cases = {c["id"]: c for c in report["cases"]}
        self.assertEqual(set(cases), {prop for _, prop in each_property()})
        refused = {i: c["message"] for i, c in cases.items() if "Unknown data type" in c["message"]}
        self.assertEqual(refused, {}, "a property drew a dtype the testee does not declare")
        # What NumPy does over the four: promote_types' properties hold.
        for prop in PROPERTIES["promotion"][:3]:
            self.assertEqual((prop, cases[prop]["outcome"]), (prop, "PASS"), cases[prop]["message"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
