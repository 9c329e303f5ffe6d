// The values generated rows carry as data: Value leaves and PyNode tables (a Python value's
// nodes in preorder), read back as the candidate interface's Scalar and PyValue.
#include "conformance/checks/common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tcts {
namespace {

constexpr Value kNone{Scalar::Kind::kInt, 0, 0, 0};  // a list node's unused leaf

PyNode List(int n) { return PyNode{true, n, kNone}; }
PyNode Leaf(Value v) { return PyNode{false, 0, v}; }
PyNode Int(std::int64_t i) { return Leaf({Scalar::Kind::kInt, i, 0, 0}); }

TEST(PyNodes, SpellNumbersBoolsComplexAndNestedLists) {
  // [[True, 2], [2.5, 1j], [(1.5-2j), -3]]
  const std::vector<PyNode> nodes = {
      List(3),
      List(2), Leaf({Scalar::Kind::kBool, 1, 0, 0}), Int(2),
      List(2), Leaf({Scalar::Kind::kFloat, 0, 2.5, 0}), Leaf({Scalar::Kind::kComplex, 0, 0, 1}),
      List(2), Leaf({Scalar::Kind::kComplex, 0, 1.5, -2}), Int(-3)};
  const std::optional<PyValue> v = ToPyValue(nodes.data(), static_cast<int>(nodes.size()));
  ASSERT_TRUE(v);
  ASSERT_TRUE(v->is_list);
  ASSERT_EQ(v->items.size(), 3u);
  for (const PyValue& row : v->items) {
    EXPECT_TRUE(row.is_list);
    EXPECT_EQ(row.items.size(), 2u);
  }
  const std::vector<Scalar> leaves = v->Leaves();
  ASSERT_EQ(leaves.size(), 6u);
  EXPECT_EQ(leaves[0], Scalar::Bool(true));
  EXPECT_EQ(leaves[1], Scalar::Int(2));
  EXPECT_EQ(leaves[2], Scalar::Float(2.5));
  EXPECT_EQ(leaves[3], Scalar::Complex({0, 1}));
  EXPECT_EQ(leaves[4], Scalar::Complex({1.5, -2}));
  EXPECT_EQ(leaves[5], Scalar::Int(-3));
  EXPECT_EQ(v->ToString(), "[[True, 2], [2.5, (0+1j)], [(1.5-2j), -3]]");
}

TEST(PyNodes, SpellEmptyListsAndBareNumbers) {
  const PyNode empty_rows[] = {List(2), List(0), List(0)};  // [[], []]
  const auto rows = ToPyValue(empty_rows, 3);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->items.size(), 2u);
  EXPECT_TRUE(rows->Leaves().empty());
  EXPECT_EQ(rows->ToString(), "[[], []]");

  const PyNode empty[] = {List(0)};  // []
  const auto e = ToPyValue(empty, 1);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->is_list);
  EXPECT_TRUE(e->items.empty());

  const PyNode seven[] = {Int(7)};  // a scalar source: no list at all
  const auto s = ToPyValue(seven, 1);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->is_list);
  EXPECT_EQ(s->scalar, Scalar::Int(7));

  const PyNode extremes[] = {List(3), Int(std::numeric_limits<std::int64_t>::min()),
                             Leaf({Scalar::Kind::kFloat, 0, -0.0, 0}),
                             Leaf({Scalar::Kind::kFloat, 0, std::numeric_limits<double>::infinity(), 0})};
  const auto x = ToPyValue(extremes, 4);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->items[0].scalar, Scalar::Int(std::numeric_limits<std::int64_t>::min()));
  EXPECT_TRUE(std::signbit(x->items[1].scalar.f));
  EXPECT_TRUE(std::isinf(x->items[2].scalar.f));
}

TEST(PyNodes, ATableThatSpellsNoSingleValueIsRefused) {
  const PyNode short_list[] = {List(3), Int(1), Int(2)};  // promises an item that is not there
  EXPECT_FALSE(ToPyValue(short_list, 3));
  const PyNode huge[] = {List(1 << 30), Int(1)};  // refused before allocating
  EXPECT_FALSE(ToPyValue(huge, 2));
  const PyNode negative[] = {List(-1)};
  EXPECT_FALSE(ToPyValue(negative, 1));
  const PyNode two_values[] = {Int(1), Int(2)};  // a node left over
  EXPECT_FALSE(ToPyValue(two_values, 2));
  EXPECT_FALSE(ToPyValue(nullptr, 0));  // no value at all
  const PyNode one[] = {Int(1)};
  EXPECT_FALSE(ToPyValue(one, 0));
}

}  // namespace
TEST(CheckedNumel, ExactOrNulloptAndZeroAnywhereIsZero) {
  constexpr std::int64_t k62 = std::int64_t{1} << 62;
  EXPECT_EQ(CheckedNumel({}), std::optional<std::int64_t>(1));
  EXPECT_EQ(CheckedNumel({2, 3, 4}), std::optional<std::int64_t>(24));
  EXPECT_EQ(CheckedNumel({k62, 4}), std::nullopt);                          // past int64
  EXPECT_EQ(CheckedNumel({k62, 4, 0}), std::optional<std::int64_t>(0));    // a zero anywhere
  EXPECT_EQ(CheckedNumel({0, k62, 4}), std::optional<std::int64_t>(0));
  EXPECT_EQ(CheckedNumel({-1, 0}), std::nullopt);                          // a negative size
}

// A mismatch whose values print alike shows their kinds: a float read back as the integer
// 16777216 would otherwise read "expected [16777216], observed [16777216]".
TEST(Shown, ValuesThatPrintAlikeShowTheirKinds) {
  const auto [e, o] = Shown(std::vector<Scalar>{Scalar::Int(16777216)}, std::vector<Scalar>{Scalar::Float(16777216)});
  EXPECT_EQ(e, "[int 16777216]");
  EXPECT_EQ(o, "[float 16777216]");
  const auto [e1, o1] = Shown(Scalar::Bool(true), Scalar::Int(1));
  EXPECT_EQ(e1, "True");  // prints differently: as Str prints it
  EXPECT_EQ(o1, "1");
  const auto [e2, o2] = Shown(Scalar::Float(2), Scalar::Int(2));
  EXPECT_EQ(e2, "float 2");
  EXPECT_EQ(o2, "int 2");
}

// A list prints its first 1024 values and its length: a testee's answer of 10^7 values costs the
// case a mismatch line of a few KB, not 30 MB. Lists alike in what is shown name the first element
// that differs.
TEST(Shown, LongListsAreCutAndNameTheirFirstDifference) {
  std::vector<Scalar> many(3000, Scalar::Int(1));
  const std::string text = Str(many);
  EXPECT_LT(text.size(), 4000u);
  EXPECT_EQ(text.substr(text.size() - 27), ", ... (3000 values in all)]");
  EXPECT_EQ(Str(std::vector<std::int64_t>(2000, 7)).substr(0, 4), "[7, ");
  EXPECT_NE(Str(std::vector<std::int64_t>(2000, 7)).find("(2000 values in all)"), std::string::npos);
  std::vector<Scalar> other = many;
  other[2500] = Scalar::Int(2);
  const auto [e, o] = Shown(many, other);
  EXPECT_NE(e, o);
  EXPECT_NE(e.find("; element 2500: int 1"), std::string::npos) << e.substr(e.size() - 60);
  EXPECT_NE(o.find("; element 2500: int 2"), std::string::npos) << o.substr(o.size() - 60);
  const std::vector<Scalar> few(4, Scalar::Int(1));
  EXPECT_EQ(Str(few), "[1, 1, 1, 1]");  // short lists whole, as before
}

}  // namespace tcts
