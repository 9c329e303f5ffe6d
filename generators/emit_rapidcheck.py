"""Emits the RapidCheck properties of one conformance suite.

Properties are randomized and compare a candidate with itself or with algebraic laws,
so they never need expectations entries (randomized cases are not XFAIL-able).

Usage: emit_rapidcheck.py --suite {promotion,casting} --out FILE spec/*.toml
"""

from __future__ import annotations

import sys

import emit_common as ec
from emit_gtest import dt
from spec_model import OPS, Operand, Spec


def promotion(spec: Spec) -> str:
    clause = spec.result_type_source.clause
    return f"""// Properties of {clause} (spec/promotion.toml).
//  - promote_types is commutative and idempotent, and its result's category is the
//    higher of its inputs' categories (the doc: "complex > floating > integral > boolean").
//  - result_type, and the dtype of add/sub/mul/div, never depend on operand values
//    (the doc: "we do not inspect values").

const std::vector<OperandKind> kKinds = {{OperandKind::kTensor, OperandKind::kZeroDim, OperandKind::kScalar}};
const std::vector<Scalar::Kind> kScalarKinds = {{Scalar::Kind::kBool, Scalar::Kind::kInt, Scalar::Kind::kFloat,
                                               Scalar::Kind::kComplex}};
const std::vector<BinaryOp> kOps = {{BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv}};

rc::Gen<OperandSpec> AnyOperand() {{
  return rc::gen::apply([](OperandKind k, DType d, Scalar::Kind s) {{ return OperandSpec{{k, d, s}}; }},
                        rc::gen::elementOf(kKinds), rc::gen::elementOf(DocumentedDTypes()),
                        rc::gen::elementOf(kScalarKinds));
}}

bool Unsupported(const Error& e) {{ return e.kind == ErrorKind::kNotSupported; }}

RC_GTEST_PROP(PromotionProperties, PromoteTypesIsCommutative, ()) {{
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const DType b = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> ab = CurrentCandidate().promote_types(a, b), ba = CurrentCandidate().promote_types(b, a);
  if (!ab.ok() && Unsupported(ab.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(prop::DTypeOutcome(ab) == prop::DTypeOutcome(ba));
}}

RC_GTEST_PROP(PromotionProperties, PromoteTypesIsIdempotent, ()) {{
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> aa = CurrentCandidate().promote_types(a, a);
  if (!aa.ok() && Unsupported(aa.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(prop::DTypeOutcome(aa) == prop::DTypeOutcome(Result<DType>(a)));
}}

RC_GTEST_PROP(PromotionProperties, PromoteTypesCategoryIsTheHigher, ()) {{
  const DType a = *rc::gen::elementOf(DocumentedDTypes());
  const DType b = *rc::gen::elementOf(DocumentedDTypes());
  const Result<DType> r = CurrentCandidate().promote_types(a, b);
  if (!r.ok() && Unsupported(r.error())) RC_SUCCEED("promote_types not supported");
  RC_ASSERT(r.ok());
  const Category want = std::max(DTypeCategory(a), DTypeCategory(b));
  RC_ASSERT(std::string(CategoryName(DTypeCategory(r.value()))) == CategoryName(want));
}}

RC_GTEST_PROP(PromotionProperties, ResultTypeIgnoresValues, ()) {{
  const OperandSpec a = *AnyOperand(), b = *AnyOperand();
  const BinaryOp op = *rc::gen::elementOf(kOps);
  const std::vector<std::int64_t> shape = *prop::Shape();
  Case fixed(RowMeta{{"property.result_type.ignores_values", "{clause}", "doc", "fixed operands"}});
  const auto fa = MakeOperand(fixed, a, OperandValue(a, true)), fb = MakeOperand(fixed, b, OperandValue(b, false));
  const auto ra = prop::RandomOperand(a, shape), rb = prop::RandomOperand(b, shape);
  if (!fa || !fb || !ra || !rb) RC_SUCCEED("operands not supported");
  Candidate& cand = CurrentCandidate();
  const Result<DType> want = cand.result_type(*fa, *fb), got = cand.result_type(*ra, *rb);
  if (!want.ok() && Unsupported(want.error())) RC_SUCCEED("result_type not supported");
  RC_ASSERT(prop::DTypeOutcome(got) == prop::DTypeOutcome(want));
  // The op's result dtype ignores values too (its error, if any, is the same kind).
  const auto dtype_of = [&](const Result<TensorHandle>& r) -> Result<DType> {{
    if (!r.ok()) return r.error();
    const Result<TensorMeta> m = cand.meta(r.value());
    if (!m.ok()) return m.error();
    return m.value().dtype;
  }};
  const Result<DType> op_want = dtype_of(cand.binary(op, *fa, *fb)), op_got = dtype_of(cand.binary(op, *ra, *rb));
  if (!op_want.ok() && Unsupported(op_want.error())) RC_SUCCEED("binary not supported");
  RC_ASSERT(prop::DTypeOutcome(op_got) == prop::DTypeOutcome(op_want));
}}
"""


def casting(spec: Spec) -> str:
    rejected = []
    for op in OPS:
        for s in spec.documented:
            for o in spec.documented:
                out = spec.op_outcome(op, Operand("tensor", s.name), Operand("tensor", o.name),
                                      spec.initial_default, s.name)
                if out[0] == "error":
                    rejected.append(f"    {{BinaryOp::k{op.capitalize()}, {dt(spec, s.name)}, {dt(spec, o.name)}}}")
    clause = spec.output_casting_source.clause
    return f"""// Properties of {clause} (spec/casting.toml [output_casting]).
//  - A rejected in-place operation leaves its destination unchanged, whatever the values.

struct Rejected {{
  BinaryOp op;
  DType self, other;
}};
void showValue(const Rejected& r, std::ostream& os) {{
  os << DTypeName(r.self) << "." << BinaryOpName(r.op) << "_(" << DTypeName(r.other) << ")";
}}
// Every (op, self dtype, other dtype) the spec rejects for `self op= other` ({len(rejected)}).
const std::vector<Rejected> kRejected = {{
{",".join(chr(10) + r for r in rejected).lstrip(chr(10))}
}};

RC_GTEST_PROP(CastingProperties, RejectedInplaceLeavesDestinationUnchanged, ()) {{
  const Rejected r = *rc::gen::elementOf(kRejected);
  const std::vector<std::int64_t> shape = *prop::Shape();
  const auto self = prop::RandomOperand({{OperandKind::kTensor, r.self, Scalar::Kind::kInt}}, shape);
  const auto other = prop::RandomOperand({{OperandKind::kTensor, r.other, Scalar::Kind::kInt}}, shape);
  if (!self || !other) RC_SUCCEED("operands not supported");
  Candidate& cand = CurrentCandidate();
  const TensorHandle dest = std::get<TensorHandle>(*self);
  const Result<std::vector<Scalar>> before = cand.values(dest);
  RC_ASSERT(before.ok());
  const Status s = cand.binary_inplace(r.op, dest, *other);
  if (!s.ok() && s.error().kind == ErrorKind::kNotSupported) RC_SUCCEED("in-place not supported");
  RC_ASSERT(!s.ok());
  const Result<std::vector<Scalar>> after = cand.values(dest);
  RC_ASSERT(after.ok());
  RC_ASSERT(after.value() == before.value());
}}
"""


def emit(spec: Spec, suite: str) -> str:
    body = {"promotion": promotion, "casting": casting}[suite](spec)
    src = {"promotion": "spec/promotion.toml", "casting": "spec/casting.toml, spec/promotion.toml"}[suite]
    return ec.cxx_file(src, "generators/emit_rapidcheck.py",
                       ["<gtest/gtest.h>", "<rapidcheck.h>", "<rapidcheck/gtest.h>", "<algorithm>", "<string>",
                        "<vector>", '"conformance/checks.h"', '"conformance/properties.h"'], body)

if __name__ == "__main__":
    sys.exit(ec.main(sys.argv[1:], __doc__, emit, ["promotion", "casting"]))
