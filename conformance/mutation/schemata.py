"""Mutant schemata: every mutant of the reference compiled into one build, the live one picked at
run time (issue 50; the technique of Mull, Dextool, mutmut and Stryker).

Each mutated spot of a source file becomes a switch on the live mutant's number:

    a < b     ->   (::tcts_mutant::Active() == 17 ? (a <= b) : (a < b))

so one build of the suite binary holds every mutant, and `--tcts_mutant=17` on its command line
runs mutant 17 (0, or no flag: the unmutated reference). `Active()` reads the flag once, from
/proc/self/cmdline, so a static initializer sees it too; the suite binary accepts the flag
(conformance/harness/runner_main.cc) and does nothing else with it.

The spot switched is the mutant's own text where that is a whole expression (a literal, a
table's cell, an `if`'s condition) and, for an operator (ror, aor, lcr), the smallest
expression around it, which only a C++ parser knows: libclang (the `libclang` wheel pinned in
bazel/pypi/requirements.lock; this module runs under the PyPI venv's python, the rest of
conformance/mutation/ under Debian's). The mutated alternative is the expression's original text
with the mutant's edit, i.e. exactly what the separately built mutant compiles.

A switch that does not compile (a literal in a constant expression, an array bound, a `case`
label, a declaration as a condition, a narrowing in a braced list) is found by compiling: the
compiler's error position names the innermost switch around it (blame()), whose mutants leave
the schema and are built separately as before (run_mutants.py), where one that does not build
alone is DOES-NOT-BUILD. Spots the parser cannot place (a parse error, a macro) go the same way.

  schemata.py write --root=SCRATCH [--exclude=FILE] [--manifest=FILE] [-- CLANG ARGS]
"""

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys

import mutate

SWITCH = "::tcts_mutant::Active()"
FLAG = "--tcts_mutant="
PRELUDE = r"""#ifndef TCTS_MUTANT_SCHEMA_PRELUDE_
#define TCTS_MUTANT_SCHEMA_PRELUDE_
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace tcts_mutant {
// The live mutant (conformance/mutation/schemata.py): --tcts_mutant=N on the command line, read
// once from /proc/self/cmdline (a static initializer sees it too); 0 without it.
inline int ReadActive() {
  static char buf[1 << 16];
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (f == nullptr) return 0;
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  int id = 0;
  for (std::size_t i = 0; i < n; i += std::strlen(buf + i) + 1) {
    if (std::strncmp(buf + i, "--tcts_mutant=", 14) == 0) id = std::atoi(buf + i + 14);
  }
  return id;
}
inline int ActiveAtRunTime() {
  static const int id = ReadActive();
  return id;
}
#ifdef TCTS_MUTANT_STRICT
// The compile check's strict pass: a switch the compiler must evaluate (a template argument, a
// constant expression) does not build, so its mutants go to a separate build.
inline int Active() { return ActiveAtRunTime(); }
#else
// Where the compiler evaluates a switch the strict pass could not place, the unmutated side.
constexpr int Active() { return __builtin_is_constant_evaluated() ? 0 : ActiveAtRunTime(); }
#endif
}  // namespace tcts_mutant
#endif
"""
OPERATORS = ("ror", "aor", "lcr")  # an operator's spot is its expression, found by the parser


def numbers(mutants):
    """{id: number}: 1, 2, ... in the enumerator's sorted order (stable for a given source)."""
    return {m.id: k for k, m in enumerate(sorted(mutants, key=mutate.Mutant.sort_key), start=1)}


# ---------------------------------------------------------------- the parser's expressions
def clang_args(root, extra=()):
    """libclang's arguments for a reference file: C++17, the tree and Bazel's generated files
    (bazel-bin, after one build) on the include path, and clang's own builtin headers."""
    args = ["-xc++", "-std=c++17", f"-I{root}", f"-I{os.path.join(root, 'bazel-bin')}"]
    try:
        rd = subprocess.run(["clang", "-print-resource-dir"], capture_output=True, text=True, timeout=60)
        if rd.returncode == 0 and rd.stdout.strip():
            args += ["-resource-dir", rd.stdout.strip()]
    except OSError:
        pass
    return args + list(extra)


def expressions(path, src, args):
    """(exprs, statics): exprs, [(start, end, gaps)] of every expression of `src` with two or more
    children: its extent and the character ranges between consecutive children (where a binary
    operator's token lies); statics, [(start, end)] of every variable of static storage duration
    (namespace scope or `static`), whose initializer the compiler may evaluate as a constant, where
    Active() reads as 0. Offsets are characters of `src`. A file that does not parse gives what
    parsed."""
    import clang.cindex as ci  # the venv's libclang wheel; only this function needs it

    data = src.encode("utf-8")
    b2c = []
    for i, ch in enumerate(src):
        b2c.extend([i] * len(ch.encode("utf-8")))
    b2c.append(len(src))
    tu = ci.Index.create().parse(path, args=args, unsaved_files=[(path, data)],
                                 options=ci.TranslationUnit.PARSE_INCOMPLETE)
    out, statics = [], []
    target = os.path.realpath(path)
    scopes = (ci.CursorKind.NAMESPACE, ci.CursorKind.TRANSLATION_UNIT)

    def here(c):
        f = c.extent.start.file
        return f is not None and os.path.realpath(f.name) == target

    todo = [c for c in tu.cursor.get_children() if here(c)]  # the file's own declarations only
    while todo:
        c = todo.pop()
        kids = [k for k in c.get_children() if k.extent.start.file is not None]
        todo.extend(k for k in kids if here(k))
        ext = c.extent
        if ext.end.offset > len(data):
            continue
        if c.kind == ci.CursorKind.VAR_DECL and (c.storage_class == ci.StorageClass.STATIC or
                                                  c.semantic_parent.kind in scopes):
            statics.append((b2c[ext.start.offset], b2c[ext.end.offset]))
        if not c.kind.is_expression() or len(kids) < 2 or not here(c):
            continue
        spans = sorted((k.extent.start.offset, k.extent.end.offset) for k in kids)
        # between consecutive children, or a middle child that is the operator itself (an
        # overloaded operator's call: lhs, the operator's name, rhs)
        gaps = [(b2c[a[1]], b2c[b[0]]) for a, b in zip(spans, spans[1:]) if a[1] <= b[0] <= len(data)]
        gaps += [(b2c[k[0]], b2c[k[0]] + 1) for k in spans[1:-1] if k[1] <= len(data)]
        out.append((b2c[ext.start.offset], b2c[ext.end.offset], gaps))
    return out, statics


def operator_spot(exprs, pos):
    """The smallest expression whose gap between two children holds offset `pos`, or None."""
    best = None
    for start, end, gaps in exprs:
        if start <= pos < end and any(a <= pos < b for a, b in gaps):
            if best is None or end - start < best[1] - best[0]:
                best = (start, end)
    return best


# ---------------------------------------------------------------- the plan and its text
@dataclasses.dataclass
class Node:
    start: int
    end: int
    entries: list  # [(number, id, (start, end, text))]: a mutant's edit inside this spot
    children: list = dataclasses.field(default_factory=list)


# A condition that declares (`if (const T* p = f())`) or has an init-statement cannot be switched.
DECLARATION = re.compile(r";|(?<![=!<>+\-*/%&|^])=(?!=)")


def plan(src, mutants, num, exprs, excluded=(), statics=()):
    """(spots, fallback): the switched spots of one file's mutants, nested as the text nests, and
    {id: why} of the mutants left to a separate build."""
    fallback = {m.id: "left out by the compile check (this switch does not build)" for m in mutants
                if m.id in excluded}
    spots = {}
    for m in mutants:
        if m.id in fallback:
            continue
        if any(a <= m.edits[0][0] < b for a, b in statics):
            fallback[m.id] = "in a static variable's initializer (constant-initialized, it would read Active() as 0)"
            continue
        if m.op == "cond" and DECLARATION.search(src[m.edits[0][0]:m.edits[0][1]]):
            fallback[m.id] = "the condition declares a variable (or has an init-statement)"
            continue
        if m.op in OPERATORS:
            spot = operator_spot(exprs, m.edits[0][0])
            if spot is None:
                fallback[m.id] = "the parser found no expression around the operator"
                continue
            places = [(spot, m.edits[0])]
        else:
            places = [((s, e), (s, e, t)) for s, e, t in m.edits]
        for spot, edit in places:
            spots.setdefault(spot, []).append((num[m.id], m.id, edit))
    while True:  # spots must nest; a mutant with a spot crossing another goes to the separate build
        order = sorted(spots, key=lambda s: (s[0], -s[1]))
        crossing, stack = None, []
        for s in order:
            while stack and stack[-1][1] <= s[0]:
                stack.pop()
            if stack and s[1] > stack[-1][1]:
                crossing = s
                break
            stack.append(s)
        if crossing is None:
            break
        for _, mid, _ in spots[crossing]:
            fallback[mid] = "its spot crosses another mutant's"
        spots = {s: [x for x in e if x[1] not in fallback] for s, e in spots.items()}
        spots = {s: e for s, e in spots.items() if e}
    roots, stack = [], []
    for s in sorted(spots, key=lambda s: (s[0], -s[1])):
        node = Node(s[0], s[1], sorted(spots[s]))
        while stack and stack[-1].end <= node.start:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots, fallback


def render(src, node):
    """(text, regions) of a spot: its switch over its mutants, with the unmutated alternative's
    inner spots switched too; regions are (start, end, ids) of every switch in the text."""
    pieces, regions, pos, out_len = [], [], node.start, 0
    for ch in node.children:
        pieces.append(src[pos:ch.start])
        out_len += ch.start - pos
        text, sub = render(src, ch)
        regions += [(a + out_len, b + out_len, ids) for a, b, ids in sub]
        pieces.append(text)
        out_len += len(text)
        pos = ch.end
    pieces.append(src[pos:node.end])
    text = "".join(pieces)
    if not node.entries:
        return text, regions
    prefix = ""
    for number, _, (s, e, new) in node.entries:
        variant = src[node.start:s] + new + src[e:node.end]
        prefix += f"{SWITCH} == {number} ? ({variant}) : "
    shift = len(prefix) + 2
    regions = [(a + shift, b + shift, ids) for a, b, ids in regions]
    text = f"({prefix}({text}))"
    regions.append((0, len(text), tuple(mid for _, mid, _ in node.entries)))
    return text, regions


def prelude_at(src):
    """Where the prelude goes: after a leading `#pragma once`, else at the top."""
    m = re.search(r"^#pragma once[^\n]*\n", src, re.M)
    return m.end() if m else 0


def schema_of(src, roots):
    """(text, regions) of a whole file: the prelude, then the source with every spot switched."""
    at = prelude_at(src)
    pieces, regions, pos = [src[:at], PRELUDE], [], at
    out = len(src[:at]) + len(PRELUDE)
    for r in roots:
        pieces.append(src[pos:r.start])
        out += r.start - pos
        text, sub = render(src, r)
        regions += [(a + out, b + out, ids) for a, b, ids in sub]
        pieces.append(text)
        out += len(text)
        pos = r.end
    pieces.append(src[pos:])
    return "".join(pieces), regions


def write(root, excluded=(), extra_args=(), only=None):
    """Writes the schema of every reference file with mutants (of the ids in `only`, when given)
    into `root` (a scratch copy holding the unmutated sources) and returns the manifest:
    {"numbers": {id: n}, "fallback": {id: why}, "regions": {path: [[start, end, [ids]], ...]}};
    numbers are every mutant's, whatever `only` chose."""
    mutants = mutate.enumerate_mutants(root)
    num = numbers(mutants)
    if only is not None:
        mutants = [m for m in mutants if m.id in only]
    by_file = {}
    for m in mutants:
        by_file.setdefault(m.path, []).append(m)
    args = clang_args(root, extra_args)
    manifest = {"numbers": num, "fallback": {}, "regions": {}}
    for path, ms in sorted(by_file.items()):
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            src = f.read()
        exprs, statics = expressions(full, src, args)
        roots, fallback = plan(src, ms, num, exprs, set(excluded), statics)
        manifest["fallback"].update(fallback)
        text, regions = schema_of(src, roots)
        manifest["regions"][path] = [[a, b, list(ids)] for a, b, ids in regions]
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    return manifest


# ---------------------------------------------------------------- the compiler's blame
ERROR = re.compile(r"^(?:\./)?(reference/[^:\s]+):(\d+):(\d+): (?:fatal )?error:", re.M)


def blame(root, manifest, compiler_output):
    """Ids of the mutants whose switches hold the compiler's errors in `compiler_output` (the
    innermost switch around each error position), and the error positions no switch holds."""
    ids, unplaced, texts = set(), [], {}
    for path, line, col in ERROR.findall(compiler_output):
        if path not in manifest["regions"]:
            unplaced.append(f"{path}:{line}:{col}")
            continue
        if path not in texts:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
            starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
            texts[path] = starts
        starts = texts[path]
        pos = starts[min(int(line), len(starts)) - 1] + int(col) - 1
        regions = manifest["regions"][path]
        around = [r for r in regions if r[0] <= pos < r[1]]
        if not around:  # GCC may point past the switch (its expression's end) on the same line
            bol = starts[min(int(line), len(starts)) - 1]
            around = [r for r in regions if bol <= r[1] <= pos] or [r for r in regions if r[1] <= pos][-1:]
            if around:
                around = [max(around, key=lambda r: r[1])]
        if not around:
            unplaced.append(f"{path}:{line}:{col}")
            continue
        ids.update(min(around, key=lambda r: r[1] - r[0])[2])
    return ids, unplaced


def write_ids(path, ids):
    """A file of mutant ids, one a line (run_mutants.py writes --exclude and --only with it)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(i + "\n" for i in sorted(ids)))


def read_ids(path):
    with open(path, encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["write"])
    p.add_argument("--root", required=True, help="a scratch copy of the tree (never a checkout)")
    p.add_argument("--exclude", help="a file of mutant ids (one a line) to leave to separate builds")
    p.add_argument("--only", help="a file of mutant ids (one a line): switch those only (a sample)")
    p.add_argument("--manifest", help="where to write the manifest (JSON); default stdout")
    p.add_argument("clang_args", nargs="*")
    a = p.parse_args(argv)
    if os.path.exists(os.path.join(a.root, ".git")):
        p.error(f"{a.root} is a git checkout: write schemata into a scratch copy only")
    excluded = read_ids(a.exclude) if a.exclude else set()
    manifest = write(a.root, excluded, a.clang_args, read_ids(a.only) if a.only else None)
    text = json.dumps(manifest)
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
