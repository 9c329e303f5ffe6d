"""The headline first, everywhere (issue 37): report.md's first line, report.html's badge (its
text and colour), the comparison page (compare.html, compare.md), the terminal's result line
and the JUnit properties lead with summary.headline, and only a candidate with no deviation
at all reads CONFORMS or is green. A candidate that passes the gate by its own list of
deviations (XFAIL cases, in required or only in optional features) must never show the bare
gate verdict CONFORMS, nor green, in those places.

Run against the renderer before this change (reports/ of ea95c84, this file copied beside it),
every test fails: report.md began with the title, its first bold line the gate's **CONFORMS**;
report.html's badge was a green CONFORMS; compare's summary showed a green CONFORMS badge for a
candidate with listed deviations; a deviation only in an optional feature's case left even
summary.headline at CONFORMS; JUnit had no headline. (The clean control fails there only for
report.md's first line, which was the title.)
"""

import os
import re
import unittest
from html.parser import HTMLParser

from . import compare
from . import junit
from . import render
from . import report_score
from . import report_terminal
from .reports_test import case, feature, make

BARE_CONFORMS = re.compile(r"\bCONFORMS\b(?! PARTIALLY)")


def candidates():
    """A clean candidate and three with listed deviations, each by name."""
    clean = make([case("a", "PASS"), case("b", "PASS")])
    listed = make([case("a", "PASS"), case("b", "XFAIL")])  # the gate passes; a required case deviates
    # The only deviation is in a case of an optional feature: not counted in the score, still listed.
    optional = make([case("a", "PASS", features=["promote_types"]),
                     case("o", "XFAIL", features=["sparse_layout"])])
    features = [feature("promote_types", "required", cases=2), feature("asarray", "required", False, 0, 1)]
    partial = make([case("a", "PASS"), case("b", "XFAIL"), case("s", "NOT_SUPPORTED", feature="asarray")],
                   features=features)
    docs = {"clean": clean, "listed": listed, "optional": optional, "partial": partial}
    for name, doc in docs.items():
        doc["candidate"]["name"] = name
    return docs


class Spans(HTMLParser):
    """Every <span class='verdict ...'> of a page: (its classes, its text), in order."""

    def __init__(self, page):
        super().__init__()
        self.spans, self._open = [], None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "span" and "verdict" in classes:
            self._open = [set(classes) - {"verdict"}, ""]
            self.spans.append(self._open)

    def handle_endtag(self, tag):
        if tag == "span":
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open[1] += data


class HeadlineFirst(unittest.TestCase):
    def setUp(self):
        self.docs = candidates()
        self.deviating = {k: v for k, v in self.docs.items() if k != "clean"}

    def test_the_clean_candidate_alone_conforms_in_green(self):
        # The control: without it, a page that showed no badge at all would pass the others.
        doc = self.docs["clean"]
        self.assertEqual(doc["summary"]["headline"], "CONFORMS")
        self.assertEqual(render.markdown(doc).splitlines()[0], "# clean 1: CONFORMS")
        self.assertEqual(Spans(render.html(doc)).spans[0], [{"ok"}, "CONFORMS"])

    def test_report_json_headline_is_not_conforms_with_a_listed_deviation(self):
        for name, doc in self.deviating.items():
            with self.subTest(name):
                self.assertEqual(doc["summary"]["outcomes"]["XFAIL"], 1)
                self.assertNotRegex(doc["summary"]["headline"], BARE_CONFORMS)

    def test_report_md_first_line_leads_with_the_headline(self):
        for name, doc in self.deviating.items():
            with self.subTest(name):
                first = render.markdown(doc).splitlines()[0]
                self.assertEqual(first, f"# {name} 1: {doc['summary']['headline']}")
                self.assertNotRegex(first, BARE_CONFORMS)

    def test_report_html_badge_is_the_headline_and_not_green(self):
        for name, doc in self.deviating.items():
            with self.subTest(name):
                spans = Spans(render.html(doc)).spans
                self.assertTrue(spans, "no badge")
                classes, text = spans[0]
                self.assertEqual(text, doc["summary"]["headline"])
                self.assertNotRegex(text, BARE_CONFORMS)
                self.assertNotIn("ok", classes)  # green
                self.assertEqual(classes, {"partial"})  # amber: passes its expectations, or partially
                for classes, text in spans:  # no other green badge on the page
                    self.assertNotIn("ok", classes, text)

    def test_the_comparison_page_leads_with_the_headline_and_greens_only_the_clean(self):
        cols = [compare.Column(n, f"{n}/report.json", d) for n, d in self.docs.items()]
        page = compare.html(cols)
        spans = Spans(page).spans
        self.assertTrue(spans)
        for classes, text in spans:
            if "ok" in classes:
                self.assertEqual(text, "CONFORMS")
            if BARE_CONFORMS.search(text):
                self.assertEqual(classes, {"ok"}, text)
        # Only the clean candidate may read CONFORMS: the deviating ones alone have no green and no
        # bare CONFORMS badge, in the score table (which leads the page) or anywhere else.
        cols = [c for c in cols if c.label != "clean"]
        page = compare.html(cols)
        spans = Spans(page).spans
        for classes, text in spans:
            self.assertNotIn("ok", classes, text)
            self.assertNotRegex(text, BARE_CONFORMS)
        scores = page[page.index("id=score-table"):page.index("</table>", page.index("id=score-table"))]
        self.assertEqual(len(Spans(scores).spans), len(cols), "each score row leads with a headline badge")
        md = compare.markdown(cols)
        for line in md.splitlines():
            if line.startswith("| gate verdict |"):  # the gate's verdict, labelled so, after the headline
                continue
            cells = [c.strip().strip("*") for c in line.split("|")]
            self.assertNotIn("CONFORMS", cells, line)
        summary = compare.summary_markdown(cols).splitlines()
        self.assertEqual(summary[0].split("|")[2].strip(), "headline")
        for line, c in zip(summary[2:], cols):
            self.assertEqual(line.split("|")[2].strip(), c.doc["summary"]["headline"])

    def test_the_terminal_result_line_and_junit_lead_with_the_headline(self):
        for name, doc in self.deviating.items():
            with self.subTest(name):
                last = report_terminal.text_summary(doc).splitlines()[-1]
                self.assertTrue(last.startswith(f"result: {name} {doc['summary']['headline']}: "), last)
                self.assertNotRegex(last, BARE_CONFORMS)
                props = [(p.get("name"), p.get("value")) for p in junit.testsuite(doc, "t").iter("property")]
                self.assertEqual(props[1], ("headline", doc["summary"]["headline"]))

    def test_badge_json_is_a_shields_endpoint_green_only_without_deviation(self):
        # badge.json (issue 38 item 5): written beside report.json by the one writer of report
        # files, and by reports/render.py; the headline's text, green only for the clean one.
        import json
        import tempfile

        colours = {"clean": "brightgreen", "listed": "yellow", "optional": "yellow", "partial": "yellow"}
        for name, doc in self.docs.items():
            with self.subTest(name), tempfile.TemporaryDirectory() as d:
                paths = render.write_all(doc, d)
                self.assertEqual([os.path.basename(p) for p in paths],
                                 ["report.json", "report.md", "report.html", "badge.json"])
                with open(os.path.join(d, "badge.json"), encoding="utf-8") as f:
                    got = json.load(f)
                self.assertEqual(got, {"schemaVersion": 1, "label": "tensor-cts",
                                       "message": doc["summary"]["headline"], "color": colours[name]})
                if name != "clean":
                    self.assertNotRegex(got["message"], BARE_CONFORMS)
        red = make([case("a", "PASS"), case("b", "FAIL")])
        self.assertEqual(report_score.badge(red), {"schemaVersion": 1, "label": "tensor-cts",
                                             "message": "DOES NOT CONFORM — 50.0 % conformant", "color": "red"})

    def test_render_writes_the_badge_too(self):
        import io
        import json
        import tempfile
        from contextlib import redirect_stdout

        doc = self.docs["listed"]
        with tempfile.TemporaryDirectory() as d:
            render.write_all(doc, d, ("report.json",))
            self.assertEqual(sorted(os.listdir(d)), ["report.json"])
            with redirect_stdout(io.StringIO()):
                self.assertEqual(render.main([os.path.join(d, "report.json")]), 0)
            self.assertEqual(sorted(os.listdir(d)), ["badge.json", "report.html", "report.json", "report.md"])
            with open(os.path.join(d, "badge.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["color"], "yellow")


if __name__ == "__main__":
    unittest.main(verbosity=2)
