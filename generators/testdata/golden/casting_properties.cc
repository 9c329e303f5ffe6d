// GENERATED from spec/casting.toml, spec/promotion.toml by generators/emit_rapidcheck.py — do not edit.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>
#include "conformance/checks.h"
#include "conformance/properties.h"

namespace tcts {
namespace {

// Properties of 002#type-promotion (spec/casting.toml [output_casting]).
//  - A rejected in-place operation leaves its destination unchanged, whatever the values.

struct Rejected {
  BinaryOp op;
  DType self, other;
};
void showValue(const Rejected& r, std::ostream& os) {
  os << DTypeName(r.self) << "." << BinaryOpName(r.op) << "_(" << DTypeName(r.other) << ")";
}
// Every (op, self dtype, other dtype) the spec rejects for `self op= other` (31).
const std::vector<Rejected> kRejected = {
    {BinaryOp::kAdd, DType::kFloat32, DType::kComplex64},
    {BinaryOp::kAdd, DType::kInt32, DType::kFloat32},
    {BinaryOp::kAdd, DType::kInt32, DType::kComplex64},
    {BinaryOp::kAdd, DType::kBool, DType::kFloat32},
    {BinaryOp::kAdd, DType::kBool, DType::kComplex64},
    {BinaryOp::kAdd, DType::kBool, DType::kInt32},
    {BinaryOp::kSub, DType::kFloat32, DType::kComplex64},
    {BinaryOp::kSub, DType::kFloat32, DType::kBool},
    {BinaryOp::kSub, DType::kComplex64, DType::kBool},
    {BinaryOp::kSub, DType::kInt32, DType::kFloat32},
    {BinaryOp::kSub, DType::kInt32, DType::kComplex64},
    {BinaryOp::kSub, DType::kInt32, DType::kBool},
    {BinaryOp::kSub, DType::kBool, DType::kFloat32},
    {BinaryOp::kSub, DType::kBool, DType::kComplex64},
    {BinaryOp::kSub, DType::kBool, DType::kInt32},
    {BinaryOp::kSub, DType::kBool, DType::kBool},
    {BinaryOp::kMul, DType::kFloat32, DType::kComplex64},
    {BinaryOp::kMul, DType::kInt32, DType::kFloat32},
    {BinaryOp::kMul, DType::kInt32, DType::kComplex64},
    {BinaryOp::kMul, DType::kBool, DType::kFloat32},
    {BinaryOp::kMul, DType::kBool, DType::kComplex64},
    {BinaryOp::kMul, DType::kBool, DType::kInt32},
    {BinaryOp::kDiv, DType::kFloat32, DType::kComplex64},
    {BinaryOp::kDiv, DType::kInt32, DType::kFloat32},
    {BinaryOp::kDiv, DType::kInt32, DType::kComplex64},
    {BinaryOp::kDiv, DType::kInt32, DType::kInt32},
    {BinaryOp::kDiv, DType::kInt32, DType::kBool},
    {BinaryOp::kDiv, DType::kBool, DType::kFloat32},
    {BinaryOp::kDiv, DType::kBool, DType::kComplex64},
    {BinaryOp::kDiv, DType::kBool, DType::kInt32},
    {BinaryOp::kDiv, DType::kBool, DType::kBool}
};

TCTS_PROP(CastingProperties, RejectedInplaceLeavesDestinationUnchanged, "property.inplace.rejected_leaves_destination", "002#type-promotion", "an in-place op whose result cannot be cast to self is an error and leaves self unchanged") {
  const Rejected r = *rc::gen::elementOf(kRejected);
  const std::vector<std::int64_t> shape = *prop::Shape();
  const auto self = prop::RandomOperand({OperandKind::kTensor, r.self, Scalar::Kind::kInt}, shape);
  const auto other = prop::RandomOperand({OperandKind::kTensor, r.other, Scalar::Kind::kInt}, shape);
  if (!self || !other) RC_SUCCEED("operands not supported");
  Candidate& cand = CurrentCandidate();
  const TensorHandle dest = std::get<TensorHandle>(*self);
  const Result<std::vector<Scalar>> before = cand.values(dest);
  RC_ASSERT(before.ok());
  const Status s = cand.binary_inplace(r.op, dest, *other, Scalar::Int(1));
  if (!s.ok() && s.error().kind == ErrorKind::kNotSupported) RC_SUCCEED("in-place not supported");
  RC_ASSERT(!s.ok());
  const Result<std::vector<Scalar>> after = cand.values(dest);
  RC_ASSERT(after.ok());
  RC_ASSERT(after.value() == before.value());
}

}  // namespace
}  // namespace tcts
