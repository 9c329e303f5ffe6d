"""Builds and runs source mutants of the reference (mutate.py) against the suite: a mutation score.

For each mutant, in a scratch copy of the tree (never the checkout; default
/tmp/tcts-mutants/ws, ws-1, ... one per job, Bazel gives each its own output base): every reference/ file is
restored from the checkout, the mutant written, the reference's suite binary built
incrementally (`bazel build //conformance:reference_bin`, with a disk cache shared by the
jobs, so the restored files' objects come back from it) and the whole suite run on it through
the binary's own result stream (`--tcts_stream`, one process, a fixed RapidCheck seed), which
stops at the first FAIL. Classification:
  KILLED          some case FAILed, or the binary crashed (a case started and never ended, or
                  the process ended without "done")
  SURVIVED        every case ran and none FAILed
  TIMEOUT         the suite ran past --timeout (default: 3 x the unmutated run + 60 s)
  DOES-NOT-BUILD  the build failed (not counted in the score)
  EQUIVALENT      recorded as equivalent in survivors.toml: not run (--rerun-triaged runs them)
The score is (KILLED + TIMEOUT) / (mutants run - DOES-NOT-BUILD), TIMEOUT being what the runner's
case timeout turns into a failing case.

Two ways to build (--mode):
  schemata (default)  every mutant compiled into one build (schemata.py: each mutated spot a
                      switch on --tcts_mutant=N), then the suite run once per mutant, --jobs at
                      a time on the one binary; a mutant whose switch does not compile (the
                      compile check's blame) is built separately, below, after a syntax-only
                      compile of the mutated tree has said whether it builds at all
  separate            each mutant restored, written and built incrementally on its own (above)
Every build is `--repo_env=TCTS_NO_CUDA=1` (a reference header must not rebuild the cuda/
kernels: the CPU suite never runs them; with `TCTS_REQUIRE_CUDA=0`, since CI exports
TCTS_REQUIRE_CUDA=1 for its own build and the missing toolkit would be an error) and `--copt=-w`, no warnings (a mutant is judged by the
suite, not by a warning).

Results are JSON lines appended to --results (default out/mutation/results.jsonl), one per
mutant; a run skips the ids already there (resumable: interrupt it and run it again). The
report (report.md, report.json beside the results) is rewritten at the end, or alone with
--report-only.

  run_mutants.py --sample=200 --seed=1            a deterministic sample of 200
  run_mutants.py --all                            every mutant
  run_mutants.py ID ...                           those
  run_mutants.py --report-only
Across machines: give each machine the same --sample/--seed and a --shard=I/K (round robin
over the sample), then concatenate the results files and run --report-only.

--build-cmd and --run-cmd replace the build and the suite (shell commands run in the scratch
copy; the run command's exit status 0 is SURVIVED, anything else KILLED): the runner's own
test (run_mutants_test.py) uses a two-line C++ fixture that way.

Standard library only (Python 3.11: tomllib).
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib

import mutate
import schemata  # stdlib here; its libclang part runs under the venv's python

HERE = os.path.dirname(os.path.abspath(__file__))
SURVIVORS = os.path.join(HERE, "survivors.toml")
VERDICTS = ("equivalent", "outside-spec", "unreached", "row-wanted")
FINAL = ("KILLED", "SURVIVED", "TIMEOUT", "DOES-NOT-BUILD", "EQUIVALENT")
DEFAULT_BUILD = ("bazel {startup} build --jobs={cores} --disk_cache={disk_cache} --color=no --curses=no "
                 "--repo_env=TCTS_NO_CUDA=1 --repo_env=TCTS_REQUIRE_CUDA=0 --copt=-w //conformance:reference_bin")
SYNTAX = ["g++", "-std=c++17", "-fsyntax-only", "-w", "-fmax-errors=1000", "-I.", "-Ibazel-bin"]
DEFAULT_VENV_PYTHON = os.path.join(os.environ.get("TCTS_PYPI_VENV") or "/opt/tensor-cts/venv", "bin", "python")
BINARY = "bazel-bin/conformance/reference_bin"

# Which spec files' suites are written to exercise each reference file (by design; the
# killing case's suite is recorded per mutant, so the report also says which suite caught it).
SPEC_OF = {
    "reference/arith.h": ["spec/arithmetic.toml"],
    "reference/binary_ops.cc": ["spec/arithmetic.toml", "spec/promotion.toml", "spec/casting.toml"],
    "reference/binary_ops.h": ["spec/arithmetic.toml"],
    "reference/checked.h": ["spec/strided.toml"],
    "reference/device.cc": ["spec/devices.toml"],
    "reference/device.h": ["spec/devices.toml"],
    "reference/elementwise.cc": ["spec/arithmetic.toml", "spec/strided.toml"],
    "reference/elementwise.h": ["spec/arithmetic.toml", "spec/strided.toml"],
    "reference/error.h": ["spec/casting.toml", "spec/strided.toml", "spec/devices.toml"],
    "reference/half.h": ["spec/arithmetic.toml", "spec/dtypes.toml"],
    "reference/interop.cc": ["spec/asarray.toml", "spec/dlpack.toml"],
    "reference/interop.h": ["spec/asarray.toml", "spec/dlpack.toml"],
    "reference/promotion.cc": ["spec/promotion.toml", "spec/casting.toml", "spec/dtypes.toml"],
    "reference/promotion.h": ["spec/promotion.toml"],
    "reference/scalar_type.cc": ["spec/dtypes.toml"],
    "reference/scalar_type.h": ["spec/dtypes.toml", "spec/casting.toml", "spec/arithmetic.toml"],
    "reference/strided.cc": ["spec/strided.toml"],
    "reference/strided.h": ["spec/strided.toml"],
    "reference/tensor.cc": ["spec/strided.toml", "spec/asarray.toml"],
    "reference/tensor.h": ["spec/strided.toml", "spec/asarray.toml"],
}


# ---------------------------------------------------------------- triage file
def load_survivors(path=SURVIVORS):
    """id -> {verdict, reason, line}: the triaged survivors (survivors.toml)."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = {}
    for e in data.get("survivor", []):
        if e.get("verdict") not in VERDICTS:
            raise ValueError(f"{path}: {e.get('id')}: verdict must be one of {', '.join(VERDICTS)}")
        if not e.get("reason"):
            raise ValueError(f"{path}: {e.get('id')}: a reason is required")
        out[e["id"]] = e
    return out


def stale_triage(triage, mutants_by_id, sources):
    """Entries whose mutant no longer exists or whose source line changed."""
    stale = []
    for mid, e in triage.items():
        m = mutants_by_id.get(mid)
        if m is None:
            stale.append((mid, "no such mutant in the source"))
        elif "line" in e and sources[m.path].splitlines()[m.line - 1].strip() != e["line"].strip():
            stale.append((mid, "the source line changed"))
    return stale


# ---------------------------------------------------------------- the suite, through its stream
def run_suite(binary, seed, timeout, log, number=None):
    """Runs every case of the suite binary (mutant `number` of a schema build when given); stops
    at the first FAIL. Returns (status, detail)."""
    stream = log + ".stream.jsonl"
    if os.path.exists(stream):
        os.remove(stream)
    with open(log, "w") as out:
        extra = [] if number is None else [f"--tcts_mutant={number}"]
        p = subprocess.Popen([binary, "--candidate=reference", f"--seed={seed}", f"--tcts_stream={stream}"] + extra,
                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + timeout
    pos, buf, started, cases, done, ended = 0, "", None, {}, False, 0
    status = detail = None
    while status is None:
        rc = p.poll()
        if os.path.exists(stream):
            with open(stream, encoding="utf-8", errors="replace") as f:
                f.seek(pos)
                chunk = f.read()
                pos = f.tell()
            buf += chunk
            *lines, buf = buf.split("\n")
            for line in lines:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                e = ev.get("event")
                if e == "begin":
                    cases = {c["test"]: c for c in ev.get("cases", [])}
                elif e == "start":
                    started = ev.get("test")
                elif e == "end":
                    started = None
                    ended += 1
                    if ev.get("outcome") == "FAIL":
                        c = cases.get(ev.get("test"), {})
                        mism = (ev.get("mismatches") or [{}])[0]
                        status, detail = "KILLED", {
                            "case": c.get("id", ev.get("test")), "suite": c.get("suite", ""),
                            "how": "FAIL", "check": mism.get("check", ""),
                            "expected": str(mism.get("expected", ""))[:200],
                            "observed": str(mism.get("observed", ""))[:200],
                            "message": str(ev.get("unclassified") or ev.get("message") or "")[:300]}
                        break
                elif e == "done":
                    done = True
        if status is not None:
            break
        if rc is not None:
            if done and rc in (0, 1) and ended == len(cases):
                status, detail = "SURVIVED", {"cases": ended}
            else:
                c = cases.get(started, {}) if started else {}
                status, detail = "KILLED", {"case": c.get("id", started or ""), "suite": c.get("suite", ""),
                                            "how": f"CRASH (exit {rc})"}
            break
        if time.monotonic() > deadline:
            c = cases.get(started, {}) if started else {}
            status, detail = "TIMEOUT", {"case": c.get("id", started or ""), "suite": c.get("suite", "")}
            break
        time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    return status, detail


# ---------------------------------------------------------------- scratch copies
def checkout_files(checkout):
    out = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=checkout, check=True,
                         capture_output=True).stdout.decode()
    return [f for f in out.split("\0") if f and os.path.isfile(os.path.join(checkout, f))]


def sync_scratch(checkout, scratch):
    """Makes `scratch` a copy of the checkout's tracked and untracked (not ignored) files,
    writing only files that differ (Bazel keeps its incremental state)."""
    if os.path.realpath(scratch) == os.path.realpath(checkout) or os.path.exists(os.path.join(scratch, ".git")):
        raise SystemExit(f"refusing to use {scratch} as a scratch copy: it is a checkout")
    for rel in checkout_files(checkout):
        src, dst = os.path.join(checkout, rel), os.path.join(scratch, rel)
        with open(src, "rb") as f:
            data = f.read()
        if os.path.exists(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


def restore(scratch, sources):
    for rel, text in sources.items():
        dst = os.path.join(scratch, rel)
        with open(dst, encoding="utf-8") as f:
            if f.read() == text:
                continue
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)


# ---------------------------------------------------------------- one mutant
class Worker:
    def __init__(self, a, scratch, sources):
        self.a, self.scratch, self.sources = a, scratch, sources
        os.makedirs(os.path.join(scratch, ".mutants"), exist_ok=True)

    def sh(self, cmd, log, timeout, env=None):
        with open(log, "w") as out:
            p = subprocess.Popen(cmd, shell=True, cwd=self.scratch, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, env=dict(os.environ, **(env or {})))
            try:
                return p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return None

    def build(self):
        t = time.monotonic()
        rc = self.sh(self.a.build_cmd, os.path.join(self.scratch, ".mutants", "build.log"), self.a.build_timeout)
        return rc, time.monotonic() - t

    def run(self, timeout, number=None, log="run.log"):
        t = time.monotonic()
        log = os.path.join(self.scratch, ".mutants", log)
        if self.a.run_cmd:
            env = {"TCTS_MUTANT": str(number or 0)}
            rc = self.sh(self.a.run_cmd, log, timeout, env)
            status, detail = ("TIMEOUT", {}) if rc is None else ("SURVIVED", {}) if rc == 0 else (
                "KILLED", {"how": f"exit {rc}"})
        else:
            status, detail = run_suite(os.path.join(self.scratch, BINARY), self.a.suite_seed, timeout, log, number)
        return status, detail, time.monotonic() - t

    def syntax(self, defines=(), files=None):
        """(ok, compiler output) of a syntax-only compile of the reference's source files (`files`,
        default every one)."""
        def compile_one(rel):
            return subprocess.run(SYNTAX + list(defines) + [rel], cwd=self.scratch, capture_output=True, text=True)

        with concurrent.futures.ThreadPoolExecutor(max(1, self.a.cores)) as pool:
            runs = list(pool.map(compile_one, files or [rel for rel in sorted(self.sources) if rel.endswith(".cc")]))
        return all(r.returncode == 0 for r in runs), "".join(r.stderr for r in runs)

    def mutant(self, m, timeout, syntax_first=False):
        restore(self.scratch, self.sources)
        with open(os.path.join(self.scratch, m.path), "w", encoding="utf-8") as f:
            f.write(m.apply(self.sources[m.path]))
        try:
            if syntax_first:  # a mutant that does not compile alone needs no build to say so
                t = time.monotonic()
                ok, _ = self.syntax(files=[m.path] if m.path.endswith(".cc") else None)
                if not ok:
                    return {"status": "DOES-NOT-BUILD", "build_s": round(time.monotonic() - t, 1), "run_s": 0,
                            "detail": {"how": "a syntax-only compile of the mutated reference failed"}}
            rc, build_s = self.build()
            if rc != 0:
                return {"status": "DOES-NOT-BUILD" if rc is not None else "TIMEOUT", "build_s": round(build_s, 1),
                        "run_s": 0, "detail": {"how": "build timed out"} if rc is None else {}}
            status, detail, run_s = self.run(timeout)
            return {"status": status, "build_s": round(build_s, 1), "run_s": round(run_s, 1), "detail": detail}
        finally:
            restore(self.scratch, self.sources)


# ---------------------------------------------------------------- report
def read_results(path):
    out = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue  # a line cut short by an interruption
                if r.get("status") in FINAL:
                    out[r["id"]] = r
    return out


def _counts(rows):
    c = {k: 0 for k in FINAL}
    for r in rows:
        c[r["status"]] += 1
    scored = len(rows) - c["DOES-NOT-BUILD"] - c["EQUIVALENT"]
    killed = c["KILLED"] + c["TIMEOUT"]
    return {"mutants": len(rows), "killed": c["KILLED"], "survived": c["SURVIVED"], "timeout": c["TIMEOUT"],
            "does_not_build": c["DOES-NOT-BUILD"], "equivalent": c["EQUIVALENT"], "scored": scored,
            "score": round(killed / scored, 4) if scored else None}


def write_report(results, mutants_by_id, sources, triage, out_dir, meta):
    rows = [dict(r, path=r["id"].split(":", 1)[0]) for r in results.values()]
    for r in rows:  # a survivor triaged equivalent after it ran counts as EQUIVALENT
        if r["status"] == "SURVIVED" and triage.get(r["id"], {}).get("verdict") == "equivalent":
            r["status"] = "EQUIVALENT"
    rows.sort(key=lambda r: mutants_by_id[r["id"]].sort_key() if r["id"] in mutants_by_id else (r["id"],))
    by_file, by_spec, killed_by = {}, {}, {}
    for r in rows:
        by_file.setdefault(r["path"], []).append(r)
        for s in SPEC_OF.get(r["path"], []):
            by_spec.setdefault(s, []).append(r)
        if r["status"] == "KILLED":
            suite = (r.get("detail") or {}).get("suite") or "?"
            killed_by[suite] = killed_by.get(suite, 0) + 1
    survivors = []
    for r in rows:
        if r["status"] not in ("SURVIVED", "EQUIVALENT"):
            continue
        m = mutants_by_id.get(r["id"])
        t = triage.get(r["id"])
        survivors.append({"id": r["id"], "diff": m.diff(sources[m.path]) if m else "(mutant no longer in the source)",
                          "triage": t.get("verdict") if t else None, "reason": t.get("reason") if t else None})
    stale = stale_triage(triage, mutants_by_id, sources)
    report = {"meta": meta, "total": _counts(rows),
              "per_file": {k: _counts(v) for k, v in sorted(by_file.items())},
              "per_spec_file": {k: _counts(v) for k, v in sorted(by_spec.items())},
              "killed_by_suite": dict(sorted(killed_by.items())),
              "per_operator": {op: _counts([r for r in rows if r["id"].split(":")[3] == op])
                               for op in sorted({r["id"].split(":")[3] for r in rows})},
              "survivors": survivors, "stale_triage": [{"id": i, "why": w} for i, w in stale],
              "cost": _cost(rows),
              "untriaged_survivors": sum(1 for x in survivors if not x["triage"]),
              "verdicts": {v: sum(1 for x in survivors if x["triage"] == v) for v in VERDICTS},
              "commits_run": sorted({r["commit"] for r in rows if "commit" in r})}  # a triaged EQUIVALENT is not run
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(render_md(report))
    return report


def _cost(rows):
    built = [r for r in rows if r.get("build_s")]
    ran = [r for r in rows if r.get("run_s")]
    mean = lambda xs: round(sum(xs) / len(xs), 1) if xs else None  # noqa: E731
    return {"mean_build_s": mean([r["build_s"] for r in built]), "mean_run_s": mean([r["run_s"] for r in ran]),
            "mean_run_s_survived": mean([r["run_s"] for r in ran if r["status"] == "SURVIVED"]),
            "mean_run_s_killed": mean([r["run_s"] for r in ran if r["status"] == "KILLED"]),
            "mean_build_s_header": mean([r["build_s"] for r in built if r["path"].endswith(".h")]),
            "mean_build_s_source": mean([r["build_s"] for r in built if r["path"].endswith(".cc")]),
            "mean_s_per_mutant": mean([r.get("build_s", 0) + r.get("run_s", 0) for r in built]),
            "total_s": round(sum(r.get("build_s", 0) + r.get("run_s", 0) for r in rows), 1)}


def _pct(c):
    return "—" if c["score"] is None else f"{100 * c['score']:.1f} %"


def render_md(rep):
    t, meta = rep["total"], rep["meta"]
    out = [f"# Mutation score of the suite against the reference: {_pct(t)} "
           f"({t['killed'] + t['timeout']} of {t['scored']})\n",
           f"Source commit {meta.get('commit', '?')}, {meta.get('date', '?')}; {t['mutants']} mutants "
           f"({meta.get('selection', '')}) of {meta.get('enumerated', '?')} enumerated. Score = (KILLED + TIMEOUT) / "
           f"(mutants − DOES-NOT-BUILD − EQUIVALENT, equivalent = triaged so in survivors.toml). Run on the "
           f"reference of commit(s) {', '.join(rep['commits_run'])}; {rep['untriaged_survivors']} survivors not "
           f"triaged yet. Survivors' verdicts (survivors.toml): " + ", ".join(f"{k} {v}" for k, v in
           rep.get("verdicts", {}).items()) + ".\n\nCost (seconds): " + ", ".join(f"{k} {v}" for k, v in rep["cost"].items()) + ".\n\n"]
    head = "| {} | score | killed | survived | timeout | does not build | equivalent | mutants |\n|---|---|---|---|---|---|---|---|\n"
    for title, key, col in (("Per reference file", "per_file", "file"), ("Per spec file (the suites written for "
                            "the file, run_mutants.SPEC_OF; a mutant counts under each)", "per_spec_file", "spec file"),
                            ("Per operator", "per_operator", "operator")):
        out.append(f"## {title}\n\n" + head.format(col))
        for k, c in rep[key].items():
            out.append(f"| {k} | {_pct(c)} | {c['killed']} | {c['survived']} | {c['timeout']} | {c['does_not_build']}"
                       f" | {c['equivalent']} | {c['mutants']} |\n")
        out.append("\n")
    out.append("## Killed by (the suite of the first failing case)\n\n")
    for k, v in rep["killed_by_suite"].items():
        out.append(f"- {k}: {v}\n")
    out.append(f"\n## Survivors ({len(rep['survivors'])})\n\n")
    for s in rep["survivors"]:
        tri = f" — triaged **{s['triage']}**: {s['reason']}" if s["triage"] else " — not triaged"
        out.append(f"### `{s['id']}`{tri}\n\n```diff\n{s['diff']}```\n\n")
    if rep["stale_triage"]:
        out.append("## Stale survivors.toml entries\n\n")
        for s in rep["stale_triage"]:
            out.append(f"- `{s['id']}`: {s['why']}\n")
    return "".join(out)


# ---------------------------------------------------------------- the schema
def build_schema(a, w, ids):
    """Writes the schema of every mutant into w's scratch copy (schemata.py, under the PyPI venv's
    python for libclang) and builds it; a switch the compiler refuses sends its mutants to separate
    builds. First a syntax-only compile of the reference's sources, strict (a switch the compiler
    must evaluate is an error) then as built, and last the build itself, each error blamed on the
    innermost switch around it. Returns (manifest, seconds)."""
    t = time.monotonic()
    excluded = set()
    manifest_path = os.path.join(w.scratch, ".mutants", "schema.json")
    excluded_path = os.path.join(w.scratch, ".mutants", "excluded.txt")
    only_path = os.path.join(w.scratch, ".mutants", "only.txt")
    schemata.write_ids(only_path, ids)

    def write():
        restore(w.scratch, w.sources)
        schemata.write_ids(excluded_path, excluded)
        r = subprocess.run([a.schema_python, os.path.join(HERE, "schemata.py"), "write", f"--root={w.scratch}",
                            f"--exclude={excluded_path}", f"--only={only_path}", f"--manifest={manifest_path}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"schemata.py under {a.schema_python} failed:\n{r.stderr[-3000:]}\n"
                             "(--mode=separate builds each mutant alone and needs no libclang)")
        with open(manifest_path, encoding="utf-8") as f:
            return json.load(f)

    def blamed(manifest, output, where):
        ids, unplaced = schemata.blame(w.scratch, manifest, output)
        print(f"[mutants] schema: {where}: {len(ids)} mutants to separate builds"
              + (f"; errors no switch holds: {', '.join(sorted(set(unplaced))[:5])}" if unplaced else ""), flush=True)
        return ids

    manifest = write()
    for strict in (True, False):
        for _ in range(40):
            ok, output = w.syntax(["-DTCTS_MUTANT_STRICT"] if strict else [])
            ids = set() if ok else blamed(manifest, output, "strict syntax check" if strict else "syntax check")
            if ok or (strict and not ids):
                break  # the strict pass leaves what it cannot place to the constexpr side
            if not ids:
                raise SystemExit(f"the schema does not compile and no switch is to blame:\n{output[-3000:]}")
            excluded |= ids
            manifest = write()
    log = os.path.join(w.scratch, ".mutants", "build.log")
    for _ in range(10):
        rc, _ = w.build()
        if rc == 0:
            return manifest, time.monotonic() - t
        with open(log, encoding="utf-8", errors="replace") as f:
            ids = blamed(manifest, f.read(), "build")
        if not ids:
            raise SystemExit(f"the schema build failed and no switch is to blame: {log}")
        excluded |= ids
        manifest = write()
    raise SystemExit(f"the schema build still fails after 10 rounds: {log}")


# ---------------------------------------------------------------- main
def commit_of(checkout):
    try:
        c = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "reference"], cwd=checkout).returncode
        return c + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("ids", nargs="*", help="mutant ids (default: --sample or --all)")
    p.add_argument("--checkout", default=os.getcwd(), help="the tree to mutate copies of (default: .)")
    p.add_argument("--scratch", default="/tmp/tcts-mutants", help="scratch copies go to DIR/ws, DIR/ws-1, ...")
    p.add_argument("--results", default="out/mutation/results.jsonl")
    p.add_argument("--sample", type=int)
    p.add_argument("--seed", type=int, default=1, help="the sample's seed")
    p.add_argument("--all", action="store_true")
    p.add_argument("--files", default="", help="comma-separated reference files to draw from")
    p.add_argument("--shard", default="0/1", help="I/K: this machine's share of the selection")
    p.add_argument("--jobs", type=int, default=1, help="mutants at once (one scratch copy and Bazel server each)")
    p.add_argument("--cores", type=int, default=2, help="Bazel --jobs per build")
    p.add_argument("--suite-seed", default="1", help="RapidCheck seed of every suite run")
    p.add_argument("--timeout", type=float, help="seconds per suite run (default 3 x baseline + 60)")
    p.add_argument("--build-timeout", type=float, default=1200)
    p.add_argument("--mode", choices=["schemata", "separate"], default="schemata",
                   help="one build holding every mutant (default), or a build per mutant")
    p.add_argument("--schema-python", default=DEFAULT_VENV_PYTHON,
                   help="the python with libclang that writes the schema (default: the PyPI venv's)")
    p.add_argument("--build-cmd", help="shell command building the mutant in the scratch copy")
    p.add_argument("--run-cmd", help="shell command running the suite (exit 0: survived)")
    p.add_argument("--bazelrc", help="a bazelrc for the scratch copies' builds (a shared cache's, in CI)")
    p.add_argument("--check-against", metavar="RESULTS",
                   help="recorded results (results.jsonl): fail when a mutant they say the suite kills survives")
    p.add_argument("--survivors", default=SURVIVORS)
    p.add_argument("--rerun-triaged", action="store_true", help="also run mutants triaged equivalent")
    p.add_argument("--no-baseline", action="store_true", help="skip the unmutated build and run (needs --timeout)")
    p.add_argument("--report-only", action="store_true")
    a = p.parse_args(argv)
    a.checkout = os.path.abspath(a.checkout)
    a.scratch = os.path.abspath(a.scratch)
    a.results = os.path.abspath(os.path.join(a.checkout, a.results))
    a.default_build = not a.build_cmd
    a.build_cmd = a.build_cmd or DEFAULT_BUILD.format(
        cores=a.cores, disk_cache=os.path.join(a.scratch, "disk_cache"),
        startup=f"--bazelrc={shlex.quote(os.path.abspath(a.bazelrc))}" if a.bazelrc else "")
    return a


def main(argv=None):
    a = parse_args(argv)
    all_mutants = mutate.enumerate_mutants(a.checkout)
    by_id = {m.id: m for m in all_mutants}
    sources = {}
    for rel in mutate.source_files(a.checkout):
        with open(os.path.join(a.checkout, rel), encoding="utf-8") as f:
            sources[rel] = f.read()
    triage = load_survivors(a.survivors)
    out_dir = os.path.dirname(a.results)
    if a.ids:
        unknown = [i for i in a.ids if i not in by_id]
        if unknown:
            raise SystemExit(f"unknown mutant ids: {unknown}")
        chosen, selection = [by_id[i] for i in a.ids], f"{len(a.ids)} named"
    else:
        pool = [m for m in all_mutants if not a.files or m.path in a.files.split(",")]
        if a.all:
            chosen, selection = pool, "all"
        elif a.sample:
            # in the draw's order: any prefix of the sample (a run stopped early) is itself a
            # uniform sample; the disk cache makes the file order cost little
            chosen = random.Random(a.seed).sample(sorted(pool, key=mutate.Mutant.sort_key), min(a.sample, len(pool)))
            selection = f"sample of {a.sample}, seed {a.seed}"
        elif a.report_only:
            chosen, selection = [], "all results"
        else:
            raise SystemExit("name mutant ids, or --sample=N, --all or --report-only")
    i, k = map(int, a.shard.split("/"))
    chosen = chosen[i::k]
    meta = {"commit": commit_of(a.checkout), "date": datetime.date.today().isoformat(), "selection": selection,
            "enumerated": len(all_mutants), "machine": f"{os.cpu_count()} cpus", "suite_seed": a.suite_seed}
    done = read_results(a.results)
    if a.report_only:
        rep = write_report(done, by_id, sources, triage, out_dir, meta)
        print(render_md(rep).split("\n")[0])
        return 0
    todo = [m for m in chosen if m.id not in done]
    os.makedirs(out_dir, exist_ok=True)
    results = open(a.results, "a", encoding="utf-8")
    lock = threading.Lock()
    for m in list(todo):
        t = triage.get(m.id)
        if t and t["verdict"] == "equivalent" and not a.rerun_triaged:
            rec = {"id": m.id, "status": "EQUIVALENT", "build_s": 0, "run_s": 0, "detail": {"reason": t["reason"]}}
            results.write(json.dumps(rec) + "\n")
            done[m.id] = rec
            todo.remove(m)
    results.flush()
    print(f"[mutants] {len(chosen)} chosen ({selection}), {len(chosen) - len(todo)} already done, {len(todo)} to run, "
          f"jobs={a.jobs}", flush=True)
    schema = a.mode == "schemata"
    workers = []
    for j in range(1 if schema else a.jobs):  # a schema needs one scratch copy: its runs share the binary
        scratch = os.path.join(a.scratch, "ws" if j == 0 else f"ws-{j}")
        os.makedirs(scratch, exist_ok=True)
        sync_scratch(a.checkout, scratch)
        restore(scratch, sources)
        workers.append(Worker(a, scratch, sources))
    timeout = a.timeout
    if not a.no_baseline and todo:
        for w in workers:  # every scratch copy built unmutated; the first one's run is the baseline
            rc, build_s = w.build()
            if rc != 0:
                log = os.path.join(w.scratch, ".mutants", "build.log")
                with open(log, encoding="utf-8", errors="replace") as f:
                    tail = "".join(f.readlines()[-30:])
                raise SystemExit(f"the unmutated tree does not build in {w.scratch} ({log}, its end:)\n{tail}")
        status, detail, run_s = workers[0].run(a.timeout or 3600)
        print(f"[mutants] baseline: build {build_s:.1f}s, suite {run_s:.1f}s: {status} {detail or ''}", flush=True)
        if status != "SURVIVED":
            raise SystemExit("the unmutated suite must pass (a FAIL, crash or timeout without a mutant)")
        timeout = timeout or 2 * run_s + 30
    timeout = timeout or 600
    separate, switched, numbers = list(todo), [], {}
    if schema and todo:
        manifest, schema_s = build_schema(a, workers[0], {m.id for m in todo})
        status, detail, run_s = workers[0].run(a.timeout or 3600, number=0)
        n_switched = len(todo) - len(manifest["fallback"])
        print(f"[mutants] schema: {n_switched} mutants switched, {len(manifest['fallback'])} left to separate builds, "
              f"built in {schema_s:.0f}s; its suite with no mutant live {run_s:.1f}s: {status} {detail or ''}",
              flush=True)
        if status != "SURVIVED":
            raise SystemExit("the schema build with no mutant live must pass: a switch changed the reference")
        timeout = a.timeout or max(timeout, 2 * run_s + 30)
        meta["schema"] = {"build_s": round(schema_s, 1), "switched": n_switched,
                          "separate": len(manifest["fallback"]), "suite_s": round(run_s, 1)}
        switched = [m for m in todo if m.id not in manifest["fallback"]]
        separate = [m for m in todo if m.id in manifest["fallback"]]
        numbers = manifest["numbers"]
    stats = {k: 0 for k in FINAL}
    started = time.monotonic()
    n = [0]

    def record(m, r):
        rec = {"id": m.id, **r, "date": meta["date"], "commit": meta["commit"]}
        with lock:
            results.write(json.dumps(rec) + "\n")
            results.flush()
            done[m.id] = rec
            stats[r["status"]] += 1
            n[0] += 1
            el = time.monotonic() - started
            eta = el / n[0] * (len(todo) - n[0])
            how = r["detail"].get("case", "") if r["detail"] else ""
            print(f"[{n[0]}/{len(todo)}] {r['status']:<14} {m.id}  {r['build']} build {r['build_s']}s run {r['run_s']}s "
                  f"{how}  | K{stats['KILLED']} S{stats['SURVIVED']} T{stats['TIMEOUT']} B{stats['DOES-NOT-BUILD']}"
                  f"  elapsed {el / 60:.1f} min, eta {eta / 60:.1f} min", flush=True)

    def drain(q, job):
        while True:
            try:
                m = q.get_nowait()
            except queue.Empty:
                return
            record(m, job(m))

    def run_switched(slot):
        def job(m):
            status, detail, run_s = workers[0].run(timeout, number=numbers[m.id], log=f"run-{slot}.log")
            return {"status": status, "build": "schema", "build_s": 0, "run_s": round(run_s, 1), "detail": detail}
        return job

    def run_separate(w):
        return lambda m: dict(w.mutant(m, timeout, syntax_first=schema), build="separate")

    # the schema's mutants first, --jobs at a time on its one binary; then the rest, built alone
    for mutants, jobs in ((switched, [run_switched(j) for j in range(a.jobs)]),
                          (separate, [run_separate(w) for w in workers])):
        q = queue.Queue()
        for m in mutants:
            q.put(m)
        threads = [threading.Thread(target=drain, args=(q, job)) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    results.close()
    if a.default_build:  # stop the scratch copies' Bazel servers: nothing it started outlives it
        for w in workers:
            subprocess.run(["bazel", "shutdown"], cwd=w.scratch, capture_output=True)
    rep = write_report(done, by_id, sources, triage, out_dir, meta)
    print(render_md(rep).split("\n")[0], flush=True)
    print(f"[mutants] report: {os.path.join(out_dir, 'report.md')}", flush=True)
    if a.check_against:
        return check_against(a.check_against, {m.id: done[m.id] for m in chosen if m.id in done})
    return 0


def check_against(path, now):
    """0 when no mutant the recorded results (`path`) count as killed survives now; else 1. A
    mutant killed now that survived then, or one they do not hold, is said and passes."""
    then = read_results(path)
    weaker = [i for i, r in now.items() if i in then and then[i]["status"] in ("KILLED", "TIMEOUT")
              and r["status"] == "SURVIVED"]
    stronger = [i for i, r in now.items() if i in then and then[i]["status"] == "SURVIVED"
                and r["status"] in ("KILLED", "TIMEOUT")]
    unknown = [i for i in now if i not in then]
    for i in weaker:
        print(f"mutation-sample: {i} was killed in {path}, survives now: the suite lost a case that caught it")
    for i in stronger:
        print(f"mutation-sample: {i} survived in {path}, is killed now: record the new results")
    verdict = "FAIL" if weaker else "PASS"
    print(f"mutation-sample: {verdict}: {len(now)} mutants, {len(weaker)} weaker, {len(stronger)} stronger, "
          f"{len(unknown)} not in the recorded results", flush=True)
    return 1 if weaker else 0


if __name__ == "__main__":
    sys.exit(main())
