"""The run's results: what the suite processes reported, as the report's case records (with the
candidate's expectations applied), and the feature and dtype tables."""

from __future__ import annotations

import collections
import hashlib
import re
import sys

from . import contract
from . import expectations as expectations_file
from . import expected
from .contract import ListedCase, Suite
from .isolation import Process, Unit, claimed, exit_description
from .options import Options, UsageError


# ---------------------------------------------------------------- one bound for testee text
# Every string the testee decides (what the suite streams of its answers: a mismatch's check,
# expected and observed, a case's message, its NotSupported call, skipped checks, the
# features it used; the candidate's name, version and build; declared feature names) enters a
# record through bound(): its first TEXT_HEAD_CHARS characters, then, when longer, its length
# and a digest (two different long answers still differ). Lists the testee sizes are cut to
# LIST_ITEMS items (the count of the rest said). So a record holds at most RECORD_BOUND_BYTES
# of JSON whatever the testee sends, and a report's size is bounded by its case count
# (PROTOCOL.md, "What a testee can cost the report").
TEXT_HEAD_CHARS = 2048
DIGEST_HEX = 16  # a sha256 prefix: 64 bits
LIST_ITEMS = 16  # mismatches, skipped checks and features of one case
RECORD_BOUND_BYTES = 512 * 1024  # one case record as JSON (records_test measures the worst)


# The suite binary's own cut of a testee's long error message (wire::BoundMessage): its true
# size and digest, which a second cut carries on.
_SUITE_CUT = re.compile(r"\.\.\. \[cut: (\d+) bytes in all, fnv1a64 ([0-9a-f]{16})\]")


def bound(value) -> str:
    """`value` as a string of at most TEXT_HEAD_CHARS characters and a marker: the head, the
    total length and a sha256 prefix of the whole (a non-string is written as str()); for a
    message the suite binary cut already, its true size and digest too (issue 52: the marker
    said 65,600 characters of a 200 MiB message)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= TEXT_HEAD_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_HEX]
    cut = None
    for cut in _SUITE_CUT.finditer(text):  # the last: what follows the testee's message may be the suite's
        pass
    whole = f"; the testee's message: {cut[1]} bytes in all, fnv1a64 {cut[2]}" if cut else ""
    return f"{text[:TEXT_HEAD_CHARS]}… [cut: {len(text)} characters in all, sha256 {digest}{whole}]"


_RC_WHERE = re.compile(r"\S+:\d+:")  # RapidCheck's "./conformance/properties/x.cc:81:" before the failing assertion


def property_cause(text: str) -> str:
    """What falsified a property, from RapidCheck's report (the record's `observed`, issue 48:
    never just "Failed"): RC_FAIL's message (a property's own words: the call, what was
    expected and observed), or the RC_ASSERT that failed with what its operands expanded to;
    and where, as file:line. Its first line when the text has no assertion in it."""
    lines = [line.strip() for line in text.splitlines()]
    at = max((i for i, line in enumerate(lines) if _RC_WHERE.fullmatch(line)), default=None)
    if at is None:
        return next((line for line in lines if line), "falsified")
    where = lines[at].rstrip(":").rsplit("/", 1)[-1]
    rest = [line for line in lines[at + 1:] if line]
    if rest and rest[0].startswith("RC_FAIL("):
        said = " ".join(rest[1:])
        return f"{said or rest[0]} (at {where})"
    if "Expands to:" in rest:
        k = rest.index("Expands to:")
        return f"{' '.join(rest[:k])}: {' '.join(rest[k + 1:])} (at {where})"
    return f"{' '.join(rest) or 'falsified'} (at {where})"


def bound_list(values, what: str = "more") -> list:
    """The first LIST_ITEMS of `values`, each bound(); a last item counts the rest."""
    values = list(values)
    out = [bound(v) for v in values[:LIST_ITEMS]]
    if len(values) > LIST_ITEMS:
        out.append(f"… and {len(values) - LIST_ITEMS} {what}")
    return out


def bound_mismatches(mismatches) -> list[dict]:
    """A case's mismatches, LIST_ITEMS at most (a last one counts the rest), each field bound()."""
    out = [{k: bound(v) for k, v in m.items() if k in ("check", "expected", "observed", "kind")}
           for m in list(mismatches)[:LIST_ITEMS]]
    if len(mismatches) > LIST_ITEMS:
        n = len(mismatches) - LIST_ITEMS
        out.append({"check": "(cut)", "expected": "", "observed": f"… and {n} more mismatch(es), not kept"})
    return out


def bound_candidate(candidate) -> dict:
    """The begin event's candidate: name, version and build, each bound()."""
    return {k: bound(candidate.get(k, "")) for k in ("name", "version", "build") if k in candidate}


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
        self.isolated = 0  # processes that crashed, hung or asked for a fresh process after a fault (not clean_process)
        # Protocol version 3: requests answered from facts, and those the suite checked (end events).
        self.facts = {"used": 0, "checked": 0}
        self.reasons = expected.Reasons()  # long reasons, stored once (report.json expectations.reasons)

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
                # The binary's own order of its tests, whichever share ran them (the weighted
                # shares are not round-robin); else the round-robin's.
                self.order[key] = (suites.index(c.suite) if c.suite in suites else len(suites),
                                   c.order if isinstance(c.order, int) and c.order >= 0 else pos * k + i)

    def collect(self, p: Process, hung: bool, siblings: int = 0):
        """Records what process p reported; returns the tests still to run after a crash or hang
        (a list), or, for a process of a claims group (Unit.claims), a new member of its group to
        start (a Unit). `siblings`: the group's other processes, running or queued."""
        suite = p.unit.suite
        if p.begin is None:
            if p.proc.returncode == contract.EXIT_USAGE:  # the binary refused its arguments: not the candidate's doing
                raise UsageError(f"{suite.binary} exited {contract.EXIT_USAGE} before its first case:\n"
                                 f"{contract.terminal_lines(p.log_tail())}")
            cases = contract.list_cases(suite, p.unit.selection, self.workdir, self.env)
            self.learn(p.unit, cases)
            if p.unit.tests is None:
                p.unit.tests = [c.test for c in cases]
        else:
            if not self.candidate:
                self.candidate = bound_candidate(p.begin["candidate"])
            if self.declared is None and "features" in p.begin:
                self.declared = {bound(f["name"]): bool(f["supported"]) for f in p.begin["features"]}
                self.announced = list(self.declared)
            if self.dtypes is None and "dtypes" in p.begin:
                self.dtypes = p.begin["dtypes"]
            if self.tensor_device is None and p.begin.get("device"):
                self.tensor_device = p.begin["device"]
            self.learn(p.unit, [contract.listed_case(c, suite.name) for c in p.begin["cases"]])
        for test, event in p.ended.items():
            if p.unit.claims is not None and (suite.name, test) in self.records:
                continue  # a claims group's test has one record, its first (isolation.claimed)
            try:
                self.records[(suite.name, test)] = self.case_record(suite, event)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                self.records[(suite.name, test)] = self.isolated_record(
                    suite, test, "CRASH", f"its end event in the result stream is malformed ({e!r})"[:300], "")
        if p.unit.claims is not None:
            return self._claimed_rest(p, hung, siblings)
        left = [t for t in p.unit.tests if t not in p.ended]
        if p.done and not hung and not p.broken:
            if left:
                raise RuntimeError(f"{suite.binary} finished without running {left[:3]} (a runner bug)")
            if p.proc.returncode not in contract.EXIT_FINISHED:
                print(f"run: {suite.binary} exited {p.proc.returncode} after its last case", file=sys.stderr)
            return []
        if self._clean_exit(p, hung):
            return left  # a case reset process-wide state (no fault): resume in a new process
        fault = self._fault(p, hung)
        if p.current is not None:
            return [t for t in left if t != p.current]
        if p.ended:
            return left  # it died between cases: resume with the rest
        # It died (or hung) before its first case: every case it had gets the outcome.
        self._before_first_case(p, left, *fault)
        return []

    @staticmethod
    def _clean_exit(p: Process, hung: bool) -> bool:
        """Whether p ended after a case that reset process-wide state (exit clean_process): no fault."""
        return (not hung and not p.broken and p.current is None and bool(p.ended)
                and p.proc.poll() == contract.EXIT_CLEAN_PROCESS)

    def _fault(self, p: Process, hung: bool) -> tuple[str, str]:
        """p died, hung or broke its stream: counted as isolated, and the case it was in (if any)
        recorded as CRASH or TIMEOUT. Returns the outcome and what happened."""
        self.isolated += 1
        outcome = "TIMEOUT" if hung else "CRASH"
        what = (f"no progress for {self.o.case_timeout:g} s; the process was killed" if hung
                else p.broken + "; the process was killed" if p.broken
                else exit_description(p.proc.returncode))
        if p.current is not None:
            suite = p.unit.suite
            self.records[(suite.name, p.current)] = self.isolated_record(suite, p.current, outcome, what, p.log_tail())
        return outcome, what

    def _before_first_case(self, p: Process, tests: list, outcome: str, what: str) -> None:
        """p died (or hung) before its first case: each of `tests` gets the outcome."""
        suite = p.unit.suite
        for t in tests:
            self.records[(suite.name, t)] = self.isolated_record(
                suite, t, outcome, what + " before its first case", p.log_tail())

    def _claimed_rest(self, p: Process, hung: bool, siblings: int):
        """collect's end for a process of a claims group: each test of the group's list ran in the
        process that claimed it (isolation.claimed), so what is left is the group's. A crash or
        hang costs the case it was in, and a new member of the group claims on where unclaimed
        tests remain; the group's last process resumes, unclaimed, any test that has no record
        (claimed by a process that died before its start event)."""
        suite, tests = p.unit.suite, p.unit.tests
        no_record = lambda: [t for t in tests if (suite.name, t) not in self.records]  # noqa: E731
        finished = p.done and not hung and not p.broken
        if not finished and not self._clean_exit(p, hung):
            fault = self._fault(p, hung)
            if p.current is None and not p.ended:
                # It died (or hung) before its first case: the others of its group go on; the
                # last one standing gives every test without a record the outcome.
                if not siblings:
                    self._before_first_case(p, no_record(), *fault)
                return []
        elif finished and p.proc.returncode not in contract.EXIT_FINISHED:
            print(f"run: {suite.binary} exited {p.proc.returncode} after its last case", file=sys.stderr)
        if not finished and len(claimed(p.unit)) < len(tests):
            return Unit(suite, p.unit.selection, None, p.unit.shard, claims=p.unit.claims)
        return [] if siblings else no_record()

    def _common(self, suite: Suite, c: ListedCase, outcome: str) -> dict:
        return {
            "id": c.id, "test": c.test, "suite": c.suite, "spec_file": suite.spec_file or f"spec/{c.suite}.toml",
            "kind": c.kind,
            "clause": c.clause, "basis": c.basis, "statement": c.statement, "outcome": outcome,
            **({"answer": c.answer} if c.answer else {}),
            **({"spec_row": c.spec_row} if c.spec_row else {}),
            **({"inputs": c.inputs.split()} if c.inputs else {}),
        }

    def case_record(self, suite: Suite, e: dict) -> dict:
        """The record of a case its process finished: the raw outcome it streamed, with the
        candidate's expectations applied (FAIL listed as FAIL -> XFAIL, PASS listed -> XPASS)."""
        c = self.listed[(suite.name, e["test"])]
        mismatches = bound_mismatches(e.get("mismatches", []))
        raw = e["outcome"]
        checks = e.get("checks") or {}
        failed_checks = expectations_file.failing_checks(checks)
        protocol = e.get("protocol_error") is True  # the suite binary says so (stream.schema.json); no text decides
        outcome, reason, note, ref = expected.decide(self.entries, c.id, raw, bool(e.get("unclassified")),
                                                     self.o.expectations, failed_checks, protocol, c.kind == "property",
                                                     self.reasons)
        text = bound(e.get("message", "").strip())
        message = text
        if note:
            message = (note + "\n" + message).strip()
        passed = raw == "PASS"
        record = {
            **self._common(suite, c, outcome),
            "expected": mismatches[0]["expected"] if mismatches else c.statement,
            "observed": mismatches[0]["observed"] if mismatches else ("as expected" if passed else ""),
            "mismatches": mismatches, "reason": reason, "message": message,
            "rerun": c.rerun, "duration_ms": e.get("ms"),
            **({"reason_ref": ref} if ref is not None else {}),
            **({"unclassified": True} if e.get("unclassified") is True else {}),
            **({"protocol_error": True} if protocol else {}),
        }
        if raw == "NOT_SUPPORTED":
            record["observed"] = f"NotSupported: {bound(e.get('not_supported', ''))}"
            if e.get("feature"):
                record["feature"] = bound(e["feature"])
            if e.get("dtype"):
                record["dtype"] = bound(e["dtype"])
        if isinstance(e.get("facts"), dict):
            for k in self.facts:
                self.facts[k] += e["facts"].get(k, 0)
        if e.get("features"):
            used = bound_list(e["features"], "more feature(s)")
            self.used[(suite.name, c.test)] = used
            record["features"] = list(used)
        if e.get("skipped_checks"):
            record["skipped_checks"] = bound_list(e["skipped_checks"], "more skipped check(s)")
        if checks:
            record["checks"] = dict(checks)
        if c.kind == "property":
            record["seed"] = self.seed
            if "draws" in e:
                record["draws"] = e["draws"]
            if raw == "FAIL":
                record["counterexample"] = text
                record["observed"] = bound(property_cause(text))
        elif raw == "FAIL" and not mismatches:
            record["observed"] = text.splitlines()[0] if text else "failed"
        return record

    def isolated_record(self, suite: Suite, test: str, outcome: str, what: str, log: str) -> dict:
        c = self.listed[(suite.name, test)]
        decided, reason, _, ref = expected.decide(self.entries, c.id, outcome, reasons=self.reasons)
        record = {
            **self._common(suite, c, decided),
            "expected": c.statement, "observed": bound(f"{outcome}: {what}"), "mismatches": [], "reason": reason,
            "message": bound(log), "rerun": c.rerun,
            "duration_ms": None, "isolated": outcome,
            **({"reason_ref": ref} if ref is not None else {}),
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
