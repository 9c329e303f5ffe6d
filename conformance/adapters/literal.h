// A Python number as the C++ literal a user of a C++ library writes for it, shared by the
// adapters of header-only C++ libraries (eigen_binary.cc, xtensor_internal.h): true/false for a
// bool, an integer literal (an int, or a long when its magnitude does not fit an int: the C++
// literal rule), a floating literal (double), a std::complex<double>. One copy, so that every
// such adapter writes the same literal for the same number.
#ifndef TCTS_CONFORMANCE_ADAPTERS_LITERAL_H_
#define TCTS_CONFORMANCE_ADAPTERS_LITERAL_H_

#include <complex>
#include <cstdint>
#include <limits>
#include <variant>

#include "conformance/candidate/candidate.h"

namespace tcts {
namespace adapters {

// ---------------------------------------------------------------- Python numbers as C++ literals
using Literal = std::variant<bool, int, long, double, std::complex<double>>;

inline Literal ToLiteral(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.b;
    case Scalar::Kind::kInt: {
      // An integer literal is an int when its magnitude fits, else a long (C++ [lex.icon]);
      // a negative number is the negation of the literal of its magnitude.
      const std::uint64_t magnitude = s.i < 0 ? 0 - static_cast<std::uint64_t>(s.i) : static_cast<std::uint64_t>(s.i);
      if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return static_cast<int>(s.i);
      return static_cast<long>(s.i);
    }
    case Scalar::Kind::kFloat: return s.f;
    case Scalar::Kind::kComplex: return s.c;
  }
  return 0;
}

}  // namespace adapters
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_ADAPTERS_LITERAL_H_
