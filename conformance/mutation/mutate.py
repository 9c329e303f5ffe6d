"""Single-point source mutants of the reference (tcts::ref, reference/): the enumerator.

Issue 41: how strong is the suite? A mutant is the reference with one small fault put in its
source; the suite should notice (some case FAILs or the binary crashes). This module lists the
mutants, deterministically, and applies one to a copy of the tree; run_mutants.py builds and
runs them.

Operators (each mutant changes one token or one parenthesised condition):
  ror   relational: `<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=`
  aor   arithmetic: `+` <-> `-`, `*` <-> `/`, `+=` <-> `-=`, `*=` <-> `/=`
  lcr   logical: `&&` <-> `||`
  cst   an integer literal +1 and -1 (0 only +1): index, stride and size arithmetic, bit widths;
        not a template argument (`std::array<T, 3>`), a declared array bound or an `alignas`
  bool  `true` <-> `false`
  cond  the condition of an `if` replaced by `false`: the guard (a check, an error, an early
        return) dropped
  tbl   a literal table's cell swapped with the next row's (tables of rows: `{a, b}, {c, d}`),
        or two adjacent elements of a flat literal list swapped (`{1, 3, 2, 0}`); a cell is a
        number, a character, true/false or an enumerator (`ScalarType::kInt8`), never a
        variable or a string

A binary operator is one written with a space on each side (the tree is clang-formatted:
`a < b`, but `std::vector<T>`, `T* p`, `-x`, `&x`), which is how template brackets, pointers,
references and unary signs are told apart without a C++ parser.

Never mutated (the lexer sees them, no mutant comes from them):
  - comments, string and character literals, preprocessor lines (with their continuations:
    the X-macro dtype table is a preprocessor line, its cells are string literals and types);
  - the operands of `throw` (up to its `;`: an error's message; the suite checks an error's
    kind, the kind is the class name, which no operator touches) and of `static_assert`;
  - `if constexpr` conditions (compile-time dispatch: dropping one mostly does not build).
Files the suite cannot reach by design, or that are not code, are not enumerated (SKIPPED_FILES):
  the reference's own tests (*_test.cc), bench/ (benchmarks), fuzz/ (fuzz drivers),
  device_backend.{h,cc} (the registry of non-CPU device backends: the CPU suite binary
  registers none; the cuda/ kernels behind it are built only with a CUDA toolkit and are out
  of scope like cuda/ itself), hd.h (two macros). cuda/ is outside reference/ and not
  enumerated either.

A mutant's id is `<path>:<line>:<col>:<operator>:<original>-><replacement>` (1-based line and
column of the mutated token, or of `if`'s condition's `(`; a table swap names both cells):
stable across runs of the same source, and sorted by path, line, column, operator, replacement.

Standard library only (Python 3.11).
  mutate.py list [--root=DIR] [--json]     every mutant, one id a line (or JSON lines)
  mutate.py show ID [--root=DIR]           the mutant's unified diff (quote the id: it has `->`)
  mutate.py apply ID --root=DIR            writes it into DIR (a scratch copy, never a checkout)
"""

import argparse
import dataclasses
import difflib
import json
import os
import re
import sys

REFERENCE_DIR = "reference"
SKIPPED_FILES = {
    "reference/device_backend.h": "registry of non-CPU device backends: the CPU suite binary registers none",
    "reference/device_backend.cc": "registry of non-CPU device backends: the CPU suite binary registers none",
    "reference/hd.h": "two macros (TCTS_HD), no code",
}
SKIPPED_DIRS = {
    "reference/bench": "benchmarks",
    "reference/fuzz": "fuzz drivers",
}


def source_files(root):
    """The reference's mutable sources, relative to root, sorted."""
    out = []
    for name in sorted(os.listdir(os.path.join(root, REFERENCE_DIR))):
        rel = f"{REFERENCE_DIR}/{name}"
        if not (name.endswith(".cc") or name.endswith(".h")) or name.endswith("_test.cc"):
            continue
        if rel in SKIPPED_FILES or not os.path.isfile(os.path.join(root, rel)):
            continue
        out.append(rel)
    return out


# ---------------------------------------------------------------- lexer
@dataclasses.dataclass
class Token:
    kind: str  # id num str chr op pp comment
    text: str
    start: int  # offset in the file
    end: int
    line: int = 0
    col: int = 0


_OPS = sorted(
    ["<<=", ">>=", "...", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
     "*=", "/=", "%=", "&=", "|=", "^=", ".*"],
    key=len, reverse=True)
_ID = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_NUM = re.compile(r"(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*(?:\.[0-9']*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)[A-Za-z_0-9]*")


def lex(src):
    """Tokens of C++ source `src`, comments, literals and preprocessor lines included (each one
    token), with 1-based line and column."""
    toks, i, n = [], 0, len(src)
    at_line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        start = i
        if c == "#" and at_line_start:  # a preprocessor line, with its continuations
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    i += 2
                    continue
                if src.startswith("/*", i):
                    j = src.find("*/", i + 2)
                    i = n if j < 0 else j + 2
                    continue
                if src.startswith("//", i):
                    while i < n and src[i] != "\n":
                        i += 1
                    break
                i += 1
            toks.append(Token("pp", src[start:i], start, i))
            continue
        at_line_start = False
        if src.startswith("//", i):
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    i += 1
                i += 1
            toks.append(Token("comment", src[start:i], start, i))
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            toks.append(Token("comment", src[start:i], start, i))
            continue
        m = re.compile(r'(?:u8|u|U|L)?R"([^ ()\\\t\n]{0,16})\(').match(src, i)
        if m:  # raw string
            close = ")" + m.group(1) + '"'
            j = src.find(close, m.end())
            i = n if j < 0 else j + len(close)
            toks.append(Token("str", src[start:i], start, i))
            continue
        m = re.compile(r"(?:u8|u|U|L)?(['\"])").match(src, i)
        if m:
            q = m.group(1)
            i = m.end()
            while i < n and src[i] != q and src[i] != "\n":
                i += 2 if src[i] == "\\" else 1
            i += 1
            toks.append(Token("str" if q == '"' else "chr", src[start:i], start, i))
            continue
        m = _NUM.match(src, i) if (c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit())) else None
        if m:
            i = m.end()
            toks.append(Token("num", src[start:i], start, i))
            continue
        m = _ID.match(src, i)
        if m:
            i = m.end()
            toks.append(Token("id", src[start:i], start, i))
            continue
        for op in _OPS:
            if src.startswith(op, i):
                i += len(op)
                break
        else:
            i += 1
        toks.append(Token("op", src[start:i], start, i))
    line, col, pos = 1, 1, 0
    for t in toks:  # offsets -> line and column
        chunk = src[pos:t.start]
        nl = chunk.count("\n")
        if nl:
            line += nl
            col = len(chunk) - chunk.rfind("\n")
        else:
            col += len(chunk)
        t.line, t.col = line, col
        pos = t.start
    return toks


# ---------------------------------------------------------------- mutants
@dataclasses.dataclass(frozen=True)
class Mutant:
    path: str
    line: int
    col: int
    op: str
    orig: str
    repl: str
    edits: tuple  # ((start, end, text), ...) on the file's text, non-overlapping

    @property
    def id(self):
        return f"{self.path}:{self.line}:{self.col}:{self.op}:{self.orig}->{self.repl}"

    def sort_key(self):
        return (self.path, self.line, self.col, self.op, self.repl)

    def apply(self, text):
        for start, end, new in sorted(self.edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def diff(self, text):
        new = self.apply(text)
        return "".join(difflib.unified_diff(text.splitlines(True), new.splitlines(True), f"a/{self.path}",
                                            f"b/{self.path}", n=1))


SWAPS = {
    "ror": {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="]},
    "aor": {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="]},
    "lcr": {"&&": ["||"], "||": ["&&"]},
}
_OP_OF = {sym: op for op, table in SWAPS.items() for sym in table}


def _spaced(src, t):
    return (t.start > 0 and src[t.start - 1] in " \t\n") and (t.end < len(src) and src[t.end] in " \t\n")


def _skipped_spans(code):
    """Token index ranges [i, j) whose tokens are never mutated: throw operands and
    static_assert arguments."""
    spans = []
    for i, t in enumerate(code):
        if t.kind == "id" and t.text == "throw":
            j = i + 1
            depth = 0
            while j < len(code):
                x = code[j].text
                if x in "([{":
                    depth += 1
                elif x in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                elif x == ";" and depth == 0:
                    break
                j += 1
            spans.append((i, j))
        elif t.kind == "id" and t.text == "static_assert":
            j = _match(code, i + 1) if i + 1 < len(code) and code[i + 1].text == "(" else i
            spans.append((i, j + 1))
    return spans


def _match(code, i):
    """Index of the bracket closing code[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opening, closing, depth = code[i].text, pairs[code[i].text], 0
    for j in range(i, len(code)):
        if code[j].text == opening:
            depth += 1
        elif code[j].text == closing:
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def _int_value(text):
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)", text.replace("'", ""))
    if not m:
        return None
    digits, suffix = m.groups()
    if digits.lower().startswith("0x"):
        return int(digits, 16), suffix, True
    if len(digits) > 1 and digits.startswith("0"):
        return None  # octal: leave it
    return int(digits), suffix, False


def _cell(code, i, j):
    """The text of a simple table cell code[i:j] (a literal or a qualified name), else None."""
    toks = code[i:j]
    if not toks:
        return None
    if len(toks) >= 3 and all(t.kind == "id" or t.text == "::" for t in toks) and toks[-2].text == "::":
        return toks  # an enumerator: ScalarType::kInt8
    if len(toks) == 1 and (toks[0].kind in ("num", "chr") or toks[0].text in ("true", "false")):
        return toks
    if len(toks) == 2 and toks[0].text == "-" and toks[1].kind == "num":
        return toks
    return None  # a variable, a call, a string: not a literal cell


def _split_list(code, i):
    """code[i] is `{`: the element index ranges of its top-level comma list, and its end."""
    end = _match(code, i)
    elems, j, start = [], i + 1, i + 1
    while j < end:
        x = code[j].text
        if x in ("(", "[", "{"):
            j = _match(code, j) + 1
            continue
        if x == ",":
            elems.append((start, j))
            start = j + 1
        j += 1
    if start < end:
        elems.append((start, end))
    return elems, end


def _text(src, toks):
    return src[toks[0].start:toks[-1].end]


def mutants_of(path, src):
    toks = lex(src)
    code = [t for t in toks if t.kind not in ("comment", "pp")]
    skip = set()
    for a, b in _skipped_spans(code):
        skip.update(range(a, b))
    out = []

    def add(t, op, orig, repl, edits):
        out.append(Mutant(path, t.line, t.col, op, orig, repl, tuple(edits)))

    for i, t in enumerate(code):
        if i in skip:
            continue
        if t.kind == "op" and t.text in _OP_OF and _spaced(src, t):
            op = _OP_OF[t.text]
            for r in SWAPS[op][t.text]:
                add(t, op, t.text, r, [(t.start, t.end, r)])
        elif t.kind == "num":
            v = _int_value(t.text)
            if v is None:
                continue
            value, suffix, hexa = v
            # not a template argument or array bound written in a declaration (`int64_t x[4]`,
            # `std::array<int, 4>`) — those mostly do not build or only resize storage
            prev = code[i - 1].text if i else ""
            if prev == "[" and i >= 2 and code[i - 2].kind == "id" and i + 1 < len(code) and code[i + 1].text == "]" \
                    and i >= 3 and code[i - 3].kind == "id":
                continue
            nxt = code[i + 1] if i + 1 < len(code) else None
            if (nxt is not None and nxt.text in (">", ">>") and nxt.start == t.end) or (
                    prev == "<" and code[i - 1].end == t.start):
                continue  # a template argument: std::array<T, 3>
            if i >= 2 and code[i - 2].text == "alignas":
                continue  # alignas(16): an alignment must be a power of two
            for nv in ([value + 1, value - 1] if value > 0 else [value + 1]):
                new = (hex(nv) if hexa else str(nv)) + suffix
                add(t, "cst", t.text, new, [(t.start, t.end, new)])
        elif t.kind == "id" and t.text in ("true", "false"):
            r = "false" if t.text == "true" else "true"
            add(t, "bool", t.text, r, [(t.start, t.end, r)])
        elif t.kind == "id" and t.text == "if" and i + 1 < len(code) and code[i + 1].text == "(":
            lp = code[i + 1]
            rp = code[_match(code, i + 1)]
            add(lp, "cond", "if", "false", [(lp.end, rp.start, "false")])
        elif t.text == "{" and (i == 0 or code[i - 1].text in ("=", "return", ",", "{", "(")):
            out.extend(_table_mutants(path, src, code, i, skip))
    # one mutant per id: a swap reached from two lists is listed once
    unique = {m.id: m for m in out}
    return sorted(unique.values(), key=Mutant.sort_key)


def _table_mutants(path, src, code, i, skip):
    """Swaps in the braced list at code[i] (not in skipped spans): adjacent simple elements of a
    flat list, or one cell of adjacent rows of a table (a list of braced rows of equal length)."""
    if i in skip:
        return []
    elems, _ = _split_list(code, i)
    out = []
    if len(elems) >= 2 and all(code[a].text == "{" and _match(code, a) == b - 1 for a, b in elems):
        rows = [_split_list(code, a)[0] for a, _ in elems]
        if len({len(r) for r in rows}) == 1:
            for r in range(len(rows) - 1):
                for c in range(len(rows[r])):
                    x, y = _cell(code, *rows[r][c]), _cell(code, *rows[r + 1][c])
                    if x and y and _text(src, x) != _text(src, y):
                        out.append(_swap(path, src, x, y))
        return out
    cells = [_cell(code, a, b) for a, b in elems]
    if len(cells) >= 2 and all(cells):
        for k in range(len(cells) - 1):
            x, y = cells[k], cells[k + 1]
            if _text(src, x) != _text(src, y):
                out.append(_swap(path, src, x, y))
    return out


def _swap(path, src, x, y):
    tx, ty = _text(src, x), _text(src, y)
    return Mutant(path, x[0].line, x[0].col, "tbl", tx.replace(" ", ""), ty.replace(" ", ""),
                  ((x[0].start, x[-1].end, ty), (y[0].start, y[-1].end, tx)))


def enumerate_mutants(root):
    out = []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            out.extend(mutants_of(rel, f.read()))
    return out


def find(root, mutant_id):
    path = mutant_id.split(":", 1)[0]
    with open(os.path.join(root, path), encoding="utf-8") as f:
        src = f.read()
    for m in mutants_of(path, src):
        if m.id == mutant_id:
            return m, src
    raise KeyError(f"no mutant {mutant_id} in {root}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["list", "show", "apply"])
    p.add_argument("id", nargs="?")
    p.add_argument("--root", default=".")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if a.command == "list":
        for m in enumerate_mutants(a.root):
            print(json.dumps({"id": m.id, "path": m.path, "line": m.line, "op": m.op}) if a.json else m.id)
        return 0
    if not a.id:
        p.error("show and apply take a mutant id")
    m, src = find(a.root, a.id)
    if a.command == "show":
        sys.stdout.write(m.diff(src))
        return 0
    if os.path.exists(os.path.join(a.root, ".git")):
        p.error(f"{a.root} is a git checkout: apply a mutant to a scratch copy only")
    with open(os.path.join(a.root, m.path), "w", encoding="utf-8") as f:
        f.write(m.apply(src))
    return 0


if __name__ == "__main__":
    sys.exit(main())
