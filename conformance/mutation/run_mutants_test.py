"""The mutant runner (run_mutants.py) on a two-function C++ fixture and a fake suite (the
fixture's own exit status), so that it needs no reference rebuild: a mutant that breaks Add is
KILLED, one that changes an unused constant SURVIVED, one that does not compile DOES-NOT-BUILD,
one that loops TIMEOUT; results are resumable, the checkout is never written, and a survivor
triaged equivalent in a survivors file is not run again. Then the same mutants through one
mutant-schema build (schemata.py; needs the PyPI venv's libclang, $TCTS_SCHEMA_PYTHON): each
classified as its separate build was, a switch that does not compile and does not build alone
DOES-NOT-BUILD, and one that does not compile as a switch but builds alone (a `case` label) built
separately and classified by its run. Standard library only; needs g++ and git."""

import json
import os
import subprocess
import tempfile
import unittest

import run_mutants

FIXTURE = """\
static int kUnused = 7;
int Add(int a, int b) { return a + b; }
long long Loop(long long n) { long long i = 0; while (i < n) i += 1; return i; }
int main() { return Add(2, 3) == 5 && Loop(3) == 3 ? 0 : 1; }
"""
KILLED = "reference/fix.cc:2:34:aor:+->-"
NOOP = "reference/fix.cc:1:22:cst:7->8"
NO_BUILD = "reference/fix.cc:1:22:cst:7->6"  # made not to build by the fake build below
LOOPS = "reference/fix.cc:3:64:aor:+=->-="


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.checkout = os.path.join(self.tmp.name, "checkout")
        os.makedirs(os.path.join(self.checkout, "reference"))
        with open(os.path.join(self.checkout, "reference", "fix.cc"), "w") as f:
            f.write(FIXTURE)
        subprocess.run(["git", "init", "-q"], cwd=self.checkout, check=True)
        self.survivors = os.path.join(self.tmp.name, "survivors.toml")
        with open(self.survivors, "w") as f:
            f.write("")

    def tearDown(self):
        self.tmp.cleanup()

    def run_ids(self, *ids):
        args = ["--mode=separate", "--checkout", self.checkout, "--scratch", os.path.join(self.tmp.name, "scratch"),
                "--results", "out/results.jsonl", "--survivors", self.survivors,
                "--build-cmd", "! grep -q 'kUnused = 6' reference/fix.cc && g++ -O0 -o fix reference/fix.cc",
                "--run-cmd", "./fix", "--timeout", "5", *ids]
        self.assertEqual(run_mutants.main(args), 0)
        with open(os.path.join(self.checkout, "out", "results.jsonl")) as f:
            return {r["id"]: r for r in map(json.loads, f)}

    def test_classifies(self):
        for mid in (KILLED, NOOP, NO_BUILD, LOOPS):
            self.assertIn(mid, {m.id for m in run_mutants.mutate.enumerate_mutants(self.checkout)})
        r = self.run_ids(KILLED, NOOP, NO_BUILD, LOOPS)
        self.assertEqual(r[KILLED]["status"], "KILLED")
        self.assertEqual(r[NOOP]["status"], "SURVIVED")
        self.assertEqual(r[NO_BUILD]["status"], "DOES-NOT-BUILD")
        self.assertEqual(r[LOOPS]["status"], "TIMEOUT")
        with open(os.path.join(self.checkout, "reference", "fix.cc")) as f:
            self.assertEqual(f.read(), FIXTURE)  # the checkout untouched
        with open(os.path.join(self.tmp.name, "scratch", "ws", "reference", "fix.cc")) as f:
            self.assertEqual(f.read(), FIXTURE)  # the scratch copy restored
        rep = json.load(open(os.path.join(self.checkout, "out", "report.json")))
        self.assertEqual(rep["total"]["scored"], 3)
        self.assertEqual(rep["per_file"]["reference/fix.cc"]["killed"], 1)
        self.assertEqual([s["id"] for s in rep["survivors"]], [NOOP])
        self.assertIn("-static int kUnused = 7;", rep["survivors"][0]["diff"])
        md = open(os.path.join(self.checkout, "out", "report.md")).read()
        self.assertIn("66.7 % (2 of 3)", md)

    def test_resumes_and_reads_triage(self):
        self.run_ids(KILLED)
        with open(self.survivors, "w") as f:
            f.write(f'[[survivor]]\nid = "{NOOP}"\nline = "static int kUnused = 7;"\n'
                    'verdict = "equivalent"\nreason = "kUnused is never read"\n')
        r = self.run_ids(KILLED, NOOP)
        lines = open(os.path.join(self.checkout, "out", "results.jsonl")).read().splitlines()
        self.assertEqual(len(lines), 2)  # KILLED not run again
        self.assertEqual(r[NOOP]["status"], "EQUIVALENT")
        rep = json.load(open(os.path.join(self.checkout, "out", "report.json")))
        self.assertEqual(rep["total"]["score"], 1.0)
        self.assertEqual(rep["stale_triage"], [])

    def test_check_against_fails_when_a_recorded_kill_survives(self):
        recorded = os.path.join(self.tmp.name, "recorded.jsonl")
        with open(recorded, "w") as f:
            for mid, status in ((KILLED, "KILLED"), (NOOP, "SURVIVED"), (LOOPS, "TIMEOUT")):
                f.write(json.dumps({"id": mid, "status": status}) + "\n")
        same = {KILLED: {"status": "KILLED"}, NOOP: {"status": "SURVIVED"}, LOOPS: {"status": "TIMEOUT"}}
        self.assertEqual(run_mutants.check_against(recorded, same), 0)
        self.assertEqual(run_mutants.check_against(recorded, dict(same, **{NOOP: {"status": "KILLED"}})), 0)
        self.assertEqual(run_mutants.check_against(recorded, dict(same, **{KILLED: {"status": "SURVIVED"}})), 1)
        self.assertEqual(run_mutants.check_against(recorded, dict(same, **{LOOPS: {"status": "SURVIVED"}})), 1)

    def test_refuses_checkout_as_scratch(self):
        with self.assertRaises(SystemExit):
            run_mutants.sync_scratch(self.checkout, self.checkout)


SCHEMA_FIXTURE = """\
#include <string>
int Unused() { return 7; }
int Add(int a, int b) { return a + b; }
long long Loop(long long n) { long long i = 0; while (i < n) i += 1; return i; }
std::string Greet(const std::string& s) { return "hi " + s; }
int Kind(int x) {
  switch (x) {
    case 1: return 10;
    default: return 0;
  }
}
int main() { return Add(2, 3) == 5 && Loop(3) == 3 && Greet("a") == "hi a" && Kind(1) == 10 ? 0 : 1; }
static const int kTable[] = {4, 5};
"""
S_KILLED = "reference/fix.cc:3:34:aor:+->-"
S_NOOP = "reference/fix.cc:2:23:cst:7->8"
S_LOOPS = "reference/fix.cc:4:64:aor:+=->-="
S_NO_BUILD = "reference/fix.cc:5:56:aor:+->-"   # "hi " - s: no build, as a switch or alone
S_CASE = "reference/fix.cc:8:10:cst:1->2"       # case 2: a switch cannot be a case label; alone it builds
S_STATIC = "reference/fix.cc:13:30:cst:4->5"    # a static initializer: constant-initialized, so built alone
SCHEMA_PYTHON = os.environ.get("TCTS_SCHEMA_PYTHON", run_mutants.DEFAULT_VENV_PYTHON)


def has_libclang():
    try:
        return subprocess.run([SCHEMA_PYTHON, "-c", "import clang.cindex"], capture_output=True).returncode == 0
    except OSError:
        return False


@unittest.skipUnless(has_libclang(), f"no libclang for the schema writer under {SCHEMA_PYTHON} (the PyPI venv)")
class SchemataTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.checkout = os.path.join(self.tmp.name, "checkout")
        os.makedirs(os.path.join(self.checkout, "reference"))
        with open(os.path.join(self.checkout, "reference", "fix.cc"), "w") as f:
            f.write(SCHEMA_FIXTURE)
        subprocess.run(["git", "init", "-q"], cwd=self.checkout, check=True)
        self.survivors = os.path.join(self.tmp.name, "survivors.toml")
        open(self.survivors, "w").close()

    def tearDown(self):
        self.tmp.cleanup()

    def run_mode(self, mode, ids):
        results = f"out/{mode}.jsonl"
        args = [f"--mode={mode}", f"--schema-python={SCHEMA_PYTHON}", "--checkout", self.checkout,
                "--scratch", os.path.join(self.tmp.name, mode), "--results", results, "--survivors", self.survivors,
                "--build-cmd", "g++ -O0 -o fix reference/fix.cc", "--run-cmd", "./fix --tcts_mutant=$TCTS_MUTANT",
                "--timeout", "5", *ids]
        self.assertEqual(run_mutants.main(args), 0)
        with open(os.path.join(self.checkout, results)) as f:
            return {r["id"]: r for r in map(json.loads, f)}

    def test_schema_classifies_as_separate_builds(self):
        ids = [S_KILLED, S_NOOP, S_LOOPS, S_NO_BUILD, S_CASE, S_STATIC]
        for mid in ids:
            self.assertIn(mid, {m.id for m in run_mutants.mutate.enumerate_mutants(self.checkout)})
        separate = self.run_mode("separate", ids)
        schema = self.run_mode("schemata", ids)
        want = {S_KILLED: "KILLED", S_NOOP: "SURVIVED", S_LOOPS: "TIMEOUT", S_NO_BUILD: "DOES-NOT-BUILD",
                S_CASE: "KILLED", S_STATIC: "SURVIVED"}
        self.assertEqual({i: r["status"] for i, r in separate.items()}, want)
        self.assertEqual({i: r["status"] for i, r in schema.items()}, want)
        self.assertEqual({i: r["build"] for i, r in schema.items()},
                         {S_KILLED: "schema", S_NOOP: "schema", S_LOOPS: "schema", S_NO_BUILD: "separate",
                          S_CASE: "separate", S_STATIC: "separate"})
        self.assertIn("syntax-only", schema[S_NO_BUILD]["detail"]["how"])
        with open(os.path.join(self.checkout, "reference", "fix.cc")) as f:
            self.assertEqual(f.read(), SCHEMA_FIXTURE)  # the checkout untouched
        rep = json.load(open(os.path.join(self.checkout, "out", "report.json")))
        self.assertEqual((rep["meta"]["schema"]["switched"], rep["meta"]["schema"]["separate"]), (3, 3))


if __name__ == "__main__":
    unittest.main()
