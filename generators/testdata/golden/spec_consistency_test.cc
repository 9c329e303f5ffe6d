// GENERATED from spec/promotion.toml, spec/dtypes.toml by generators/emit_gtest.py — do not edit.
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include "conformance/dtype.h"

namespace tcts {
namespace {

// promotion.toml [promotion_lattice]: an edge {a, b} says b holds a.
const std::pair<DType, DType> kEdges[] = {
    {DType::kBool, DType::kInt32},
    {DType::kInt32, DType::kFloat32},
    {DType::kFloat32, DType::kComplex64}
};

struct Cell {
  const char* id;
  const char* test_name;  // the id as a GoogleTest name
  DType a, b, matrix;
};
// promotion.toml [promote_types], the literal matrix.
const Cell kCells[] = {
    {"promote_types.bool.bool", "promote_types_bool_bool", DType::kBool, DType::kBool, DType::kBool},
    {"promote_types.bool.int32", "promote_types_bool_int32", DType::kBool, DType::kInt32, DType::kInt32},
    {"promote_types.bool.float32", "promote_types_bool_float32", DType::kBool, DType::kFloat32, DType::kFloat32},
    {"promote_types.bool.complex64", "promote_types_bool_complex64", DType::kBool, DType::kComplex64, DType::kComplex64},
    {"promote_types.int32.bool", "promote_types_int32_bool", DType::kInt32, DType::kBool, DType::kInt32},
    {"promote_types.int32.int32", "promote_types_int32_int32", DType::kInt32, DType::kInt32, DType::kInt32},
    {"promote_types.int32.float32", "promote_types_int32_float32", DType::kInt32, DType::kFloat32, DType::kFloat32},
    {"promote_types.int32.complex64", "promote_types_int32_complex64", DType::kInt32, DType::kComplex64, DType::kComplex64},
    {"promote_types.float32.bool", "promote_types_float32_bool", DType::kFloat32, DType::kBool, DType::kFloat32},
    {"promote_types.float32.int32", "promote_types_float32_int32", DType::kFloat32, DType::kInt32, DType::kFloat32},
    {"promote_types.float32.float32", "promote_types_float32_float32", DType::kFloat32, DType::kFloat32, DType::kFloat32},
    {"promote_types.float32.complex64", "promote_types_float32_complex64", DType::kFloat32, DType::kComplex64, DType::kComplex64},
    {"promote_types.complex64.bool", "promote_types_complex64_bool", DType::kComplex64, DType::kBool, DType::kComplex64},
    {"promote_types.complex64.int32", "promote_types_complex64_int32", DType::kComplex64, DType::kInt32, DType::kComplex64},
    {"promote_types.complex64.float32", "promote_types_complex64_float32", DType::kComplex64, DType::kFloat32, DType::kComplex64},
    {"promote_types.complex64.complex64", "promote_types_complex64_complex64", DType::kComplex64, DType::kComplex64, DType::kComplex64}
};

// Every dtype reachable from d (d included).
std::set<DType> UpperBounds(DType d) {
  std::set<DType> up = {d};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [lo, hi] : kEdges)
      if (up.count(lo) && !up.count(hi)) grew = up.insert(hi).second || grew;
  }
  return up;
}

class PromoteMatrixIsLatticeJoin : public ::testing::TestWithParam<Cell> {};

TEST_P(PromoteMatrixIsLatticeJoin, Cell) {
  const Cell& c = GetParam();
  const std::set<DType> ua = UpperBounds(c.a), ub = UpperBounds(c.b);
  std::vector<DType> common;
  for (DType d : ua)
    if (ub.count(d)) common.push_back(d);
  std::vector<DType> least;  // common upper bounds below every other common upper bound
  for (DType d : common) {
    const std::set<DType> ud = UpperBounds(d);
    bool below_all = true;
    for (DType e : common) below_all = below_all && ud.count(e);
    if (below_all) least.push_back(d);
  }
  ASSERT_EQ(least.size(), 1u) << c.id << ": the lattice has no unique join of " << DTypeName(c.a) << " and "
                              << DTypeName(c.b) << " (spec/promotion.toml [promotion_lattice])";
  EXPECT_EQ(DTypeName(least[0]), std::string(DTypeName(c.matrix)))
      << c.id << ": spec/promotion.toml's matrix cell disagrees with the join of its lattice";
}

INSTANTIATE_TEST_SUITE_P(Spec, PromoteMatrixIsLatticeJoin, ::testing::ValuesIn(kCells),
                         [](const ::testing::TestParamInfo<Cell>& info) { return std::string(info.param.test_name); });

}  // namespace
}  // namespace tcts
