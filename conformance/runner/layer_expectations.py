"""Rewrites expectations files into the layered, rule-oriented form (FORMAT.md: blocks and
include), keeping what every entry decides for every case id of the spec.

    layer_expectations.py MANIFEST DIR FAMILY [FAMILY...]
      FAMILY: NAME or NAME+NAME (files DIR/NAME.txt; a family shares its common entries)

For each file, every case id of MANIFEST gets the (outcome, reason) of the entry that decides
it (the first matching one). Cases with the same (outcome, reason) form one rule: one reason,
then its globs (one line when one glob does). Each rule's globs match exactly its cases among
the manifest's ids and, besides, only cases of the rules before it (which take them first):
rules keep the order of their first entry, and an include stands at the top of its file. A rule keeps the file's own globs when they are exact and no more than the
fewest the tool finds (write_expectations.cover), otherwise the tool's. Within a family
(libtorch+torch_python, numpy+numpy_weak), the cases both files decide alike go to one shared
file that each includes: the first member's own file when it has nothing else (torch_python
then includes libtorch.txt), else DIR/shared/<first>.txt. Comments before an entry stay with
its rule (written once); the file's header comment stays at its top.

Afterwards, each file is loaded with its includes and checked against the old one: the same
(outcome, reason) for every case id of the manifest, or the tool stops with the first case
that differs and writes nothing. Standard library only.
"""

from __future__ import annotations

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expectations as ex  # noqa: E402
import write_expectations as wx  # noqa: E402


class Source:
    """An old file: its entries, what they decide, its header and the comments per rule."""

    def __init__(self, path: str, ids: list[str]):
        self.path = path
        lines = ex.read_text(path).split("\n")  # the one bounded reader
        self.entries = ex.parse(path, "\n".join(lines))
        checked = next((e for e in self.entries if e.checks), None)
        if checked is not None:  # it writes outcomes and reasons only: FAIL(check,...) would be lost
            raise SystemExit(f"layer_expectations: {checked.where}: '{checked.pattern}' is {checked.outcome_text}; this "
                             f"one-time migration carries outcomes and reasons only (no checks, no wording rules): "
                             f"nothing written")
        self.header: list[str] = []
        self.comments: dict[tuple, list[str]] = collections.defaultdict(list)
        self.order: list[tuple] = []
        by_line = {e.line: e for e in self.entries}
        run: list[str] = []
        started = False
        for n, line in enumerate(lines, 1):
            if n in by_line:
                e = by_line[n]
                key = (e.outcome, e.reason)
                if key not in self.order:
                    self.order.append(key)
                if run:
                    self.comments[key] += (["" ] if self.comments[key] else []) + run
                run, started = [], True
            elif line.strip() == "":
                if not started and run and not self.header:
                    self.header, run = run, []
            else:
                run.append(line.rstrip())
        self.decides: dict[str, tuple] = {}
        for i in ids:
            e = ex.match(self.entries, i)
            if e is not None:
                self.decides[i] = (e.outcome, e.reason)
        self.globs: dict[tuple, list[str]] = collections.defaultdict(list)
        for e in self.entries:
            if e.pattern not in self.globs[(e.outcome, e.reason)]:
                self.globs[(e.outcome, e.reason)].append(e.pattern)


def rules(decides: dict[str, tuple]) -> dict[tuple, set]:
    out: dict[tuple, set] = collections.defaultdict(set)
    for i, key in decides.items():
        out[key].add(i)
    return out


def globs_for(key: tuple, targets: set, earlier: set, source: Source, universe: wx.Universe) -> list[str]:
    """The rule's globs: they match all its cases and otherwise only cases earlier rules decide."""
    own = []
    got: set = set()
    allowed = targets | earlier
    for g in source.globs.get(key, []):
        m = universe.matches(g, allowed)
        if m is None:
            own = None
            break
        if (m & targets) - got:
            own.append(g)
            got |= m & targets
    tool = wx.cover(targets, universe, earlier)
    if own is not None and got == targets and len(own) <= len(tool):
        return own
    return tool


def render(keys: list[tuple], targets: dict[tuple, set], source: Source, universe: wx.Universe,
           written: set, head: list[str], earlier: set) -> list[str]:
    """The rules `keys` (in order), each after the ids `earlier` (grown as rules are written)."""
    lines = list(head)
    for key in keys:
        if key not in targets:
            continue
        outcome, reason = key
        globs = globs_for(key, targets[key], earlier, source, universe)
        earlier |= targets[key]
        comment = source.comments.get(key) if key not in written else None
        written.add(key)
        if comment:
            lines += [""] + comment
        if len(globs) == 1:
            lines.append(f"{globs[0]}  {outcome}  {reason}")
        else:
            lines.append(f"{outcome}: {reason}")
            lines += wx.pack(globs)
    return lines


def layer(manifest: str, directory: str, families: list[list[str]]) -> dict[str, str]:
    ids = wx.manifest_ids(manifest)
    universe = wx.Universe(ids)
    out: dict[str, str] = {}
    for family in families:
        sources = {n: Source(os.path.join(directory, n + ".txt"), ids) for n in family}
        first = sources[family[0]]
        shared = {i: k for i, k in first.decides.items()
                  if all(s.decides.get(i) == k for s in sources.values())} if len(family) > 1 else {}
        written: set = set()
        include = []
        shared_ids: set = set()
        if shared:
            own_first = {i: k for i, k in first.decides.items() if i not in shared}
            if not own_first:
                include_name, shared_path = f"{family[0]}.txt", os.path.join(directory, family[0] + ".txt")
                shared_head = first.header
            else:
                include_name = f"shared/{family[0]}.txt"
                shared_path = os.path.join(directory, "shared", family[0] + ".txt")
                shared_head = [f"# The entries {' and '.join(n + '.txt' for n in family)} share (each includes "
                               f"this file): the same rule and reason for the same cases."]
            order = list(dict.fromkeys(k for s in sources.values() for k in s.order))
            out[shared_path] = "\n".join(render(order, rules(shared), first, universe, written, shared_head,
                                              shared_ids)) + "\n"
            include = [f"include {include_name}"]
        for name, s in sources.items():
            path = os.path.join(directory, name + ".txt")
            if path in out:
                continue
            own = {i: k for i, k in s.decides.items() if i not in shared}
            head = s.header + ([""] + include + [""] if include else [])
            out[path] = "\n".join(render(s.order, rules(own), s, universe, written, head,
                                        set(shared_ids))) + "\n"
    return out


def verify(manifest: str, directory: str, families: list[list[str]], new: dict[str, str], scratch: str) -> None:
    """Each candidate's new file (with its includes) decides every case id as the old one."""
    ids = wx.manifest_ids(manifest)
    for path, text in new.items():
        target = os.path.join(scratch, os.path.relpath(path, directory))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
    for name in (n for fam in families for n in fam):
        old = ex.load(os.path.join(directory, name + ".txt"))
        now = ex.load(os.path.join(scratch, name + ".txt"))
        for i in ids:
            a, b = ex.match(old, i), ex.match(now, i)
            ka = (a.outcome, a.reason) if a else None
            kb = (b.outcome, b.reason) if b else None
            if ka != kb:
                raise SystemExit(f"layer_expectations: {name}: {i} was {ka}, would be {kb}; nothing written")


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    manifest, directory, families = argv[0], argv[1], [f.split("+") for f in argv[2:]]
    import tempfile
    new = layer(manifest, directory, families)
    with tempfile.TemporaryDirectory() as scratch:
        verify(manifest, directory, families, new, scratch)
    before = sum(sum(1 for _ in open(os.path.join(directory, n + ".txt"), encoding="utf-8"))
                 for fam in families for n in fam)
    for path, text in new.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    after = sum(t.count("\n") for t in new.values())
    print(f"layer_expectations: {before} lines before, {after} after ({100 * (before - after) / before:.1f} % fewer); "
          f"every case id of {manifest} decided as before")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
