"""Tests of conformance/tools/versions.py on small reports and expectations files built in the test (never
out/): a changed spec row is listed with what each version does and the reason on each side,
traced to its expectations entry (file:line); an unchanged row is not; rows XFAIL in both for
another reason, cases in one version only and a deviation derived from another row are shown
apart; a reason that is not its entry's, or that a '#' cut short, makes its row unexplained;
bad input (a missing file, not a report, two candidates, one version, an odd count) exits 2
naming the file.
"""

import copy
import json
import os
import tempfile
import unittest

from reports import compare_test, report_causes, report_schema
from reports.compare_test import Tables, named
from reports.reports_test import case, make

from . import versions

SUB = "2.x refuses bool subtraction with NotImplementedError (BinaryOps.h sub_check)"
NARROW = "1.13 narrow checks dim/start before length: IndexError"
OLD_BOOL, NEW_BOOL = "1.13 has no DLPack bool", "2.x exports bool | as <b>kDLBool</b>"

# The expectations files, as the runner read them: (name, text). Line numbers matter: the page names them.
OLD_TXT = f"""# 1.13
narrow.*  FAIL(error)  {NARROW}
dlpack.bool.*  FAIL  {OLD_BOOL}
"""
NEW_TXT = f"""# 2.x
FAIL(error): {SUB}
    sub.*
    values.sub.*
dlpack.bool.*  FAIL  {NEW_BOOL}
"""


def err_mismatch(want, got):
    return [{"check": "sub(a, b)", "kind": "error", "expected": want, "observed": got}]


def cases(version):
    """The cases of version "old" or "new": op.sub changes (two cases PASS -> XFAIL), as does
    arith.values (derived from op.sub); view.narrow (XFAIL -> PASS), device.default
    (NOT_SUPPORTED -> PASS); same.row does not; dlpack.bool is XFAIL in both, for another
    reason; only.old and only.new are in one version each."""
    new = version == "new"
    sub = dict(outcome="XFAIL", reason=SUB, observed="NotImplementedError: no bool",
               mismatches=err_mismatch("RuntimeError: no bool", "NotImplementedError: no bool"),
               checks={"error": "FAIL"}) if new else dict(outcome="PASS")
    out = [case("sub.bool.a", spec_row="op.sub", **sub), case("sub.bool.b", spec_row="op.sub", **sub),
           case("sub.int.c", "PASS", spec_row="op.sub"),
           case("values.sub.bool", spec_row="arith.values", clause="pytorch#arithmetic", **sub),
           case("same.a", "PASS", spec_row="same.row"), case("same.b", "PASS", spec_row="same.row")]
    out.append(case("narrow.a", "PASS", spec_row="view.narrow", clause="004#2-offset") if new else
               case("narrow.a", "XFAIL", spec_row="view.narrow", clause="004#2-offset", reason=NARROW,
                    observed="IndexError: dim", checks={"error": "FAIL"},
                    mismatches=[{"check": "narrow(t, 0, -1, 0)", "kind": "error", "expected": "IndexError: out of range",
                                 "observed": "IndexError: dim"}]))
    out.append(case("device.default.initial", "PASS", spec_row="device.default") if new else
               case("device.default.initial", "NOT_SUPPORTED", spec_row="device.default", feature="default_device",
                    observed="NotSupported: get_default_device()"))
    out.append(case("dlpack.bool.x", "XFAIL", spec_row="dlpack.bool", reason=NEW_BOOL if new else OLD_BOOL))
    out.append(case(f"only.{version}", "PASS", spec_row=f"row.only_{version}"))
    return out


EDGES = {"arith.values": [["op.sub", ["error"]]]}  # arith.values derives from op.sub (spec/*.toml derives_from)


def build(version, txt_path, entries):
    doc = named(make(cases(version)), "torch (Python API)", {"old": "1.13.0", "new": "2.15.0"}[version])
    doc["expectations"] = {"file": txt_path, "entries": entries, "stale": []}
    doc["root_causes"] = report_causes.root_causes(doc["cases"], EDGES)
    report_schema.validate(doc)
    return doc


def run(argv, env=None):
    """versions.main(argv) under env: (status, stdout, stderr)."""
    return compare_test.run(argv, env, versions.main)


class Versions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name
        self.txt = {v: os.path.join(self.d, f"{v}.txt") for v in ("old", "new")}
        for v, text in (("old", OLD_TXT), ("new", NEW_TXT)):
            with open(self.txt[v], "w", encoding="utf-8") as f:
                f.write(text)
        self.docs = {"old": build("old", self.txt["old"], 2), "new": build("new", self.txt["new"], 3)}
        self.paths = self.write(self.docs)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, docs, under=""):
        paths = []
        for v, doc in docs.items():
            path = os.path.join(self.d, under, v, "report.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            paths.append(path)
        return paths

    def page(self, paths=None, extra=()):
        """(status, html, markdown, stdout, stderr) of versions.py on `paths` (default: the pair)."""
        out = os.path.join(self.d, "v")
        status, stdout, stderr = run(list(paths or self.paths) + ["--out", out, *extra])
        if status:
            return status, "", "", stdout, stderr
        texts = []
        for name in ("versions.html", "versions.md"):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                texts.append(f.read())
        return status, *texts, stdout, stderr

    def has(self, text, page):
        """assertIn without printing the whole page."""
        self.assertTrue(text in page, f"not on the page: {text!r}")

    @staticmethod
    def rows_table(tables):
        """The changed rows: {spec row: {column header: cell text}}."""
        t = next(t for t in tables.tables if t["heading"].startswith("Changed rows"))
        head = [c[2].strip() for c in t["rows"][0]]
        return {r[0][2].strip(): {h: c[2].strip() for h, c in zip(head, r)} for r in t["rows"][1:]}

    def test_a_changed_row_shows_what_each_version_does_and_the_reason_on_each_side(self):
        status, page, md, stdout, err = self.page()
        self.assertEqual(status, 0, err)
        rows = self.rows_table(Tables(page))
        self.assertEqual(set(rows), {"op.sub", "arith.values", "view.narrow", "device.default"})
        sub = rows["op.sub"]
        self.assertEqual((sub["1.13.0"], sub["2.15.0"], sub["changed cases"]), ("3 PASS", "1 PASS, 2 XFAIL", "2 PASS → XFAIL"))
        self.assertEqual(rows["view.narrow"]["1.13.0"], "1 XFAIL")
        self.assertEqual(rows["view.narrow"]["2.15.0"], "1 PASS")
        self.assertEqual(rows["device.default"]["1.13.0"], "1 NOT_SUPPORTED")
        # Each cause says what each version does: the reason of the entry that matched, traced to its line.
        cause_of = {r: cells["causes"] for r, cells in rows.items()}
        self.assertEqual(cause_of["op.sub"], cause_of["arith.values"])  # one cause, two rows
        self.has(f"<dt>1.13.0</dt><dd class='pass'>passes</dd><dt>2.15.0</dt><dd class='listed'>{SUB}<br>"
                      f"<small class=where><code>new.txt:3,4</code></small><br><small class=check>3 cases traced to "
                      "its entry</small></dd>", page)
        self.has(f"<dt>1.13.0</dt><dd class='listed'>{NARROW}<br><small class=where><code>old.txt:2</code>", page)
        self.has("<dt>2.15.0</dt><dd class='pass'>passes</dd>", page)
        self.has("NOT_SUPPORTED: declares default_device unsupported", page)
        # The example: the check, the spec's expectation, each version's observation; and the row it derives from.
        self.has("<code>sub.bool.a</code> sub(a, b)<br>expected: RuntimeError: no bool<br>1.13.0: as expected"
                      "<br>2.15.0: NotImplementedError: no bool</td><td>—</td>", page)
        self.has("<td>op.sub (2.15.0)</td>", page)
        self.has("Every changed row&#39;s cases have a reason on each side, traced to its expectations entry.", page)
        # The Markdown says the same; stdout has the pairs' table.
        self.has(f"- **2.15.0**: {versions.pages.md(SUB)} (`new.txt:3,4`) — 3 cases traced to its entry", md)
        self.has(f"- **1.13.0**: {versions.pages.md(NARROW)} (`old.txt:2`) — 1 case traced to its entry", md)
        self.has("| `op.sub` | 002#type-promotion | 3 PASS | 1 PASS, 2 XFAIL | 2 PASS → XFAIL | C1 |", md)
        self.assertIn("| torch (Python API) | 1.13.0 | 2.15.0 | 5 | 4 | 3 | 0 | 1 | 1 / 1 |", stdout)

    def test_an_unchanged_row_is_not_listed_and_the_rest_is_shown_apart(self):
        status, page, md, _, err = self.page()
        self.assertEqual(status, 0, err)
        for text in (page, md):
            self.assertNotIn("same.row", text)
            self.assertNotIn("same.a", text)
        # XFAIL in both, for another reason: its own table, both reasons (escaped), not a changed row.
        self.assertNotIn("dlpack.bool", self.rows_table(Tables(page)))
        self.has("<code>dlpack.bool</code> (1)</td><td>1.13 has no DLPack bool</td>"
                      "<td>2.x exports bool | as &lt;b&gt;kDLBool&lt;/b&gt;</td>", page)
        self.has("| dlpack.bool (1) | 1.13 has no DLPack bool | 2.x exports bool \\| as &lt;b>kDLBool&lt;/b> |", md)
        # One version only.
        self.has("### Only in 1.13.0 (1 case)", md)
        self.has("| `row.only_old` | 1 | 1 PASS | only.old |", md)
        self.has("| `row.only_new` | 1 | 1 PASS | only.new |", md)

    def test_a_reason_that_is_not_its_entrys_makes_its_row_unexplained(self):
        # The file changed since the run: the report's reason is no longer the entry's.
        with open(self.txt["new"], "w", encoding="utf-8") as f:
            f.write(NEW_TXT.replace(SUB, "another reason"))
        status, page, md, stdout, err = self.page()
        self.assertEqual(status, 0, err)
        rows = self.rows_table(Tables(page))
        self.has("2 changed rows whose change has no reason traced to its entry: arith.values, op.sub.", page)
        self.has("| `op.sub` | 002#type-promotion | 3 PASS | 1 PASS, 2 XFAIL | 2 PASS → XFAIL | C1 (unexplained) |", md)
        self.has("| `view.narrow` | 004#2-offset | 1 XFAIL | 1 PASS | 1 XFAIL → PASS | C2 |", md)
        self.has("#### C1: 3 cases in 2 rows (unexplained)", md)
        self.has("new.txt:3 now says: another reason", page)
        self.assertEqual(rows["view.narrow"]["causes"], "C2")
        self.assertIn("| torch (Python API) | 1.13.0 | 2.15.0 | 5 | 4 | 3 | 2 | 1 | 1 / 1 |", stdout)

    def test_a_deviation_without_a_reason_is_unexplained(self):
        for c in self.docs["new"]["cases"]:
            if c["id"] == "sub.bool.a":
                c["reason"] = ""
        status, page, md, _, err = self.page(self.write(self.docs, "no_reason"))
        self.assertEqual(status, 0, err)
        self.has("1 changed row whose change has no reason traced to its entry: op.sub.", page)
        self.has("- **2.15.0**: XFAIL, with no expectations reason — 1 case unexpected", md)

    def test_a_reason_cut_short_by_a_comment_is_unexplained(self):
        # "#gh-123" after a blank starts a comment (FORMAT.md): the runner read the reason without it.
        with open(self.txt["old"], "w", encoding="utf-8") as f:
            f.write(OLD_TXT.replace(NARROW, NARROW + " #gh-123 (the fix)"))
        status, page, md, _, err = self.page()
        self.assertEqual(status, 0, err)
        self.has("1 changed row whose change has no reason traced to its entry: view.narrow.", page)
        self.has("the reason is cut short before '#gh-123 (the fix)'", md)
        # "#123" (a number) the format now refuses: the file is not checked, and the page says why.
        with open(self.txt["old"], "w", encoding="utf-8") as f:
            f.write(OLD_TXT.replace(NARROW, NARROW + " #123 (the fix)"))
        status, page, md, _, err = self.page()
        self.assertEqual(status, 0, err)
        self.has("'#123' after a blank starts a comment, cutting the reason short", md)
        # A comment after a blank and '# ' is a comment, not a cut.
        with open(self.txt["old"], "w", encoding="utf-8") as f:
            f.write(OLD_TXT.replace(NARROW, NARROW + "   # reviewed"))
        status, page, _, _, err = self.page()
        self.has("Every changed row&#39;s cases have a reason", page)

    def test_a_side_without_its_expectations_file_is_unchecked(self):
        os.remove(self.txt["old"])
        status, page, md, _, err = self.page()
        self.assertEqual(status, 0, err)
        self.has("1 case not checked", md)
        self.has("cannot read expectations file", page)
        self.has("1 changed row whose change has no reason traced to its entry: view.narrow.", page)

    def test_bad_input_exits_2_naming_the_file(self):
        other = copy.deepcopy(self.docs["new"])
        other["candidate"]["name"] = "torch (Python API), tensors made on meta"
        same = copy.deepcopy(self.docs["new"])
        same["candidate"]["version"] = "1.13.0"
        p_other, p_same = self.write({"other": other, "same": same}, "bad")
        not_report = os.path.join(self.d, "not_report.json")
        with open(not_report, "w") as f:
            f.write('{"schema": "other"}')
        missing = os.path.join(self.d, "missing.json")
        old = self.paths[0]
        for args, names, words in (
                ([old, missing], [missing], "cannot read report"),
                ([not_report, old], [not_report], "not a tensor-cts report"),
                ([old, p_other], [old, p_other], "two different candidates"),
                ([old, p_same], [old, p_same], "one version"),
                ([old, self.paths[1], old], [old], "give them in pairs")):
            status, out, err = run(args + ["--out", os.path.join(self.d, "never")])
            self.assertEqual(status, 2, (args, err))
            self.assertIn("versions: bad input:", err)
            self.assertIn(words, err)
            for name in names:
                self.assertIn(name, err)
        self.assertFalse(os.path.exists(os.path.join(self.d, "never")))
        self.assertEqual(run([])[0], 2)
        # Good input that cannot be written: exit status 1.
        status, _, err = run(self.paths + ["--out", os.path.join(not_report, "sub")])
        self.assertEqual(status, 1, err)
        self.assertIn("versions: cannot write into", err)
        # Paired deliberately: two candidates, each column named.
        status, page, _, _, err = self.page([old, p_other], ["--different-candidates"])
        self.assertEqual(status, 0, err)
        self.has("torch (Python API) 1.13.0 → torch (Python API), tensors made on meta 2.15.0</h2>", page)

    def test_several_pairs_each_a_section_and_paths_relative_to_where_bazel_run_started(self):
        work, workspace = os.path.join(self.d, "work"), os.path.join(self.d, "ws")
        os.makedirs(workspace)
        docs = {"a_old": self.docs["old"], "a_new": self.docs["new"], "b_old": self.docs["old"], "b_new": self.docs["new"]}
        self.write(docs, "work")
        env = {"BUILD_WORKING_DIRECTORY": work, "BUILD_WORKSPACE_DIRECTORY": workspace}
        status, out, err = run([f"{k}/report.json" for k in docs], env)
        self.assertEqual(status, 0, err)
        with open(os.path.join(workspace, "out", "versions.html"), encoding="utf-8") as f:
            page = f.read()
        self.has("<h2 id='pair-1'>", page)
        self.has("<h2 id='pair-2'>", page)
        self.has("href='#pair-2-c1'", page)
        self.assertEqual(out.count("| torch (Python API) | 1.13.0 | 2.15.0 |"), 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
