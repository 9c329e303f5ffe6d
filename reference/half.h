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

#include <cstdint>
#include <cstring>

#include "reference/hd.h"

namespace tcts::ref {

// Everything here is TCTS_HD: the cuda/ kernels convert with these very functions.
namespace detail {
TCTS_HD inline std::uint32_t FloatBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
TCTS_HD inline float BitsFloat(std::uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
}  // namespace detail

// float -> binary16 bits, round to nearest even.
TCTS_HD inline std::uint16_t FloatToHalfBits(float f) {
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

TCTS_HD inline float HalfBitsToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // exact: 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return detail::BitsFloat(sign | 0x7f800000u | (mant << 13));
  return detail::BitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

// float -> bfloat16 bits: keep the top 16 bits, round the dropped 16 to even.
TCTS_HD inline std::uint16_t FloatToBFloat16Bits(float f) {
  const std::uint32_t x = detail::FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  const std::uint32_t odd = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7fffu + odd) >> 16);
}

TCTS_HD inline float BFloat16BitsToFloat(std::uint16_t b) { return detail::BitsFloat(static_cast<std::uint32_t>(b) << 16); }

struct Half {
  std::uint16_t bits = 0;
  Half() = default;
  TCTS_HD explicit Half(float f) : bits(FloatToHalfBits(f)) {}
  TCTS_HD explicit operator float() const { return HalfBitsToFloat(bits); }
};

struct BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  TCTS_HD explicit BFloat16(float f) : bits(FloatToBFloat16Bits(f)) {}
  TCTS_HD explicit operator float() const { return BFloat16BitsToFloat(bits); }
};

// complex32: two float16 (PyTorch's c10::complex<c10::Half>).
struct ComplexHalf {
  Half re, im;
};

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_HALF_H_
