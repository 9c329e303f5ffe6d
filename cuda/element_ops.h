// What one thread of a cuda kernel does to one element: the storage types, the dtype
// conversions, and the bodies of the copy and binary kernels.
//
// Everything here is TCTS_HD: the kernels (kernels.cu) call these functions on the device,
// and cuda/element_ops_test.cc calls the very same functions on the CPU, for every element,
// against the CPU reference. The rules are the reference's:
//   * storage types: the reference's own where device code can use them (integers, float,
//     double, ref::Half, ref::BFloat16, ref::ComplexHalf, whose rounding is reference/half.h),
//     and Complex<V> — layout-identical to std::complex<V> — for complex64/complex128;
//   * Cast<To>(from) is ref::Convert<To>(from) (scalar_type.h), branch for branch;
//   * a binary element loads each input as the result type C, computes in OpMath of C with
//     reference/arith.h, rounds once to C and casts to the output's dtype — the CPU loop's
//     Load / compute / Store (elementwise.cc).
// Floating -> integral casts of NaN, infinities and out-of-range values, undefined in C++ (and
// in PyTorch), are defined by ref::FloatToIntegral on both sides; the spec does not test them,
// and element_ops_test compares them with the CPU like every other value.
#ifndef TCTS_CUDA_ELEMENT_OPS_H_
#define TCTS_CUDA_ELEMENT_OPS_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda/index_math.h"
#include "reference/arith.h"
#include "reference/half.h"
#include "reference/hd.h"
#include "reference/scalar_type.h"

namespace tcts::cuda {

using ref::ScalarType;

// ---------------------------------------------------------------- storage types
template <class V>
struct Complex {
  using value_type = V;
  V re, im;
  Complex() = default;
  TCTS_HD constexpr Complex(V r, V i) : re(r), im(i) {}
  TCTS_HD constexpr V real() const { return re; }
  TCTS_HD constexpr V imag() const { return im; }
};

template <ScalarType>
struct DevType;
template <> struct DevType<ScalarType::kBool> { using type = bool; };
template <> struct DevType<ScalarType::kUint8> { using type = std::uint8_t; };
template <> struct DevType<ScalarType::kInt8> { using type = std::int8_t; };
template <> struct DevType<ScalarType::kInt16> { using type = std::int16_t; };
template <> struct DevType<ScalarType::kInt32> { using type = std::int32_t; };
template <> struct DevType<ScalarType::kInt64> { using type = std::int64_t; };
template <> struct DevType<ScalarType::kFloat16> { using type = ref::Half; };
template <> struct DevType<ScalarType::kBfloat16> { using type = ref::BFloat16; };
template <> struct DevType<ScalarType::kFloat32> { using type = float; };
template <> struct DevType<ScalarType::kFloat64> { using type = double; };
template <> struct DevType<ScalarType::kComplex32> { using type = ref::ComplexHalf; };
template <> struct DevType<ScalarType::kComplex64> { using type = Complex<float>; };
template <> struct DevType<ScalarType::kComplex128> { using type = Complex<double>; };

// Bytes written by one side are read by the other: same size and alignment as the CPU's.
#define TCTS_CUDA_SAME_LAYOUT(e, ...)                                                          \
  static_assert(sizeof(DevType<ScalarType::e>::type) == sizeof(ref::CppType<ScalarType::e>::type) && \
                    alignof(DevType<ScalarType::e>::type) == alignof(ref::CppType<ScalarType::e>::type), \
                #e);
TCTS_REF_FORALL_SCALAR_TYPES(TCTS_CUDA_SAME_LAYOUT)
#undef TCTS_CUDA_SAME_LAYOUT

template <class T> struct IsCx : std::false_type {};
template <class V> struct IsCx<Complex<V>> : std::true_type {};
template <> struct IsCx<ref::ComplexHalf> : std::true_type {};
template <class T> struct IsReduced : std::bool_constant<std::is_same_v<T, ref::Half> || std::is_same_v<T, ref::BFloat16>> {};

// What a storage type computes in (ref::OpMath).
template <class T> struct DevOpMath { using type = T; };
template <> struct DevOpMath<ref::Half> { using type = float; };
template <> struct DevOpMath<ref::BFloat16> { using type = float; };
template <> struct DevOpMath<ref::ComplexHalf> { using type = Complex<float>; };

// Calls f(ref::TypeTag<T>{}) with T the device storage type of t.
template <class F>
TCTS_HD decltype(auto) DispatchDev(ScalarType t, F&& f) {
  switch (t) {
#define TCTS_CUDA_DISPATCH(e, ...) \
  case ScalarType::e:              \
    return f(ref::TypeTag<typename DevType<ScalarType::e>::type>{});
    TCTS_REF_FORALL_SCALAR_TYPES(TCTS_CUDA_DISPATCH)
#undef TCTS_CUDA_DISPATCH
    default:
      break;
  }
  // Unreachable: every ScalarType with tensors is a case above (uint16/32/64 have none: the host's
  // ref::Dispatch refuses them), and the host validates before launching.
#ifdef __CUDA_ARCH__
  __trap();
#endif
  return f(ref::TypeTag<bool>{});
}

// ---------------------------------------------------------------- conversion
// ref::Convert<To>(v), for the device's types.
template <class To, class From>
TCTS_HD To Cast(const From& v) {
  if constexpr (std::is_same_v<From, ref::ComplexHalf>) {
    return Cast<To>(Complex<float>(static_cast<float>(v.re), static_cast<float>(v.im)));
  } else if constexpr (IsReduced<From>::value) {
    return Cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, ref::ComplexHalf>) {
    const Complex<float> c = Cast<Complex<float>>(v);
    return ref::ComplexHalf{ref::Half(c.re), ref::Half(c.im)};
  } else if constexpr (IsCx<To>::value) {
    using V = typename To::value_type;
    if constexpr (IsCx<From>::value) {
      return To(static_cast<V>(v.re), static_cast<V>(v.im));
    } else {
      return To(Cast<V>(v), V(0));
    }
  } else if constexpr (IsCx<From>::value) {
    return Cast<To>(v.re);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (IsReduced<To>::value) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return ref::FloatToIntegral<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// The element of dtype `dtype` at p, converted to result type C, then to its compute type M.
template <class C, class M>
TCTS_HD M LoadAs(ScalarType dtype, const std::byte* p) {
  return DispatchDev(dtype, [p](auto tag) -> M {
    using T = typename decltype(tag)::type;
    const T v = ref::LoadValue<T>(p);
    if constexpr (std::is_same_v<T, C>) return Cast<M>(v);
    else return Cast<M>(Cast<C>(v));
  });
}

// m rounded to C once, then converted to dtype `dtype` and stored at p.
template <class C, class M>
TCTS_HD void StoreFrom(ScalarType dtype, std::byte* p, const M& m) {
  const C rounded = Cast<C>(m);
  DispatchDev(dtype, [p, &rounded](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, C>) *reinterpret_cast<T*>(p) = rounded;
    else *reinterpret_cast<T*>(p) = Cast<T>(rounded);
  });
}

// ---------------------------------------------------------------- kernel arguments
// One operand of a kernel: device memory, or (by_value) one value carried in the arguments
// — a Python scalar or a zero-dim cpu tensor.
struct ElementOperand {
  std::byte* data = nullptr;  // element [0, ..., 0] (device address)
  ScalarType dtype = ScalarType::kBool;
  bool by_value = false;
  alignas(16) std::byte value[16] = {};

  TCTS_HD const std::byte* At(std::int64_t offset) const { return by_value ? value : data + offset; }
};

// dst = cast(src) over one geometry (operands 0: dst, 1: src).
struct CopyArgs {
  OffsetCalculator<2> geometry;
  std::int64_t numel = 0;
  ElementOperand dst, src;
};

// out = op(a, b) (operands 0: out, 1: a, 2: b), in result type `common`.
struct BinaryArgs {
  OffsetCalculator<3> geometry;
  std::int64_t numel = 0;
  ref::BinaryOp op = ref::BinaryOp::kAdd;
  bool scaled = false;                      // alpha != 1 (add/sub)
  alignas(16) std::byte alpha[16] = {};     // alpha in OpMath of common (ref ScaleFor)
  ScalarType common = ScalarType::kBool;
  ElementOperand out, a, b;
  // Every operand is device memory of dtype `common`, unit-stride over one dimension, and
  // 16-byte aligned: the vectorised kernel applies.
  bool vectorizable = false;
};

// ---------------------------------------------------------------- element bodies
TCTS_HD inline void CopyElement(const CopyArgs& p, std::int64_t i) {
  std::int64_t off[2];
  p.geometry.Get(i, off);
  const std::byte* from = p.src.At(off[1]);
  std::byte* to = p.dst.data + off[0];
  DispatchDev(p.src.dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    const S v = ref::LoadValue<S>(from);
    DispatchDev(p.dst.dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      *reinterpret_cast<D*>(to) = Cast<D>(v);
    });
  });
}

// Element i of out = op(a, b), with C the result dtype's storage type.
template <class C>
TCTS_HD void BinaryElement(const BinaryArgs& p, std::int64_t i) {
  using M = typename DevOpMath<C>::type;
  std::int64_t off[3];
  p.geometry.Get(i, off);
  const M x = LoadAs<C, M>(p.a.dtype, p.a.At(off[1]));
  const M y = LoadAs<C, M>(p.b.dtype, p.b.At(off[2]));
  const M alpha = *reinterpret_cast<const M*>(p.alpha);
  StoreFrom<C, M>(p.out.dtype, p.out.data + off[0], ref::Apply(p.op, p.scaled, alpha, x, y));
}

// The vectorised path (BinaryArgs::vectorizable, C == its compute type): elements
// [k * kVec, (k + 1) * kVec) of contiguous operands in one 16-byte load per input.
template <class C>
struct alignas(16) Vec {
  static constexpr int kN = 16 / sizeof(C) > 0 ? 16 / sizeof(C) : 1;
  C v[kN];
};

// Each lane is read with ref::LoadValue (a bool byte other than 0 and 1 is true).
template <class C>
TCTS_HD void BinaryVecChunk(const BinaryArgs& p, std::int64_t k) {
  using V = Vec<C>;
  constexpr int n = V::kN;
  const C alpha = *reinterpret_cast<const C*>(p.alpha);
  const std::int64_t first = k * n;
  const auto lane = [](const C& c) { return ref::LoadValue<C>(reinterpret_cast<const std::byte*>(&c)); };
  if (first + n <= p.numel) {
    const V x = reinterpret_cast<const V*>(p.a.data)[k];
    const V y = reinterpret_cast<const V*>(p.b.data)[k];
    V r;
    for (int j = 0; j < n; ++j) r.v[j] = ref::Apply(p.op, p.scaled, alpha, lane(x.v[j]), lane(y.v[j]));
    reinterpret_cast<V*>(p.out.data)[k] = r;
    return;
  }
  for (std::int64_t i = first; i < p.numel; ++i) {  // the tail
    const C x = lane(reinterpret_cast<const C*>(p.a.data)[i]);
    const C y = lane(reinterpret_cast<const C*>(p.b.data)[i]);
    reinterpret_cast<C*>(p.out.data)[i] = ref::Apply(p.op, p.scaled, alpha, x, y);
  }
}

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_ELEMENT_OPS_H_
