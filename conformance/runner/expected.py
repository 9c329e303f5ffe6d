"""The candidate's expectations applied to a run: each case's outcome, the stale entries, and
the file written or updated after the run (--write-expectations, --update-expectations).

The suite binaries report raw outcomes (PASS, FAIL, NOT_SUPPORTED); this runner is the only
reader of the candidate's expectations file (conformance/expectations/FORMAT.md): a FAIL the
file lists as FAIL is an XFAIL, a listed case that passes an XPASS, a crash or hang it lists
as CRASH or TIMEOUT an XFAIL. Nothing else is expected.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import shlex
import sys
import tempfile
from typing import NamedTuple

from . import contract
from . import expectations as expectations_file
from . import expectations_writer
from .options import Options, run_command


# A reason longer than this is stored once in the report (expectations.reasons) and each case
# shows its head and where the whole is: a reason may be a line of 4,096 characters (FORMAT.md),
# and one matched by `*` was copied into every case of a run (45 MB of report.json). Every
# reason the project's files give is shorter (the longest, 472 characters), so none is cut.
MAX_REASON_CHARS = 500


class Reasons:
    """The long reasons of a run's entries, each stored once (report.json expectations.reasons),
    in the order cases first met them."""

    def __init__(self):
        self.texts: list[str] = []
        self._index: dict[str, int] = {}

    def shown(self, reason: str) -> tuple[str, int | None]:
        """(the reason as a case shows it, the index of its whole text in `texts`, or None when it
        is shown whole)."""
        if len(reason) <= MAX_REASON_CHARS:
            return reason, None
        k = self._index.setdefault(reason, len(self.texts))
        if k == len(self.texts):
            self.texts.append(reason)
        head = reason[:MAX_REASON_CHARS - 100].rstrip()
        return f"{head} \u2026 [cut: {len(reason)} characters in all; whole in the report's expectations.reasons]", k


class Decision(NamedTuple):
    outcome: str
    reason: str
    note: str
    reason_ref: int | None = None  # where a cut reason stands whole (Reasons.texts)


def decide(entries, case_id: str, raw: str, unclassified: bool = False, path: str = "",
           failed_checks: tuple = (), protocol_error: bool = False, property_case: bool = False,
           reasons: Reasons | None = None) -> Decision:
    """(outcome, reason, note, reason_ref) of a case whose raw outcome is `raw` (PASS, FAIL,
    NOT_SUPPORTED, CRASH, TIMEOUT) and whose failing checks are `failed_checks` (an entry
    FAIL(check,...) names those it expects): the note, for an XPASS, says which entry to remove
    (`path`: the file's name where the entry does not say). A FAIL that is a protocol error
    (`protocol_error`: the testee broke the protocol inside the case) is never the listed
    deviation either. A property (`property_case`) listed as deviating that passes is a PASS,
    noting its entry, not an XPASS: whether its draws reach the listed deviation depends on the
    seed (torch2_fake's property.views.share_storage passed under 2 of 12 seeds), and a verdict
    must not. With `reasons`, an entry's reason longer than MAX_REASON_CHARS is shown cut, its
    whole text stored there once (`reason_ref` its index)."""
    outcome, entry, reason = expectations_file.apply(entries, case_id, raw, failed_checks)
    ref = None
    if entry is not None and reasons is not None:
        short, ref = reasons.shown(entry.reason)
        if ref is not None:
            reason = reason.replace(entry.reason, short)
            entry = dataclasses.replace(entry, reason=short)
    if raw == "FAIL" and unclassified and outcome == "XFAIL":
        # A failure outside the case's checks (an exception, no verdict) is never the listed deviation.
        outcome, reason = "FAIL", f"listed as {entry.outcome_text} ({entry.reason}), but it failed outside its checks"
    elif raw == "FAIL" and protocol_error and outcome == "XFAIL":
        # A library's deviation is listed; a testee that broke the protocol is not that library.
        outcome, reason = "FAIL", (f"listed as {entry.outcome_text} ({entry.reason}), but the testee broke the "
                                   f"protocol (a protocol error is never an expected deviation)")
    note = ""
    if outcome == "PASS" and entry is not None and entry.outcome == expectations_file.VARIES:
        return Decision("PASS", "", (f"listed in {entry.path or path}:{entry.line} ({entry.pattern} {entry.outcome_text}, "
                                     f"reason: {entry.reason}); on this machine the case behaves as the spec says (the "
                                     f"listed deviation depends on the machine)."), ref)
    if outcome == "XPASS" and property_case:
        return Decision("PASS", "", (f"listed in {entry.path or path}:{entry.line} ({entry.pattern} {entry.outcome_text}, "
                                     f"reason: {entry.reason}); this seed's draws did not reach it (a property's listed "
                                     f"deviation is judged only where a draw reaches it)."), ref)  # the note cites it cut
    if outcome == "XPASS":
        note = (f"listed in {entry.path or path}:{entry.line} ({entry.pattern} {entry.outcome_text}, reason: "
                f"{entry.reason}) but the candidate now matches the spec; remove the entry.")
    return Decision(outcome, reason, note, ref)


def stale_entries(entries: list, cases: list[dict]) -> list[dict]:
    """The expectations entries this run shows to be out of date: those that match no case;
    those that match only NOT_SUPPORTED cases (the candidate's declaration decides those, so the
    entry lists nothing: 'not_supported' counts them); those whose cases a wording rule decides
    alone; and a wording rule that is the first rule for no case whose wording failed. Only
    meaningful when every case of the suites ran. A property NOT_SUPPORTED for a feature is left
    out of the second kind: whether a draw reaches the unsupported call before a deviation
    depends on the seed (xtensor lists such properties), so an entry for it would be stale under
    some seeds only."""
    def decided(c: dict) -> bool:
        return c["outcome"] == "NOT_SUPPORTED" and not (c["kind"] == "property" and c.get("feature"))

    index = entries if isinstance(entries, expectations_file.Index) else expectations_file.Index(entries)
    ran: set[int] = set()  # the entries that list a case that ran: not stale
    not_supported: collections.Counter = collections.Counter()
    for c in cases:
        raw, failed = expectations_writer.raw_outcome(c), expectations_writer.failed_checks(c)
        matching = index.matching(c["id"])
        rules = [k for k in matching if expectations_file.is_wording_rule(index.entries[k])]
        # A wording rule lists a case whose wording failed; a case that failed in its wording alone
        # is the rule's, and an entry matching it lists nothing of it (issue 48: the entries that
        # listed wording case by case are stale once a rule says it once).
        alone = bool(rules) and expectations_file.wording_only(raw, failed)
        for k in matching:
            if expectations_file.is_wording_rule(index.entries[k]):
                if k == rules[0] and expectations_file.wording_failed(raw, failed):
                    ran.add(k)
            elif decided(c):
                not_supported[k] += 1
            elif not alone:
                ran.add(k)
    stale = []
    for k, e in enumerate(index.entries):
        if k not in ran:
            n = not_supported[k]
            stale.append({"pattern": e.pattern, "outcome": e.outcome, "reason": e.reason, "line": e.line,
                          **({"not_supported": n} if n else {})})
    return stale


def after_run(o: Options, doc: dict, suites: list, env: dict, tool_command) -> bool:
    """--write-expectations / --update-expectations: the file from this run's outcomes (without
    either: when anything was unexpected, the command that would list it is printed). False when
    the file could not be written."""
    target = o.write_expectations or o.update_expectations
    unexpected = sum(doc["summary"]["outcomes"].get(k, 0) for k in ("FAIL", "XPASS", "CRASH", "TIMEOUT"))
    if not target:
        if unexpected or (doc["expectations"].get("stale") or []):
            workspace = o.workspace or o.cwd
            exp = o.expectations if os.path.isabs(o.expectations) else os.path.join(workspace, o.expectations)
            report = os.path.join(o.out, "report.json")
            if o.stale_check:
                print(f"to list these outcomes in the expectations file (reasons marked UNREVIEWED):\n"
                      f"  cd {shlex.quote(workspace)} && {tool_command('write_expectations')} "
                      f"--from-report={shlex.quote(report)} --update={shlex.quote(exp)}")
            elif o.in_test or o.replay or o.device:
                # The update would know the cases of this run's suites only (a replay's: none).
                print(f"to list these outcomes in the expectations file (reasons marked UNREVIEWED): rerun with "
                      f"--update-expectations={exp}")
            else:
                # Some of the cases ran (--filter, --suites): the run again, updating the file,
                # keeps the entries of every case of the target's suites that it does not run.
                print(f"to list these outcomes in the expectations file (reasons marked UNREVIEWED), the run again "
                      f"with --update-expectations:\n  cd {shlex.quote(o.cwd or workspace)} && {run_command(o)} "
                      f"{shlex.join(o.user_args + ['--update-expectations=' + exp])}")
        return True
    ids = [c["id"] for c in doc["cases"]]
    if not o.stale_check and not o.replay:
        if o.narrowed and not o.device:
            # The universe: every case of the target's suites, from this run's own binary.
            every = "--tcts_suites=" + ",".join(o.all_suites)
            suites = [dataclasses.replace(s, args=[every if a.startswith("--tcts_suites=") else a for a in s.args])
                      for s in suites]
        with tempfile.TemporaryDirectory(prefix="tcts-list-") as tmp:
            for s in suites:
                ids += [c.id for c in contract.list_cases(s, [], tmp, env)]
    try:
        for line in expectations_writer.run(doc["cases"], doc["candidate"], ids,
                                           o.user_path(o.write_expectations) if o.write_expectations else "",
                                           o.user_path(o.update_expectations) if o.update_expectations else "",
                                           source=o.command):
            print(f"expectations: {line}")
    except (expectations_writer.WriteError, expectations_file.ExpectationsError) as e:
        print(f"run: {e}", file=sys.stderr)
        return False
    return True
