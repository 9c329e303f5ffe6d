// The reference's dtype model, expanded from spec/dtypes.inc (generated from
// spec/dtypes.toml): names, item sizes and categories are the spec's.
//
// What the spec cannot say — which C++ type stores each dtype — is the CppType map
// below; Dispatch() expands over the spec's list, so a dtype added to the spec without
// a storage type here is a compile error, not a silent gap.
#ifndef TCTS_REFERENCE_SCALAR_TYPE_H_
#define TCTS_REFERENCE_SCALAR_TYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "reference/error.h"
#include "reference/half.h"
#include "reference/hd.h"
#include "spec/dtypes.inc"

namespace tcts::ref {

enum class ScalarType : std::uint8_t {
#define TCTS_REF_ENUMERATOR(e, ...) e,
  TCTS_FORALL_DTYPES(TCTS_REF_ENUMERATOR)
#undef TCTS_REF_ENUMERATOR
};

// bool < integral < floating < complex (spec/promotion.toml [categories]).
enum class Category : std::uint8_t {
#define TCTS_REF_CATEGORY(e, name) e,
  TCTS_FORALL_CATEGORIES(TCTS_REF_CATEGORY)
#undef TCTS_REF_CATEGORY
};

struct ScalarTypeInfo {
  const char* name;      // "float32"
  const char* c10_name;  // "Float": PyTorch's name, used in error messages
  int itemsize;
  Category category;
  bool is_signed;
};

inline const ScalarTypeInfo& Info(ScalarType t) {
  static const ScalarTypeInfo kInfo[] = {
#define TCTS_REF_INFO(e, name, short_, c10, itemsize, cat, is_signed, is_fp, is_cx, documented) \
  {name, c10, itemsize, Category::cat, is_signed},
      TCTS_FORALL_DTYPES(TCTS_REF_INFO)
#undef TCTS_REF_INFO
  };
  return kInfo[static_cast<int>(t)];
}

inline const char* Name(ScalarType t) { return Info(t).name; }
inline Category CategoryOf(ScalarType t) { return Info(t).category; }
inline bool IsBool(ScalarType t) { return CategoryOf(t) == Category::kBool; }
inline bool IsIntegral(ScalarType t) { return CategoryOf(t) == Category::kIntegral; }
inline bool IsFloating(ScalarType t) { return CategoryOf(t) == Category::kFloating; }
inline bool IsComplex(ScalarType t) { return CategoryOf(t) == Category::kComplex; }

// ---------------------------------------------------------------- storage types
template <ScalarType>
struct CppType;
template <> struct CppType<ScalarType::kBool> { using type = bool; };
template <> struct CppType<ScalarType::kUint8> { using type = std::uint8_t; };
template <> struct CppType<ScalarType::kInt8> { using type = std::int8_t; };
template <> struct CppType<ScalarType::kInt16> { using type = std::int16_t; };
template <> struct CppType<ScalarType::kInt32> { using type = std::int32_t; };
template <> struct CppType<ScalarType::kInt64> { using type = std::int64_t; };
template <> struct CppType<ScalarType::kFloat16> { using type = Half; };
template <> struct CppType<ScalarType::kBfloat16> { using type = BFloat16; };
template <> struct CppType<ScalarType::kFloat32> { using type = float; };
template <> struct CppType<ScalarType::kFloat64> { using type = double; };
template <> struct CppType<ScalarType::kComplex32> { using type = ComplexHalf; };
template <> struct CppType<ScalarType::kComplex64> { using type = std::complex<float>; };
template <> struct CppType<ScalarType::kComplex128> { using type = std::complex<double>; };

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the storage type of t.
template <class F>
decltype(auto) Dispatch(ScalarType t, F&& f) {
  switch (t) {
#define TCTS_REF_DISPATCH(e, ...) \
  case ScalarType::e:             \
    return f(TypeTag<typename CppType<ScalarType::e>::type>{});
    TCTS_FORALL_DTYPES(TCTS_REF_DISPATCH)
#undef TCTS_REF_DISPATCH
  }
  throw InternalError("Dispatch: invalid ScalarType");
}

// The value of storage type T held at p. A bool is read through its byte, any non-zero byte
// being true: bytes other than 0 and 1 reach bool tensors from outside (DLPack, buffers,
// uint8 views of the same storage), and loading such a byte as a C++ bool is undefined.
template <class T>
TCTS_HD T LoadValue(const std::byte* p) {
  if constexpr (std::is_same_v<T, bool>) return *reinterpret_cast<const unsigned char*>(p) != 0;
  else return *reinterpret_cast<const T*>(p);
}

// ---------------------------------------------------------------- conversion
template <class T> struct IsComplexT : std::false_type {};
template <class V> struct IsComplexT<std::complex<V>> : std::true_type {};
template <> struct IsComplexT<ComplexHalf> : std::true_type {};
template <class T> struct IsReducedFloat : std::bool_constant<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>> {};

// The arithmetic type a storage type computes in: float16/bfloat16 in float,
// complex32 in complex<float>, everything else in itself.
template <class T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <> struct OpMath<ComplexHalf> { using type = std::complex<float>; };

// Convert<To>(from): the value cast PyTorch performs (c10::convert / static_cast):
//  complex -> real keeps the real part; anything -> bool is "!= 0"; floating -> integral
//  truncates toward zero; float16/bfloat16 go through float.
template <class To, class From>
To Convert(const From& v) {
  if constexpr (std::is_same_v<From, ComplexHalf>) {
    return Convert<To>(std::complex<float>(static_cast<float>(v.re), static_cast<float>(v.im)));
  } else if constexpr (IsReducedFloat<From>::value) {
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, ComplexHalf>) {
    const auto c = Convert<std::complex<float>>(v);
    return ComplexHalf{Half(c.real()), Half(c.imag())};
  } else if constexpr (IsComplexT<To>::value) {
    using V = typename To::value_type;
    if constexpr (IsComplexT<From>::value) {
      return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    } else {
      return To(Convert<V>(v), V(0));
    }
  } else if constexpr (IsComplexT<From>::value) {
    return Convert<To>(v.real());
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (IsReducedFloat<To>::value) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_SCALAR_TYPE_H_
