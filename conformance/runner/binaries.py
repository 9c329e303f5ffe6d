"""Which binary runs the suites, with which arguments, and `bazel build` on demand for an
in-tree candidate whose binary this run's data does not hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .contract import Suite
from .options import RUNNER_CANDIDATE_OPTIONS as KEYS, Options, UsageError


def candidate_options(o: Options) -> list[str]:
    """What the suite binary tells its candidate's factory (--candidate_option=KEY=VALUE): a
    testee's program and arguments (a JSON array) and the directory it runs in (where the user started bazel run), then the
    run's --candidate-option flags."""
    options = [f"{KEYS.testee_argv}={json.dumps(o.testee_argv)}", f"{KEYS.testee_cwd}={o.cwd}"] if o.testee else []
    return [f"--candidate_option={kv}" for kv in options + o.candidate_options]


def trace_option(trace_dir: str) -> list[str]:
    """--trace: where the testee's session writes its raw trace (known once the run holds its
    output folder), as the testee candidate's option."""
    return [f"--candidate_option={KEYS.trace_dir}={trace_dir}"] if trace_dir else []


def suites_for(o: Options) -> list[Suite]:
    common = [f"--candidate={'testee' if o.testee else o.candidate}"] + candidate_options(o) + (
        [f"--device={o.device}"] if o.device else [])
    if o.replay:  # a case reruns through its test (--target) or this run's command (rerun_base)
        rerun = [f"--target={o.target}"] if o.target else [f"--rerun={o.rerun}"] if o.rerun else []
        return [Suite("replay", "conformance/replay/replay_runner", common + [f"--replay={o.replay}"] + rerun,
                      os.path.basename(o.replay))]
    # The rerun command names each case's own suite test (the harness fills in {suite}), or,
    # where no such test exists, this run's command (rerun_base) narrowed to the case.
    rerun = f"--rerun={o.rerun}" if o.rerun else f"--target={o.target or '//conformance:{suite}_' + o.candidate}"
    return [Suite(o.candidate, o.binary or f"conformance/{'testee' if o.testee else o.candidate}_bin",
                  common + [f"--tcts_suites={','.join(o.suites)}", rerun], "")]


def build_on_demand(o: Options, binary: str) -> str:
    """The binary of an in-tree candidate that this run's data does not hold.

    `bazel run //conformance:run` carries only the reference's binary (and the testee's), so a
    newcomer's first run builds nothing else; `--candidate=libtorch` (eigen, xtensor, ...) then
    builds that candidate's binary, and only it, with `bazel build` in the workspace (the
    workspace's .bazelrc applies; `--config` given to `bazel run` does not). TCTS_BAZEL names
    the bazel command (default: bazel on PATH)."""
    label = f"//conformance:{o.candidate}_bin"
    if o.candidate not in o.in_process:
        testees = "".join(f"\n  --candidate={n}  (the testee {c!r})" for n, c in sorted(o.known_testees.items()))
        raise UsageError(f"no binary for the candidate '{o.candidate}': in-process candidates are "
                         f"{', '.join(o.in_process) or 'none'}; a library judged through a testee program runs "
                         f"with --testee='CMD'" + (f"; the testees kept here:{testees}" if testees else ""))
    if not o.workspace:
        raise UsageError(f"{binary} is missing: build {label} and pass --binary=PATH, or use bazel run")
    print(f"run: building {label} (the '{o.candidate}' candidate's suites; the main job's own data holds "
          f"the reference's only)", file=sys.stderr, flush=True)
    try:
        built = subprocess.run([o.bazel, "build", label], cwd=o.workspace)
        info = subprocess.run([o.bazel, "info", "bazel-bin"], cwd=o.workspace, capture_output=True, text=True)
    except OSError as e:
        raise UsageError(f"cannot run {o.bazel!r} to build {label}: {e}") from None
    if built.returncode != 0 or info.returncode != 0:
        raise UsageError(f"'{o.bazel} build {label}' failed (exit {built.returncode or info.returncode})")
    return os.path.join(info.stdout.strip(), "conformance", f"{o.candidate}_bin")


def check_binaries(o: Options, suites: list[Suite]) -> None:
    """Every suite's binary is there (built on demand where it may be): UsageError if not."""
    for s in suites:
        if not os.access(s.binary, os.X_OK) and not (o.binary or o.testee or o.replay):
            s.binary = build_on_demand(o, s.binary)
        if not os.access(s.binary, os.X_OK):
            raise UsageError(f"{s.binary} is missing from this build")
