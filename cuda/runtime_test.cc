// The cuda backend on a GPU, through the reference: tensors on `cuda`, copies across devices
// and between layouts and dtypes, and the binary kernels (generic, vectorised, with a
// zero-dim cpu tensor as a scalar), each compared bit for bit with the same computation on
// the CPU. Tagged gpu / requires-gpu; without a GPU every test is skipped, saying why. The
// conformance suites on `cuda` (//conformance:*_reference_cuda) cover the spec's rows.
#include "cuda/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference/arith.h"
#include "reference/binary_ops.h"
#include "reference/device_backend.h"
#include "reference/strided.h"

namespace tcts::cuda {
namespace {

using ref::Scalar;
using ref::ScalarType;
using ref::Tensor;

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (DeviceCount(&why) == 0) GTEST_SKIP() << "no usable GPU (" << why << ")";
  }
  const ref::Device cuda_ = ref::Device::Parse("cuda:0");
  const ref::Device cpu_ = ref::Device::Cpu();
};

std::vector<Scalar> Ramp(int n, double scale) {
  std::vector<Scalar> v;
  for (int k = 0; k < n; ++k) v.push_back(Scalar::Float((k - n / 2) * scale));
  return v;
}

// Same sizes, dtype and element bytes (NaN payloads and the sign of zero included).
void ExpectSameElements(const Tensor& expected, const Tensor& observed) {
  ASSERT_EQ(expected.sizes(), observed.sizes());
  ASSERT_EQ(expected.dtype(), observed.dtype());
  const auto bytes = [](const Tensor& t) {
    const Tensor dense = ref::Clone(t.OnHost(), ref::MemoryFormat::kContiguous);
    std::vector<std::byte> out(dense.storage()->nbytes());
    dense.storage()->ReadBytes(0, out.data(), out.size());
    return out;
  };
  EXPECT_EQ(bytes(expected), bytes(observed));
}

TEST_F(CudaBackendTest, CopiesRoundTripAcrossDevicesLayoutsAndDtypes) {
  const Tensor host = Tensor::FromScalars({2, 3, 4, 5}, ScalarType::kFloat32, Ramp(120, 0.37));
  const Tensor dev = ref::To(host, ScalarType::kFloat32, cuda_);
  EXPECT_EQ(dev.device().str(), "cuda:0");
  ExpectSameElements(host, ref::To(dev, ScalarType::kFloat32, cpu_));
  for (ScalarType t : {ScalarType::kBool, ScalarType::kInt8, ScalarType::kInt64, ScalarType::kFloat16,
                       ScalarType::kBfloat16, ScalarType::kFloat64, ScalarType::kComplex32, ScalarType::kComplex128}) {
    ExpectSameElements(ref::To(host, t, cpu_), ref::To(ref::To(dev, t, cuda_), t, cpu_));
  }
  const Tensor cl = ref::Contiguous(dev, ref::MemoryFormat::kChannelsLast);
  EXPECT_TRUE(ref::IsContiguous(cl, ref::MemoryFormat::kChannelsLast));
  ExpectSameElements(ref::Contiguous(host, ref::MemoryFormat::kChannelsLast), cl);
  ExpectSameElements(ref::Transpose(host, 0, 3), ref::Clone(ref::Transpose(dev, 0, 3), ref::MemoryFormat::kContiguous));
}

TEST_F(CudaBackendTest, BinaryOpsEqualTheCpuReference) {
  const Tensor a = Tensor::FromScalars({64, 33}, ScalarType::kFloat32, Ramp(64 * 33, 0.113));
  const Tensor b = Tensor::FromScalars({33}, ScalarType::kInt32, Ramp(33, 3));
  const Tensor h = Tensor::FromScalars({64, 33}, ScalarType::kFloat16, Ramp(64 * 33, 0.71));
  const Tensor da = ref::To(a, a.dtype(), cuda_), db = ref::To(b, b.dtype(), cuda_), dh = ref::To(h, h.dtype(), cuda_);
  for (ref::BinaryOp op : ref::kBinaryOps) {
    ExpectSameElements(ref::Binary(op, a, a), ref::Binary(op, da, da));            // vectorised
    ExpectSameElements(ref::Binary(op, a, b), ref::Binary(op, da, db));            // broadcast, mixed dtypes
    ExpectSameElements(ref::Binary(op, h, h), ref::Binary(op, dh, dh));            // float16 via float
    ExpectSameElements(ref::Binary(op, a, Scalar::Float(2.5)), ref::Binary(op, da, Scalar::Float(2.5)));
    const Tensor zero_dim = Tensor::FromScalars({}, ScalarType::kFloat64, {Scalar::Float(0.3)});
    ExpectSameElements(ref::Binary(op, h, zero_dim), ref::Binary(op, dh, zero_dim));  // cpu scalar tensor
  }
  ExpectSameElements(ref::Binary(ref::BinaryOp::kAdd, a, b, Scalar::Int(3)),
                     ref::Binary(ref::BinaryOp::kAdd, da, db, Scalar::Int(3)));
}

TEST_F(CudaBackendTest, MixedDevicesAreAnErrorNamingBoth) {
  const Tensor a = Tensor::FromScalars({3}, ScalarType::kFloat32, Ramp(3, 1));
  const Tensor da = ref::To(a, a.dtype(), cuda_);
  try {
    ref::Binary(ref::BinaryOp::kAdd, da, a);
    FAIL() << "expected an error";
  } catch (const ref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0 and cpu"), std::string::npos) << e.what();
  }
}

TEST_F(CudaBackendTest, CudaErrorsNameTheCall) {
  try {
    Malloc(std::size_t{1} << 62, 0);
    ADD_FAILURE() << "a 4 EiB cudaMalloc succeeded";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc("), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tcts::cuda
