"""Every check family can fail: one wrong-answer mode of the test-only candidate "faulty" each.

conformance/adapters/faulty.cc is the reference with faults injected, via its option faults="mode=glob",
on the cases whose id matches the glob; each wrong-answer mode perturbs the reference's real
answer (1 ulp off, one stride off, the wrong dtype, an error accepted, ...). For every check
family this runs a sample of the family's cases (ids matching the glob, from the suite binary's
--tcts_list) on faulty_bin narrowed to the family's suite (--tcts_suites), directly (--tcts_cases, --tcts_stream):
  - with no fault, every sampled case PASSes;
  - with the family's mode on them, at least one FAILs (the failing ids are printed), and a few
    cases of the suite outside the glob, run alongside, still PASS (the fault stays scoped).
Writes the table mode -> family -> cases failed -> first failing case to stdout and to
$TEST_UNDECLARED_OUTPUTS_DIR/mutation_table.md. Standard library only; runs from the runfiles
root under Bazel (//conformance/runner:mutation_test).
"""

import fnmatch
import json
import os
import subprocess
import tempfile
import time
import unittest

SAMPLE = 24  # cases per family, spread over the matching ones
CONTROLS = 4  # cases of the same suite outside the family's glob, which must still pass

# (family, mode, suite, glob over case ids)
FAMILIES = [
    ("dtype attributes (dtype_info)", "dtype_info", "dtypes", "dtype.*"),
    ("dtype names (dtype_from_name)", "dtype_name", "dtypes", "dtype.*.name.*"),
    ("finfo", "finfo", "dtypes", "dtype.*"),
    ("promote_types", "promote_types", "promotion", "promote_types.*"),
    ("result_type", "result_type", "promotion", "result_type.*"),
    ("can_cast", "can_cast", "casting", "can_cast.*"),
    ("out=/in-place cast check", "out_cast", "casting", "out.*"),
    ("alpha check", "alpha", "arithmetic", "arith.alpha.*"),
    ("values (1 ulp)", "value_ulp", "arithmetic", "arith.values.*"),
    ("output layout (binary strides)", "out_strides", "arithmetic", "arith.layout.*"),
    ("empty strides per memory format", "empty_strides", "strided", "empty.channels_last.*"),
    ("is_contiguous", "is_contiguous", "strided", "is_contiguous.*"),
    ("view geometry", "view_geometry", "strided", "transpose.*"),
    ("view vs copy (storage identity)", "view_copies", "strided", "narrow.*"),
    ("storage offset", "storage_offset", "strided", "select.*"),
    ("address formula", "storage_order", "strided", "permute.*"),
    ("write through a view", "write_through", "strided", "property.views.write"),
    ("broadcast error", "broadcast", "arithmetic", "arith.broadcast.*"),
    ("overlap error", "overlap", "arithmetic", "arith.*overlap*"),
    ("device parse", "device_parse", "devices", "device.parse.*"),
    ("device str/repr", "device_str", "devices", "device.parse.*"),
    ("device equality/hash", "device_eq", "devices", "device.equal.*"),
    ("default device", "default_device", "devices", "device.default.*"),
    ("asarray dtype", "asarray_dtype", "asarray", "asarray.sequence.*"),
    ("asarray sharing", "asarray_copies", "asarray", "asarray.tensor.*"),
    ("buffer reinterpretation", "buffer", "asarray", "asarray.buffer.*"),
    ("DLPack export layout", "dlpack_strides", "dlpack", "dlpack.export.*"),
    ("DLPack deleter", "dlpack_deleter", "dlpack", "dlpack.export.*"),
    ("byte_offset on import", "byte_offset", "dlpack", "dlpack.import.*"),
    ("autograd history", "autograd_history", "asarray", "asarray.grad.*"),
    ("asarray requires_grad", "asarray_requires_grad", "asarray", "asarray.grad.*"),
]

_listings = {}


def child_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "TEST_", "XML_OUTPUT"))}
    env.update(RC_PARAMS="max_success=30")
    return env


def listing(suite: str) -> list:
    """(test, case id) of every case of the suite's faulty binary."""
    if suite not in _listings:
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            path = os.path.join(tmp, "cases.list")
            subprocess.run(["conformance/faulty_bin", "--candidate=faulty", f"--tcts_suites={suite}", f"--tcts_list={path}"],
                           env=child_env(), check=True, capture_output=True, timeout=120)
            with open(path, encoding="utf-8") as f:
                _listings[suite] = [(c["test"], c["id"]) for c in map(json.loads, f)]
    return _listings[suite]


def sample(suite: str, glob: str, inside: bool = True, n: int = SAMPLE) -> list:
    """Up to n cases of the suite whose id matches glob (inside) or does not (outside)."""
    # Cases on a CUDA device are NOT_SUPPORTED without a GPU: left out, so that every sampled case
    # passes without a fault on any machine.
    matching = [(t, i) for t, i in listing(suite) if fnmatch.fnmatchcase(i, glob) == inside and "cuda" not in i]
    if len(matching) <= n:
        return matching
    step = len(matching) / n
    return [matching[int(k * step)] for k in range(n)]


def run(suite: str, cases: list, faults: str, messages: dict | None = None) -> dict:
    """case id -> outcome, for `cases` run on the suite's faulty binary with the option faults=`faults`
    (`messages`, when given, receives each case's failure message)."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
        stream, chosen = os.path.join(tmp, "stream.jsonl"), os.path.join(tmp, "cases.txt")
        with open(chosen, "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t, _ in cases))
        p = subprocess.run(["conformance/faulty_bin", "--candidate=faulty", f"--candidate_option=faults={faults}",
                            f"--tcts_suites={suite}", "--seed=7", f"--tcts_cases={chosen}", f"--tcts_stream={stream}"],
                           env=child_env(), capture_output=True, text=True, timeout=120)
        ids = dict(cases)
        with open(stream, encoding="utf-8") as f:
            events = [e for e in map(json.loads, f) if e["event"] == "end"]
        ends = {ids[e["test"]]: e["outcome"] for e in events}
        if messages is not None:
            messages.update({ids[e["test"]]: e.get("message", "") for e in events})
        assert len(ends) == len(cases), (faults, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        return ends


class EveryCheckFamilyCanFail(unittest.TestCase):
    def test_each_family_fails_under_its_mode_and_passes_without(self):
        rows = []
        for family, mode, suite, glob in FAMILIES:
            with self.subTest(family=family, mode=mode):
                cases, others = sample(suite, glob), sample(suite, glob, inside=False, n=CONTROLS)
                self.assertTrue(cases, f"no case of {suite} matches {glob}")
                clean = run(suite, cases + others, "")
                not_passing = {i: o for i, o in clean.items() if o != "PASS"}
                self.assertFalse(not_passing, f"{family}: without a fault these do not pass")
                faulted = run(suite, cases + others, f"{mode}={glob}")
                outside = {i: faulted[i] for _, i in others if faulted[i] != "PASS"}
                self.assertFalse(outside, f"{family}: mode {mode} on {glob} changed cases outside it")
                failed = [i for _, i in cases if faulted[i] == "FAIL"]
                rows.append((mode, family, len(failed), len(cases), failed[0] if failed else "-"))
                print(f"{mode}: {len(failed)}/{len(cases)} FAIL: {' '.join(failed)}", flush=True)
                self.assertTrue(failed, f"{family}: mode {mode} on {glob} made no case fail: {faulted}")
        table = ["| mode | family | cases failed | first failing case |", "|---|---|---|---|"]
        table += [f"| {m} | {fam} | {n}/{total} | {first} |" for m, fam, n, total, first in rows]
        text = "\n".join(table) + "\n"
        print(text)
        out = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
        if out:
            with open(os.path.join(out, "mutation_table.md"), "w", encoding="utf-8") as f:
                f.write(text)


# (mode, suite, property): a wrong answer each property must fail on, saying its cause.
PROPERTY_FAULTS = [
    ("wrong", "promotion", "property.promote_types.commutative"),  # answers its first operand
    ("view_geometry", "strided", "property.transpose.involution"),
    ("view_copies", "strided", "property.views.share_storage"),
]


class AFailingPropertySaysItsCause(unittest.TestCase):
    """Issue 48 item 6: a failing property names the call, what was expected and what was
    observed (prop::Expect / ExpectEqual), as a table case's mismatch does, never only the
    expression RC_ASSERT printed."""

    def test_each_property_fails_with_the_call_the_expected_and_the_observed(self):
        for mode, suite, prop in PROPERTY_FAULTS:
            with self.subTest(prop=prop):
                cases = [(t, i) for t, i in listing(suite) if i == prop]
                self.assertEqual(len(cases), 1, f"{prop} is not a case of {suite}")
                messages = {}
                outcome = run(suite, cases, f"{mode}={prop}", messages)[prop]
                self.assertEqual(outcome, "FAIL", f"{prop} under {mode}: {messages[prop][-600:]}")
                self.assertRegex(messages[prop], r"\w[^\n]*\): expected [^\n]+, observed ", messages[prop][-800:])
                self.assertNotIn("RC_ASSERT(", messages[prop])


if __name__ == "__main__":
    start = time.monotonic()
    try:
        unittest.main(verbosity=2)
    finally:
        print(f"mutation_test: {time.monotonic() - start:.1f} s")
