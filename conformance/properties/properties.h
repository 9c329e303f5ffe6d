// What every property suite shares: how a property takes its row from the spec, and the
// RapidCheck helpers for random operands and values.
//
// The property bodies are checked-in C++ (conformance/properties/<suite>_properties.cc); only
// their tables are generated, from the spec, by generators/emit_rapidcheck.py into
// <suite>_properties.inc: X-macros of the properties' rows and of the spec's values the bodies
// use. Properties compare a candidate with itself (e.g. across operand values) or with the
// spec's rules, so they hold for any candidate that is consistent, whatever its
// deterministic deviations.
#ifndef TCTS_CONFORMANCE_PROPERTIES_H_
#define TCTS_CONFORMANCE_PROPERTIES_H_

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"

// ---------------------------------------------------------------- property rows
// A suite's generated table lists its properties as _(Name, "case id", "clause", "statement"),
// e.g. TCTS_PROMOTION_PROPERTIES(_) in promotion_properties.inc. Its .cc file expands
//   TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_ROW)      before the bodies: the rows, as constants
//   TCTS_PROPERTY(PromotionProperties, Name) { ... }  each body, with the row named Name
//   TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_DEFINED)  after the bodies
// so that a body without a row, or a row without a body, does not compile.
#define TCTS_PROPERTY_ROW(Name, id, clause, text) \
  constexpr ::tcts::RowMeta kPropertyRow_##Name{id, clause, "property", text};
#define TCTS_PROPERTY(Suite, Name)                    \
  constexpr bool kPropertyDefined_##Name = true;      \
  TCTS_PROP(Suite, Name, kPropertyRow_##Name.id, kPropertyRow_##Name.clause, kPropertyRow_##Name.text)
#define TCTS_PROPERTY_DEFINED(Name, id, clause, text) \
  static_assert(kPropertyDefined_##Name, "property " id " has no body");

namespace tcts {
// How RapidCheck prints counterexamples of these types (found by ADL).
inline void showValue(const Scalar& s, std::ostream& os) { os << s.ToString(); }
inline void showValue(DType d, std::ostream& os) { os << DTypeName(d); }
inline void showValue(BinaryOp op, std::ostream& os) { os << BinaryOpName(op); }
inline void showValue(const OperandSpec& o, std::ostream& os) { os << ToString(o); }
}  // namespace tcts

namespace tcts::prop {

// A random value that a tensor of `dtype` can hold (small integers, any bool, finite
// floats and complex numbers in a range every floating dtype covers).
inline rc::Gen<Scalar> ValueFor(DType dtype) {
  switch (DTypeCategory(dtype)) {
    case Category::kBool:
      return rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Scalar::Bool(b); });
    case Category::kIntegral:
      return rc::gen::map(rc::gen::inRange<std::int64_t>(-100, 101), [](std::int64_t v) { return Scalar::Int(v); });
    case Category::kFloating:
      return rc::gen::map(rc::gen::inRange<int>(-60000, 60001), [](int v) { return Scalar::Float(v / 64.0); });
    case Category::kComplex:
      return rc::gen::apply([](int re, int im) { return Scalar::Complex({re / 64.0, im / 64.0}); },
                            rc::gen::inRange<int>(-60000, 60001), rc::gen::inRange<int>(-60000, 60001));
  }
  return rc::gen::just(Scalar::Int(0));
}

// A random Python scalar of the given kind.
inline rc::Gen<Scalar> ScalarOf(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::kBool: return ValueFor(DType::kBool);
    case Scalar::Kind::kInt: return ValueFor(DType::kInt64);
    case Scalar::Kind::kFloat: return ValueFor(DType::kFloat64);
    case Scalar::Kind::kComplex: return ValueFor(DType::kComplex128);
  }
  return rc::gen::just(Scalar::Int(0));
}

// A random shape of rank 1..3 with sizes 1..3.
inline rc::Gen<std::vector<std::int64_t>> Shape() {
  return rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange(1, 4), rc::gen::inRange<std::int64_t>(1, 4));
}

// Builds the operand on the current candidate with random values. Dimensioned tensors
// take `shape`; zero-dim tensors and scalars have none. nullopt if the candidate
// cannot make it (the property then has nothing to say).
inline std::optional<Operand> RandomOperand(const OperandSpec& o, const std::vector<std::int64_t>& shape) {
  if (o.kind == OperandKind::kScalar) return Operand(*ScalarOf(o.scalar_kind));
  const std::vector<std::int64_t> sizes = o.kind == OperandKind::kTensor ? shape : std::vector<std::int64_t>{};
  const auto values =
      *rc::gen::container<std::vector<Scalar>>(static_cast<std::size_t>(Numel(sizes)), ValueFor(o.dtype));
  Result<TensorHandle> t = CurrentCandidate().make_tensor(sizes, o.dtype, values);
  if (!t.ok()) return std::nullopt;
  return Operand(t.value());
}

// "ok dtype" or "ErrorKind": what an answer says about dtypes, values aside.
inline std::string DTypeOutcome(const Result<DType>& r) {
  return r.ok() ? std::string("ok ") + DTypeName(r.value()) : ErrorKindName(r.error().kind);
}

}  // namespace tcts::prop

#endif  // TCTS_CONFORMANCE_PROPERTIES_H_
