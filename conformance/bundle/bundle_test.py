"""The suite bundle works where a library's CI runs it: unpacked into a directory outside the
repository, with no bazel on PATH, it runs the NumPy testee and its report equals the
in-repository run's case by case (reports/diff: 0 changed), and it carries its version.

    system_python.sh conformance/bundle/bundle_test.py BUNDLE.tar.gz
"""

import json
import re
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

# Two suites keep the test short; they hold every kind of case a testee answers (values,
# handles, errors, NotSupported).
SUITES = "dtypes,promotion"
SEED = "1"  # RapidCheck's, for both runs: see the bundle's run below
FILTER = "*"


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def run(cmd, cwd, env, what):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        fail(f"{what} exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def main() -> None:
    bundle = os.path.abspath(sys.argv[1])
    repo = os.getcwd()  # the test's runfiles tree: the in-repository runner and testee
    # A space in every path: the commands the bundle prints must quote them.
    tmp = tempfile.mkdtemp(prefix="tcts bundle-", dir=os.environ.get("TEST_TMPDIR"))
    with tarfile.open(bundle) as t:
        t.extractall(tmp)
    root = os.path.join(tmp, "tensor-cts-suite")
    # The bundle is its own world: every path its documents name is in it (or said to be in the
    # tensor-cts repository).
    import doc_paths
    import stranger_env

    problems = doc_paths.missing(root)
    if problems:
        fail("the bundle's documents name paths it lacks:\n  " + "\n  ".join(problems))
    if not os.access(os.path.join(root, "tcts"), os.X_OK):
        fail("the bundle has no executable tensor-cts-suite/tcts")
    # What the bundle needs is only the system's: every binary's libraries are Debian's.
    ldd = subprocess.run(["ldd", os.path.join(root, "conformance", "testee_bin")], capture_output=True, text=True)
    for line in ldd.stdout.splitlines():
        path = line.split("=>")[-1].strip().split(" ")[0]
        if path.startswith("/") and not path.startswith(("/lib", "/usr/lib")):
            fail(f"testee_bin links a library outside the system's: {line.strip()}")
        if "not found" in line:
            fail(f"testee_bin needs a library the system lacks: {line.strip()}")

    # A user's own directory, outside the repository, holding their testee and expectations.
    user = os.path.join(tmp, "mylib")
    os.makedirs(user)
    shutil.copy(os.path.join(repo, "conformance/testees/numpy/numpy_testee.py"), user)
    shutil.copy(os.path.join(repo, "conformance/expectations/numpy.txt"), os.path.join(user, "expectations.txt"))
    # numpy.txt includes what both NumPy modes share (shared/numpy.txt, beside it).
    shutil.copytree(os.path.join(repo, "conformance/expectations/shared"), os.path.join(user, "shared"))
    # Neither run is this test: Bazel's test variables (the JUnit file above all) stay out, and the
    # bundle's run has the system's tools without bazel.
    env = stranger_env.bazel_free_env(tmp)
    clean_env = dict(env, PATH=os.environ["PATH"])
    # What a testee author reads and copies is in the bundle: the protocol, both kits, what each
    # operation means (the interface description) and the expectations grammar.
    for rel in ("conformance/protocol/PROTOCOL.md", "conformance/protocol/python/tcts_testee.py",
                "conformance/protocol/js/tcts_testee.js", "spec/interface.toml", "conformance/expectations/FORMAT.md"):
        if not os.path.isfile(os.path.join(root, rel)):
            fail(f"the bundle has no {rel}")
    testee = "/usr/bin/python3 numpy_testee.py"

    # A machine without one of the report's libraries (here python3-jinja2, shadowed by a module
    # that cannot be imported) is told what to install before anything runs: exit 2, no report.
    shadow = os.path.join(tmp, "no-jinja2")
    os.makedirs(os.path.join(shadow, "jinja2"))
    with open(os.path.join(shadow, "jinja2", "__init__.py"), "w") as f:
        f.write("raise ImportError('python3-jinja2 is not installed here')\n")
    p = subprocess.run([os.path.join(root, "tcts"), f"--testee={testee}", "--expectations=expectations.txt",
                        "--candidate=numpy", f"--suites={SUITES}", "--out=out/no-jinja2"],
                       cwd=user, env=dict(env, PYTHONPATH=shadow), capture_output=True, text=True)
    if p.returncode != 2 or "python3-jinja2" not in p.stderr or "Traceback" in p.stderr:
        fail(f"without python3-jinja2 the bundle exited {p.returncode}, not 2 naming the package:\n{p.stderr[-2000:]}")
    if os.path.exists(os.path.join(user, "out", "no-jinja2", "report.json")):
        fail("without python3-jinja2 the bundle still ran and wrote a report")
    print(f"without python3-jinja2: exit 2, {p.stderr.strip()}")

    # One seed for both runs (this one and the repository's below): their reports are compared
    # case by case, and a property's draws depend on it (with some seeds NumPy's value-based
    # promotion answers uint16 where a property expects one of the documents' dtypes).
    p = run([os.path.join(root, "tcts"), f"--testee={testee}", "--expectations=expectations.txt",
             "--candidate=numpy", f"--suites={SUITES}", "--jobs=1", "--no-stale-check", f"--seed={SEED}"],
            user, env, "the bundle's run")
    bundled = os.path.join(user, "out", "numpy", "report.json")
    if not os.path.isfile(bundled):
        fail(f"the bundle's run wrote no {bundled}:\n{p.stdout[-2000:]}")
    doc = json.load(open(bundled, encoding="utf-8"))
    version = doc["tool"]["commit"] or ""
    if not re.fullmatch(r"[0-9a-f]{40}(-dirty)?", version):
        fail(f"the report does not carry the bundle's commit: tool.commit = {version!r}")
    if f"{root}/tcts" not in doc["run"]["command"]:
        fail(f"the report's command is not the bundle's: {doc['run']['command']!r}")

    # What a run tells its user to run next works from the bundle, wherever it is started: with
    # an empty expectations file NumPy's promotion deviates; the printed command (for a run of
    # one suite, the run again with --update-expectations), run as printed, lists the
    # deviations, and a failure's repro command replays it.
    open(os.path.join(user, "empty.txt"), "w").close()
    p = subprocess.run([os.path.join(root, "tcts"), f"--testee={testee}", "--expectations=empty.txt", "--candidate=numpy",
                        "--suites=promotion", "--jobs=1", "--trace", "--out=out/first"],
                       cwd=user, env=env, capture_output=True, text=True)
    lines = p.stdout.splitlines()
    hint = [lines[k + 1].strip() for k, line in enumerate(lines[:-1]) if line.startswith("to list these outcomes")]
    if p.returncode != 1 or not hint:
        fail(f"a run with an empty expectations file exited {p.returncode} without the command that lists them:\n"
             f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    elsewhere = os.path.join(tmp, "elsewhere")
    os.makedirs(elsewhere)
    if "--update-expectations=" not in hint[0]:
        fail(f"a run of one suite printed `{hint[0]}`, not itself with --update-expectations")
    q = subprocess.run(["sh", "-c", hint[0]], cwd=elsewhere, env=env, capture_output=True, text=True)
    # The run again exits with its verdict (the file is written after it): DOES NOT CONFORM.
    if q.returncode != 1 or "expectations: " not in q.stdout or os.path.getsize(os.path.join(user, "empty.txt")) == 0:
        fail(f"the printed command `{hint[0]}` exited {q.returncode} and wrote no entries:\n{q.stdout[-2000:]}\n{q.stderr[-2000:]}")
    # (The run again wrote its report into out/first too: the same cases, the same repro commands.)
    first = json.load(open(os.path.join(user, "out", "first", "report.json"), encoding="utf-8"))
    repro = next((c["repro"] for c in first["cases"] if c.get("repro")), None)
    if repro is None:
        fail("no case of the traced run has a repro command")
    r = subprocess.run(["sh", "-c", repro], cwd=elsewhere, env=env, capture_output=True, text=True)
    if "--testee=" not in repro and "--run-recorded" not in repro:
        # A bare `repro.py TRACE` runs nothing: it shows the recorded command and how to accept it.
        if r.returncode != 2 or "--run-recorded" not in r.stderr or "recorded testee:" not in r.stdout:
            fail(f"`{repro}` (no --testee, no --run-recorded) exited {r.returncode} without refusing:\n"
                 f"{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
        repro += " --run-recorded"
        r = subprocess.run(["sh", "-c", repro], cwd=elsewhere, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the report's repro command `{repro}` exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    print(f"from the bundle: `{hint[0]}` wrote the file; `{repro}` exit 0")

    # The same run in the repository, through the suite binary of this build.
    ref_out = os.path.join(tmp, "in-repo")
    run(["/usr/bin/python3", "-m", "conformance.runner.run", f"--testee={testee}",
         "--expectations=" + os.path.join(repo, "conformance/expectations/numpy.txt"), "--candidate=numpy", f"--suites={SUITES}",
         "--binary=conformance/testee_bin", "--jobs=1", "--no-stale-check", f"--seed={SEED}", f"--out={ref_out}"],
        repo, dict(clean_env, PATH=os.environ["PATH"],
                   BUILD_WORKING_DIRECTORY=os.path.join(repo, "conformance/testees/numpy")),
        "the in-repository run")
    d = subprocess.run(["/usr/bin/python3", "-m", "reports.diff", os.path.join(ref_out, "report.json"), bundled],
                       capture_output=True, text=True)
    print(d.stdout.strip())
    if d.returncode != 0:
        fail(f"the bundle's report differs from the in-repository run's:\n{d.stdout}\n{d.stderr}")
    print(f"PASS: the bundle ({version}) reports {len(doc['cases'])} cases as the repository's runner does")


if __name__ == "__main__":
    main()
