"""Tests of the one expectations parser (conformance/runner/expectations.py) against the
grammar in conformance/expectations/FORMAT.md: hostile inputs (CR-only line endings, NBSP,
U+2028, form feeds, invalid UTF-8, a byte order mark, bidi controls), comments, field
separators, and the glob matcher (including the line that used to take 73 s per case id).
Standard library only.
"""

import contextlib
import io
import json
import os
import random
import re
import sys
import tempfile
import time
import unittest

from conformance.tools import lint_expectations

from . import expectations as ex
from . import expectations_writer


def entries(text, path="x.txt"):
    return [(e.pattern, e.outcome, e.reason, e.line) for e in ex.parse(path, text)]


class Grammar(unittest.TestCase):
    def error(self, data):
        with self.assertRaises(ex.ExpectationsError) as cm:
            if isinstance(data, bytes):
                ex.parse_bytes("x.txt", data)
            else:
                ex.parse("x.txt", data)
        return str(cm.exception)

    def test_entries_comments_and_blank_lines(self):
        text = "# header\n\n   \t\na.*  FAIL  the reason,  in words  # trailing comment\n\tb.?\tCRASH\tit aborts\n"
        self.assertEqual(entries(text), [("a.*", "FAIL", "the reason,  in words", 4), ("b.?", "CRASH", "it aborts", 5)])

    def test_hash_inside_a_field_is_text(self):
        self.assertEqual(entries("a#b FAIL see 002#type-promotion #comment\n"),
                         [("a#b", "FAIL", "see 002#type-promotion", 1)])
        self.assertEqual(entries("  # indented comment\n"), [])

    def test_an_issue_number_after_a_blank_is_refused_not_cut(self):
        # ' #188784' would start a comment: the reason would end at "asarray;" unseen.
        msg = self.error("a FAIL 2.x reads it (tensor_new.cpp asarray; #188784) as uint8\n")
        self.assertIn("x.txt:1:46:", msg)  # where the comment starts
        self.assertIn("'#188784' after a blank starts a comment", msg)
        self.assertIn("x.txt:1:", self.error("FAIL: a block's reason #12\n  a.*\n"))
        self.assertEqual(entries("a FAIL fixed (pytorch/pytorch#188784) since 2.4  # a comment #3\n"),
                         [("a", "FAIL", "fixed (pytorch/pytorch#188784) since 2.4", 1)])

    def test_crlf_and_missing_final_newline(self):
        self.assertEqual(entries("a FAIL r1\r\nb FAIL r2\nc FAIL r3"),
                         [("a", "FAIL", "r1", 1), ("b", "FAIL", "r2", 2), ("c", "FAIL", "r3", 3)])
        self.assertEqual(entries(""), [])

    def test_lone_carriage_return_is_an_error_naming_line_and_column(self):
        msg = self.error("a FAIL r1\rb FAIL r2\n")  # CR-only line endings
        self.assertIn("x.txt:1:10:", msg)
        self.assertIn("CR-only", msg)
        self.assertIn("x.txt:2:", self.error("ok FAIL fine\na FAIL r1\r"))  # CR as the last byte

    def test_unicode_line_breaks_are_errors(self):
        for ch, name in (("\u2028", "line separator"), ("\u2029", "paragraph separator"), ("\x0c", "form feed"),
                         ("\x0b", "vertical tab"), ("\x85", "next line")):
            msg = self.error(f"# c\na FAIL r{ch}b FAIL r\n")
            self.assertIn("x.txt:2:9:", msg, ch)
            self.assertIn(name, msg)
            self.assertIn(f"U+{ord(ch):04X}", msg)
        # Even inside a comment: an editor would show the rest as a line of its own.
        self.assertIn("x.txt:1:4:", self.error("# c\u2028a FAIL looks like an entry\n"))

    def test_unicode_spaces_do_not_separate_fields(self):
        for ch in ("\u00a0", "\u2003", "\u3000", "\u202f"):
            msg = self.error(f"a.b{ch}FAIL reason\n")
            self.assertIn("x.txt:1:4:", msg)
            self.assertIn("ASCII spaces and tabs", msg)
        self.assertIn("no-break space", self.error("a FAIL nbsp\u00a0in the reason\n"))

    def test_invisible_and_control_characters_are_errors(self):
        for ch in ("\u200b", "\u202e", "\u2066", "\ufeff", "\x00", "\x1b", "\x7f"):
            self.assertIn("x.txt:1:2:", self.error(f"a{ch} FAIL r\n"), repr(ch))
        self.assertIn("byte order mark", self.error("\ufeffa FAIL r\n".encode("utf-8")))

    def test_invalid_utf8_names_the_line(self):
        msg = self.error(b"a FAIL ok\nb FAIL caf\xe9\n")
        self.assertIn("x.txt:2:", msg)
        self.assertIn("not UTF-8", msg)
        self.assertIn("0xE9", msg)
        self.assertIn("x.txt:1:", self.error(b"\xff\xfea FAIL r\n"))  # a UTF-16 byte order mark
        self.assertEqual(entries("é.* FAIL café"), [("é.*", "FAIL", "café", 1)])

    def test_missing_outcome_unknown_outcome_missing_reason(self):
        self.assertIn("x.txt:3: 'case.id' needs a reason", self.error("\n\ncase.id FAIL\n"))
        self.assertIn("x.txt:3: 'case.id' needs a reason", self.error("\n\ncase.id FAIL   # only a comment\n"))
        self.assertIn("unknown outcome 'PASSES'", self.error("case.id PASSES because\n"))
        self.assertIn("unknown outcome 'fail'", self.error("case.id fail because\n"))
        self.assertIn("unknown outcome 'XFAIL'", self.error("case.id XFAIL because\n"))
        self.assertIn("'case.id' has no outcome", self.error("case.id\n"))

    def test_load_reads_bytes_and_names_the_file(self):
        with self.assertRaisesRegex(ex.ExpectationsError, "cannot read expectations file '/no/such'"):
            ex.load("/no/such")

    def test_the_project_files_parse(self):
        d = os.path.join("conformance", "expectations")
        for name in sorted(os.listdir(d)):
            if name.endswith(".txt"):
                ex.load(os.path.join(d, name))


class BlocksAndIncludes(unittest.TestCase):
    def write(self, d, name, text):
        path = os.path.join(d, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def error(self, path):
        with self.assertRaises(ex.ExpectationsError) as cm:
            ex.load(path)
        return str(cm.exception)

    def test_a_block_gives_its_reason_to_every_pattern(self):
        text = "FAIL:  the  reason # c\n    a.* b.?   # c\n\n  # comment\n\tc\nd CRASH own\n"
        self.assertEqual(entries(text), [("a.*", "FAIL", "the  reason", 2), ("b.?", "FAIL", "the  reason", 2),
                                         ("c", "FAIL", "the  reason", 5), ("d", "CRASH", "own", 6)])
        self.assertEqual([e.col for e in ex.parse("x.txt", text)][:3], [5, 9, 2])

    def test_block_errors_name_line_and_column(self):
        def error(text):
            with self.assertRaises(ex.ExpectationsError) as cm:
                ex.parse("x.txt", text)
            return str(cm.exception)
        self.assertIn("x.txt:1: the block 'FAIL: r' lists no pattern", error("FAIL: r\nb FAIL s\n"))
        self.assertIn("x.txt:1: the block 'FAIL: r' lists no pattern", error("FAIL: r\n"))
        self.assertIn("x.txt:1:1: block 'CRASH:' needs a reason", error("CRASH:\n  a\n"))
        self.assertIn("x.txt:2:5: 'FAIL' in the patterns of the block at line 1", error("FAIL: r\n  a FAIL why\n"))
        self.assertIn("x.txt:1:3: pattern 'a' stands alone outside a block", error("  a\n"))
        self.assertIn("x.txt:2:4: U+00A0", error("FAIL: r\n  a\u00a0b\n"))

    def test_include_splices_entries_in_place(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "shared/common.txt", "FAIL: shared\n  s.*\n")
            top = self.write(d, "top.txt", "a FAIL first\ninclude shared/common.txt\nz FAIL last\n")
            got = [(e.pattern, os.path.basename(e.path), e.line) for e in ex.load(top)]
            self.assertEqual(got, [("a", "top.txt", 1), ("s.*", "common.txt", 2), ("z", "top.txt", 3)])
            self.assertTrue(ex.load(top)[1].where.endswith("shared/common.txt:2"))

    def test_include_through_a_tree_of_symbolic_links(self):
        # Bazel's runfiles: every file a link into the source tree.
        with tempfile.TemporaryDirectory() as d:
            src = self.write(d, "src/top.txt", "include shared/s.txt\n")
            self.write(d, "src/shared/s.txt", "a FAIL r\n")
            os.makedirs(os.path.join(d, "run", "shared"))
            os.symlink(src, os.path.join(d, "run", "top.txt"))
            os.symlink(os.path.join(d, "src", "shared", "s.txt"), os.path.join(d, "run", "shared", "s.txt"))
            self.assertEqual([e.pattern for e in ex.load(os.path.join(d, "run", "top.txt"))], ["a"])

    def test_include_errors_name_file_line_and_column(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.write(d, "t/a.txt", "# a\ninclude b.txt\n")
            self.write(d, "t/b.txt", "x FAIL r\ninclude  a.txt\n")
            msg = self.error(a)
            self.assertIn("b.txt:2:10: include 'a.txt' makes a cycle (a.txt -> b.txt -> a.txt)", msg)
            self.assertIn("t/a.txt:1:9: include 'a.txt' makes a cycle",
                          self.error(self.write(d, "t/a.txt", "include a.txt\n")))
            missing = self.write(d, "t/m.txt", "\n\ninclude   no/such.txt\n")
            self.assertIn("m.txt:3:11: include 'no/such.txt': no such file", self.error(missing))
            self.write(d, "outside.txt", "x FAIL r\n")
            up = self.write(d, "t/up.txt", "include ../outside.txt\n")
            self.assertIn("up.txt:1:9: include '../outside.txt' is outside", self.error(up))
            self.assertIn("is outside", self.error(self.write(d, "t/abs.txt", "include /etc/hostname\n")))
            os.symlink(os.path.join(d, "outside.txt"), os.path.join(d, "t", "link.txt"))
            self.assertIn("is outside", self.error(self.write(d, "t/l.txt", "include link.txt\n")))
            self.assertIn("bad.txt:1:2: U+200B", self.error(self.write(d, "t/i.txt", "include bad.txt\n"))
                          if self.write(d, "t/bad.txt", "a\u200b FAIL r\n") else "")


class Lint2(unittest.TestCase):
    def test_repeated_and_unreviewed(self):
        with tempfile.TemporaryDirectory() as d:
            manifest = os.path.join(d, "m.txt")
            with open(manifest, "w") as f:
                f.write("S\ta.1\nS\ta.2\n")
            shared = os.path.join(d, "shared.txt")
            with open(shared, "w") as f:
                f.write("a.1 FAIL reviewed reason\n")
            top = os.path.join(d, "top.txt")
            with open(top, "w") as f:
                f.write("include shared.txt\nFAIL: UNREVIEWED: observed x; spec: y\n  a.2 a.1\n")
            self.assertEqual(lint_expectations.main([manifest, top]), 1)  # a.1 repeats
            self.assertIn("repeats the entry at", "\n".join(lint_expectations.lint(lint_expectations.case_ids(manifest), top)))
            with open(top, "w") as f:
                f.write("include shared.txt\nFAIL: UNREVIEWED: observed x; spec: y\n  a.2\n")
            self.assertEqual(lint_expectations.main([manifest, top]), 0)
            self.assertEqual(lint_expectations.main(["--reviewed", manifest, top]), 1)
            problems = lint_expectations.lint(lint_expectations.case_ids(manifest), top, reviewed=True)
            self.assertTrue(any("unreviewed reason" in p and "top.txt:3" in p for p in problems), problems)


class Writer(unittest.TestCase):
    def test_cover_matches_exactly_the_targets(self):
        from . import expectations_writer as wx
        ids = [f"binary.{op}.t_{a}.t_{b}" for op in ("add", "sub", "mul", "div") for a in ("int8", "int16", "float32")
               for b in ("int8", "int16", "float32")] + ["binary.addcmul.x", "other.add.t_int8.t_int8"]
        u = wx.Universe(ids)
        rng = random.Random(3)
        for _ in range(200):
            targets = set(rng.sample(ids, rng.randint(1, 12)))
            globs = wx.cover(targets, u)
            got = {i for i in ids if any(ex.glob_match(g, i) for g in globs)}
            self.assertEqual(got, targets, globs)
        every_div = {i for i in ids if i.startswith("binary.div.")}
        self.assertEqual(wx.cover(every_div, u), ["binary.div.*"])
        int8_left = {i for i in ids if i.startswith("binary.") and ".t_int8.t_" in i}
        self.assertEqual(len(wx.cover(int8_left, u)), 1, wx.cover(int8_left, u))

    def test_update_keeps_narrows_drops_and_adds(self):
        from . import expectations_writer as wx
        def c(i, outcome, **kw):
            return {"id": i, "outcome": outcome, "spec_file": "spec/x.toml", "clause": "001#x", "spec_row": "x",
                    "observed": "o", "expected": "e", "statement": "s", **kw}
        cases = [c("a.1", "XFAIL"), c("a.2", "XPASS"), c("a.3", "XFAIL"),  # a.* FAIL: narrowed
                 c("b.1", "XPASS"),  # b.1: dropped
                 c("k.1", "XFAIL"), c("k.2", "XFAIL"),  # a block, kept as written
                 c("s.1", "XPASS"),  # in the included file: reported, not rewritten
                 c("n.1", "FAIL"), c("n.2", "FAIL"), c("p.1", "PASS")]  # new
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "inc.txt"), "w") as f:
                f.write("s.*  FAIL  shared\n")
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write("# head\ninclude inc.txt\na.*  FAIL  reviewed a  # why\nb.1  FAIL  reviewed b\n"
                        "FAIL: reviewed k\n    k.1 k.2\n")
            notes = wx.run(cases, {"name": "x"}, [x["id"] for x in cases], update_path=path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("# head\ninclude inc.txt\na.1  FAIL  reviewed a\na.3  FAIL  reviewed a\nFAIL: reviewed k\n"
                          "    k.1 k.2\n", text)
            self.assertNotIn("b.1", text)
            self.assertIn("n.*  FAIL  UNREVIEWED: n.1: observed o; spec: e (s) (and 1 more case(s) like it)", text)
            self.assertTrue(any("inc.txt:1: 's.*'" in n and "edit it by hand" in n for n in notes), notes)
            got = {e.pattern: e.reason for e in ex.load(path)}
            self.assertEqual(got["k.2"], "reviewed k")

    def test_update_never_drops_a_case_that_was_not_supported(self):
        # Issue 48: a property NOT_SUPPORTED under one seed (its draws reached an undeclared op
        # first) FAILed under the next; the updater dropped its entry in between.
        from . import expectations_writer as wx
        def c(i, outcome):
            return {"id": i, "outcome": outcome, "spec_file": "spec/x.toml", "clause": "001#x", "spec_row": "x",
                    "observed": "o", "expected": "e", "statement": "s"}
        cases = [c("p.1", "NOT_SUPPORTED"),  # kept whole
                 c("q.1", "NOT_SUPPORTED"), c("q.2", "XPASS"), c("q.3", "XFAIL")]  # narrowed to q.1, q.3
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write("p.1  FAIL  reviewed p\nq.*  FAIL  reviewed q\n")
            wx.run(cases, {"name": "x"}, [x["id"] for x in cases], update_path=path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("p.1  FAIL  reviewed p\n", text)
            got = {e.pattern for e in ex.load(path) if e.reason == "reviewed q"}
            covered = {i for i in ("q.1", "q.2", "q.3") if any(ex.glob_match(g, i) for g in got)}
            self.assertEqual(covered, {"q.1", "q.3"}, text)

    def test_update_from_some_cases_keeps_the_others(self):
        # A run of some suites or cases (--suites, --filter) updates what ran and leaves the rest:
        # an entry of cases that did not run stays, one partly run keeps its unrun cases, and a
        # wording rule none of whose cases ran stays.
        from . import expectations_writer as wx
        def c(i, outcome):
            return {"id": i, "outcome": outcome, "spec_file": "spec/x.toml", "clause": "001#x", "spec_row": "x",
                    "observed": "o", "expected": "e", "statement": "s", "message": "m"}
        cases = [c("a.1", "XFAIL"), c("a.2", "XPASS"), c("b.1", "XPASS")]
        universe = ["a.1", "a.2", "a.3", "b.1", "z.1", "z.2", "w.1"]  # a.3, z.*, w.1 did not run
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write("a.*  FAIL  reviewed a\nb.1  FAIL  reviewed b\nz.*  FAIL  reviewed z\n"
                        "w.1  FAIL(message)  reviewed w\n")
            wx.run(cases, {"name": "x"}, universe, update_path=path)
            got = {}
            for e in ex.load(path):
                got.setdefault(e.reason, set()).update(i for i in universe if ex.glob_match(e.pattern, i))
            self.assertEqual(got, {"reviewed a": {"a.1", "a.3"}, "reviewed z": {"z.1", "z.2"}, "reviewed w": {"w.1"}})

    def test_a_wording_rule_decides_the_message_check_alone(self):
        """Issue 48 item 4: FAIL(message) lists a library's wording once; it and the entries never
        shadow each other, and it never makes a case XPASS."""
        rule = ex.Entry.make("*", "FAIL", "the library's words", 1, checks=("message",))
        kind = ex.Entry.make("a.*", "FAIL", "a dtype rule", 2, checks=("dtype",))
        plain = ex.Entry.make("p.*", "FAIL", "any way", 3)
        for order in ([rule, kind, plain], [kind, plain, rule]):
            idx = ex.Index(order)
            for entries_ in (order, idx):
                self.assertEqual(ex.apply(entries_, "a.b", "FAIL", ("message",))[:2], ("XFAIL", rule))
                self.assertEqual(ex.apply(entries_, "a.b", "FAIL", ("dtype", "message"))[:2], ("XFAIL", kind))
                self.assertEqual(ex.apply(entries_, "a.b", "FAIL", ("dtype",))[:2], ("XFAIL", kind))
                self.assertEqual(ex.apply(entries_, "a.b", "FAIL", ("error",))[0], "FAIL")  # not a wording
                self.assertEqual(ex.apply(entries_, "b.c", "FAIL", ("message", "values"))[0], "FAIL")
                self.assertEqual(ex.apply(entries_, "b.c", "PASS")[0], "PASS")  # a rule: no XPASS
                self.assertEqual(ex.apply(entries_, "a.b", "PASS")[:2], ("XPASS", kind))
                self.assertEqual(ex.apply(entries_, "p.q", "FAIL", ("message",))[:2], ("XFAIL", rule))
                self.assertEqual(ex.apply(entries_, "p.q", "CRASH")[0], "CRASH")
        self.assertEqual(ex.apply([kind], "a.b", "FAIL", ("dtype", "message"))[0], "FAIL")  # no rule: as before

    def test_entries_a_wording_rule_makes_unnecessary_are_stale_and_dropped(self):
        from . import expected
        from . import expectations_writer as wx

        def c(i, outcome, checks):
            return {"id": i, "outcome": outcome, "kind": "case", "spec_file": "spec/x.toml", "clause": "001#x",
                    "spec_row": "x", "observed": "o", "expected": "e", "statement": "s", "checks": checks,
                    "reason": "", "mismatches": []}
        worded = {"error": "PASS", "message": "FAIL"}
        cases = [c("w.1", "XFAIL", worded), c("w.2", "XFAIL", worded),          # wording alone
                 c("m.1", "XFAIL", {"message": "FAIL", "dtype": "FAIL"}),       # wording and a dtype
                 c("k.1", "XFAIL", {"error": "FAIL"}), c("ok.1", "PASS", {"error": "PASS"})]
        text = ("w.*  FAIL  worded case by case\nm.1  FAIL(dtype)  its dtype\nk.1  FAIL  a kind\n"
                "FAIL(message): the library's words\n    *\nFAIL(message): never met\n    ok.*\n")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write(text)
            stale = expected.stale_entries(ex.load(path), cases)
            self.assertEqual([(s["pattern"], s["reason"]) for s in stale],
                             [("w.*", "worded case by case"), ("ok.*", "never met")])
            wx.run(cases, {"name": "x"}, [x["id"] for x in cases], update_path=path)
            with open(path, encoding="utf-8") as f:
                now = f.read()
            kept = [(e.pattern, e.outcome_text, e.reason) for e in ex.load(path)]
            self.assertEqual(kept, [("m.1", "FAIL(dtype)", "its dtype"), ("k.1", "FAIL", "a kind"),
                                    ("*", "FAIL(message)", "the library's words")], now)
            for x in cases:
                got = ex.apply(ex.load(path), x["id"], wx.raw_outcome(x), wx.failed_checks(x))[0]
                self.assertEqual(got, x["outcome"], x["id"])

    def test_update_moves_a_case_whose_failing_check_changed(self):
        """A one-line FAIL(error) entry (written before the message check) whose case now fails in
        its wording: the updater drops it and lists the case anew as FAIL(message), and the file
        still parses (a one-line FAIL(check) entry was taken for a block's pattern line)."""
        from . import expectations_writer as wx
        case = {"id": "a.b", "outcome": "FAIL", "kind": "case", "spec_file": "spec/x.toml", "clause": "001#x",
                "spec_row": "a", "observed": "IndexError: its words", "expected": "e", "statement": "s",
                "checks": {"error": "PASS", "message": "FAIL"}, "reason": "",
                "mismatches": [{"check": "c", "kind": "message", "expected": "e", "observed": "IndexError: its words"}]}
        other = dict(case, id="a.c", outcome="XFAIL", checks={"error": "FAIL"},
                     mismatches=[{"check": "c", "kind": "error", "expected": "e", "observed": "ValueError: v"}])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write("a.b  FAIL(error)  own old\na.c  FAIL(error)  kept\n")
            wx.run([case, other], {"name": "x"}, ["a.b", "a.c"], update_path=path)
            got = [(e.pattern, e.outcome_text, e.reason[:11]) for e in ex.load(path)]
        self.assertEqual(got[0], ("a.c", "FAIL(error)", "kept"))
        self.assertEqual(got[1][:2], ("a.b", "FAIL(message)"))
        self.assertEqual(len(got), 2)

    def test_entries_name_their_checks_and_never_fold_two_observations(self):
        from . import expectations_writer as wx
        def c(i, checks, observed="o"):
            kinds = [k for k, v in checks.items() if v == "FAIL"]
            return {"id": i, "outcome": "FAIL", "spec_file": "spec/x.toml", "clause": "001#x", "spec_row": "x",
                    "observed": observed, "expected": "e", "statement": "s", "checks": checks,
                    "mismatches": [{"check": "c", "kind": k, "expected": "e", "observed": observed} for k in kinds]}
        cases = [c("a.1", {"dtype": "PASS", "values": "NOT_SUPPORTED", "strides": "FAIL"}),
                 c("a.2", {"dtype": "PASS", "values": "NOT_SUPPORTED", "strides": "FAIL"}),
                 c("a.3", {"dtype": "FAIL", "values": "NOT_SUPPORTED"}),
                 c("e.1", {"error": "FAIL"}, "ValueError: m"), c("e.2", {"error": "FAIL"}, "RuntimeError: n")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "new.txt")
            wx.run(cases, {"name": "x"}, [x["id"] for x in cases], write_path=path)
            written = ex.load(path)
        got = {(e.pattern, e.outcome_text) for e in written}
        for x in cases:
            failed = wx.failed_checks(x)
            self.assertEqual(ex.apply(written, x["id"], "FAIL", failed)[0], "XFAIL", x["id"])
        self.assertEqual(ex.apply(written, "a.1", "FAIL", ("dtype", "strides"))[0], "FAIL")
        patterns = {p: o for p, o in got}
        self.assertEqual(patterns.get("a.3"), "FAIL(dtype)")
        self.assertNotIn("a.*", patterns)  # the strides and the dtype deviations are two entries
        self.assertEqual({p for p in patterns if p.startswith("e.")}, {"e.1", "e.2"})  # two error kinds, two entries

    def test_reasons_are_one_clean_line(self):
        from . import expectations_writer as wx
        r = wx.reason_for([{"id": "a.b", "outcome": "FAIL", "observed": "x\n# y\u2028z", "expected": "int #8"}])
        self.assertTrue(r.startswith("UNREVIEWED: a.b: observed x no. y z; spec: int no.8"), r)
        self.assertEqual(entries(f"a.b FAIL {r}\n")[0][2], r)


def reference_glob(pattern, text):
    """The glob's meaning, by regex (for tiny inputs only: this is the exponential kind)."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.S) is not None


def valid_report(cases: list[dict], name: str = "cand") -> dict:
    """A report.json document report.py accepts, of `cases` (each an id and an outcome at least)."""
    from reports import report as report_lib

    full = [{"test": "T." + c["id"], "suite": "x", "spec_file": "spec/x.toml", "kind": "case", "clause": "x",
             "basis": "doc", "statement": "s", "expected": "e", "observed": "o", "mismatches": [], "reason": "",
             "message": "", "rerun": "r", "duration_ms": 1, **c} for c in cases]
    return report_lib.build(
        candidate={"name": name, "version": "1", "build": ""},
        run={"command": "test", "suites": ["x"], "filter": "", "device": "cpu", "seed": "1", "jobs": 1,
             "case_timeout_s": 1.0, "processes": 1, "isolated_processes": 0, "started": "now", "wall_s": 0.1,
             "replay_file": None},
        expectations={"file": "e.txt", "entries": 0, "stale": []}, features=[], cases=full, commit=None)


class HostileReports(unittest.TestCase):
    """Issue 42: write_expectations.py --from-report refuses a report a stranger sent, naming
    the field, and never ends in a traceback. Issue 52: it reads and checks a report as report.py
    does (one parse, the schema), so it refuses what the other tools refuse."""

    def test_hostile_reports_are_refused_naming_the_field(self):
        import copy
        from conformance.tools import write_expectations
        good = valid_report([{"id": "a.b", "outcome": "FAIL"}, {"id": "c", "outcome": "PASS"}])

        def broken(path, value):
            doc = copy.deepcopy(good)
            *parents, last = path
            node = doc
            for k in parents:
                node = node[k]
            node[last] = value
            return doc

        bad = {
            "a list": ([1, 2], "is not a tensor-cts report"),
            "a string": ("report", "is not a tensor-cts report"),
            "null": (None, "is not a tensor-cts report"),
            "no schema (a document of its own)": ({"cases": []}, "is not a tensor-cts report"),
            "another schema version": (broken(["schema_version"], 9), "has schema_version 9"),
            "no cases": ({k: v for k, v in good.items() if k != "cases"}, "'cases' is a required property"),
            "cases an object": (broken(["cases"], {"a": 1}), "report.cases:"),
            "a case a number": (broken(["cases", 0], 5), "report.cases[0]:"),
            "no id": (broken(["cases", 0], {k: v for k, v in good["cases"][0].items() if k != "id"}), "report.cases[0]:"),
            "id a list": (broken(["cases", 0, "id"], ["x"]), "report.cases[0].id:"),
            "bad outcome": (broken(["cases", 1, "outcome"], "WIN"), "report.cases[1].outcome:"),
            "observed a dict": (broken(["cases", 0, "observed"], {"a": 1}), "report.cases[0].observed:"),
            "checks a list": (broken(["cases", 0, "checks"], [1]), "report.cases[0].checks:"),
            "mismatch a string": (broken(["cases", 0, "mismatches"], ["x"]), "report.cases[0].mismatches[0]:"),
            "run a list": (broken(["run"], []), "report.run:"),
            "candidate name a number": (broken(["candidate", "name"], 5), "report.candidate.name:"),
            "filter a dict": (broken(["run", "filter"], {}), "report.run.filter:"),
            "deep": ("[" * 100000 + "]" * 100000, "nested too deeply"),
            # Issue 52: what report.py refuses, this tool refused not (json.load reads NaN).
            "NaN": (json.dumps(good).replace('"wall_s": 0.1', '"wall_s": NaN'), "is not JSON"),
            "a report without its summary": ({k: v for k, v in good.items() if k != "summary"},
                                             "'summary' is a required property"),
            "a reason_ref past the reasons": (broken(["cases", 0, "reason_ref"], 0), "reason_ref: 0 is no index"),
        }
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "report.json")
            with open(path, "w") as f:
                json.dump(good, f)
            self.assertEqual(write_expectations.read_report(path)["cases"], good["cases"])  # the base is good
            for what, (doc, message) in bad.items():
                with open(path, "w") as f:
                    f.write(doc if isinstance(doc, str) and doc.startswith(("[", "{")) else json.dumps(doc))
                err = io.StringIO()
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    status = write_expectations.main([f"--from-report={path}", f"--write={os.path.join(d, 'e.txt')}",
                                                      f"--manifest={self.manifest(d)}"])
                self.assertEqual(status, 2, (what, err.getvalue()))
                self.assertIn(message, err.getvalue(), what)
                self.assertNotIn("Traceback", err.getvalue(), what)

    def manifest(self, d):
        path = os.path.join(d, "manifest.txt")
        with open(path, "w") as f:
            f.write("# test\tid\nT.a\ta.b\n")
        return path


class SharedBaselines(unittest.TestCase):
    """write_expectations --shared (issue 38 item 6): the entries one library's per-platform files
    have alike move into a shared file both include, none is copied, and every case is decided as
    before (outcome, checks and reason: expectations.apply on every id)."""

    IDS = ["a.x", "a.y", "b.x", "b.y", "c.x", "c.y", "d.x", "p.q"]
    CPU = ("# cpu header\n\n"
           "c.*  FAIL  cpu only rule\n\n"
           "# the common rule\n"
           "FAIL: both platforms\n    a.x a.y\n    b.x\n\n"
           "FAIL(values): both, values only\n    d.x\n\n"
           "p.q  CRASH  cpu crashes\n")
    WASM = ("# wasm header\n\n"
            "FAIL: both platforms\n    a.x b.x\n    a.y c.x\n\n"
            "d.x  FAIL(values)  both, values only\n")

    def setUp(self):
        from conformance.tools import write_expectations as wx
        self.wx = wx
        self.d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.cpu, self.wasm = os.path.join(self.d, "cpu.txt"), os.path.join(self.d, "wasm.txt")
        self.shared = os.path.join(self.d, "shared", "lib.txt")
        for path, text in ((self.cpu, self.CPU), (self.wasm, self.WASM)):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        self.before = {p: ex.load(p) for p in (self.cpu, self.wasm)}

    def decided(self, entries):
        return {(i, raw, checks): ex.apply(entries, i, raw, checks)[::2]
                for i in self.IDS for raw in ("PASS", "FAIL", "CRASH", "NOT_SUPPORTED")
                for checks in ((), ("values",), ("dtype",))}

    def test_common_entries_move_to_the_shared_file_and_nothing_is_copied(self):
        lines = self.wx.write_shared([self.cpu, self.wasm], self.shared, self.IDS)
        self.assertIn("4 entries", lines[0])
        shared = ex.load(self.shared)
        self.assertEqual(sorted((e.pattern, e.outcome_text, e.reason) for e in shared),
                         [("a.x", "FAIL", "both platforms"), ("a.y", "FAIL", "both platforms"),
                          ("b.x", "FAIL", "both platforms"), ("d.x", "FAIL(values)", "both, values only")])
        for path in (self.cpu, self.wasm):
            with self.subTest(path):
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertIn("include shared/lib.txt\n", text)
                own = [e for e in ex.load(path) if os.path.realpath(e.path) == os.path.realpath(path)]
                self.assertFalse({e.pattern for e in own} & {e.pattern for e in shared}, "an entry copied")
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(lint_expectations.lint(self.IDS, path), [])  # no pattern twice, none stale
                self.assertEqual(self.decided(ex.load(path)), self.decided(self.before[path]))
        with open(self.cpu, encoding="utf-8") as f:
            cpu = f.read()
        # The include stands where the first shared entry stood (after the cpu-only rule, before the
        # comment of the block it came from); the emptied blocks are gone; the header stays.
        self.assertTrue(cpu.startswith("# cpu header\n\nc.*  FAIL  cpu only rule\n\ninclude shared/lib.txt\n"), cpu)
        self.assertNotIn("FAIL(values)", cpu)
        with open(self.wasm, encoding="utf-8") as f:
            self.assertIn("FAIL: both platforms\n    c.x\n", f.read())  # the block keeps its own pattern

    def test_a_second_run_changes_nothing(self):
        self.wx.write_shared([self.cpu, self.wasm], self.shared, self.IDS)
        def read(p):
            with open(p, encoding="utf-8") as f:
                return f.read()

        texts = {p: read(p) for p in (self.cpu, self.wasm, self.shared)}
        self.wx.write_shared([self.cpu, self.wasm], self.shared, self.IDS)
        self.assertEqual({p: read(p) for p in texts}, texts)

    def test_a_move_that_would_change_a_decision_is_refused(self):
        # In wasm, c.* (its own) decides c.x before wasm's own c.x entry could; the shared file goes
        # where the first common entry (a.x) stood, ahead of c.*: c.x would change its reason.
        with open(self.wasm, "w", encoding="utf-8") as f:
            f.write("FAIL: both\n    a.x\nc.*  FAIL  wasm c rule\nFAIL: both\n    c.x\n")
        with open(self.cpu, "w", encoding="utf-8") as f:
            f.write("FAIL: both\n    a.x c.x\n")
        with self.assertRaisesRegex(self.wx.WriteError, r"wasm.txt: c.x was decided .*wasm c rule.*would be"):
            self.wx.write_shared([self.cpu, self.wasm], self.shared, self.IDS)
        self.assertFalse(os.path.exists(self.shared))

    def test_from_several_reports(self):
        # One report per platform: each file written from its run, then what they share moved.
        import json

        def report(name, failing):
            cases = [{"id": i, "outcome": "FAIL" if i in failing else "PASS", "spec_row": i.split(".")[0],
                      "mismatches": [{"check": "v", "expected": "e", "observed": "o", "kind": "values"}],
                      "checks": {"values": "FAIL"}}
                     for i in self.IDS]
            path = os.path.join(self.d, name + ".json")
            with open(path, "w") as f:
                json.dump(valid_report(cases, name), f)
            return path

        a, b = report("cpu", {"a.x", "a.y", "c.x"}), report("wasm", {"a.x", "a.y", "d.x"})
        fa, fb = os.path.join(self.d, "a.txt"), os.path.join(self.d, "b.txt")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = self.wx.main([f"--from-report={a}", f"--write={fa}", f"--from-report={b}", f"--write={fb}",
                                   f"--shared={self.shared}"])
        self.assertEqual(status, 0, out.getvalue())
        self.assertEqual([e.pattern for e in ex.load(self.shared)], ["a.*"])
        for path, failing in ((fa, {"a.x", "a.y", "c.x"}), (fb, {"a.x", "a.y", "d.x"})):
            entries = ex.load(path)
            self.assertEqual({i for i in self.IDS if ex.match(entries, i)}, failing)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(self.wx.main([f"--from-report={a}", f"--write={fa}", f"--from-report={b}",
                                           f"--write={fb}"]), 2)
        self.assertIn("give --shared=SHARED", err.getvalue())

    def test_the_tfjs_files_share_and_share_nothing_more(self):
        # The checked-in tfjs_cpu.txt and tfjs_wasm.txt include shared/tfjs.txt; sharing again
        # finds nothing new (no entry of one is the other's too) and changes nothing.
        root = os.path.join(os.getcwd(), "conformance", "expectations")
        paths = [os.path.join(root, n) for n in ("tfjs_cpu.txt", "tfjs_wasm.txt")]
        shared = os.path.join(root, "shared", "tfjs.txt")
        ids = sorted({i for p in paths for e in ex.load(p) for i in [e.pattern.replace("*", "x").replace("?", "x")]})
        new = expectations_writer.share(paths, shared, ids)
        for path, text in new.items():
            with open(path, encoding="utf-8") as f:
                self.assertEqual(text, f.read(), path)
        own = [{e.pattern for e in ex.load(p) if "shared" not in e.path} for p in paths]
        self.assertFalse({(e.pattern, e.outcome_text, e.reason) for e in ex.load(paths[0]) if "shared" not in e.path}
                         & {(e.pattern, e.outcome_text, e.reason) for e in ex.load(paths[1]) if "shared" not in e.path})
        self.assertTrue(own[0] and own[1])
        self.assertEqual(len(ex.load(shared)), 65)


class Glob(unittest.TestCase):
    def test_stars_and_question_marks(self):
        m = ex.glob_match
        self.assertTrue(m("binary.???.s_float.s_float", "binary.add.s_float.s_float"))
        self.assertFalse(m("binary.???.s_float.s_float", "binary.default_float64.add.s_float.s_float"))
        self.assertTrue(m("binary*.div.*", "binary.default_float64.div.t_int8.t_int8"))
        self.assertTrue(m("*", ""))
        self.assertFalse(m("?", ""))
        self.assertFalse(m("a*b", "a"))
        self.assertTrue(m("a*b*c", "axxbyyc"))
        self.assertFalse(m("a*b*c", "axxbyyb"))
        self.assertTrue(m("ab*ba", "aba") is False)  # the head and the tail may not overlap
        self.assertTrue(m("[a]", "[a]"))  # no character classes
        self.assertTrue(m("?", "é"))  # one code point

    def test_agrees_with_the_regex_meaning(self):
        rng = random.Random(5)
        for _ in range(20000):
            p = "".join(rng.choice("ab*?") for _ in range(rng.randint(0, 7)))
            t = "".join(rng.choice("ab") for _ in range(rng.randint(0, 9)))
            self.assertEqual(ex.glob_match(p, t), reference_glob(p, t), (p, t))

    def test_the_redos_line_takes_milliseconds(self):
        # This line took 73 s per case id through the old glob-to-regex translation.
        [entry] = ex.parse("x.txt", "********Q FAIL reason\n")
        ids = ["a" * n for n in range(1, 200)] + ["binary.default_float64.div.t_int8.t_int8" * 5] * 200
        start = time.monotonic()
        self.assertFalse(any(entry.matches(i) for i in ids))
        self.assertTrue(entry.matches("a" * 100 + "Q"))
        worst = "*a" * 100 + "b"  # many segments, each found, the last never
        self.assertFalse(ex.glob_match(worst, "a" * 5000))
        self.assertLess(time.monotonic() - start, 0.5)

    def test_first_matching_entry_wins(self):
        es = ex.parse("x.txt", "a.* FAIL first\na.b CRASH second\n")
        self.assertEqual(ex.match(es, "a.b").reason, "first")
        self.assertIsNone(ex.match(es, "b.a"))


class Lint(unittest.TestCase):
    def test_lint_uses_the_same_parser_and_finishes_fast(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            manifest = os.path.join(d, "manifest.txt")
            with open(manifest, "w") as f:
                f.write("# test\tid\n" + "".join(f"T.{n}\t{'a' * (n % 120)}.b{n}\n" for n in range(15000)))
            good, redos, nbsp = (os.path.join(d, n) for n in ("good.txt", "redos.txt", "nbsp.txt"))
            with open(good, "w") as f:
                f.write("a.b1 FAIL r\n*.b2? FAIL r\n")
            with open(redos, "w") as f:
                f.write("********Q FAIL reason\n")
            with open(nbsp, "w", encoding="utf-8") as f:
                f.write("a.b1\u00a0FAIL r\n")
            start = time.monotonic()
            self.assertEqual(lint_expectations.main([manifest, good]), 0)
            self.assertEqual(lint_expectations.main([manifest, redos]), 1)  # stale, and fast
            self.assertEqual(lint_expectations.main([manifest, nbsp]), 1)
            self.assertLess(time.monotonic() - start, 5)


class Checks(unittest.TestCase):
    """FAIL(check,...) names the checks an entry expects to fail (FORMAT.md)."""

    def test_grammar(self):
        es = ex.parse("x.txt", "a FAIL(values) r\nb FAIL(strides,dtype,strides) r\nFAIL(values): block\n  c d\n")
        self.assertEqual([(e.pattern, e.outcome, e.checks) for e in es],
                         [("a", "FAIL", ("values",)), ("b", "FAIL", ("dtype", "strides")),
                          ("c", "FAIL", ("values",)), ("d", "FAIL", ("values",))])
        self.assertEqual(es[1].outcome_text, "FAIL(dtype,strides)")
        for bad in ("a FAIL() r\n", "a FAIL(Values) r\n", "a FAIL(values r\n", "a CRASH(values) r\n"):
            with self.assertRaises(ex.ExpectationsError, msg=bad) as cm:
                ex.parse("x.txt", bad)
            self.assertIn("x.txt:1:3: unknown outcome", str(cm.exception))

    def test_a_new_failure_in_another_check_is_unexpected(self):
        named = ex.parse("x.txt", "m.* FAIL(values) no values on meta\n")
        whole = ex.parse("x.txt", "m.* FAIL no values on meta\n")
        self.assertEqual(ex.apply(named, "m.1", "FAIL", ("values",))[0], "XFAIL")
        outcome, _, note = ex.apply(named, "m.1", "FAIL", ("strides", "values"))
        self.assertEqual(outcome, "FAIL")
        self.assertEqual(note, "listed as FAIL(values) (no values on meta), but check strides fails too")
        self.assertEqual(ex.apply(named, "m.1", "PASS", ())[0], "XPASS")
        # The per-case entry (the old behaviour) lets the strides regression hide as XFAIL.
        self.assertEqual(ex.apply(whole, "m.1", "FAIL", ("strides", "values"))[0], "XFAIL")


class Varies(unittest.TestCase):
    """VARIES(check,...): a deviation in the named checks on some machines only (FORMAT.md
    "Meaning"): its FAIL is an XFAIL, its PASS a PASS naming the entry, never an XPASS."""

    def test_grammar_and_verdicts(self):
        es = ex.parse("x.txt", "d.* VARIES(values) MKL's division, CPU-dependent\nVARIES(values,dtype): block\n  e\n")
        self.assertEqual([(e.pattern, e.outcome, e.checks, e.outcome_text) for e in es],
                         [("d.*", "VARIES", ("values",), "VARIES(values)"),
                          ("e", "VARIES", ("dtype", "values"), "VARIES(dtype,values)")])
        self.assertEqual(ex.apply(es, "d.1", "FAIL", ("values",))[0], "XFAIL")
        self.assertEqual(ex.apply(es, "d.1", "PASS", ())[0], "PASS")
        self.assertEqual(ex.apply(es, "d.1", "FAIL", ("strides", "values"))[0], "FAIL")
        self.assertEqual(ex.apply(es, "d.1", "CRASH", ())[0], "CRASH")
        for bad in ("a VARIES r\n", "a VARIES() r\n"):
            with self.assertRaises(ex.ExpectationsError, msg=bad):
                ex.parse("x.txt", bad)

    def test_a_pass_is_a_pass_naming_the_entry(self):
        from . import expected
        es = ex.parse("x.txt", "d.* VARIES(values) MKL's division, CPU-dependent\n")
        got = expected.decide(es, "d.1", "PASS")
        self.assertEqual((got.outcome, got.reason), ("PASS", ""))
        self.assertIn("x.txt:1 (d.* VARIES(values), reason: MKL's division, CPU-dependent)", got.note)
        self.assertIn("depends on the machine", got.note)
        self.assertEqual(expected.decide(es, "d.1", "FAIL", failed_checks=("values",)).outcome, "XFAIL")

    def test_the_updater_keeps_the_entry_on_a_machine_where_its_cases_pass(self):
        from . import expectations_writer as wx
        case = {"id": "d.1", "outcome": "PASS", "kind": "case", "spec_file": "spec/x.toml", "clause": "001#x",
                "spec_row": "d", "observed": "", "expected": "e", "statement": "s", "checks": {"values": "PASS"},
                "reason": "", "mismatches": []}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "top.txt")
            with open(path, "w") as f:
                f.write("d.*  VARIES(values)  CPU-dependent\n")
            wx.run([case], {"name": "x"}, ["d.1"], update_path=path)
            got = [(e.pattern, e.outcome_text, e.reason) for e in ex.load(path)]
        self.assertEqual(got, [("d.*", "VARIES(values)", "CPU-dependent")])


class Apply(unittest.TestCase):
    ENTRIES = ex.parse("x.txt", "f.* FAIL known\nc.* CRASH aborts\nt.* TIMEOUT hangs\n")

    def test_table(self):
        a = lambda i, raw: ex.apply(self.ENTRIES, i, raw)[0]  # noqa: E731
        self.assertEqual([a("f.1", "FAIL"), a("c.1", "CRASH"), a("t.1", "TIMEOUT")], ["XFAIL"] * 3)
        self.assertEqual([a("f.1", "PASS"), a("c.1", "PASS")], ["XPASS"] * 2)
        self.assertEqual([a("f.1", "CRASH"), a("c.1", "FAIL"), a("t.1", "CRASH")], ["CRASH", "FAIL", "CRASH"])
        self.assertEqual([a("f.1", "NOT_SUPPORTED"), a("x", "NOT_SUPPORTED")], ["NOT_SUPPORTED"] * 2)
        self.assertEqual([a("x", "PASS"), a("x", "FAIL"), a("x", "CRASH")], ["PASS", "FAIL", "CRASH"])

    def test_notes(self):
        self.assertEqual(ex.apply(self.ENTRIES, "f.1", "FAIL")[2], "known")
        self.assertEqual(ex.apply(self.ENTRIES, "f.1", "CRASH")[2], "listed as FAIL (known), but it crashed")
        self.assertEqual(ex.apply(self.ENTRIES, "x", "FAIL")[1:], (None, ""))


class Decide(unittest.TestCase):
    """expected.decide: the runner's verdict of one case."""

    def test_a_listed_property_whose_draws_miss_the_deviation_passes_naming_its_entry(self):
        from . import expected
        entries = ex.parse("x.txt", "property.views.* FAIL views refused as ValueError\nview.t3x4.* FAIL same\n")
        outcome, reason, note, _ = expected.decide(entries, "property.views.share_storage", "PASS", property_case=True)
        self.assertEqual((outcome, reason), ("PASS", ""))
        self.assertIn("x.txt:1 (property.views.* FAIL, reason: views refused as ValueError)", note)
        self.assertIn("this seed's draws did not reach it", note)
        # A property that deviates is still the listed deviation; a case is still XPASS.
        self.assertEqual(expected.decide(entries, "property.views.share_storage", "FAIL", property_case=True)[0],
                         "XFAIL")
        self.assertEqual(expected.decide(entries, "view.t3x4.12", "PASS")[0], "XPASS")


class IndexTest(unittest.TestCase):
    """The runner's and the lint's matcher: the same first entry as trying every entry in file
    order, reached without trying the entries whose literal prefix the id does not start with."""

    TEXT = ("a.b.c FAIL exact\n"
            "a.* FAIL any a\n"
            "*c FAIL ends in c\n"
            "a.b.? CRASH one more\n"
            "?.x.* TIMEOUT wildcard first\n"
            "a.b.c FAIL again (never applies)\n"
            "b.x.y FAIL b\n")
    IDS = ["a.b.c", "a.b.d", "a.q", "zc", "b.x.y", "b.x.z", "c.x.1", "a", "", "a.b.cc", "q.b.c"]

    def test_the_first_match_is_the_linear_scans(self):
        entries = ex.parse("x.txt", self.TEXT)
        index = ex.Index(entries)
        for i in self.IDS:
            self.assertEqual(ex.match(index, i), ex.match(entries, i), i)
            self.assertEqual([entries[k] for k in index.matching(i)], [e for e in entries if e.matches(i)], i)
        self.assertEqual(ex.match(index, "a.b.c").reason, "exact")
        self.assertEqual(ex.match(index, "b.x.z").reason, "wildcard first")
        self.assertIsNone(ex.match(index, "q"))

    def test_an_id_is_tried_only_against_the_entries_it_may_match(self):
        # 20,000 entries that no id of another prefix can match: an id tries the ones sharing
        # its prefix and the wildcard-first ones sharing its suffix, not all of them (a scan
        # would try 20,002).
        entries = ex.parse("x.txt", "".join(f"row{k}.case FAIL r\n" for k in range(20000)) + "*.z FAIL z\nrow7.* FAIL r7\n")
        index = ex.Index(entries)
        self.assertEqual(len(index._candidates("row7.case")), 2)  # 'row7.case', 'row7.*' (not '*.z')
        self.assertEqual(len(index._candidates("other.z")), 1)
        self.assertEqual(ex.match(index, "row7.case").pattern, "row7.case")
        self.assertEqual(ex.match(index, "row7.other").pattern, "row7.*")
        self.assertEqual(ex.match(index, "other.z").pattern, "*.z")
        # Patterns that start with a wildcard, by their literal suffix: an id tries those it ends
        # with (and the ones with no suffix either), not all of them.
        entries = ex.parse("x.txt", "".join(f"*.t_{k}.s FAIL r\n" for k in range(5000)) + "*.t_7* FAIL any\n?.t_7.s FAIL one\n")
        index = ex.Index(entries)
        self.assertEqual([entries[k].pattern for k in index._candidates("a.t_7.s")], ["*.t_7.s", "*.t_7*", "?.t_7.s"])
        self.assertEqual(ex.match(index, "a.t_7.s").pattern, "*.t_7.s")
        self.assertEqual(ex.match(index, "a.t_7.q").pattern, "*.t_7*")
        self.assertEqual([entries[k] for k in index.matching("b.t_7.s")], [e for e in entries if e.matches("b.t_7.s")])

    def test_stale_entries_through_the_index(self):
        from . import expected
        entries = ex.parse("x.txt", "a.* FAIL a\nb.* FAIL only unsupported\nc.* FAIL nothing\n")
        cases = [{"id": "a.1", "outcome": "FAIL", "kind": "table"},
                 {"id": "b.1", "outcome": "NOT_SUPPORTED", "kind": "table"},
                 {"id": "b.2", "outcome": "NOT_SUPPORTED", "kind": "table"}]
        stale = expected.stale_entries(ex.Index(entries), cases)
        self.assertEqual([(s["pattern"], s.get("not_supported")) for s in stale], [("b.*", 2), ("c.*", None)])
        self.assertEqual(stale, expected.stale_entries(entries, cases))


class HostileTree(unittest.TestCase):
    """Issue 42: a stranger's expectations tree costs its files, never its include paths, and
    is read in bounded time and space. Each load runs in a child process (a 1 GiB address-space
    limit, a 60 s timeout) whose CPU time (the machine may be shared: wall time is not the
    parser's) and peak memory are measured: the parser before the bounds took 52 s for a
    diamond of depth 16 and had no size limit."""

    def child(self, path, budget_s=2.0, budget_mb=200):
        code = ("import resource, sys, time\n"
                "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
                "from conformance.runner import expectations as ex\n"
                "t = time.process_time()\n"
                "try:\n"
                f"    print('entries', len(ex.load({path!r})))\n"
                "except ex.ExpectationsError as e:\n"
                "    print('error', e)\n"
                "print('seconds', time.process_time() - t)\n"
                "print('peak_mb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n")
        import subprocess
        try:
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            self.fail(f"loading {path} took more than 60 s")
        out = dict(line.split(" ", 1) for line in p.stdout.splitlines() if " " in line)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertLessEqual(float(out["seconds"]), budget_s, out)
        self.assertLessEqual(float(out["peak_mb"]), budget_mb, out)
        return out

    def diamond(self, d, depth):
        """a0 includes a1 and b1, each of a_k and b_k includes a_(k+1) and b_(k+1): 2^depth paths to the last."""
        for k in range(depth, -1, -1):
            for side in "ab":
                body = f"{side}{k}.* FAIL level {k}\n"
                if k < depth:
                    body += f"include a{k + 1}.txt\ninclude b{k + 1}.txt\n"
                with open(os.path.join(d, f"{side}{k}.txt"), "w") as f:
                    f.write(body)
        return os.path.join(d, "a0.txt")

    def test_a_diamond_of_includes_costs_its_files_not_its_paths(self):
        for depth in (31, ex.MAX_INCLUDE_DEPTH):  # 31: 2^31 include paths (a timeout before)
            with tempfile.TemporaryDirectory() as d:
                out = self.child(self.diamond(d, depth))
                self.assertEqual(out.get("entries"), str(2 * depth + 1), out)  # each file's entry once
        with tempfile.TemporaryDirectory() as d:
            self.diamond(d, ex.MAX_INCLUDE_DEPTH + 1)
            self.assertIn(f"nest deeper than {ex.MAX_INCLUDE_DEPTH}", self.child(os.path.join(d, "a0.txt"))["error"])
            self.diamond(d, 32)
            es = ex.load(os.path.join(d, "a0.txt"))
            # Each file's entries stand where it is first included; a later include adds nothing
            # (its entries stand earlier already, and the first matching entry decides).
            self.assertEqual([e.pattern for e in es[:4]], ["a0.*", "a1.*", "a2.*", "a3.*"])
            self.assertEqual(len({(e.path, e.line) for e in es}), len(es))

    def test_a_100_mb_file_is_refused_by_its_size(self):
        with tempfile.TemporaryDirectory() as d:
            big = os.path.join(d, "big.txt")
            with open(big, "wb") as f:
                line = b"binary.default_float64.div.t_int8.t_int8 FAIL a reason\n"
                f.write(line * (100 * 2**20 // len(line)))
            out = self.child(big)
            self.assertIn("big.txt", out.get("error", ""), out)
            self.assertIn("bytes", out["error"])
            top = self.write(d, "top.txt", "a FAIL r\n\ninclude big.txt\n")
            out = self.child(top)
            self.assertIn("top.txt:3:9: include 'big.txt'", out.get("error", ""), out)

    def test_a_long_line_is_an_error_naming_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.write(d, "long.txt", "a FAIL r\nb FAIL " + "r" * (ex.MAX_LINE_CHARS + 1) + "\n")
            out = self.child(path)
            self.assertIn(f"long.txt:2: the line is longer than {ex.MAX_LINE_CHARS}", out.get("error", ""), out)

    def test_too_many_entries_is_an_error_naming_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            per_line = 50
            lines = ex.MAX_ENTRIES // per_line + 2
            body = "FAIL: r\n" + "".join("  " + " ".join(f"c{k}.{j}" for j in range(per_line)) + "\n"
                                         for k in range(lines))
            path = self.write(d, "many.txt", body)
            out = self.child(path)
            self.assertRegex(out.get("error", ""), rf"many\.txt:\d+:\d+: more than {ex.MAX_ENTRIES} entries", out)

    def test_the_whole_include_tree_is_bounded(self):
        # Issue 52: each file had its cap (4 MiB), the tree none: 1,000 includes of distinct files
        # near the cap read 4 GB. What the files add together is capped (a comment fills them).
        with tempfile.TemporaryDirectory() as d:
            filler = "#" + "x" * 4000 + "\n"
            count = ex.MAX_TREE_BYTES // (ex.MAX_FILE_BYTES // 2) + 1
            for k in range(count):
                self.write(d, f"f{k}.txt", f"f{k} FAIL r\n" + filler * (ex.MAX_FILE_BYTES // 2 // len(filler)))
            path = self.write(d, "top.txt", "".join(f"include f{k}.txt\n" for k in range(count)))
            out = self.child(path)
            self.assertIn(f"more than {ex.MAX_TREE_BYTES} bytes together", out.get("error", ""), out)
            self.assertIn("top.txt: include '", out["error"])
            self.write(d, "top.txt", "".join(f"include f{k}.txt\n" for k in range(count - 1)))
            self.assertEqual(self.child(path).get("entries"), str(count - 1))

    def test_include_lines_are_bounded(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "s.txt", "s FAIL r\n")
            path = self.write(d, "inc.txt", "include s.txt\n" * (ex.MAX_INCLUDES + 1))
            out = self.child(path)
            self.assertIn(f"inc.txt:{ex.MAX_INCLUDES + 1}:9: more than {ex.MAX_INCLUDES} include lines",
                          out.get("error", ""), out)

    write = BlocksAndIncludes.write

    def test_the_one_regex_refuses_what_the_table_names(self):
        for cp in range(0x10000):
            if cp != 0x0D:
                self.assertEqual(bool(ex._FORBIDDEN_RE.fullmatch(chr(cp))), bool(ex._forbidden(cp)), hex(cp))

    def test_every_reader_reads_through_the_bounded_reader(self):
        from . import expectations_writer as write_expectations
        with tempfile.TemporaryDirectory() as d:
            big = os.path.join(d, "big.txt")
            with open(big, "wb") as f:
                f.truncate(ex.MAX_FILE_BYTES + 1)
            for call in (lambda: write_expectations.update(big, [], write_expectations.Universe([]), ""),
                         lambda: write_expectations.share([big, big], os.path.join(d, "s.txt"), [])):
                with self.assertRaises(ex.ExpectationsError) as cm:
                    call()
                self.assertIn(f"more than {ex.MAX_FILE_BYTES} bytes", str(cm.exception))
            self.assertEqual(lint_expectations.lint([], big), [f"{big}: more than {ex.MAX_FILE_BYTES} bytes: refused unread"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
