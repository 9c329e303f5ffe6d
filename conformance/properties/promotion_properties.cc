// Properties of the type-promotion clause (spec/promotion.toml):
//  - promote_types is commutative and idempotent, and its result's category is the
//    higher of its inputs' categories (the doc: "complex > floating > integral > boolean").
//  - result_type, and the dtype of add/sub/mul/div, never depend on operand values
//    (the doc: "we do not inspect values").
// Their rows come from the spec, through promotion_properties.inc (generators/emit_rapidcheck.py).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "conformance/checks/promotion.h"
#include "conformance/properties/properties.h"

#include "conformance/properties/promotion_properties.inc"

namespace tcts {
namespace {

TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_ROW)

const std::vector<OperandKind> kKinds = {OperandKind::kTensor, OperandKind::kZeroDim, OperandKind::kScalar};
const std::vector<Scalar::Kind> kScalarKinds = {Scalar::Kind::kBool, Scalar::Kind::kInt, Scalar::Kind::kFloat,
                                               Scalar::Kind::kComplex};
const std::vector<BinaryOp> kOps = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv};

rc::Gen<OperandSpec> AnyOperand() {
  return rc::gen::apply([](OperandKind k, DType d, Scalar::Kind s) { return OperandSpec{k, d, s}; },
                        rc::gen::elementOf(kKinds), rc::gen::elementOf(DocumentedDTypes()),
                        rc::gen::elementOf(kScalarKinds));
}

bool Unsupported(const Error& e) { return e.kind == ErrorKind::kNotSupported; }

TCTS_PROPERTY(PromotionProperties, PromoteTypesIsCommutative) {
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const DType b = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> ab = CurrentCandidate().promote_types(a, b), ba = CurrentCandidate().promote_types(b, a);
  if (!ab.ok() && Unsupported(ab.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(prop::DTypeOutcome(ab) == prop::DTypeOutcome(ba));
}

TCTS_PROPERTY(PromotionProperties, PromoteTypesIsIdempotent) {
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> aa = CurrentCandidate().promote_types(a, a);
  if (!aa.ok() && Unsupported(aa.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(prop::DTypeOutcome(aa) == prop::DTypeOutcome(Result<DType>(a)));
}

TCTS_PROPERTY(PromotionProperties, PromoteTypesCategoryIsTheHigher) {
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const DType b = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> r = CurrentCandidate().promote_types(a, b);
  if (!r.ok() && Unsupported(r.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(r.ok());
  const Category want = std::max(DTypeCategory(a), DTypeCategory(b));
  RC_ASSERT(std::string(CategoryName(DTypeCategory(r.value()))) == CategoryName(want));
}

TCTS_PROPERTY(PromotionProperties, ResultTypeIgnoresValues) {
  const OperandSpec a = *AnyOperand(), b = *AnyOperand();
  const BinaryOp op = *rc::gen::elementOf(kOps);
  const std::vector<std::int64_t> shape = *prop::Shape();
  const RowMeta& row = kPropertyRow_ResultTypeIgnoresValues;
  Case fixed(RowMeta{row.id, row.clause, "doc", "fixed operands"});
  const auto fa = MakeOperand(fixed, a, OperandValue(a, true)), fb = MakeOperand(fixed, b, OperandValue(b, false));
  const auto ra = prop::RandomOperand(a, shape), rb = prop::RandomOperand(b, shape);
  if (!fa || !fb || !ra || !rb) RC_SUCCEED("operands not supported");
  Candidate& cand = CurrentCandidate();
  const Result<DType> want = cand.result_type(*fa, *fb), got = cand.result_type(*ra, *rb);
  if (!want.ok() && Unsupported(want.error())) RC_SUCCEED("result_type not supported");
  RC_ASSERT(prop::DTypeOutcome(got) == prop::DTypeOutcome(want));
  // The op's result dtype ignores values too (its error, if any, is the same kind).
  const auto dtype_of = [&](const Result<TensorHandle>& r) -> Result<DType> {
    if (!r.ok()) return r.error();
    const Result<TensorMeta> m = cand.meta(r.value());
    if (!m.ok()) return m.error();
    return m.value().dtype;
  };
  const Result<DType> op_want = dtype_of(cand.binary(op, *fa, *fb, Scalar::Int(1))),
                      op_got = dtype_of(cand.binary(op, *ra, *rb, Scalar::Int(1)));
  if (!op_want.ok() && Unsupported(op_want.error())) RC_SUCCEED("binary not supported");
  RC_ASSERT(prop::DTypeOutcome(op_got) == prop::DTypeOutcome(op_want));
}

// Every row of the table has its property above.
TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
