"""reports/history.py (issue 38 item 4): a run's line (its summary and its non-PASS cases only),
appended to a history file, and the page of each candidate's score over time and of the cases
that changed outcome, with when each last changed. Runs under /usr/bin/python3
(python3-jsonschema, python3-jinja2).
"""

import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser

from . import history
from . import render

from .reports_test import case, make


def run(date, version, outcomes, name="cand", device="cpu"):
    """A report of a candidate on `date` whose cases have `outcomes` (id -> outcome)."""
    doc = make([case(i, o, **({"feature": "promote_types"} if o == "NOT_SUPPORTED" else {}))
                for i, o in outcomes.items()])
    doc["generated"] = date
    doc["candidate"].update(name=name, version=version)
    doc["run"]["device"] = device
    doc["tool"]["commit"] = "c0ffee" + version
    return doc


class Rows(HTMLParser):
    """The text of every table row of a page."""

    def __init__(self, page):
        super().__init__()
        self.rows, self._row = [], None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
            self.rows.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._row:
            self._row[-1] += data


class History(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.path = os.path.join(self.tmp, "history.jsonl")
        self.runs = [
            run("2026-01-01T00:00:00+00:00", "1.0", {"a": "PASS", "b": "FAIL", "c": "XFAIL", "d": "PASS"}),
            run("2026-02-01T00:00:00+00:00", "1.1", {"a": "PASS", "b": "PASS", "c": "XFAIL", "d": "PASS"}),
            run("2026-03-01T00:00:00+00:00", "1.2", {"a": "CRASH", "b": "PASS", "c": "XFAIL", "d": "PASS"}),
        ]

    def test_a_line_holds_the_summary_and_only_the_cases_that_did_not_pass(self):
        entry = history.append(self.runs[0], self.path)
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertEqual(json.loads(lines[0]), entry)
        self.assertEqual(entry["candidate"], {"name": "cand", "version": "1.0", "build": ""})
        self.assertEqual((entry["device"], entry["suite_commit"], entry["date"]),
                         ("cpu", "c0ffee1.0", "2026-01-01T00:00:00+00:00"))
        self.assertEqual(entry["not_pass"], {"b": "FAIL", "c": "XFAIL"})
        self.assertEqual(entry["total"], 4)
        self.assertEqual(entry["outcomes"]["PASS"], 2)
        self.assertEqual(entry["verdict"], "DOES NOT CONFORM")
        self.assertEqual(entry["headline"], self.runs[0]["summary"]["headline"])
        self.assertEqual(entry["headline_class"], "bad")
        self.assertEqual(entry["score"], {"percent": 50.0, "conformant": 2, "cases": 4})
        self.assertEqual(entry["by_spec_file"], {"spec/promotion.toml": [2, 4]})
        self.assertIn("by_feature", entry)

    def test_appending_keeps_every_line_even_after_a_cut_one(self):
        history.append(self.runs[0], self.path)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write('{"format": "tensor-cts/history 1"')  # a line cut short
        history.append(self.runs[1], self.path)
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 3)
        self.assertEqual(json.loads(lines[2])["candidate"]["version"], "1.1")
        with self.assertRaisesRegex(history.HistoryError, r"history.jsonl:2: not JSON"):
            history.read(self.path)

    def test_when_each_case_last_changed(self):
        entries = [history.line(d) for d in self.runs]
        changed, steady = history.changes(entries)
        self.assertEqual([(c["id"], c["before"], c["to"], c["now"], c["version"], c["changes"]) for c in changed],
                         [("a", "PASS", "CRASH", "CRASH", "1.2", 1), ("b", "FAIL", "PASS", "PASS", "1.1", 1)])
        self.assertEqual(dict(steady), {"XFAIL": 1})

    def test_the_page_shows_each_candidate_over_time_and_the_changes(self):
        for d in self.runs + [run("2026-01-15T00:00:00+00:00", "9", {"a": "PASS"}, name="other")]:
            history.append(d, self.path)
        out = os.path.join(self.tmp, "history.html")
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            self.assertEqual(history.main(["render", self.path, out]), 0, stderr.getvalue())
        with open(out, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("<h2 id='candidate-cand-cpu'>", page)
        self.assertIn("<h2 id='candidate-other-cpu'>", page)
        self.assertEqual(page.count("<polyline"), 1)  # a line for the candidate with three runs
        self.assertEqual(page.count("<circle"), 4)
        rows = [[x.strip() for x in r] for r in Rows(page).rows]
        self.assertIn(["a", "CRASH", "PASS → CRASH", "2026-03-01T00:00:00+00:00", "1.2", "c0ffee1.2", "1"], rows)
        self.assertIn(["b", "PASS", "FAIL → PASS", "2026-02-01T00:00:00+00:00", "1.1", "c0ffee1.1", "1"], rows)
        # The runs, newest first, with the score per spec file.
        runs = [r for r in rows if r and r[0].startswith("2026-") and len(r) > 7]
        self.assertEqual([r[1] for r in runs[:3]], ["1.2", "1.1", "1.0"])
        self.assertIn("Unchanged in every run: 1 XFAIL", page)

    def test_every_malformed_line_is_refused_naming_it(self):
        good = history.line(self.runs[0])

        def with_(path, value):
            e = json.loads(json.dumps(good))
            *parents, last = path
            target = e
            for k in parents:
                target = target[k]
            target[last] = value
            return json.dumps(e)

        bad = {
            "a percent as text": with_(("score", "percent"), "50"),
            "a percent of 10^400": json.dumps(good).replace('"percent": 50.0', '"percent": 1e400'),
            "NaN": json.dumps(good).replace('"percent": 50.0', '"percent": NaN'),
            "a huge count": with_(("total",), 10 ** 400),
            "an unknown outcome": with_(("not_pass", "b"), "MAYBE"),
            "an unknown outcome count": with_(("outcomes", "MAYBE"), 1),
            "nesting too deep": with_(("candidate", "name"), None).replace("null", "[" * 100000 + "]" * 100000),
            "a name that is no string": with_(("candidate", "name"), ["x"]),
            "no candidate": json.dumps({k: v for k, v in good.items() if k != "candidate"}),
            "an extra field": with_(("extra",), 1),
            "a score that is no pair": with_(("by_spec_file", "spec/promotion.toml"), [1]),
            "a date that is no string": with_(("date",), 20260101),
            "a class of no colour": with_(("headline_class",), "<script>"),
        }
        for what, text in bad.items():
            with self.subTest(what):
                with open(self.path, "w", encoding="utf-8") as f:
                    f.write(json.dumps(good) + "\n" + text + "\n")
                with self.assertRaisesRegex(history.HistoryError, r"history.jsonl:2: "):
                    history.read(self.path)
                stderr = io.StringIO()
                with redirect_stderr(stderr), redirect_stdout(io.StringIO()):
                    self.assertEqual(history.main(["render", self.path, os.path.join(self.tmp, "h.html")]), 2)
                self.assertIn("history.jsonl:2: ", stderr.getvalue())

    def test_append_prints_a_name_inert_and_refuses_a_line_read_would_refuse(self):
        d = self.tmp
        doc = run("2026-01-01T00:00:00+00:00", "1.0", {"a": "PASS"}, name="evil\x1b[2J\x07\x00")
        render.write_all(doc, d, ("report.json",))
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            self.assertEqual(history.main(["append", os.path.join(d, "report.json"), self.path]), 0)
        self.assertNotIn("\x1b", stdout.getvalue())
        self.assertIn("evil\\x1b[2J\\x07\\x00", stdout.getvalue())
        doc = run("2026-01-01T00:00:00+00:00", "1.0", {"a": "PASS"}, name="n" * 100000)
        with self.assertRaisesRegex(history.HistoryError, r"line\.candidate\.name"):
            history.append(doc, self.path)
        self.assertEqual(len(history.read(self.path)), 1)  # nothing written

    def test_the_command_line(self):
        d = self.tmp
        render.write_all(self.runs[0], d, ("report.json",))
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            self.assertEqual(history.main(["append", os.path.join(d, "report.json"), self.path]), 0)
            self.assertEqual(history.main(["append", os.path.join(d, "missing.json"), self.path]), 2)
            self.assertEqual(history.main(["render", os.path.join(d, "report.json"), os.path.join(d, "x.html")]), 2)
            self.assertEqual(history.main(["frobnicate"]), 2)
        self.assertIn("cannot read report", stderr.getvalue())
        self.assertIn("report.json:1: not JSON", stderr.getvalue())  # a report is no history
        self.assertEqual(len(history.read(self.path)), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
