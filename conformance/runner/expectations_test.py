"""Tests of the one expectations parser (conformance/runner/expectations.py) against the
grammar in conformance/expectations/FORMAT.md: hostile inputs (CR-only line endings, NBSP,
U+2028, form feeds, invalid UTF-8, a byte order mark, bidi controls), comments, field
separators, and the glob matcher (including the line that used to take 73 s per case id).
Standard library only.
"""

import os
import random
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.getcwd(), "conformance", "runner"))
import expectations as ex  # noqa: E402
import lint_expectations  # noqa: E402


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


def reference_glob(pattern, text):
    """The glob's meaning, by regex (for tiny inputs only: this is the exponential kind)."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.S) is not None


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
