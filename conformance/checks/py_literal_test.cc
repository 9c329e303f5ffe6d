// The Python-literal reader the devices and asarray checks use.
#include "conformance/checks/py_literal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tcts {
namespace {

TEST(PyLiteral, ReadsNumbersBoolsComplexAndNestedLists) {
  std::string error;
  const auto v = ParsePyValue("[[True, 2], [2.5, 1j], [(1.5-2j), -3]]", &error);
  ASSERT_TRUE(v) << error;
  const std::vector<Scalar> leaves = v->Leaves();
  ASSERT_EQ(leaves.size(), 6u);
  EXPECT_EQ(leaves[0], Scalar::Bool(true));
  EXPECT_EQ(leaves[1], Scalar::Int(2));
  EXPECT_EQ(leaves[2], Scalar::Float(2.5));
  EXPECT_EQ(leaves[3], Scalar::Complex({0, 1}));
  EXPECT_EQ(leaves[4], Scalar::Complex({1.5, -2}));
  EXPECT_EQ(leaves[5], Scalar::Int(-3));
  EXPECT_EQ(v->items.size(), 3u);
  const auto empty = ParsePyValue("[[], []]", &error);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->items.size(), 2u);
  EXPECT_TRUE(empty->Leaves().empty());
}

TEST(PyLiteral, RefusesMalformedTextNamingWhere) {
  std::string error;
  EXPECT_FALSE(ParsePyValue("[1, 2", &error));
  EXPECT_NE(error.find("'[1, 2'"), std::string::npos) << error;
  EXPECT_FALSE(ParsePyValue("[1, x]", &error));
  EXPECT_FALSE(ParsePyValue("1 2", &error));
}

}  // namespace
}  // namespace tcts
