// The host-memory element codec the asarray and dlpack checks use.
#include "conformance/checks/exchange.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tcts {
namespace {

TEST(HostMemory, RoundTripsEveryDocumentedDtype) {
  for (DType d : DocumentedDTypes()) {
    std::byte buf[16] = {};
    for (double v : {0.0, 1.0, 3.0, -2.0, 0.5}) {
      const Scalar want = CastTo(d, v);
      WriteHost(d, buf, Scalar::Float(v));
      EXPECT_EQ(ReadHost(d, buf), want) << DTypeName(d) << " " << v;
    }
  }
}

TEST(HostMemory, HalfPrecisionRoundsToNearestEven) {
  std::byte buf[2];
  // float16: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even mantissa (1) wins.
  WriteHost(DType::kFloat16, buf, Scalar::Float(1.0 + std::ldexp(1.0, -11)));
  EXPECT_EQ(ReadHost(DType::kFloat16, buf), Scalar::Float(1.0));
  WriteHost(DType::kFloat16, buf, Scalar::Float(1.0 + 3 * std::ldexp(1.0, -11)));
  EXPECT_EQ(ReadHost(DType::kFloat16, buf), Scalar::Float(1.0 + std::ldexp(1.0, -9)));
  WriteHost(DType::kFloat16, buf, Scalar::Float(std::ldexp(1.0, -24)));  // the smallest subnormal
  EXPECT_EQ(ReadHost(DType::kFloat16, buf), Scalar::Float(std::ldexp(1.0, -24)));
  WriteHost(DType::kFloat16, buf, Scalar::Float(65520.0));  // rounds past the largest finite value
  EXPECT_EQ(ReadHost(DType::kFloat16, buf).f, INFINITY);
  // bfloat16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  WriteHost(DType::kBfloat16, buf, Scalar::Float(1.0 + std::ldexp(1.0, -8)));
  EXPECT_EQ(ReadHost(DType::kBfloat16, buf), Scalar::Float(1.0));
}

}  // namespace
}  // namespace tcts
