// float16 / bfloat16 conversions: round to nearest even, overflow, subnormals, NaN.
// Expected bit patterns follow from the IEEE layouts the doc gives (1/5/10 and 1/8/7 bits).
#include "reference/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tcts::ref {
namespace {

TEST(Half, ExactValuesRoundTrip) {
  for (float v : {0.0f, 1.0f, -2.0f, 0.5f, 65504.0f, 1.0f + 1.0f / 1024, std::ldexp(1.0f, -14), std::ldexp(1.0f, -24)}) {
    EXPECT_EQ(static_cast<float>(Half(v)), v) << v;
  }
}

TEST(Half, RoundsToNearestEven) {
  // Between 1 and 1 + 2^-10 the midpoint 1 + 2^-11 ties to the even 1.
  EXPECT_EQ(Half(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);
  // Between 1 + 2^-10 (odd) and 1 + 2^-9 the midpoint ties to the even 1 + 2^-9.
  EXPECT_EQ(Half(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);
  // Just above a midpoint rounds up.
  EXPECT_EQ(Half(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)).bits, 0x3c01);
}

TEST(Half, OverflowAndSpecials) {
  EXPECT_EQ(Half(65519.0f).bits, 0x7bff);  // below the midpoint to 65536: the largest finite
  EXPECT_EQ(Half(65520.0f).bits, 0x7c00);  // the midpoint ties to even, which is infinity
  EXPECT_EQ(Half(-1e10f).bits, 0xfc00);
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Half, Subnormals) {
  EXPECT_EQ(Half(std::ldexp(1.0f, -24)).bits, 0x0001);       // smallest subnormal
  EXPECT_EQ(Half(std::ldexp(1.0f, -25)).bits, 0x0000);       // half of it ties to even zero
  EXPECT_EQ(Half(std::ldexp(3.0f, -25)).bits, 0x0002);       // 1.5 steps ties to even 2
  EXPECT_EQ(Half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)).bits, 0x0400);  // rounds up into the normals
  EXPECT_EQ(static_cast<float>(Half(std::ldexp(5.0f, -24))), std::ldexp(5.0f, -24));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);      // tie to even (down)
  EXPECT_EQ(BFloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);  // tie to even (up)
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f)), 3.0f);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // rounds up to infinity
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace tcts::ref
