"""Verdicts independent of the seed (issue 48 item 2): a library shaped unlike torch gets the
same outcome for every case under every seed, properties included.

Runs conformance/runner/run.py on two fixture testees: the properties (what a seed draws)
under seeds 1..SEEDS, and every case of every suite under the first and the last seed:
testdata/partial_testee.py (NumPy without expand, unsqueeze, squeeze, view, reshape,
empty_like and write_element: its view properties draw over the ops it has, and a property
about an op it lacks is NOT_SUPPORTED before any draw) and testdata/nostrides_testee.py (NumPy
declaring strides unsupported). Requires, per fixture: one outcome per case across the seeds,
and the gate (the runner's exit status against NumPy's expectations) the same under each.
Before the properties decided NOT_SUPPORTED before drawing (a204130), seeds 1, 3 and 4 of 1..6
failed a gate that another seed passed. Runs under /usr/bin/python3; SEEDS from the
environment (default 20).
"""

import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.getcwd()  # the runfiles root
TESTDATA = os.path.join(ROOT, "conformance", "protocol", "testdata")
NUMPY_TESTEE_DIR = os.path.join(ROOT, "conformance", "testees", "numpy")
NUMPY_EXPECTATIONS = os.path.join(ROOT, "conformance", "expectations", "numpy.txt")
SUITES = "dtypes,promotion,casting,strided,arithmetic,devices,asarray,dlpack"
SEEDS = int(os.environ.get("TCTS_SEEDS", "20"))


def run(tmp: str, fixture: str, seed: int, only: str = ""):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "XML_OUTPUT", "TESTBRIDGE"))}
    env.update(BUILD_WORKING_DIRECTORY=tmp, TCTS_NUMPY_TESTEE_DIR=NUMPY_TESTEE_DIR)
    out = os.path.join(tmp, f"out-{fixture}-{seed}-{bool(only)}")
    p = subprocess.run([sys.executable, "-m", "conformance.runner.run", "--suites=" + SUITES,
                        f"--testee=/usr/bin/python3 {fixture}.py",
                        f"--candidate={fixture}", "--expectations=" + NUMPY_EXPECTATIONS, f"--out={out}", f"--seed={seed}",
                        "--jobs=2", "--no-stale-check", "--partial-ok", *([f"--filter={only}"] if only else [])],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    path = os.path.join(out, "report.json")
    if not os.path.exists(path):
        raise AssertionError(f"{fixture}, seed {seed}: no report\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    shutil.rmtree(out)
    return p.returncode, {c["id"]: c["outcome"] for c in report["cases"]}, report


class SameVerdictUnderEverySeed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        for name in ("partial_testee", "nostrides_testee"):
            shutil.copy(os.path.join(TESTDATA, name + ".py"), cls.tmp)

    def check(self, fixture: str):
        # The properties (what a seed draws) under every seed; every case under the first and
        # the last (a table case draws nothing, and these two runs show it).
        gates, outcomes, draws = {}, collections.defaultdict(dict), {}
        runs = [(seed, "property.*") for seed in range(1, SEEDS + 1)] + [(1, ""), (SEEDS, "")]
        for seed, only in runs:
            rc, by_case, report = run(self.tmp, fixture, seed, only)
            gates[(seed, only or "every case")] = rc
            for case, outcome in by_case.items():
                outcomes[case][(seed, only)] = outcome
            if seed == 1 and only:
                draws = {c["id"]: c.get("draws", 0) for c in report["cases"]}
        differ = {case: dict(collections.Counter(by_run.values())) for case, by_run in outcomes.items()
                  if len(set(by_run.values())) > 1}
        self.assertEqual(differ, {}, f"{fixture}: cases whose outcome depends on the seed")
        props = [case for case in outcomes if case.startswith("property.")]
        self.assertTrue(props)
        self.assertTrue(all(len(outcomes[case]) == SEEDS + 2 for case in props), fixture)
        self.assertEqual(len({rc for (seed, what), rc in gates.items() if what != "every case"}), 1,
                         f"{fixture}: the gate of the properties per seed: {gates}")
        self.assertEqual(gates[(1, "every case")], gates[(SEEDS, "every case")], f"{fixture}: the gate: {gates}")
        # The strided properties ran: some drew (the count is in each property's report entry).
        strided = {p: n for p, n in draws.items() if p.startswith(("property.views.", "property.clone.",
                                                                   "property.arith."))}
        self.assertGreater(sum(strided.values()), 0, draws)
        print(f"{fixture}: {len(outcomes)} cases ({len(props)} properties over {SEEDS} seeds), one outcome each; "
              f"gates {sorted(set(gates.values()))}; draws under seed 1 {draws}")

    def test_a_library_with_some_view_ops(self):
        self.check("partial_testee")

    def test_a_library_without_strides(self):
        self.check("nostrides_testee")


if __name__ == "__main__":
    unittest.main(verbosity=2)
