// The cuda backend on a GPU: memory, copies, fill and strided copy-with-cast, checked against
// values computed on the host. Tagged gpu / requires-gpu; without a GPU it is skipped, saying why.
#include "cuda/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tcts::cuda {
namespace {

class CudaRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (DeviceCount(&why) == 0) GTEST_SKIP() << "no usable GPU (" << why << ")";
  }
};

StridedIndexer Geometry(std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides, std::int64_t offset = 0) {
  StridedIndexer g;
  g.ndim = static_cast<int>(sizes.size());
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = sizes[d];
    g.strides[d] = strides[d];
  }
  g.offset = offset;
  return g;
}

TEST_F(CudaRuntime, CopiesRoundTrip) {
  std::vector<std::int32_t> host(1000), back(1000);
  for (int k = 0; k < 1000; ++k) host[k] = k * 7 - 3;
  void* a = Malloc(4000, 0);
  void* b = Malloc(4000, 0);
  CopyToDevice(a, host.data(), 4000);
  CopyOnDevice(b, a, 4000);
  CopyToHost(back.data(), b, 4000);
  Free(a);
  Free(b);
  EXPECT_EQ(host, back);
}

TEST_F(CudaRuntime, FillsAStridedView) {
  std::vector<float> host(12, 0.0f), back(12);
  void* d = Malloc(48, 0);
  CopyToDevice(d, host.data(), 48);
  Fill(d, Elem::kFloat32, Geometry({2, 3}, {6, 2}, 1), 2.5);  // every other element from 1
  CopyToHost(back.data(), d, 48);
  Free(d);
  const std::vector<float> want = {0, 2.5f, 0, 2.5f, 0, 2.5f, 0, 2.5f, 0, 2.5f, 0, 2.5f};
  EXPECT_EQ(back, want);
}

TEST_F(CudaRuntime, CopyCastsATransposedView) {
  // src: int32 [2, 3] contiguous 0..5; dst: float64 [3, 2] contiguous = src.t(), cast.
  std::vector<std::int32_t> src = {0, 1, 2, 3, 4, 5};
  std::vector<double> back(6);
  void* s = Malloc(24, 0);
  void* d = Malloc(48, 0);
  CopyToDevice(s, src.data(), 24);
  CopyCast(d, Elem::kFloat64, Geometry({3, 2}, {2, 1}), s, Elem::kInt32, Geometry({3, 2}, {1, 3}));
  CopyToHost(back.data(), d, 48);
  Free(s);
  Free(d);
  EXPECT_EQ(back, (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST_F(CudaRuntime, ErrorsNameTheCall) {
  try {
    Malloc(std::size_t{1} << 62, 0);
    ADD_FAILURE() << "a 4 EiB cudaMalloc succeeded";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc("), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tcts::cuda
