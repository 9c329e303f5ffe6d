// What the adapters of template libraries (Eigen, xtensor) share to go between the suite's
// dtypes and their element types: a table of the element type each dtype maps to (TypeMap), the
// dispatch of a run-time dtype to a compile-time type (With), the dtype of an element type
// (DTypeOf), the exact widening the interface reads values in (Wide, ToScalar), and the check of
// a make_tensor's value count. Each adapter lists its library's types once; what the library has
// no type for is the adapter's NotImplementedError (its `no_such`).
#ifndef TCTS_CONFORMANCE_ADAPTERS_TYPED_H_
#define TCTS_CONFORMANCE_ADAPTERS_TYPED_H_

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "conformance/candidate/candidate.h"

namespace tcts::typed {

// A type as a value: the argument a dispatched function is called with.
template <class T>
struct Tag {
  using type = T;
};

// One row of a TypeMap: dtype D holds elements of type T.
template <DType D, class T>
struct Entry {
  static constexpr DType dtype = D;
  using type = T;
};

// A library's element types by dtype, listed once (e.g. TypeMap<Entry<DType::kFloat32, float>, ...>).
template <class... Entries>
struct TypeMap {
  // Whether T is the element type of a listed dtype.
  template <class T>
  static constexpr bool kHas = (std::is_same_v<T, typename Entries::type> || ...);

  // The dtype whose element type is T (one listed).
  template <class T>
  static constexpr DType DTypeOf() {
    static_assert(kHas<T>, "an element type outside the library's dtypes");
    DType d = DType::kBool;
    static_cast<void>(((std::is_same_v<T, typename Entries::type> ? (d = Entries::dtype, true) : false) || ...));
    return d;
  }

  // f(Tag<T>{}) with the element type T of dtype d; no_such(d) when d is not listed.
  template <class R, class F, class NoSuch>
  static R With(DType d, F&& f, NoSuch&& no_such) {
    std::optional<R> r;
    static_cast<void>(((d == Entries::dtype ? (r.emplace(f(Tag<typename Entries::type>{})), true) : false) || ...));
    if (r) return std::move(*r);
    return no_such(d);
  }
};

// ---------------------------------------------------------------- values in and out
template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};

// The exact widening the interface reads an element of type T in: bool, int64, double or
// complex<double> (half-precision and bfloat16 types are neither integral nor complex: double).
template <class T>
using Wide = std::conditional_t<std::is_same_v<T, bool>, bool,
                                std::conditional_t<IsComplex<T>::value, std::complex<double>,
                                                   std::conditional_t<std::is_integral_v<T>, std::int64_t, double>>>;

// A widened element as the interface's Scalar.
template <class W>
Scalar ToScalar(const W& w) {
  if constexpr (std::is_same_v<W, bool>) return Scalar::Bool(w);
  else if constexpr (std::is_same_v<W, std::int64_t>) return Scalar::Int(w);
  else if constexpr (std::is_same_v<W, double>) return Scalar::Float(w);
  else return Scalar::Complex(w);
}

// make_tensor's values for `sizes`: a ValueError when there are not one per element.
inline std::optional<Error> ValueCountError(const std::vector<std::int64_t>& sizes, const std::vector<Scalar>& values) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) n *= s;
  if (static_cast<std::int64_t>(values.size()) == n) return std::nullopt;
  return Error{ErrorKind::kValueError,
               "tensor of " + std::to_string(n) + " elements given " + std::to_string(values.size()) + " values"};
}

}  // namespace tcts::typed

#endif  // TCTS_CONFORMANCE_ADAPTERS_TYPED_H_
