"""The suite bundle alone, driven as a stranger drives it (issue 48 item 7): unpacked outside the
repository, bazel off PATH, every command started from the user's own directory (a space in its
path), which holds a copy of the bundle's array-api-strict example testee (a library with no
strides, no storage and strict promotion) and its expectations file:

  - `tcts lint` passes the file against the bundle's case ids, and names a stale pattern;
  - SEEDS seeds each reach a clean gate (nothing unexpected) with one verdict and one set of
    outcomes, the properties' draws included;
  - `tcts diff`, `merge`, `history` and `compare` read and write paths relative to that directory.

    system_python.sh conformance/bundle/bundle_stranger_test.py BUNDLE.tar.gz PYTHON
PYTHON runs the testee (the PyPI venv's, which has array-api-strict).
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import stranger_env

SEEDS = ("1", "2", "3", "4", "5")
UNEXPECTED = ("FAIL", "XPASS", "CRASH", "TIMEOUT")


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def main() -> None:
    bundle, python = os.path.abspath(sys.argv[1]), sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tcts stranger-", dir=os.environ.get("TEST_TMPDIR"))
    with tarfile.open(bundle) as t:
        t.extractall(tmp)
    tcts = os.path.join(tmp, "tensor-cts-suite", "tcts")
    user = os.path.join(tmp, "my lib")
    os.makedirs(user)
    # The example as the bundle ships it, copied out of the bundle: nothing of the repository.
    shutil.copy(os.path.join(tmp, "tensor-cts-suite", "conformance/testees/array_api_strict/array_api_strict_testee.py"),
                os.path.join(user, "testee.py"))
    shutil.copy(os.path.join(tmp, "tensor-cts-suite", "conformance/expectations/array_api_strict.txt"),
                os.path.join(user, "expectations.txt"))
    env = stranger_env.bazel_free_env(tmp)  # no Bazel variables, the system's tools less bazel

    def tcts_run(args, what, ok=(0,)):
        p = subprocess.run([tcts, *args], cwd=user, env=env, capture_output=True, text=True)
        if p.returncode not in ok:
            fail(f"{what}: `tcts {' '.join(args)}` exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        return p

    # The lint, against this suite's case ids, from the user's directory.
    p = tcts_run(["lint", "--reviewed", "expectations.txt"], "the lint of a reviewed file")
    print(p.stdout.strip())
    with open(os.path.join(user, "stale.txt"), "w") as f:
        f.write("promote_types.int8.no_such_dtype  FAIL  a pattern no case id matches\n")
    p = tcts_run(["lint", "stale.txt"], "the lint of a stale pattern", ok=(1,))
    if "promote_types.int8.no_such_dtype" not in p.stderr:
        fail(f"the lint did not name the stale pattern:\n{p.stderr}")

    # One gate over every seed: nothing unexpected, the same verdict, the same outcome per case.
    testee = f"{python} testee.py"
    seen = {}
    for seed in SEEDS:
        out = f"out/seed{seed}"
        p = tcts_run([f"--testee={testee}", "--expectations=expectations.txt", "--candidate=array_api_strict",
                      f"--seed={seed}", f"--out={out}"], f"the run with --seed={seed}", ok=(0, 3))
        with open(os.path.join(user, out, "report.json")) as f:
            report = json.load(f)
        bad = [f"{c['id']}: {c['outcome']}" for c in report["cases"] if c["outcome"] in UNEXPECTED]
        if bad:
            fail(f"--seed={seed}: {len(bad)} unexpected outcomes:\n  " + "\n  ".join(bad[:20]))
        seen[seed] = (report["summary"]["verdict"], {c["id"]: c["outcome"] for c in report["cases"]})
        print(f"--seed={seed}: {report['summary']['headline']}, {len(report['cases'])} cases, none unexpected")
    first = seen[SEEDS[0]]
    for seed in SEEDS[1:]:
        if seen[seed][0] != first[0]:
            fail(f"the verdict under --seed={seed} is {seen[seed][0]}, under --seed={SEEDS[0]} {first[0]}")
        changed = sorted(k for k in first[1] if first[1][k] != seen[seed][1].get(k))
        if changed or set(first[1]) != set(seen[seed][1]):
            fail(f"--seed={seed} changed the outcome of {changed[:20]} (or the cases run)")

    # The report tools, with paths relative to the user's directory.
    a, b = "out/seed1/report.json", "out/seed2/report.json"
    p = tcts_run(["diff", a, b], "tcts diff")
    tcts_run(["history", "append", a, "history.jsonl"], "tcts history append")
    tcts_run(["history", "render", "history.jsonl", "history.html"], "tcts history render")
    tcts_run(["compare", a, b, "--out", "compared"], "tcts compare")
    # Two shards of one run (disjoint cases, as a CI matrix splits it), joined into one report.
    for shard, glob in (("a", "dtype.*"), ("b", "promote_types.*")):
        tcts_run([f"--testee={testee}", "--expectations=expectations.txt", "--candidate=array_api_strict",
                  f"--filter={glob}", "--no-stale-check", f"--out=shards/{shard}"], f"the shard {glob}", ok=(0, 3))
    tcts_run(["merge", "shards/a/report.json", "shards/b/report.json", "--out=merged", "--no-stale-check"], "tcts merge",
             ok=(0, 3))  # the merged run's verdict, as a run's exit status
    for rel in ("history.jsonl", "history.html", "compared/compare.md", "merged/report.json"):
        if not os.path.isfile(os.path.join(user, rel)):
            fail(f"a report tool did not write {rel} in the user's directory (it has {sorted(os.listdir(user))})")
    print("lint, diff, history, compare and merge read and wrote paths relative to the user's directory")
    print("PASS")


if __name__ == "__main__":
    main()
