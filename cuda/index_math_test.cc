// The kernels' index math, on the CPU: IntDivider against plain division, and the offset
// walk against the reference's own element walk — for every geometry, position k of the
// row-major order maps to the storage offset Tensor::Offset gives the k-th index.
#include "cuda/index_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "reference/tensor.h"

namespace tcts::cuda {
namespace {

TEST(IntDivider, EqualsDivisionBelowTwoToThe31) {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 10, 255, 256, 257, 1000, 65535, 65536, 65537, 1u << 30,
                                         (1u << 31) - 1};
  for (int k = 0; k < 200; ++k) divisors.push_back(1 + rng() % 100000);
  for (std::uint32_t d : divisors) {
    const IntDivider div(d);
    std::vector<std::uint32_t> numerators = {0, 1, d - 1, d, d + 1, 2 * d - 1, (1u << 31) - 1, (1u << 31) - 2};
    for (int k = 0; k < 200; ++k) numerators.push_back(rng() % (1u << 31));
    for (std::uint32_t n : numerators) {
      if (n >= (1u << 31)) continue;
      ASSERT_EQ(div.Div(n), n / d) << n << " / " << d;
    }
  }
}

// The calculator for one operand of t's geometry, built as launch_args.cc builds one: sizes
// innermost first, strides in bytes.
OffsetCalculator<1> Calculator(const ref::Tensor& t, bool narrow) {
  OffsetCalculator<1> g;
  g.ndim = static_cast<int>(t.dim());
  g.narrow = narrow;
  for (int d = 0; d < g.ndim; ++d) {
    const int from = g.ndim - 1 - d;
    g.sizes[d] = t.sizes()[from];
    g.dividers[d] = IntDivider(static_cast<std::uint32_t>(t.sizes()[from]));
    g.strides[d][0] = t.strides()[from] * 4;
  }
  return g;
}

void ExpectSameWalk(const ref::Tensor& t) {
  for (bool narrow : {true, false}) {
    const OffsetCalculator<1> g = Calculator(t, narrow);
    ASSERT_EQ(g.Numel(), t.numel());
    std::int64_t k = 0;
    ref::ForEachIndex(t.sizes(), [&](const std::vector<std::int64_t>& index) {
      std::int64_t off[1];
      g.Get(k, off);
      EXPECT_EQ(off[0], (t.Offset(index) - t.storage_offset()) * 4)
          << "element " << k << " of sizes " << ref::ShapeString(t.sizes()) << " strides "
          << ref::ShapeString(t.strides()) << (narrow ? " (IntDivider)" : " (64-bit division)");
      ++k;
    });
  }
}

TEST(OffsetCalculator, MatchesTheReferenceWalk) {
  const ref::Tensor base = ref::Tensor::Empty({4, 5, 6}, ref::ScalarType::kFloat32);
  ExpectSameWalk(base);                                             // contiguous
  ExpectSameWalk(base.AsStrided({5, 4}, {1, 5}, 0));                // transposed
  ExpectSameWalk(base.AsStrided({2, 3, 2}, {30, 6, 2}, 7));         // stepped, with an offset
  ExpectSameWalk(base.AsStrided({3, 4, 2}, {0, 1, 0}, 3));          // expanded (stride 0)
  ExpectSameWalk(base.AsStrided({2, 3, 2, 2}, {60, 1, 12, 3}, 0));  // channels_last-like
  ExpectSameWalk(base.AsStrided({}, {}, 11));                       // zero-dim
  ExpectSameWalk(base.AsStrided({1, 1, 7}, {99, 99, 1}, 2));        // size-1 dimensions
}

TEST(OffsetCalculator, EmptyGeometryHasNoElements) {
  OffsetCalculator<1> g;
  g.ndim = 2;
  g.sizes[0] = 0;
  g.sizes[1] = 3;
  EXPECT_EQ(g.Numel(), 0);
}

}  // namespace
}  // namespace tcts::cuda
