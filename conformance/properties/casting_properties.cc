// Properties of the output-casting clause (spec/casting.toml [output_casting]):
//  - A rejected in-place operation leaves its destination unchanged, whatever the values.
// Their rows and the rejected operations come from the spec, through casting_properties.inc
// (generators/emit_rapidcheck.py).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "conformance/checks/casting.h"
#include "conformance/properties/properties.h"

#include "conformance/properties/casting_properties.inc"

namespace tcts {
namespace {

TCTS_SUITE_SOURCE("casting");

TCTS_CASTING_PROPERTIES(TCTS_PROPERTY_ROW)

struct Rejected {
  BinaryOp op;
  DType self, other;
};
void showValue(const Rejected& r, std::ostream& os) {
  os << DTypeName(r.self) << "." << BinaryOpName(r.op) << "_(" << DTypeName(r.other) << ")";
}
// Every (op, self dtype, other dtype) the spec rejects for `self op= other`.
#define TCTS_REJECTED(op, self, other) Rejected{op, self, other},
const std::vector<Rejected> kRejected = {TCTS_CASTING_REJECTED_INPLACE(TCTS_REJECTED)};
#undef TCTS_REJECTED

// The rejected operations whose two dtypes the candidate declares: what the property draws
// from (NOT_SUPPORTED, naming the undeclared dtypes, when there is none).
std::vector<Rejected> DeclaredRejected(Candidate& cand) {
  std::vector<Rejected> declared;
  std::vector<DType> named;
  for (const Rejected& r : kRejected) {
    if (cand.supports_dtype(r.self) && cand.supports_dtype(r.other)) declared.push_back(r);
    named.insert(named.end(), {r.self, r.other});
  }
  if (declared.empty()) prop::NoDeclaredDType(prop::UndeclaredOf(cand, named));
  return declared;
}

TCTS_PROPERTY(CastingProperties, RejectedInplaceLeavesDestinationUnchanged) {
  const Rejected r = *rc::gen::elementOf(DeclaredRejected(cand));
  const std::vector<std::int64_t> shape = *prop::Shape();
  const Operand self = prop::RandomOperand(cand, {OperandKind::kTensor, r.self, Scalar::Kind::kInt}, shape);
  const Operand other = prop::RandomOperand(cand, {OperandKind::kTensor, r.other, Scalar::Kind::kInt}, shape);
  const TensorHandle dest = std::get<TensorHandle>(self);
  // The destination's values are read before the call only where they can be: the rejection
  // itself (the casting rule) is judged without them.
  const bool readable = prop::ValuesReadable(cand, "the destination's values after the rejection");
  const std::vector<Scalar> before = readable ? prop::ValuesOf(cand, dest) : std::vector<Scalar>{};
  auto s = calls::binary_inplace(cand, r.op, dest, other, Scalar::Int(1));
  const std::string call =
      std::string("tensor:") + DTypeName(r.self) + "." + BinaryOpName(r.op) + "_(tensor:" + DTypeName(r.other) + ")";
  prop::Usable(cand, s, call);
  prop::Expect(!s.ok(), call, "an error (the result's dtype cannot be cast to the destination's)", "success");
  if (readable) prop::ExpectEqual(call + " after its error", "the destination's values unchanged", before, prop::ValuesOf(cand, dest));
}

// Every row of the table has its property above.
TCTS_CASTING_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
