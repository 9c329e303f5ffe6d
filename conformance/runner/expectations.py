"""A candidate's expectations file: its known deviations, one entry per line.

The only parser and matcher of the format: the runner (run.py) applies entries to the raw
outcomes the suite binaries report, and the lint (lint_expectations.py) checks entries
against the spec's case ids. The grammar is written down in
conformance/expectations/FORMAT.md; in short:

    <case-id glob> <OUTCOME> <reason...>      # a comment
    <OUTCOME>: <reason...>                    # a block: one reason for the indented
        <case-id glob> <case-id glob>...      # patterns below it
        <case-id glob>
    include <file>                            # another file's entries, spliced in here

UTF-8 only; lines end in LF or CR LF; fields are separated by ASCII spaces and tabs; '#'
starts a comment at the start of a line or after a space or tab; OUTCOME is FAIL, CRASH or
TIMEOUT; '*' in the glob matches any run of characters, '?' exactly one, nothing else is
special. Invisible or line-breaking characters (NBSP, U+2028, form feed, a lone CR, zero-width
and bidi controls, other control characters) are errors naming the line and column, never
silently taken as separators. Globs match in O(len(pattern) * len(id)) at worst, without
backtracking; a run's cases are matched against an Index, which tries each case only against
the entries whose literal prefix it starts with. Standard library only.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import re
from typing import Callable, Iterable

OUTCOMES = ("FAIL", "CRASH", "TIMEOUT")
# "FAIL(dtype,strides)": a FAIL naming the checks (spec/interface.toml [[check]]) it expects to
# fail; a failure of any other check of the case is unexpected. "VARIES(values)": a deviation in
# the named checks that the library shows on some machines and not on others (a vendor math
# library's CPU-specific code path): a FAIL in those checks is expected, and a PASS is a PASS,
# never an XPASS (FORMAT.md "Meaning"). It always names its checks.
VARIES = "VARIES"
_CHECKED = re.compile(r"(FAIL|VARIES)\(([a-z_]+(?:,[a-z_]+)*)\)")


def split_outcome(token: str) -> tuple[str, tuple[str, ...]] | None:
    """(outcome, checks) of an outcome field — "FAIL" is ("FAIL", ()), "FAIL(values,dtype)" is
    ("FAIL", ("dtype", "values")), "VARIES(values)" is ("VARIES", ("values",)) — or None when it
    is none."""
    if token in OUTCOMES:
        return token, ()
    m = _CHECKED.fullmatch(token)
    return (m.group(1), tuple(sorted(set(m.group(2).split(","))))) if m else None


def failing_checks(checks: dict | None) -> tuple[str, ...]:
    """The checks a case's `checks` (check -> PASS, FAIL or NOT_SUPPORTED: the suite's stream and
    report.json alike) says failed, sorted: what an entry FAIL(check,...) is matched against."""
    return tuple(sorted(k for k, v in (checks or {}).items() if v == "FAIL"))


def outcome_text(outcome: str, checks: tuple[str, ...] = ()) -> str:
    """The outcome field as the file writes it: FAIL, or FAIL(check,check)."""
    return f"{outcome}({','.join(checks)})" if checks else outcome


# The check of an error's wording (spec/interface.toml [[check]] message). An entry FAIL(message)
# is a wording rule: it lists a library's own words for errors of the right kind once, for every
# case it matches, whatever other entries say of those cases (FORMAT.md "Wording rules").
MESSAGE = "message"


def is_wording_rule(e) -> bool:
    """Whether entry `e` is a wording rule: FAIL(message), naming that check alone."""
    return e.outcome == "FAIL" and tuple(e.checks) == (MESSAGE,)


def wording_failed(raw: str, failed_checks) -> bool:
    """Whether a case whose raw outcome is `raw` failed in its wording (among other checks or
    not): what a wording rule is consulted for."""
    return raw == "FAIL" and MESSAGE in (failed_checks or ())


def wording_only(raw: str, failed_checks) -> bool:
    """Whether a case whose raw outcome is `raw` failed in its wording alone (the message check,
    nothing else): what a wording rule decides by itself."""
    return raw == "FAIL" and tuple(failed_checks or ()) == (MESSAGE,)
FIELD_SEPARATORS = " \t"

# Code points that may not appear anywhere in the file (FORMAT.md, "Characters"), with a name
# for the error message. CR is allowed only directly before LF; TAB and LF are the only
# other C0 controls allowed.
_FORBIDDEN_NAMES = {
    0x0B: "vertical tab", 0x0C: "form feed", 0x0D: "carriage return not followed by a line feed",
    0x85: "next line (NEL)", 0xA0: "no-break space", 0x1680: "ogham space mark",
    0x200B: "zero-width space", 0x200C: "zero-width non-joiner", 0x200D: "zero-width joiner",
    0x200E: "left-to-right mark", 0x200F: "right-to-left mark",
    0x2028: "line separator", 0x2029: "paragraph separator", 0x202F: "narrow no-break space",
    0x205F: "medium mathematical space", 0x2060: "word joiner", 0x3000: "ideographic space",
    0xFEFF: "byte order mark / zero-width no-break space",
}


def _forbidden(cp: int) -> str | None:
    """Why code point `cp` may not appear in an expectations file, or None."""
    if cp in _FORBIDDEN_NAMES:
        return _FORBIDDEN_NAMES[cp]
    if cp < 0x20 and cp not in (0x09, 0x0A):
        return "control character"
    if 0x7F <= cp <= 0x9F:
        return "control character"
    if 0x2000 <= cp <= 0x200A:
        return "Unicode space"
    if 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
        return "bidirectional formatting character"
    if 0x2061 <= cp <= 0x2064:
        return "invisible operator"
    if 0xD800 <= cp <= 0xDFFF:
        return "surrogate (not a character)"
    return None


class ExpectationsError(Exception):
    """Bad input; the message names the file, the line (and the column where it helps)."""


# ---------------------------------------------------------------- globs
def _segment_at(seg: str, text: str, i: int) -> bool:
    """Whether `seg` ('?' matches any one character) matches text[i:i+len(seg)]."""
    if "?" not in seg:
        return text.startswith(seg, i)
    if i + len(seg) > len(text):
        return False
    for k, ch in enumerate(seg):
        if ch != "?" and text[i + k] != ch:
            return False
    return True


def _segment_find(seg: str, text: str, start: int, end: int) -> int:
    """The leftmost i >= start with seg matching text[i:i+len(seg)] and i+len(seg) <= end; -1 if none."""
    if "?" not in seg:
        return text.find(seg, start, end)
    for i in range(start, end - len(seg) + 1):
        if _segment_at(seg, text, i):
            return i
    return -1


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A matcher for `pattern`: '*' matches any run of characters (also none), '?' exactly one
    character (a code point), every other character itself.

    The pattern splits at '*' into fixed-length segments; the first is anchored at the start,
    the last at the end, and each one between is placed at its leftmost match after the one
    before (leftmost placement leaves the most room, so it never needs revisiting). Cost:
    O(len(pattern) * len(text)) at worst, with no backtracking: '********Q' against a long id
    takes microseconds."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern.__eq__ if "?" not in pattern else (
            lambda text: len(text) == len(pattern) and _segment_at(pattern, text, 0))
    head, middle, tail = parts[0], [p for p in parts[1:-1] if p], parts[-1]
    least = len(pattern) - (len(parts) - 1)  # every character but the stars

    if "?" not in pattern:  # the same placement, each segment found by str's own search
        def plain(text: str) -> bool:
            if len(text) < least or not text.startswith(head) or not text.endswith(tail):
                return False
            pos, end = len(head), len(text) - len(tail)
            for seg in middle:
                i = text.find(seg, pos, end)
                if i < 0:
                    return False
                pos = i + len(seg)
            return True

        return plain

    def matches(text: str) -> bool:
        if len(text) < least or not _segment_at(head, text, 0):
            return False
        end = len(text) - len(tail)
        if not _segment_at(tail, text, end):
            return False
        pos = len(head)
        for seg in middle:
            i = _segment_find(seg, text, pos, end)
            if i < 0:
                return False
            pos = i + len(seg)
        return True

    return matches


def glob_match(pattern: str, text: str) -> bool:
    return compile_glob(pattern)(text)


def literal_prefix(pattern: str) -> str:
    """The characters every match starts with (up to the first wildcard)."""
    return _LITERAL.match(pattern).group()


def literal_suffix(pattern: str) -> str:
    """The characters every match ends with (after the last wildcard)."""
    return _LITERAL_END.search(pattern).group()


_LITERAL = re.compile(r"[^*?]*")
_LITERAL_END = re.compile(r"[^*?]*\Z")


# ---------------------------------------------------------------- entries
UNREVIEWED = "UNREVIEWED:"  # starts a reason nobody has checked yet (what the runner writes)
INCLUDE = "include"
MAX_INCLUDE_DEPTH = 32
# Bounds on what one load reads (issue 42: a stranger's tree costs bounded time and space).
# The project's largest file is 61 kB, its longest line 478 characters, all its files 2,958 lines.
MAX_FILE_BYTES = 4 * 2**20  # one file (the top one or an include), before decoding
MAX_LINE_CHARS = 4096  # one line, its line break left out
MAX_ENTRIES = 50_000  # patterns, across the top file and everything it includes
MAX_INCLUDES = 1000  # include lines, across the whole tree
MAX_TREE_BYTES = 16 * 2**20  # what the top file and every file it includes add, together


def is_unreviewed(reason: str) -> bool:
    return reason.startswith(UNREVIEWED)


@dataclasses.dataclass(frozen=True)
class Entry:
    pattern: str
    outcome: str
    reason: str
    line: int
    path: str = ""  # the file the entry is in (an included file's path, for entries from an include)
    col: int = 1  # where its pattern starts
    checks: tuple = ()  # FAIL(check,...): the only checks it expects to fail ((): any)
    _matcher: Callable[[str], bool] = dataclasses.field(repr=False, compare=False, default=None)
    _prefix: str = dataclasses.field(repr=False, compare=False, default="")

    @staticmethod
    def make(pattern: str, outcome: str, reason: str, line: int, path: str = "", col: int = 1,
             checks: tuple = ()) -> "Entry":
        return Entry(pattern, outcome, reason, line, path, col, tuple(checks), compile_glob(pattern), literal_prefix(pattern))

    @property
    def outcome_text(self) -> str:
        return outcome_text(self.outcome, self.checks)

    @property
    def raw(self) -> str:
        """The raw outcome the entry lists: its outcome, FAIL for a VARIES entry."""
        return "FAIL" if self.outcome == VARIES else self.outcome

    def matches(self, case_id: str) -> bool:
        return case_id.startswith(self._prefix) and self._matcher(case_id)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.path else str(self.line)

    @property
    def unreviewed(self) -> bool:
        return is_unreviewed(self.reason)


# Every code point _forbidden() names, as one character class (a CR is allowed before a LF):
# one regex search per file instead of a Python call per character.
_FORBIDDEN_RE = re.compile("[" + "".join(
    re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "")
    for a, b in ((0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F), (0xA0, 0xA0), (0x1680, 0x1680),
                 (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x2069), (0x3000, 0x3000),
                 (0xD800, 0xDFFF), (0xFEFF, 0xFEFF))) + "]|\r(?!\n)")


def _split_lines(path: str, text: str) -> list[str]:
    """The lines of `text`: LF or CR LF ends a line; anything else that looks like a line
    break (a lone CR, U+2028, form feed, ...) is an error naming its line and column, and so
    is a line longer than MAX_LINE_CHARS."""
    bad = _FORBIDDEN_RE.search(text)
    if bad:
        i, ch = bad.start(), bad.group()[0]
        n, col = text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1
        why = _forbidden(ord(ch)) or "control character"
        hint = (" (CR-only line endings are not accepted: end lines with LF or CR LF)" if ch == "\r" else
                " (fields are separated by ASCII spaces and tabs only)" if why.endswith("space") else "")
        raise ExpectationsError(f"{path}:{n}:{col}: U+{ord(ch):04X} {why} is not allowed{hint}")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the file ends with a line break (or is empty)
    out = []
    for n, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]  # before a LF: a CR anywhere else was refused above
        if len(line) > MAX_LINE_CHARS:
            raise ExpectationsError(f"{path}:{n}: the line is longer than {MAX_LINE_CHARS} characters "
                                    f"({len(line)})")
        out.append(line)
    return out


_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#")
_WORD = re.compile(r"[^ \t]+")
_ISSUE_COMMENT = re.compile(r"#\d+")  # a comment that looks like an issue number


def _strip_comment(line: str) -> str:
    """`line` without its comment: '#' at the start of the line or after a space or tab."""
    m = _COMMENT.search(line) if "#" in line else None
    return line[:m.start()] if m else line


def _words(line: str) -> list[tuple[int, str]]:
    """(column, text) of every blank-separated word of `line`."""
    return [(m.start() + 1, m.group()) for m in _WORD.finditer(line)]


def _fields(line: str) -> list[tuple[int, str]]:
    """(column, text) of the pattern, the outcome and the reason (the rest, verbatim)."""
    fields = []
    i, n = 0, len(line)
    while i < n and len(fields) < 2:
        m = _WORD.search(line, i)
        if m is None:
            i = n
            break
        fields.append((m.start() + 1, m.group()))
        i = m.end()
    rest = line[i:].lstrip(FIELD_SEPARATORS)
    i = n - len(rest)
    rest = rest.rstrip(FIELD_SEPARATORS)
    if rest:
        fields.append((i + 1, rest))
    return fields


_HEADERS = {o + ":": o for o in OUTCOMES}  # a block's first field: "FAIL:" and so on


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def _include_path(path: str, n: int, col: int, name: str, root: tuple, stack: tuple) -> str:
    """The file `include NAME` (line n of `path`) names: relative to `path`'s directory, inside
    the top file's directory tree (`root`: that directory as written and with its symbolic links
    resolved — a Bazel runfiles tree is symbolic links — the file must lie under both),
    existing, not already being read."""
    target = os.path.normpath(os.path.join(os.path.dirname(path), name))
    real = os.path.realpath(target)
    if not (_inside(os.path.abspath(target), root[0]) and _inside(real, root[1])):
        raise ExpectationsError(f"{path}:{n}:{col}: include '{name}' is outside {root[0]}: an include names a file "
                                f"in the top file's directory or below")
    if not os.path.isfile(real):
        raise ExpectationsError(f"{path}:{n}:{col}: include '{name}': no such file ({target})")
    chain = [os.path.realpath(p) for p in stack]
    if real in chain:
        cycle = " -> ".join(os.path.basename(p) for p in stack[chain.index(real):]) + " -> " + os.path.basename(real)
        raise ExpectationsError(f"{path}:{n}:{col}: include '{name}' makes a cycle ({cycle})")
    if len(stack) > MAX_INCLUDE_DEPTH:
        raise ExpectationsError(f"{path}:{n}:{col}: include '{name}': includes nest deeper than {MAX_INCLUDE_DEPTH}")
    size = os.path.getsize(real)
    if size > MAX_FILE_BYTES:
        raise ExpectationsError(f"{path}:{n}:{col}: include '{name}': the file has {size} bytes, more than "
                                f"{MAX_FILE_BYTES}")
    return target


class _Reader:
    """One load's state: the files whose entries stand already (each file is read and parsed
    once: a diamond of includes costs its files, not its paths) and the counts the bounds cap."""

    def __init__(self, top: str):
        self.top = top
        self.done: set[str] = set()  # real paths
        self.entries = 0
        self.includes = 0
        self.chars = 0  # the text of every file read, together (MAX_TREE_BYTES)

    def count(self, path: str, n: int, col: int) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise ExpectationsError(f"{path}:{n}:{col}: more than {MAX_ENTRIES} entries (patterns) in {self.top} "
                                    f"and the files it includes")


def parse(path: str, text: str, root: tuple | None = None, _stack: tuple = (), _reader: _Reader | None = None) -> list[Entry]:
    """The entries of `text` (read from `path`), its includes spliced in where they stand (a
    file already included adds nothing more: its entries stand earlier, and the first matching
    entry decides); ExpectationsError naming the file, the line (and the column) on bad input,
    or when the bounds (MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_LINE_CHARS, MAX_ENTRIES, MAX_INCLUDES,
    MAX_INCLUDE_DEPTH) are passed. `root`: the directory tree includes must stay in (default:
    `path`'s directory)."""
    if root is None:
        root = (os.path.dirname(os.path.abspath(path)), os.path.dirname(os.path.realpath(path)))
    if _reader is None:
        _reader = _Reader(path)
    _reader.done.add(os.path.realpath(path))
    if len(text) > MAX_FILE_BYTES:
        raise ExpectationsError(f"{path}: {len(text)} characters, more than the {MAX_FILE_BYTES} bytes a file may have")
    _reader.chars += len(text)
    if _reader.chars > MAX_TREE_BYTES:
        where = f"{_stack[-1]}: include '{path}'" if _stack else path
        raise ExpectationsError(f"{where}: {_reader.top} and the files it includes hold more than {MAX_TREE_BYTES} "
                                f"bytes together (each file at most {MAX_FILE_BYTES})")
    stack = _stack + (path,)
    entries = []
    expected = " or ".join(OUTCOMES)
    block = None  # (outcome, reason, header line, patterns so far) of the open block
    for n, raw in enumerate(_split_lines(path, text), 1):
        line = _strip_comment(raw)
        fields = _fields(line)
        if not fields:
            continue
        cut = _ISSUE_COMMENT.match(raw, len(line))
        if cut and (len(fields) > 2 or fields[0][1].endswith(":")):
            # After a reason (an entry's third field, or a block header's text), ' #123' cites an
            # issue but reads as a comment: the reason would end there unseen.
            raise ExpectationsError(f"{path}:{n}:{len(line) + 1}: '{cut.group()}' after a blank starts a comment, "
                                    f"cutting the reason short: write owner/repo{cut.group()} (or no blank before '#')")
        indented = line[0] in FIELD_SEPARATORS
        (col0, first), rest = fields[0], fields[1:]
        if block is not None and indented:
            for col, pattern in _words(line):
                if split_outcome(pattern) or split_outcome(pattern[:-1]) and pattern.endswith(":"):
                    raise ExpectationsError(f"{path}:{n}:{col}: '{pattern}' in the patterns of the block at line "
                                            f"{block[2]}: a block's indented lines hold only patterns (a one-line "
                                            f"entry or a new block starts unindented)")
                _reader.count(path, n, col)
                entries.append(Entry.make(pattern, block[0][0], block[1], n, path, col, block[0][1]))
                block[3].append(pattern)
            continue
        if block is not None:
            if not block[3]:
                raise ExpectationsError(f"{path}:{block[2]}: the block '{outcome_text(*block[0])}: {block[1]}' lists no pattern "
                                        f"(indent its patterns below it)")
            block = None
        header = split_outcome(first[:-1]) if first.endswith(":") else None
        if header and not indented:
            if not rest:
                raise ExpectationsError(f"{path}:{n}:{col0}: block '{first}' needs a reason after it")
            reason = line[rest[0][0] - 1:].rstrip(FIELD_SEPARATORS)
            block = (header, reason, n, [])
            continue
        if first == INCLUDE and len(rest) == 1 and not indented:
            col, name = rest[0]
            if any(c in FIELD_SEPARATORS for c in name):
                raise ExpectationsError(f"{path}:{n}:{col}: include names one file, got '{name}'")
            _reader.includes += 1
            if _reader.includes > MAX_INCLUDES:
                raise ExpectationsError(f"{path}:{n}:{col}: more than {MAX_INCLUDES} include lines in "
                                        f"{_reader.top} and the files it includes")
            target = _include_path(path, n, col, name, root, stack)
            if os.path.realpath(target) not in _reader.done:
                entries += _load(target, root, stack, _reader)
            continue
        if not rest:
            if indented:
                raise ExpectationsError(f"{path}:{n}:{col0}: pattern '{first}' stands alone outside a block "
                                        f"(a block starts with an unindented line '{'/'.join(_HEADERS)} reason')")
            raise ExpectationsError(f"{path}:{n}: '{first}' has no outcome (expected {expected})")
        col, outcome = rest[0]
        split = split_outcome(outcome)
        if split is None:
            raise ExpectationsError(f"{path}:{n}:{col}: unknown outcome '{outcome}' (expected {expected}, or "
                                    f"FAIL(check,...) naming the checks that fail, or VARIES(check,...))")
        if len(rest) < 2:
            raise ExpectationsError(f"{path}:{n}: '{first}' needs a reason")
        _reader.count(path, n, col0)
        entries.append(Entry.make(first, split[0], rest[1][1], n, path, col0, split[1]))
    if block is not None and not block[3]:
        raise ExpectationsError(f"{path}:{block[2]}: the block '{outcome_text(*block[0])}: {block[1]}' lists no "
                                f"pattern (indent its patterns below it)")
    return entries


def decode(path: str, data: bytes) -> str:
    """The text of an expectations file's bytes: UTF-8 is required (an error names the line),
    and at most MAX_FILE_BYTES of them."""
    if len(data) > MAX_FILE_BYTES:
        raise ExpectationsError(f"{path}: more than {MAX_FILE_BYTES} bytes: refused unread")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ExpectationsError(f"{path}:{line}: not UTF-8: byte 0x{data[e.start]:02X} at byte {col} of the line "
                                f"({e.reason})") from None


def parse_bytes(path: str, data: bytes, root: tuple | None = None, _stack: tuple = (),
                _reader: _Reader | None = None) -> list[Entry]:
    """Like parse(), from the file's bytes: UTF-8 is required (an error names the line)."""
    return parse(path, decode(path, data), root, _stack, _reader)


def read_bytes(path: str) -> bytes:
    """The bytes of the expectations file at `path`, MAX_FILE_BYTES at most: a larger file is
    refused without being read (every reader of the format reads through here or load())."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ExpectationsError(f"cannot read expectations file '{path}': {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ExpectationsError(f"{path}: more than {MAX_FILE_BYTES} bytes: refused unread")
    return data


def read_text(path: str) -> str:
    """The text of the expectations file at `path` (read_bytes(), then UTF-8)."""
    return decode(path, read_bytes(path))


def _load(path: str, root: tuple | None, stack: tuple, reader: _Reader | None = None) -> list[Entry]:
    return parse_bytes(path, read_bytes(path), root, stack, reader)


def load(path: str) -> list[Entry]:
    """The entries of the file at `path` and of the files it includes (in its directory tree)."""
    return _load(path, None, ())


class Index:
    """A file's entries, by the literal prefix of their patterns (up to the first wildcard), or,
    for a pattern that starts with a wildcard, by its literal suffix (after the last one): a
    case id is tried only against the entries whose prefix it starts with or whose suffix it
    ends with, one dictionary lookup per distinct length, so matching a run's cases costs about
    cases × (id length + the entries that share a prefix or suffix with the id), not cases ×
    entries (100,000 entries that match nothing, against 15,443 cases: 1.5 · 10^9 glob tries
    before; NumPy's 89 patterns starting with '*' were tried against every case: 1.5 · 10^6)."""

    def __init__(self, entries: Iterable[Entry]):
        self.entries = list(entries)
        heads: dict[str, list[int]] = collections.defaultdict(list)
        tails: dict[str, list[int]] = collections.defaultdict(list)
        for k, e in enumerate(self.entries):
            if e._prefix or not e.pattern:
                heads[e._prefix].append(k)
            else:
                tails[literal_suffix(e.pattern)].append(k)
        self._buckets, self._tails = dict(heads), dict(tails)
        self._lengths = sorted({len(p) for p in self._buckets})
        self._tail_lengths = sorted({len(p) for p in self._tails})

    def _candidates(self, case_id: str) -> list[int]:
        """The positions of the entries whose prefix `case_id` starts with (or, starting with a
        wildcard, whose suffix it ends with), in file order."""
        found: list[int] = []
        for n in self._lengths:
            if n > len(case_id):
                break
            found += self._buckets.get(case_id[:n], ())
        for n in self._tail_lengths:
            if n > len(case_id):
                break
            found += self._tails.get(case_id[len(case_id) - n:], ())
        found.sort()
        return found

    def matching(self, case_id: str) -> list[int]:
        """The positions of every entry whose glob matches `case_id`, in file order."""
        return [k for k in self._candidates(case_id) if self.entries[k]._matcher(case_id)]

    def first(self, case_id: str, rule: bool = False) -> Entry | None:
        for k in self._candidates(case_id):
            e = self.entries[k]
            if is_wording_rule(e) == rule and e._matcher(case_id):
                return e
        return None


def match(entries: list[Entry] | Index, case_id: str, rule: bool = False) -> Entry | None:
    """The first entry whose glob matches `case_id` (earlier entries win) among the entries
    (`rule` False) or among the wording rules (`rule` True): the two never shadow each other."""
    if isinstance(entries, Index):
        return entries.first(case_id, rule)
    for e in entries:
        if is_wording_rule(e) == rule and e.matches(case_id):
            return e
    return None


# ---------------------------------------------------------------- applying entries
def apply(entries: list[Entry] | Index, case_id: str, raw: str,
          failed_checks: tuple[str, ...] | None = None) -> tuple[str, Entry | None, str]:
    """The verdict on a case whose raw outcome (what the suite binary or the runner saw) is
    `raw`: PASS, FAIL, NOT_SUPPORTED, CRASH or TIMEOUT. Returns (outcome, entry, note):

      raw            listed as        outcome
      FAIL           FAIL             XFAIL
      CRASH/TIMEOUT  the same         XFAIL
      PASS           anything         XPASS (the entry is out of date)
      FAIL           VARIES(checks)   XFAIL where only those checks failed
      PASS           VARIES(checks)   PASS (the deviation depends on the machine)
      FAIL/CRASH/TIMEOUT  another     the raw outcome, with a note saying what was listed
      NOT_SUPPORTED  anything         NOT_SUPPORTED (the declaration decides, not the list)
      anything       not listed       the raw outcome

    An entry FAIL(check,...) names the checks it expects to fail: a FAIL one of whose failing
    checks (`failed_checks`, from the case's record) it does not name is a FAIL, saying which.

    A wording rule (FAIL(message)) decides the message check alone, before the entries and
    whatever their order: a FAIL that failed in its wording and nothing else is an XFAIL by the
    first rule matching it; one that failed in other checks too is decided by the entries on
    those. A rule never makes a case XPASS (a library's words are a rule for every case it
    matches, not a list of cases).

    `note` is the entry's reason, or for a mismatch between list and observation, what the
    entry said and what happened instead."""
    failed = set(failed_checks or ())
    if wording_failed(raw, failed):
        rule = match(entries, case_id, rule=True)
        if rule is not None:
            if failed == {MESSAGE}:
                return "XFAIL", rule, rule.reason
            failed.discard(MESSAGE)
    entry = match(entries, case_id)
    if entry is None:
        return raw, None, ""
    if raw == "PASS":
        return ("PASS" if entry.outcome == VARIES else "XPASS"), entry, entry.reason
    if raw == entry.raw:
        unlisted = sorted(failed - set(entry.checks)) if entry.checks else []
        if unlisted:
            return raw, entry, (f"listed as {entry.outcome_text} ({entry.reason}), but check "
                                f"{', '.join(unlisted)} fails too")
        return "XFAIL", entry, entry.reason
    if raw == "NOT_SUPPORTED":
        return raw, entry, entry.reason
    did = {"FAIL": "it fails (a mismatch)", "CRASH": "it crashed", "TIMEOUT": "it timed out"}.get(raw, raw)
    return raw, entry, f"listed as {entry.outcome} ({entry.reason}), but {did}"
