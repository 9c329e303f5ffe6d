// float16 (IEEE binary16: 1 sign, 5 exponent, 10 significand bits) and bfloat16
// (1 sign, 8 exponent, 7 significand bits) for the reference, as the doc's footnotes
// describe them.
//
// Rule: conversion from float rounds to nearest, ties to even; overflow gives infinity;
// NaN stays NaN (quiet). Conversion from double goes through float first, as PyTorch's
// c10::Half(float) / c10::BFloat16(float) constructors do (so a double is rounded twice).
// Arithmetic is never done in these types: the reference computes in float and rounds once.
#ifndef TCTS_REFERENCE_HALF_H_
#define TCTS_REFERENCE_HALF_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tcts::ref {

namespace detail {
inline std::uint32_t FloatBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float BitsFloat(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace detail

// float -> binary16 bits, round to nearest even.
inline std::uint16_t FloatToHalfBits(float f) {
  const std::uint32_t x = detail::FloatBits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
  }
  if (abs >= 0x477ff000u) {  // >= 65520 (halfway above the largest half, 65504): rounds to inf
    return sign | 0x7c00u;
  }
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
    // Adding 0.5f puts the value where float's ulp is 2^-24, the half subnormal step,
    // so the float addition itself rounds to nearest even at the right position.
    const float shifted = detail::BitsFloat(abs) + 0.5f;
    return sign | static_cast<std::uint16_t>(detail::FloatBits(shifted) - 0x3f000000u);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
  const std::uint32_t odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + odd;  // -(112 << 23) + 0xfff + odd
  return sign | static_cast<std::uint16_t>(abs >> 13);
}

inline float HalfBitsToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return detail::BitsFloat(sign | 0x7f800000u | (mant << 13));
  return detail::BitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

// float -> bfloat16 bits: keep the top 16 bits, round the dropped 16 to even.
inline std::uint16_t FloatToBFloat16Bits(float f) {
  const std::uint32_t x = detail::FloatBits(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  const std::uint32_t odd = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7fffu + odd) >> 16);
}

inline float BFloat16BitsToFloat(std::uint16_t b) { return detail::BitsFloat(static_cast<std::uint32_t>(b) << 16); }

struct Half {
  std::uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(FloatToHalfBits(f)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
};

struct BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FloatToBFloat16Bits(f)) {}
  explicit operator float() const { return BFloat16BitsToFloat(bits); }
};

// complex32: two float16 (PyTorch's c10::complex<c10::Half>).
struct ComplexHalf {
  Half re, im;
};

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_HALF_H_
