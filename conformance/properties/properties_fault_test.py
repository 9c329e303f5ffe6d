"""Every property can fail, and none passes vacuously.

Runs each property of the suites on the test-only candidate "faulty" (conformance/adapters/faulty.cc:
the reference, answering wrongly in the case TCTS_FAULTS names) and reads its record from the
result stream (conformance/harness/stream.h):
  - no fault: PASS, with every draw checked;
  - every call answering NotSupported while the features are declared supported: FAIL;
  - every call answering an error (no operand can be built): FAIL;
  - the features declared unsupported and answered so: NOT_SUPPORTED, naming the call, not PASS;
  - the wrong answers one property exists to catch: result_type inspecting values (NumPy 1.x's
    value-based promotion), and a library without channels_last that agrees with itself
    (empty, contiguous and is_contiguous): FAIL.
Standard library only; runs from the runfiles root under Bazel
(//conformance/properties:properties_fault_test).
"""

import json
import os
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


def run(suite: str, prop: str, mode: str | None, seed: str = "7") -> dict:
    """The property's end event when the faulty candidate does `mode` in it."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        stream = os.path.join(tmp, "stream.jsonl")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT"))}
        env.update(TCTS_FAULTS=f"{mode}={prop}" if mode else "", RC_PARAMS=f"max_success={DRAWS}")
        binary = "conformance/faulty_bin"
        listing, cases = os.path.join(tmp, "cases.list"), os.path.join(tmp, "cases.txt")
        subprocess.run([binary, "--candidate=faulty", f"--tcts_suites={suite}", f"--tcts_list={listing}"], env=env, check=True,
                       capture_output=True, timeout=300)
        with open(listing, encoding="utf-8") as f:  # <test>\t<case id>\t...
            tests = [line.split("\t")[0] for line in f if line.split("\t")[1:2] == [prop]]
        with open(cases, "w", encoding="utf-8") as f:
            f.write("\n".join(tests) + "\n")
        p = subprocess.run([binary, "--candidate=faulty", f"--seed={seed}", f"--tcts_cases={cases}",
                            f"--tcts_stream={stream}"],
                           env=env, capture_output=True, text=True, timeout=300)
        with open(stream, encoding="utf-8") as f:
            ends = [e for e in map(json.loads, f) if e["event"] == "end"]
        assert len(ends) == 1, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        return ends[0]


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
