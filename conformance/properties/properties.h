// RapidCheck helpers for the generated property suites: random operands and values.
// Properties compare a candidate with itself (e.g. across operand values), so they hold
// for any candidate that is consistent, whatever its deterministic deviations.
#ifndef TCTS_CONFORMANCE_PROPERTIES_H_
#define TCTS_CONFORMANCE_PROPERTIES_H_

#include <rapidcheck.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"

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
