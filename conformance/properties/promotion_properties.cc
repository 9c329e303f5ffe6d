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

TCTS_SUITE_SOURCE("promotion");

TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_ROW)

const std::vector<OperandKind> kKinds = {OperandKind::kTensor, OperandKind::kZeroDim, OperandKind::kScalar};
const std::vector<Scalar::Kind> kScalarKinds = {Scalar::Kind::kBool, Scalar::Kind::kInt, Scalar::Kind::kFloat,
                                               Scalar::Kind::kComplex};
// Every binary op, in spec order (spec/promotion.toml [[op]]: TCTS_FORALL_BINARY_OPS).
const std::vector<BinaryOp> kOps = {
#define TCTS_BINARY_OP_VALUE(e, ...) BinaryOp::e,
    TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_VALUE)
#undef TCTS_BINARY_OP_VALUE
};

// The documented dtypes the candidate declares: what every dtype of these properties is drawn
// from (NOT_SUPPORTED, naming the twelve, when it declares none).
std::vector<DType> DTypes(Candidate& cand) { return prop::Drawable(cand, DocumentedDTypes()); }

rc::Gen<OperandSpec> AnyOperand(Candidate& cand) {
  return rc::gen::apply([](OperandKind k, DType d, Scalar::Kind s) { return OperandSpec{k, d, s}; },
                        rc::gen::elementOf(kKinds), rc::gen::elementOf(DTypes(cand)), rc::gen::elementOf(kScalarKinds));
}

std::string Call(const char* f, const OperandSpec& a, const OperandSpec& b) {
  return std::string(f) + "(" + ToString(a) + ", " + ToString(b) + ")";
}

TCTS_PROPERTY(PromotionProperties, PromoteTypesIsCommutative) {
  const DType a = *rc::gen::elementOf(DTypes(cand));
  const DType b = *rc::gen::elementOf(DTypes(cand));
  // Every two documented dtypes promote (spec/promotion.toml's matrix has no empty cell).
  const DType ab = prop::Get(cand, calls::promote_types(cand, a, b),
                             std::string("promote_types(") + DTypeName(a) + ", " + DTypeName(b) + ")");
  const DType ba = prop::Get(cand, calls::promote_types(cand, b, a),
                             std::string("promote_types(") + DTypeName(b) + ", " + DTypeName(a) + ")");
  prop::ExpectEqual(std::string("promote_types(") + DTypeName(b) + ", " + DTypeName(a) + ")",
                    "promote_types(" + std::string(DTypeName(a)) + ", " + DTypeName(b) + ")'s answer", ab, ba);
}

TCTS_PROPERTY(PromotionProperties, PromoteTypesIsIdempotent) {
  const DType a = *rc::gen::elementOf(DTypes(cand));
  const DType aa = prop::Get(cand, calls::promote_types(cand, a, a),
                             std::string("promote_types(") + DTypeName(a) + ", " + DTypeName(a) + ")");
  prop::ExpectEqual(std::string("promote_types(") + DTypeName(a) + ", " + DTypeName(a) + ")", "the dtype itself", a, aa);
}

TCTS_PROPERTY(PromotionProperties, PromoteTypesCategoryIsTheHigher) {
  const DType a = *rc::gen::elementOf(DTypes(cand));
  const DType b = *rc::gen::elementOf(DTypes(cand));
  const DType r = prop::Get(cand, calls::promote_types(cand, a, b),
                            std::string("promote_types(") + DTypeName(a) + ", " + DTypeName(b) + ")");
  const Category want = std::max(DTypeCategory(a), DTypeCategory(b));
  prop::Expect(DTypeCategory(r) == want, std::string("promote_types(") + DTypeName(a) + ", " + DTypeName(b) + ")",
               std::string("a dtype of the higher category, ") + CategoryName(want),
               Str(r) + ", " + CategoryName(DTypeCategory(r)));
}

// The operand `o` holding the row value (OperandValue: 3 or 2, true for bool) in every
// element; dimensioned tensors take `shape`.
Operand FixedOperand(Candidate& cand, const OperandSpec& o, bool first, const std::vector<std::int64_t>& shape) {
  const Scalar value = OperandValue(o, first);
  if (o.kind == OperandKind::kScalar) return value;
  const std::vector<std::int64_t> sizes = o.kind == OperandKind::kTensor ? shape : std::vector<std::int64_t>{};
  return prop::MakeTensor(cand, sizes, o.dtype, std::vector<Scalar>(static_cast<std::size_t>(Numel(sizes)), value));
}

// result_type, and the result dtype of add/sub/mul/div (or the kind of its error), are the
// same for operands of random values as for the row values. The random values reach far past
// the range of the other operand's dtype (prop::ValueFor: uint8 tensor + 300, float16 tensor +
// 1e5, int8 tensor + zero-dim int64 2^40, ...), where a value-based promotion would widen.
TCTS_PROPERTY(PromotionProperties, ResultTypeIgnoresValues) {
  const OperandSpec a = *AnyOperand(cand), b = *AnyOperand(cand);
  const BinaryOp op = *rc::gen::elementOf(kOps);
  const std::vector<std::int64_t> shape = *prop::Shape();
  const Operand fa = FixedOperand(cand, a, true, shape), fb = FixedOperand(cand, b, false, shape);
  const Operand ra = prop::RandomOperand(cand, a, shape), rb = prop::RandomOperand(cand, b, shape);
  // result_type answers for any two operands (it is the op that may reject them).
  const DType want = prop::Get(cand, calls::result_type(cand, fa, fb), Call("result_type", a, b) + " of the row values");
  const DType got = prop::Get(cand, calls::result_type(cand, ra, rb), Call("result_type", a, b) + " of random values");
  prop::ExpectEqual(Call("result_type", a, b) + " of random values", "the answer for the row values", want, got);
  // The op's result dtype ignores values too (its error, if any, is the same kind).
  const auto dtype_of = [&](const Operand& x, const Operand& y, const char* values) -> Result<DType> {
    const auto r = calls::binary(cand, op, x, y, Scalar::Int(1));
    prop::Usable(cand, r, Call(BinaryOpName(op), a, b) + values);
    if (!r.ok()) return r.error();
    return prop::MetaOf(cand, r.value()).dtype;
  };
  const Result<DType> op_want = dtype_of(fa, fb, " of the row values"), op_got = dtype_of(ra, rb, " of random values");
  const auto outcome = [](const Result<DType>& r) {
    return r.ok() ? "dtype " + Str(r.value()) : Describe(r.error());
  };
  prop::Expect(prop::DTypeOutcome(op_got) == prop::DTypeOutcome(op_want),
               Call(BinaryOpName(op), a, b) + " of random values", "the outcome for the row values, " + outcome(op_want),
               outcome(op_got));
}

// Every row of the table has its property above.
TCTS_PROMOTION_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
