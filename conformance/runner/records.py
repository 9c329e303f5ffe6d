"""The run's results: what the suite processes reported, as the report's case records (with the
candidate's expectations applied), and the feature and dtype tables."""

from __future__ import annotations

import collections
import sys

import contract
import expected
from contract import ListedCase, Suite
from isolation import Process, Unit, exit_description
from options import Options, UsageError


class Results:
    """Every case the processes listed and every record they produced, keyed by (suite, test)."""

    def __init__(self, o: Options, seed: str, entries, workdir: str, env: dict):
        self.o, self.seed, self.entries, self.workdir, self.env = o, seed, entries, workdir, env
        self.listed: dict[tuple, ListedCase] = {}  # (suite, test) -> case, from the processes
        self.order: dict[tuple, tuple] = {}  # (suite, test) -> sort key: the case's suite, then run order
        self.records: dict[tuple, dict] = {}  # (suite, test) -> case record
        self.used: dict[tuple, list] = {}  # (suite, test) -> the features its checks used
        self.candidate = None
        self.declared: dict[str, bool] | None = None  # feature -> supported, from the begin event
        self.announced: list[str] = []  # every feature of the interface, in order
        self.dtypes: list[dict] | None = None  # every dtype: required, declared (the begin event)
        self.tensor_device: str | None = None  # the device the candidate's tensors claim (the begin event)
        self.isolated = 0  # processes that crashed or hung

    def wants_features(self) -> bool:
        return self.declared is None

    def cases(self) -> list[dict]:
        """The records, in the suites' order, then run order."""
        return [self.records[k] for k in sorted(self.listed, key=lambda k: self.order[k])]

    def learn(self, unit: Unit, cases: list[ListedCase]) -> None:
        i, k = unit.shard
        suites = self.o.suites
        for pos, c in enumerate(cases):
            key = (unit.suite.name, c.test)
            if key not in self.listed:
                self.listed[key] = c
                self.order[key] = (suites.index(c.suite) if c.suite in suites else len(suites), pos * k + i)

    def collect(self, p: Process, hung: bool) -> list[str]:
        """Records what process p reported; returns the tests still to run after a crash or hang."""
        suite = p.unit.suite
        if p.begin is None:
            if p.proc.returncode == contract.EXIT_USAGE:  # the binary refused its arguments: not the candidate's doing
                raise UsageError(f"{suite.binary} exited {contract.EXIT_USAGE} before its first case:\n{p.log_tail()}")
            cases = contract.list_cases(suite, p.unit.selection, self.workdir, self.env)
            self.learn(p.unit, cases)
            if p.unit.tests is None:
                p.unit.tests = [c.test for c in cases]
        else:
            if not self.candidate:
                self.candidate = p.begin["candidate"]
            if self.declared is None and "features" in p.begin:
                self.declared = {f["name"]: bool(f["supported"]) for f in p.begin["features"]}
                self.announced = [f["name"] for f in p.begin["features"]]
            if self.dtypes is None and "dtypes" in p.begin:
                self.dtypes = p.begin["dtypes"]
            if self.tensor_device is None and p.begin.get("device"):
                self.tensor_device = p.begin["device"]
            self.learn(p.unit, [contract.listed_case(c, suite.name) for c in p.begin["cases"]])
        for test, event in p.ended.items():
            try:
                self.records[(suite.name, test)] = self.case_record(suite, event)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                self.records[(suite.name, test)] = self.isolated_record(
                    suite, test, "CRASH", f"its end event in the result stream is malformed ({e!r})"[:300], "")
        left = [t for t in p.unit.tests if t not in p.ended]
        if p.done and not hung and not p.broken:
            if left:
                raise RuntimeError(f"{suite.binary} finished without running {left[:3]} (a runner bug)")
            if p.proc.returncode not in contract.EXIT_FINISHED:
                print(f"run: {suite.binary} exited {p.proc.returncode} after its last case", file=sys.stderr)
            return []
        self.isolated += 1
        outcome = "TIMEOUT" if hung else "CRASH"
        what = (f"no progress for {self.o.case_timeout:g} s; the process was killed" if hung
                else p.broken + "; the process was killed" if p.broken
                else exit_description(p.proc.returncode))
        if p.current is not None:
            self.records[(suite.name, p.current)] = self.isolated_record(suite, p.current, outcome, what, p.log_tail())
            return [t for t in left if t != p.current]
        if p.ended:
            return left  # it died between cases (or asked for a fresh process): resume with the rest
        # It died (or hung) before its first case: every case it had gets the outcome.
        for t in left:
            self.records[(suite.name, t)] = self.isolated_record(
                suite, t, outcome, what + " before its first case", p.log_tail())
        return []

    def _common(self, suite: Suite, c: ListedCase, outcome: str) -> dict:
        return {
            "id": c.id, "test": c.test, "suite": c.suite, "spec_file": suite.spec_file or f"spec/{c.suite}.toml",
            "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": outcome,
            **({"answer": c.answer} if c.answer else {}),
            **({"spec_row": c.spec_row} if c.spec_row else {}),
        }

    def case_record(self, suite: Suite, e: dict) -> dict:
        """The record of a case its process finished: the raw outcome it streamed, with the
        candidate's expectations applied (FAIL listed as FAIL -> XFAIL, PASS listed -> XPASS)."""
        c = self.listed[(suite.name, e["test"])]
        mismatches = e.get("mismatches", [])
        raw = e["outcome"]
        checks = e.get("checks") or {}
        failed_checks = tuple(sorted(k for k, v in checks.items() if v == "FAIL"))
        outcome, reason, note = expected.decide(self.entries, c.id, raw, bool(e.get("unclassified")),
                                                self.o.expectations, failed_checks)
        message = e.get("message", "").strip()
        if note:
            message = (note + "\n" + message).strip()
        passed = raw == "PASS"
        record = {
            **self._common(suite, c, outcome),
            "expected": mismatches[0]["expected"] if mismatches else c.statement,
            "observed": mismatches[0]["observed"] if mismatches else ("as expected" if passed else ""),
            "mismatches": mismatches, "reason": reason, "message": message,
            "rerun": c.rerun, "duration_ms": e.get("ms"),
        }
        if raw == "NOT_SUPPORTED":
            record["observed"] = f"NotSupported: {e.get('not_supported', '')}"
            if e.get("feature"):
                record["feature"] = e["feature"]
            if e.get("dtype"):
                record["dtype"] = e["dtype"]
        if e.get("features"):
            self.used[(suite.name, c.test)] = e["features"]
            record["features"] = list(e["features"])
        if e.get("skipped_checks"):
            record["skipped_checks"] = e["skipped_checks"]
        if checks:
            record["checks"] = dict(checks)
        if c.kind == "property":
            record["seed"] = self.seed
            if "draws" in e:
                record["draws"] = e["draws"]
            if raw == "FAIL":
                record["counterexample"] = e.get("message", "").strip()
                record["observed"] = record["counterexample"].splitlines()[0] if record["counterexample"] else "falsified"
        elif raw == "FAIL" and not mismatches:
            text = e.get("message", "").strip()
            record["observed"] = text.splitlines()[0] if text else "failed"
        return record

    def isolated_record(self, suite: Suite, test: str, outcome: str, what: str, log: str) -> dict:
        c = self.listed[(suite.name, test)]
        decided, reason, _ = expected.decide(self.entries, c.id, outcome)
        record = {
            **self._common(suite, c, decided),
            "expected": c.statement, "observed": f"{outcome}: {what}", "mismatches": [], "reason": reason,
            "message": log, "rerun": c.rerun,
            "duration_ms": None, "isolated": outcome,
        }
        if c.kind == "property":
            record["seed"] = self.seed
        return record

    def feature_table(self, rows: list[dict], cases: list[dict]) -> list[dict]:
        """Per feature: its level, whether the candidate declared it, the cases whose checks used
        it, and the cases NOT_SUPPORTED because of it."""
        used: dict[str, int] = {}
        for names in self.used.values():
            for n in names:
                used[n] = used.get(n, 0) + 1
        missing: dict[str, int] = {}
        for c in cases:
            if c["outcome"] == "NOT_SUPPORTED" and c.get("feature"):
                missing[c["feature"]] = missing.get(c["feature"], 0) + 1
        declared = self.declared or {}
        return [{"name": r["name"], "level": r["level"], "clause": r["clause"], "basis": r["basis"],
                 "reason": r["reason"], "declared": declared.get(r["name"]), "cases": used.get(r["name"], 0),
                 "not_supported": missing.get(r["name"], 0)} for r in rows]

    def dtype_table(self, cases: list[dict]) -> list[dict] | None:
        """Per dtype: whether the doc lists it (required), whether the candidate declared it, and
        the cases NOT_SUPPORTED for lack of it; None when no process said (none started a case)."""
        if self.dtypes is None:
            return None
        missing = collections.Counter(c["dtype"] for c in cases if c["outcome"] == "NOT_SUPPORTED" and c.get("dtype"))
        return [{"name": d["name"], "required": bool(d["required"]), "declared": bool(d["supported"]),
                 "not_supported": missing[d["name"]]} for d in self.dtypes]
