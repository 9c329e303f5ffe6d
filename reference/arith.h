// What one element of add, sub, mul and div computes, in the compute type M (OpMath of the
// result dtype; spec/arithmetic.toml [compute]). Shared with the cuda/ kernels (TCTS_HD), so
// the device computes with these very definitions.
//
// Integers wrap (computed unsigned); bool add/mul are or/and; complex mul is
// (ac - bd) + (ad + bc)i and complex div follows c10::complex (Smith's scaling). A complex M
// is any complex<V>-like type with real(), imag() and a (re, im) constructor: std::complex on
// the CPU, cuda::Complex on the device. No fused multiply-add: the CPU build has none, and
// nvcc compiles the kernels with --fmad=false.
#ifndef TCTS_REFERENCE_ARITH_H_
#define TCTS_REFERENCE_ARITH_H_

#include <type_traits>

#include "reference/hd.h"

namespace tcts::ref {

template <class M>
struct Arith {
  static_assert(std::is_arithmetic_v<M>, "complex types have their own specialisation");
  TCTS_HD static M Add(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) return a || b;  // 1 + 1 stored as true
    else if constexpr (std::is_integral_v<M>) return Wrap(Unsigned(a) + Unsigned(b));
    else return a + b;
  }
  TCTS_HD static M Sub(M a, M b) {
    if constexpr (std::is_integral_v<M>) return Wrap(Unsigned(a) - Unsigned(b));
    else return a - b;
  }
  TCTS_HD static M Mul(M a, M b) {
    if constexpr (std::is_same_v<M, bool>) return a && b;
    else if constexpr (std::is_integral_v<M>) return Wrap(Unsigned(a) * Unsigned(b));
    else return a * b;
  }
  TCTS_HD static M Div(M a, M b) { return a / b; }  // floating only: integral div is promoted to float

 private:
  // Two's complement wrapping: do the arithmetic on the unsigned type of the same width.
  using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<M> && !std::is_same_v<M, bool>, M, int>>;
  TCTS_HD static U Unsigned(M v) { return static_cast<U>(v); }
  TCTS_HD static M Wrap(U v) { return static_cast<M>(v); }
};

// |x| for the comparisons of complex division (-0 gives +0, as std::abs does).
template <class V>
TCTS_HD V Magnitude(V x) {
  return x < V(0) || (x == V(0) && V(1) / x < V(0)) ? -x : x;
}

template <template <class> class Complex, class V>
struct Arith<Complex<V>> {
  using C = Complex<V>;
  TCTS_HD static C Add(C a, C b) { return C(a.real() + b.real(), a.imag() + b.imag()); }
  TCTS_HD static C Sub(C a, C b) { return C(a.real() - b.real(), a.imag() - b.imag()); }
  TCTS_HD static C Mul(C a, C b) {
    return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  }
  // c10::complex operator/= (numpy's algorithm): scale by the larger divisor component.
  TCTS_HD static C Div(C x, C y) {
    const V a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
    const V abs_c = Magnitude(c), abs_d = Magnitude(d);
    if (abs_c >= abs_d) {
      if (abs_c == V(0) && abs_d == V(0)) return C(a / abs_c, b / abs_d);
      const V rat = d / c, scl = V(1) / (c + d * rat);
      return C((a + b * rat) * scl, (b - a * rat) * scl);
    }
    const V rat = c / d, scl = V(1) / (d + c * rat);
    return C((a * rat + b) * scl, (b * rat - a) * scl);
  }
};

// The four operations, and add scaled by alpha (what sub with alpha becomes).
enum class BinaryOp { kAdd, kSub, kMul, kDiv };
// Every BinaryOp, in declaration order: what a test that sweeps the reference's ops iterates (a new
// op is added to both lines).
inline constexpr BinaryOp kBinaryOps[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv};

// x op y in M. With `scaled`, add and sub compute x + alpha*y (the caller negates alpha for
// sub, as PyTorch's sub does: add with -alpha); mul and div ignore alpha.
template <class M>
TCTS_HD M Apply(BinaryOp op, bool scaled, M alpha, M x, M y) {
  using A = Arith<M>;
  if (scaled && (op == BinaryOp::kAdd || op == BinaryOp::kSub)) return A::Add(x, A::Mul(alpha, y));
  switch (op) {
    case BinaryOp::kAdd: return A::Add(x, y);
    case BinaryOp::kSub: return A::Sub(x, y);
    case BinaryOp::kMul: return A::Mul(x, y);
    case BinaryOp::kDiv: return A::Div(x, y);
  }
  return A::Add(x, y);  // unreachable: every op is a case above
}

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_ARITH_H_
