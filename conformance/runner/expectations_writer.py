"""The expectations writer: a candidate's expectations file written or updated from a run's
outcomes (the runner's --write-expectations and --update-expectations, and the stand-alone
program conformance/tools/write_expectations.py, whose --help says it all).

--write: a fresh file listing every deviation of the run (FAIL, CRASH, TIMEOUT, and the
expected deviations XFAIL). --update: the existing FILE with every entry whose cases still
deviate kept as written (its reason too); an entry some of whose cases now pass (XPASS) or
deviate otherwise is narrowed to the cases that still deviate as it says, keeping its reason;
an entry none of whose cases deviates so (XPASS only, or stale) is dropped; a case NOT_SUPPORTED
in the run keeps its place in its entry (it was not reached, not fixed); the deviations no
entry lists are added at the end. Only FILE itself is edited: entries it takes from an
`include` are reported when they need a change, never rewritten (other files include them too).

New entries are grouped by the spec row, the clause, the outcome of their cases, the checks
that failed (written FAIL(check,...): a failure of another check later is unexpected) and what
was observed (each failing check, and the error kind an error check saw), so two different
observations never share an entry or a reason; each
group gets the fewest globs this tool finds that match exactly its cases among every case id
(the run's cases, and --manifest's when the run did not cover every case): none matches a case
that passed, was not run, or belongs to another group. The globs use the dotted structure of
case ids: whole subtrees first (`binary.add.t_int8.*`), then siblings that differ in one
segment merged (`binary.*.t_int8.t_int8`, `binary.div.z_complex*.t_float16`,
`binary.???.s_float.s_float`). Each group's reason says what was observed against what the
spec says, for its first case, and starts with 'UNREVIEWED:' (expectations.UNREVIEWED): a
person replaces it with the library's rule and its source; the lint (--reviewed) and the
report count such reasons.

--shared=SHARED: one library's per-platform files (tfjs_cpu.txt and tfjs_wasm.txt: one
report each, or the files as they are) keep no copy of what they have alike. Every entry they
all have alike (the same pattern, outcome and reason) moves into SHARED, which each file
includes where its first such entry stood; a block keeps its other patterns. Each file is then
read back with its include and must decide every case id (the reports' and --manifest's) as
before: the same outcome, checks and reason, or nothing is written and the first case that
would change is named.

The grammar is conformance/expectations/FORMAT.md; the file written is read back by the one
parser (expectations.py) and checked to give every case the outcome it should before it is
written. Standard library only.
"""

from __future__ import annotations

import bisect
import collections
import datetime
import os
import re

from . import expectations as ex

DEVIATIONS = ("FAIL", "CRASH", "TIMEOUT")
REASON_LIMIT = 240


class WriteError(Exception):
    """Bad input: the message names it."""


# ---------------------------------------------------------------- raw outcomes
def raw_outcome(case: dict) -> str:
    """What the case did before the expectations were applied: PASS, FAIL, CRASH, TIMEOUT or
    NOT_SUPPORTED (report.json's outcome is after them)."""
    o = case["outcome"]
    if o == "XFAIL":
        return case.get("isolated") or "FAIL"
    if o == "XPASS":
        return "PASS"
    return o


# ---------------------------------------------------------------- globs
class Universe:
    """Every case id a glob could match, sorted, with the dotted tree of their segments, for
    checking candidate globs quickly."""

    def __init__(self, ids):
        self.ids = sorted(set(ids))
        self.children: dict[tuple, set] = collections.defaultdict(set)  # prefix -> next segments
        self.under: collections.Counter = collections.Counter()  # prefix -> ids equal to it or below it
        self.is_id: set = set()
        for i in self.ids:
            segs = tuple(i.split("."))
            self.is_id.add(segs)
            for k in range(len(segs) + 1):
                self.under[segs[:k]] += 1
                if k < len(segs):
                    self.children[segs[:k]].add(segs[k])

    def matches(self, pattern: str, allowed: set | None) -> set | None:
        """The ids `pattern` matches, or None as soon as it matches one outside `allowed`
        (None: any id is allowed)."""
        match = ex.compile_glob(pattern)
        prefix = ex.literal_prefix(pattern)
        lo = bisect.bisect_left(self.ids, prefix)
        hi = bisect.bisect_left(self.ids, prefix + "\U0010ffff") if prefix else len(self.ids)
        found = set()
        for i in range(lo, hi):
            text = self.ids[i]
            if match(text):
                if allowed is not None and text not in allowed:
                    return None
                found.add(text)
        return found


def _join(segments) -> str:
    return ".".join(segments)


def _prefix_cover(targets: set, allowed: set, universe: Universe) -> list[tuple]:
    """Patterns (as segment tuples) of whole subtrees of the dotted case-id tree whose every
    id is allowed and one at least a target, and the remaining targets as literals."""
    def counts(ids):
        c = collections.Counter()
        for i in ids:
            segs = tuple(i.split("."))
            for k in range(len(segs) + 1):
                c[segs[:k]] += 1
        return c

    hit, ok = counts(targets), counts(allowed)
    out: list[tuple] = []
    stack = [()]
    while stack:
        path = stack.pop()
        kids = universe.children.get(path, ())
        whole = ok[path] == universe.under[path]
        if path and kids and whole and len(kids) + (path in universe.is_id) > 1:
            if path in universe.is_id and ".".join(path) in targets:
                out.append(path)
            out.append(path + ("*",))
            continue
        if path in universe.is_id and ".".join(path) in targets:
            out.append(path)
        stack += [path + (k,) for k in sorted(kids, reverse=True) if hit[path + (k,)]]
    return out


def _common_prefix(values) -> str:
    return os.path.commonprefix(list(values))


def _merge_candidates(values: list[str]) -> list[str]:
    """Ways to write one segment for several values, the widest first."""
    out = ["*"]
    prefix = _common_prefix(values)
    suffix = _common_prefix([v[::-1] for v in values])[::-1]
    if prefix and prefix + "*" not in out:
        out.append(prefix + "*")
    if suffix and len(suffix) < min(len(v) for v in values):
        out.append("*" + suffix)
    if len({len(v) for v in values}) == 1 and "*" not in "".join(values):
        n = len(values[0])
        q = "".join(values[0][k] if all(v[k] == values[0][k] for v in values) else "?" for k in range(n))
        out.append(q)
    return out


def cover(targets: set, universe: Universe, dont_care: set = frozenset()) -> list[str]:
    """Few globs that together match every id of `targets` and, among the universe's other
    ids, only ids of `dont_care` (those an earlier entry decides)."""
    if not targets:
        return []
    allowed = targets | dont_care if dont_care else targets
    patterns = _prefix_cover(targets, allowed, universe)
    matched = {p: universe.matches(_join(p), allowed) for p in patterns}
    assert all(m is not None for m in matched.values())
    changed = True
    while changed and len(patterns) > 1:
        changed = False
        for pos in range(max(len(p) for p in patterns)):
            groups = collections.defaultdict(list)
            for p in patterns:
                if pos < len(p):
                    groups[(len(p), p[:pos], p[pos + 1:])].append(p)
            for (_, head, tail), members in groups.items():
                if len(members) < 2 or any(m not in matched for m in members):
                    continue
                values = sorted({m[pos] for m in members})
                for seg in _merge_candidates(values):
                    cand = head + (seg,) + tail
                    if cand in matched:
                        continue
                    got = universe.matches(_join(cand), allowed)
                    if got is not None:
                        for m in members:
                            del matched[m]
                        matched[cand] = got
                        changed = True
                        break
            patterns = list(matched)
    # Drop globs whose ids the others already match (the widest kept first).
    keep, covered = [], set()
    for p in sorted(patterns, key=lambda p: (-len(matched[p] & targets), _join(p))):
        if not (matched[p] & targets) <= covered:
            keep.append(p)
            covered |= matched[p] & targets
    assert covered == targets, (sorted(targets - covered)[:3])
    return sorted(_join(p) for p in keep)


# ---------------------------------------------------------------- reasons
_HASH_AFTER_BLANK = re.compile(r"(?<=[ \t])#")


def clean(text: str) -> str:
    """`text` as one line a reason can hold: no line breaks, no characters the grammar
    refuses, no '#' that would start a comment."""
    text = "".join(" " if ex._forbidden(ord(ch)) or ch in "\t\n" else ch for ch in str(text))
    text = " ".join(text.split())
    return _HASH_AFTER_BLANK.sub("no.", text)


def reason_for(cases: list[dict]) -> str:
    c = cases[0]
    observed, expected = clean(c.get("observed") or c["outcome"]), clean(c.get("expected") or c.get("statement", ""))
    statement = clean(c.get("statement", ""))
    where = f" ({statement})" if statement and statement != expected else ""
    more = f" (and {len(cases) - 1} more case(s) like it)" if len(cases) > 1 else ""
    text = f"{ex.UNREVIEWED} {c['id']}: observed {observed}; spec: {expected}{where}{more}"
    return text if len(text) <= REASON_LIMIT else text[:REASON_LIMIT - 1] + "…"


# ---------------------------------------------------------------- writing
WIDTH = 100


def pack(globs: list[str], indent: str = "    ", width: int = WIDTH) -> list[str]:
    """A block's pattern lines: the globs in order, several to a line up to `width` columns."""
    lines, line = [], ""
    for g in globs:
        if line and len(indent) + len(line) + 1 + len(g) > width:
            lines.append(indent + line)
            line = ""
        line = f"{line} {g}" if line else g
    if line:
        lines.append(indent + line)
    return lines


# How expected.decide() ends the reason of a FAIL no entry can make an XFAIL.
NEVER_LISTED = ("failed outside its checks", "(a protocol error is never an expected deviation)")


def unclassified(case: dict) -> bool:
    """Whether the case failed outside its checks (report.json's flag; a report written before
    it: the reason's last words, as expected.decide() ends it)."""
    return case.get("unclassified") is True or ("unclassified" not in case
                                                and case.get("reason", "").endswith(NEVER_LISTED[0]))


def never_listed(case: dict) -> bool:
    """Whether no entry can make the case an XFAIL: it failed outside its checks or in a protocol
    error (report.json's flags; before them, the reason's last words)."""
    if "unclassified" in case or "protocol_error" in case:
        return case.get("unclassified") is True or case.get("protocol_error") is True
    return case.get("reason", "").endswith(NEVER_LISTED)


def failed_checks(case: dict) -> tuple[str, ...]:
    """The checks that failed in a FAIL case (report.json `checks`), sorted; () when the report
    does not say (a crash, a timeout, a failure outside the case's checks)."""
    if raw_outcome(case) != "FAIL" or unclassified(case):
        return ()
    return ex.failing_checks(case.get("checks"))


def observed_signature(case: dict) -> tuple:
    """What was observed, coarsely: each failing check, with the error kind it saw when the
    check is about errors ("error: ValueError"). Two different observations are never one entry."""
    sig = []
    for m in case.get("mismatches", []):
        kind = m.get("kind", "")
        seen = m.get("observed", "").split(":", 1)[0] if kind == "error" else ""
        if (kind, seen) not in sig:
            sig.append((kind, seen))
    return tuple(sig)


def group_key(case: dict) -> tuple:
    return (case.get("spec_file", ""), case.get("clause", ""), case.get("spec_row", ""), raw_outcome(case),
            failed_checks(case), observed_signature(case))


def root_key(case: dict, roots: dict) -> tuple:
    """--by-root: one rule per root deviation (reports/report.py root_causes) and outcome, the checks
    that failed kept apart (FAIL(check,...) must stay exact)."""
    root = " + ".join(roots.get(case["id"]) or [case.get("spec_row", "")])
    return ("", "", root, raw_outcome(case), failed_checks(case), ())


def new_blocks(cases: list[dict], universe: Universe, roots: dict | None = None) -> list[str]:
    """Lines listing `cases` (deviations): per spec row, clause and outcome (with `roots`, the
    --by-root mode: per root deviation and outcome), a comment, then one entry or a block."""
    groups = collections.defaultdict(list)
    for c in cases:
        groups[root_key(c, roots) if roots is not None else group_key(c)].append(c)
    lines = []
    for key in sorted(groups):
        spec_file, clause, row, raw, checks, _ = key
        outcome = ex.outcome_text(raw, checks)
        members = sorted(groups[key], key=lambda c: c["id"])
        globs = cover({c["id"] for c in members}, universe)  # matches no case of another group
        lines.append("")
        if roots is not None:
            below = sorted({c.get("spec_row", "") for c in members} - set(row.split(" + ")))
            lines.append(f"# root deviation {clean(row)}: {len(members)} case(s) {outcome}"
                         + (f", {clean(', '.join(below[:6]))}{' …' if len(below) > 6 else ''} derived from it"
                            if below else ""))
            reason = reason_for(members)
            reason = reason.replace(f"{ex.UNREVIEWED} ", f"{ex.UNREVIEWED} root {clean(row)}: ", 1)[:REASON_LIMIT]
        else:
            where = ", ".join(x for x in (spec_file, clause, f"spec row {row}" if row else "") if x)
            lines.append(f"# {clean(where)}: {len(members)} case(s) {outcome}")
            reason = reason_for(members)
        if len(globs) == 1:
            lines.append(f"{globs[0]}  {outcome}  {reason}")
        else:
            lines.append(f"{outcome}: {reason}")
            lines += pack(globs)
    return lines


def write(cases: list[dict], universe: Universe, header: list[str], roots: dict | None = None) -> str:
    deviating = [c for c in cases if raw_outcome(c) in DEVIATIONS]
    return "\n".join(header + new_blocks(deviating, universe, roots)) + "\n"


def case_roots(doc: dict) -> dict:
    """Each deviating case's root deviations (reports/report.py root_causes over the derivations the
    report used, root_causes.edges); {} for a report without them."""
    from reports import report_causes

    edges = (doc.get("root_causes") or {}).get("edges")
    if edges is None:
        raise WriteError("--by-root: the report has no root_causes (a report written before them): rerun, or "
                         "write without --by-root")
    per_case: dict = {}
    report_causes.root_causes(doc["cases"], edges, per_case)
    return per_case


def deciders(entries: list, universe: Universe, rules: bool = False) -> dict[str, int]:
    """Case id -> the index of the entry that decides it (the first matching one), among the
    entries, or with `rules` among the wording rules (FAIL(message): FORMAT.md)."""
    decider: dict[str, int] = {}
    for k in range(len(entries) - 1, -1, -1):
        if ex.is_wording_rule(entries[k]) != rules:
            continue
        for i in universe.matches(entries[k].pattern, None):
            decider[i] = k
    return decider


def fits(case: dict, e, rule_decider: dict) -> bool:
    """Whether entry `e` (not a rule) still lists `case` as it did: its outcome, NOT_SUPPORTED
    (which says nothing of the deviation: issue 48), and for FAIL(check,...) no failing check it
    does not name (the message check aside where a wording rule decides the wording); never a
    case a wording rule decides alone."""
    raw = raw_outcome(case)
    if raw == "NOT_SUPPORTED" or (raw == "PASS" and e.outcome == ex.VARIES):
        return True  # a VARIES entry's case that passes on this machine stays listed for those where it does not
    if raw != e.raw or rule_alone(case, rule_decider):
        return False
    if e.checks and raw == "FAIL":
        failed = set(failed_checks(case))
        if case["id"] in rule_decider:
            failed.discard(ex.MESSAGE)
        return failed <= set(e.checks)
    return True


def rule_alone(case: dict, rule_decider: dict) -> bool:
    """Whether a wording rule decides `case` by itself: it failed in its wording alone and a rule
    matches it."""
    return case["id"] in rule_decider and ex.wording_only(raw_outcome(case), failed_checks(case))


def _decided(decider: dict, cases: list[dict]) -> dict:
    """Entry index -> the cases it decides (`decider`: deciders(entries, universe))."""
    out = collections.defaultdict(list)
    for c in cases:
        if c["id"] in decider:
            out[decider[c["id"]]].append(c)
    return out


def update(path: str, cases: list[dict], universe: Universe, stamp: str) -> tuple[str, list[str]]:
    """FILE's new text, and what changed (one line each, for the terminal)."""
    text = ex.read_text(path)  # the one bounded reader
    entries = ex.parse(path, text)
    lines = text.split("\n")
    own = os.path.realpath(path)
    decider = deciders(entries, universe)
    decided = _decided(decider, cases)
    rule_decider = deciders(entries, universe, rules=True)
    worded = collections.Counter(rule_decider[c["id"]] for c in cases if c["id"] in rule_decider
                                 and ex.wording_failed(raw_outcome(c), failed_checks(c)))
    # A run of some of the cases (--filter, --suites) says nothing of the others: an entry keeps
    # the cases of the universe that did not run, and one deciding only such cases stays as it is.
    ran = {c["id"] for c in cases}
    unrun: dict[int, set] = collections.defaultdict(set)  # entry or rule index -> its cases not run
    for d in (decider, rule_decider):
        for i, k in d.items():
            if i not in ran:
                unrun[k].add(i)
    replace: dict[int, list[str]] = {}  # 0-based line -> new lines (one-line entries)
    tokens: dict[int, dict[int, list[str]]] = collections.defaultdict(dict)  # block lines: col -> new globs
    notes = []
    for k, e in enumerate(entries):
        if ex.is_wording_rule(e):
            # A wording rule is kept whole while a case's wording fails under it; never narrowed.
            if worded[k] or unrun[k]:
                continue
            mine, keep, bad = [], [], []
            what = "stale (no case's wording fails under it)"
        else:
            mine = decided.get(k, [])
            # A case NOT_SUPPORTED in this run (an undeclared feature or dtype, a property whose
            # draws missed what it needs) says nothing of the deviation: its entry stays for it, so
            # that the next run, where it is reached, is still expected (issue 48). A case a
            # wording rule decides alone is the rule's.
            keep = [c for c in mine if fits(c, e, rule_decider)]
            kept_ids = {c["id"] for c in keep}
            bad = [c for c in mine if c["id"] not in kept_ids]
            if not bad and (keep or unrun[k]):
                continue
            what = ("stale (no case of the run)" if not mine else
                    f"{len(bad)} case(s) no longer {e.outcome} ({dict(collections.Counter(raw_outcome(c) for c in bad))})"
                    if any(not rule_alone(c, rule_decider) for c in bad) else
                    f"{len(bad)} case(s) a wording rule decides")
        if os.path.realpath(e.path) != own:
            notes.append(f"{e.where}: '{e.pattern}' {what}: in an included file, not rewritten; edit it by hand")
            continue
        old = lines[e.line - 1]
        indent = old[:len(old) - len(old.lstrip(" \t"))]
        f = ex._fields(ex._strip_comment(old))
        is_block = not (len(f) >= 2 and ex.split_outcome(f[1][1]) is not None)  # a pattern line of a block
        globs = cover({c["id"] for c in keep} | unrun[k], universe) if keep or unrun[k] else []
        if is_block:
            tokens[e.line - 1][e.col] = globs
        else:
            replace[e.line - 1] = [f"{indent}{g}  {e.outcome_text}  {e.reason}" for g in globs]
        notes.append(f"{e.where}: '{e.pattern}' " + (f"narrowed to {', '.join(globs)}" if globs else "dropped") +
                     f": {what}")
    for i, cols in tokens.items():
        line = ex._strip_comment(lines[i])
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        words = []
        for col, word in ex._words(line):
            words += cols.get(col, [word])
        replace[i] = pack(words, indent) if words else []
    out = []
    for i, line in enumerate(lines):
        out += replace.get(i, [line])
    text = "\n".join(out)
    # Blocks left without patterns lose their header.
    text = _drop_empty_blocks(path, text)
    kept = ex.parse(path, text)
    listed = set(deciders(kept, universe))
    kept_rules = deciders(kept, universe, rules=True)
    new = [c for c in cases if raw_outcome(c) in DEVIATIONS and c["id"] not in listed and not rule_alone(c, kept_rules)]
    if new:
        text = text.rstrip("\n") + "\n\n# " + stamp + "\n" + "\n".join(new_blocks(new, universe)[1:]) + "\n"
        notes.append(f"{len(new)} new deviation(s) added")
    return text, notes


def _is_header(word: str) -> bool:
    """A block's first field: "FAIL:", "FAIL(values,dtype):", "CRASH:"..."""
    return word.endswith(":") and ex.split_outcome(word[:-1]) is not None


def _drop_empty_blocks(path: str, text: str) -> str:
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        fields = ex._fields(ex._strip_comment(line))
        if fields and _is_header(fields[0][1]) and line[:1] not in ex.FIELD_SEPARATORS:
            # A header: keep it only if an indented pattern follows before the next unindented line.
            for nxt in lines[i + 1:]:
                f = ex._fields(ex._strip_comment(nxt))
                if not f:
                    continue
                if nxt[:1] in ex.FIELD_SEPARATORS:
                    out.append(line)
                break
            continue
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------- shared baselines
def _key(e) -> tuple:
    """What makes two entries the same entry: pattern, outcome (with its checks) and reason."""
    return (e.pattern, e.outcome_text, e.reason)


def remove_entries(text: str, path: str, drop: set) -> str:
    """`text` (the file at `path`) without its own entries whose _key is in `drop`: a one-line
    entry loses its line; a block its patterns, the rest of each run of its pattern lines repacked
    (pack) and a block left without patterns its header; the blank lines left behind are one."""
    lines = text.split("\n")
    own = os.path.realpath(path)
    gone: dict[int, set] = collections.defaultdict(set)  # 0-based line -> columns of dropped patterns
    for e in ex.parse(path, text):
        if os.path.realpath(e.path) == own and _key(e) in drop:
            gone[e.line - 1].add(e.col)
    pattern_line = lambda line: (line[:1] in ex.FIELD_SEPARATORS and ex._fields(line)  # noqa: E731
                                 and ex._strip_comment(line) == line)
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if pattern_line(line):  # a run of a block's pattern lines (no comment among them)
            j = i
            while j < len(lines) and pattern_line(lines[j]):
                j += 1
            if any(k in gone for k in range(i, j)):
                indent = line[:len(line) - len(line.lstrip(" \t"))]
                out += pack([w for k in range(i, j) for col, w in ex._words(lines[k]) if col not in gone.get(k, ())],
                            indent)
            else:
                out += lines[i:j]
            i = j
            continue
        if i not in gone:  # gone and unindented: a one-line entry
            out.append(line)
        i += 1
    text = _drop_empty_blocks(path, "\n".join(out))
    return re.sub(r"\n(?:[ \t]*\n){2,}", "\n\n", text) if gone else text


def _insert_at(text: str, path: str, first: tuple) -> int:
    """The 0-based line an include goes before: the entry `first` (its block's header for a
    block pattern), above the comment lines directly over it."""
    lines = text.split("\n")
    own = os.path.realpath(path)
    line = next(e.line for e in ex.parse(path, text) if os.path.realpath(e.path) == own and _key(e) == first) - 1
    if lines[line][:1] in ex.FIELD_SEPARATORS:  # a block's pattern: up to its header
        while line > 0 and (lines[line][:1] in ex.FIELD_SEPARATORS or not ex._fields(ex._strip_comment(lines[line]))):
            line -= 1
    while line > 0 and lines[line - 1].lstrip().startswith("#"):
        line -= 1
    return line


def decisions(entries: list, ids) -> dict:
    """Case id -> (outcome, checks, reason) of the entry that decides it (None: no entry), and
    of the wording rule that decides its wording."""
    index = ex.Index(entries)
    out = {}
    for i in ids:
        e, r = index.first(i), index.first(i, rule=True)
        out[i] = ((e.outcome, e.checks, e.reason) if e else None, (r.outcome, r.checks, r.reason) if r else None)
    return out


_PLACE = "# (the include of the shared file goes here)"


def share(paths: list[str], shared_path: str, ids, texts: dict | None = None) -> dict[str, str]:
    """The entries every file of `paths` (one library's per-platform files) has alike — the same
    pattern, outcome and reason, its own or from `shared_path` when it includes it already — moved
    into `shared_path`, which each file includes where its first such entry stood (its own
    entries after it stay after it). Returns the new text of every file (the shared one too).
    `texts`: the files' texts when they are not (yet) on disk. The new files must decide every id
    of `ids` as the old ones did (outcome, checks and reason), or WriteError names the first case
    that would change; nothing is written here."""
    if len(paths) < 2:
        raise WriteError("--shared needs two files at least (one library's per-platform expectations)")
    texts = dict(texts or {})
    for p in paths:
        if p not in texts:
            texts[p] = ex.read_text(p)
    shared_real = os.path.realpath(shared_path)
    old_shared = ex.load(shared_path) if os.path.isfile(shared_path) else []
    effective = {}
    for p in paths:
        entries = ex.parse(p, texts[p])
        mine = [e for e in entries if os.path.realpath(e.path) in (os.path.realpath(p), shared_real)]
        effective[p] = mine
    common = set.intersection(*({_key(e) for e in effective[p]} for p in paths))
    lost = [e for e in old_shared if _key(e) not in common]
    if lost:
        raise WriteError(f"{lost[0].where}: '{lost[0].pattern}' of {shared_path} is not in every file (does each "
                         f"include it?); move it by hand")
    order = list(dict.fromkeys(_key(e) for e in effective[paths[0]] if _key(e) in common))
    if not order:
        raise WriteError(f"{', '.join(paths)} have no entry in common")
    names = [os.path.basename(p) for p in paths]
    body = [f"# The entries {' and '.join(names)} share (each includes this file): the same pattern, outcome and "
            f"reason.", "# Written by conformance/tools/write_expectations.py --shared: edit a rule here only if it "
            "holds for every one of them.", ""]
    k = 0
    while k < len(order):
        j = k
        while j < len(order) and order[j][1:] == order[k][1:]:
            j += 1
        globs, (outcome, reason) = [o[0] for o in order[k:j]], order[k][1:]
        body += [f"{globs[0]}  {outcome}  {reason}"] if len(globs) == 1 else [f"{outcome}: {reason}"] + pack(globs)
        body.append("")
        k = j
    out = {shared_path: "\n".join(body).rstrip("\n") + "\n"}
    for p in paths:
        text = texts[p]
        includes = any(os.path.realpath(e.path) == shared_real for e in ex.parse(p, text))
        if not includes:
            first = next(_key(e) for e in effective[p] if _key(e) in common)
            at = _insert_at(text, p, first)
            lines = text.split("\n")
            text = "\n".join(lines[:at] + [_PLACE, ""] + lines[at:])  # a comment until the entries are gone
        rel = os.path.relpath(shared_path, os.path.dirname(os.path.abspath(p)))
        out[p] = remove_entries(text, p, common).replace(_PLACE, f"include {rel}")
    # The one check that matters: every case decided as before, by the one parser.
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.commonpath([os.path.dirname(os.path.abspath(x)) for x in list(out)])
        placed = {}
        for path, text in out.items():
            target = os.path.join(scratch, os.path.relpath(os.path.abspath(path), root))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            placed[path] = target
        for p in paths:
            before = decisions(ex.parse(p, texts[p]), ids)
            after = decisions(ex.load(placed[p]), ids)
            for i in sorted(before):
                if before[i] != after[i]:
                    raise WriteError(f"{p}: {i} was decided {before[i]}, would be {after[i]} with the shared file; "
                                     f"nothing written")
    return out


def check(path: str, text: str, cases: list[dict], universe: Universe) -> None:
    """The file written must make every deviation of the run expected and leave every other
    case as it was (a bug here would be a silent wrong list); the cases an included file's
    entry decides are that file's (reported, never rewritten)."""
    entries = ex.parse(path, text)
    index = ex.Index(entries)
    own = os.path.realpath(path)
    for c in cases:
        raw = raw_outcome(c)
        got, k, _ = ex.apply(index, c["id"], raw, failed_checks(c))
        if k is not None and os.path.realpath(k.path) != own:
            continue
        want = "XFAIL" if raw in DEVIATIONS else raw
        if got != want and not (raw in DEVIATIONS and never_listed(c)):
            raise WriteError(f"internal error: the written file makes {c['id']} ({raw}) {got}, not {want}")


def run(cases: list[dict], candidate: dict, universe_ids, write_path: str = "", update_path: str = "",
        source: str = "", roots: dict | None = None) -> list[str]:
    """Writes or updates the file; returns the lines to print."""
    universe = Universe(universe_ids)
    unknown = {c["id"] for c in cases} - set(universe.ids)
    if unknown:
        raise WriteError(f"{len(unknown)} case id(s) of the run are not in the manifest, e.g. {sorted(unknown)[0]}")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    name = clean(f"{candidate.get('name', '')} {candidate.get('version', '')}".strip())
    stamp = f"added from {source or 'a run'} on {now}; every UNREVIEWED reason awaits the library's rule and source"
    if write_path:
        header = [f"# Expectations for {name}, written from {source or 'a run'} on {now}.",
                  "# Grammar: conformance/expectations/FORMAT.md. Every reason below starts with "
                  f"{ex.UNREVIEWED} replace it",
                  "# with the library's rule and its source (the lint's --reviewed refuses unreviewed reasons)."]
        if roots is not None:
            header.append("# --by-root: one rule per root deviation (a deviating spec row none of whose ancestors, "
                          "derives_from in spec/*.toml, deviates) and outcome, covering the cases derived from it.")
        text, notes, path = write(cases, universe, header, roots), [], write_path
    else:
        if not os.path.isfile(update_path):
            raise WriteError(f"--update: no file '{update_path}' (use --write for a new one)")
        text, notes = update(update_path, cases, universe, stamp)
        path = update_path
    check(path, text, cases, universe)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    entries = ex.parse(path, text)
    notes.append(f"{path}: {len(entries)} patterns, {len({e.reason for e in entries})} reasons, "
                 f"{len({e.reason for e in entries if e.unreviewed})} of them unreviewed")
    return notes
