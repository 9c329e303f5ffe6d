// The reference's dtype model: its own table, as c10/core/ScalarType.h keeps PyTorch's
// (the suite's tables are generated from spec/dtypes.toml; the reference does not borrow
// them, so the dtypes suite measures this table against the spec).
//
// TCTS_REF_FORALL_SCALAR_TYPES(_): _(enumerator, storage type, "name", "c10 name",
// category), in c10's ScalarType order. Item sizes are the storage types' sizes; names and
// aliases (ScalarTypeFromName) follow torch/csrc/utils/tensor_dtypes.cpp.
#ifndef TCTS_REFERENCE_SCALAR_TYPE_H_
#define TCTS_REFERENCE_SCALAR_TYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "reference/error.h"
#include "reference/half.h"
#include "reference/hd.h"

namespace tcts::ref {

#define TCTS_REF_FORALL_SCALAR_TYPES(_)                                     \
  _(kUint8, std::uint8_t, "uint8", "Byte", kIntegral)                      \
  _(kInt8, std::int8_t, "int8", "Char", kIntegral)                         \
  _(kInt16, std::int16_t, "int16", "Short", kIntegral)                     \
  _(kInt32, std::int32_t, "int32", "Int", kIntegral)                       \
  _(kInt64, std::int64_t, "int64", "Long", kIntegral)                      \
  _(kFloat16, Half, "float16", "Half", kFloating)                          \
  _(kFloat32, float, "float32", "Float", kFloating)                        \
  _(kFloat64, double, "float64", "Double", kFloating)                      \
  _(kComplex32, ComplexHalf, "complex32", "ComplexHalf", kComplex)         \
  _(kComplex64, std::complex<float>, "complex64", "ComplexFloat", kComplex) \
  _(kComplex128, std::complex<double>, "complex128", "ComplexDouble", kComplex) \
  _(kBool, bool, "bool", "Bool", kBool)                                    \
  _(kBfloat16, BFloat16, "bfloat16", "BFloat16", kFloating)

// TCTS_REF_FORALL_BAREBONES_TYPES(_): the same for uint16, uint32 and uint64, torch 2.x's
// unsigned dtypes of "limited support" (c10's isBarebonesUnsignedType). The reference knows
// their names, attributes and promotion, which the spec's rows state (spec/dtypes.toml,
// promotion.toml [promote_types_barebones]), and makes tensors of them that keep their dtype
// (dtypes.toml [barebones_tensor]: Tensor::FromScalars, through DispatchStorage), and nothing
// more: Dispatch, which every kernel and element read goes through, and CopyInto refuse them
// with a RuntimeError, so no kernel (CPU or CUDA) is instantiated for them.
#define TCTS_REF_FORALL_BAREBONES_TYPES(_)                   \
  _(kUint16, std::uint16_t, "uint16", "UInt16", kIntegral) \
  _(kUint32, std::uint32_t, "uint32", "UInt32", kIntegral) \
  _(kUint64, std::uint64_t, "uint64", "UInt64", kIntegral)

enum class ScalarType : std::uint8_t {
#define TCTS_REF_ENUMERATOR(e, ...) e,
  TCTS_REF_FORALL_SCALAR_TYPES(TCTS_REF_ENUMERATOR)
  TCTS_REF_FORALL_BAREBONES_TYPES(TCTS_REF_ENUMERATOR)
#undef TCTS_REF_ENUMERATOR
};

// bool < integral < floating < complex: the order promotion compares categories in.
enum class Category : std::uint8_t { kBool, kIntegral, kFloating, kComplex };

struct ScalarTypeInfo {
  const char* name;      // "float32"
  const char* c10_name;  // "Float": PyTorch's name, used in error messages
  int itemsize;
  Category category;
  bool is_signed;
};

template <class T>
constexpr bool IsSignedStorage() {
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    return std::is_signed_v<T>;
  } else {
    return true;  // floating and complex types carry a sign
  }
}

inline const ScalarTypeInfo& Info(ScalarType t) {
  static const ScalarTypeInfo kInfo[] = {
#define TCTS_REF_INFO(e, T, name, c10, cat) \
  {name, c10, static_cast<int>(sizeof(T)), Category::cat, IsSignedStorage<T>()},
      TCTS_REF_FORALL_SCALAR_TYPES(TCTS_REF_INFO)
      TCTS_REF_FORALL_BAREBONES_TYPES(TCTS_REF_INFO)
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
// uint16, uint32, uint64 (TCTS_REF_FORALL_BAREBONES_TYPES).
inline bool IsBarebonesUnsigned(ScalarType t) {
  switch (t) {
#define TCTS_REF_BAREBONES_CASE(e, ...) case ScalarType::e:
    TCTS_REF_FORALL_BAREBONES_TYPES(TCTS_REF_BAREBONES_CASE)
#undef TCTS_REF_BAREBONES_CASE
    return true;
    default:
      return false;
  }
}

// torch.<name>: the canonical names and their aliases ("float", "double", "half", "cfloat",
// "cdouble", "chalf", "short", "int", "long"); nullopt for any other name.
std::optional<ScalarType> ScalarTypeFromName(std::string_view name);
// The legacy tensor type of `t` ("torch.*.FloatTensor"), as torch/csrc/tensor/python_tensor.cpp
// names them from c10 names: none for complex dtypes.
std::optional<std::string> LegacyTensorTypeName(ScalarType t);

// ---------------------------------------------------------------- storage types
template <ScalarType>
struct CppType;
#define TCTS_REF_CPP_TYPE(e, T, ...) \
  template <>                        \
  struct CppType<ScalarType::e> {    \
    using type = T;                  \
  };
TCTS_REF_FORALL_SCALAR_TYPES(TCTS_REF_CPP_TYPE)
TCTS_REF_FORALL_BAREBONES_TYPES(TCTS_REF_CPP_TYPE)
#undef TCTS_REF_CPP_TYPE

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
    TCTS_REF_FORALL_SCALAR_TYPES(TCTS_REF_DISPATCH)
#undef TCTS_REF_DISPATCH
    default:
      break;
  }
  if (IsBarebonesUnsigned(t)) {
    throw RuntimeError(std::string("the reference has no kernel for ") + Info(t).name +
                       ": it makes such tensors and reads their metadata only");
  }
  throw InternalError("Dispatch: invalid ScalarType");
}

// Dispatch with the barebones unsigned dtypes too: for putting a new tensor's values into its
// storage (Tensor::FromScalars), the one thing the reference does with their elements. No kernel
// and no read of an element goes through it.
template <class F>
decltype(auto) DispatchStorage(ScalarType t, F&& f) {
  switch (t) {
#define TCTS_REF_DISPATCH_BAREBONES(e, ...) \
  case ScalarType::e:                       \
    return f(TypeTag<typename CppType<ScalarType::e>::type>{});
    TCTS_REF_FORALL_BAREBONES_TYPES(TCTS_REF_DISPATCH_BAREBONES)
#undef TCTS_REF_DISPATCH_BAREBONES
    default:
      return Dispatch(t, std::forward<F>(f));
  }
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

// Floating -> integral, defined for every input. c10::convert is static_cast here (to uint8
// through int64: TypeCast.h's static_cast_with_inter_type<uint8_t, src_t>), which truncates
// toward zero and which C++ leaves undefined for NaN, the infinities and values whose
// truncation the target does not hold ("deliberately ignores undefined behavior, consistent
// with NumPy", same file); the spec documents say nothing of those values, and no case
// asserts them. The reference converts to a 32- or 64-bit intermediate (64 for int64 and,
// as c10 does, uint8) and answers there what x86-64's truncating conversions
// (cvttss2si/cvttsd2si) give PyTorch's scalar CPU loops: the intermediate's lowest value,
// "integer indefinite"; the intermediate then narrows modulo 2^bits, as c10's does.
template <class To, class F>
TCTS_HD To FloatToIntegral(F v) {
  static_assert(std::is_floating_point_v<F> && !std::is_same_v<To, bool> &&
                    (std::is_signed_v<To> || std::is_same_v<To, std::uint8_t>) && sizeof(To) <= 8,
                "the storage types' integers: int8..int64 and uint8 (a wider unsigned type needs a wider intermediate)");
  using I = std::conditional_t<sizeof(To) == 8 || std::is_same_v<To, std::uint8_t>, std::int64_t, std::int32_t>;
  constexpr I kLowest = -(I(1) << (sizeof(I) * 8 - 2)) * 2;  // -2^31 or -2^63, a power of two
  const F lowest = static_cast<F>(kLowest);                 // exact in float and double
  // v in [-2^(n-1), 2^(n-1)): its truncation is in I. NaN fails both comparisons.
  const I wide = (v >= lowest && v < -lowest) ? static_cast<I>(v) : kLowest;
  return static_cast<To>(wide);
}

// Convert<To>(from): the value cast PyTorch performs (c10::convert / static_cast):
//  complex -> real keeps the real part; anything -> bool is "!= 0"; floating -> integral
//  truncates toward zero (FloatToIntegral: defined where C++ leaves it undefined);
//  float16/bfloat16 go through float.
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
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return FloatToIntegral<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_SCALAR_TYPE_H_
