"""The enumerator (mutate.py): deterministic ids; comments, strings, preprocessor lines, throw
operands and static_assert never mutated; template brackets, pointers and unary signs told from
binary operators; tables swapped cell by cell. Standard library only."""

import os
import tempfile
import unittest

import mutate

SRC = r'''#include <vector>
#define LIMIT(a, b) ((a) < (b) ? 1 : 2)
// a comment: x < y && z + 1
/* a block comment == 3 */
static const struct { const char* name; Kind k; } kTable[] = {
    {"a < b", Kind::kA}, {"c", Kind::kB},
};
int F(const std::vector<int>& v, int* p, int n) {
  static_assert(sizeof(int) == 4, "int is 4 < 8 bytes");
  const char* s = "x < y + 1";
  char c = '<';
  if (n < 0) throw Error("bad n " + std::to_string(n - 1));
  if constexpr (sizeof(int) > 2) n += 0;
  std::vector<int> order = {1, 3, 2, 0};
  return n + -v[0] * 2 && true;
}
'''


def ids(src=SRC, path="reference/x.cc"):
    return [m.id for m in mutate.mutants_of(path, src)]


class EnumeratorTest(unittest.TestCase):
    def test_deterministic_and_sorted(self):
        a, b = ids(), ids()
        self.assertEqual(a, b)
        self.assertEqual(len(a), len(set(a)))
        keys = [m.sort_key() for m in mutate.mutants_of("reference/x.cc", SRC)]
        self.assertEqual(keys, sorted(keys))

    def test_expected_mutants(self):
        got = set(ids())
        for want in [
            "reference/x.cc:12:9:ror:<-><=",          # if (n < 0)
            "reference/x.cc:12:6:cond:if->false",     # the guard dropped
            "reference/x.cc:12:11:cst:0->1",
            "reference/x.cc:15:12:aor:+->-",
            "reference/x.cc:15:20:aor:*->/",
            "reference/x.cc:15:24:lcr:&&->||",
            "reference/x.cc:15:27:bool:true->false",
            "reference/x.cc:6:15:tbl:Kind::kA->Kind::kB",  # a table's cell swapped with the next row's
            "reference/x.cc:14:29:tbl:1->3",               # a flat literal list
        ]:
            self.assertIn(want, got)

    def test_skips(self):
        for m in mutate.mutants_of("reference/x.cc", SRC):
            self.assertNotIn(m.line, (2, 3, 4, 9, 10, 11), m.id)  # preprocessor, comments, static_assert, strings
            if m.line == 12:
                self.assertLess(m.col, 16, m.id)  # nothing in throw's operands
            if m.line == 13:
                self.assertNotEqual(m.op, "cond", m.id)  # if constexpr
            self.assertFalse(m.line == 8 and m.op == "ror", m.id)  # std::vector<int>, not a relation
        # unary minus and the pointer star are not binary operators
        self.assertFalse([i for i in ids() if ":15:" in i and ("-->+" in i.split(":aor:")[-1] and ":15:16:" in i)])
        self.assertFalse([i for i in ids() if ":8:" in i and ":aor:" in i])

    def test_apply_and_diff(self):
        m = {x.id: x for x in mutate.mutants_of("reference/x.cc", SRC)}["reference/x.cc:6:15:tbl:Kind::kA->Kind::kB"]
        out = m.apply(SRC)
        self.assertIn('{"a < b", Kind::kB}, {"c", Kind::kA},', out)
        self.assertEqual(len(out.splitlines()), len(SRC.splitlines()))
        self.assertIn('+    {"a < b", Kind::kB}', m.diff(SRC))

    def test_reference_tree(self):
        root = os.environ.get("TEST_SRCDIR") and os.getcwd() or os.path.join(os.path.dirname(__file__), "..", "..")
        files = mutate.source_files(root)
        self.assertIn("reference/strided.cc", files)
        self.assertFalse([f for f in files if f.endswith("_test.cc") or f in mutate.SKIPPED_FILES])
        a = [m.id for m in mutate.enumerate_mutants(root)]
        self.assertEqual(a, [m.id for m in mutate.enumerate_mutants(root)])
        self.assertGreater(len(a), 500)

    def test_refuses_a_checkout(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, ".git"))
            os.makedirs(os.path.join(d, "reference"))
            with open(os.path.join(d, "reference", "x.cc"), "w") as f:
                f.write(SRC)
            with self.assertRaises(SystemExit):
                mutate.main(["apply", "reference/x.cc:12:9:ror:<-><=", f"--root={d}"])


if __name__ == "__main__":
    unittest.main()
