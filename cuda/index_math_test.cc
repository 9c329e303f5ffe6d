// The kernels' index math, on the CPU, against the reference's own element walk: for every
// geometry, position k of the row-major order maps to the storage offset the reference's
// Tensor::Offset gives the k-th index.
#include "cuda/index_math.h"

#include <gtest/gtest.h>

#include <vector>

#include "reference/tensor.h"

namespace tcts::cuda {
namespace {

StridedIndexer Indexer(const ref::Tensor& t) {
  StridedIndexer ix;
  ix.ndim = static_cast<int>(t.dim());
  for (int d = 0; d < ix.ndim; ++d) {
    ix.sizes[d] = t.sizes()[d];
    ix.strides[d] = t.strides()[d];
  }
  ix.offset = t.storage_offset();
  return ix;
}

void ExpectSameWalk(const ref::Tensor& t) {
  const StridedIndexer ix = Indexer(t);
  ASSERT_EQ(ix.Numel(), t.numel());
  std::int64_t k = 0;
  ref::ForEachIndex(t.sizes(), [&](const std::vector<std::int64_t>& index) {
    EXPECT_EQ(ix.Offset(k), t.Offset(index)) << "element " << k << " of sizes " << ref::ShapeString(t.sizes())
                                              << " strides " << ref::ShapeString(t.strides());
    ++k;
  });
}

TEST(StridedIndexer, MatchesTheReferenceWalk) {
  const ref::Tensor base = ref::Tensor::Empty({4, 5, 6}, ref::ScalarType::kFloat32);
  ExpectSameWalk(base);                                          // contiguous
  ExpectSameWalk(base.AsStrided({5, 4}, {1, 5}, 0));             // transposed
  ExpectSameWalk(base.AsStrided({2, 3, 2}, {30, 6, 2}, 7));      // stepped, with an offset
  ExpectSameWalk(base.AsStrided({3, 4, 2}, {0, 1, 0}, 3));       // expanded (stride 0)
  ExpectSameWalk(base.AsStrided({2, 3, 2, 2}, {60, 1, 12, 3}, 0));  // channels_last-like
  ExpectSameWalk(base.AsStrided({}, {}, 11));                    // zero-dim
  ExpectSameWalk(base.AsStrided({1, 1, 7}, {99, 99, 1}, 2));     // size-1 dimensions
}

TEST(StridedIndexer, EmptyGeometryHasNoElements) {
  StridedIndexer ix;
  ix.ndim = 2;
  ix.sizes[0] = 0;
  ix.sizes[1] = 3;
  EXPECT_EQ(ix.Numel(), 0);
}

}  // namespace
}  // namespace tcts::cuda
