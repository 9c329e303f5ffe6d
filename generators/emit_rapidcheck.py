"""Emits the RapidCheck properties of one conformance suite.

Properties are randomized and compare a candidate with itself or with algebraic laws,
so they never need expectations entries (randomized cases are not XFAIL-able).

Usage: emit_rapidcheck.py --suite {promotion,casting,strided} --out FILE spec/*.toml
"""

from __future__ import annotations

import re
import sys

import emit_common as ec
from emit_gtest import dt
from spec_model import ALLOCATING_FORMATS, OPS, Operand, Spec


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
  const Result<DType> op_want = dtype_of(cand.binary(op, *fa, *fb, Scalar::Int(1))),
                      op_got = dtype_of(cand.binary(op, *ra, *rb, Scalar::Int(1)));
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
  const Status s = cand.binary_inplace(r.op, dest, *other, Scalar::Int(1));
  if (!s.ok() && s.error().kind == ErrorKind::kNotSupported) RC_SUCCEED("in-place not supported");
  RC_ASSERT(!s.ok());
  const Result<std::vector<Scalar>> after = cand.values(dest);
  RC_ASSERT(after.ok());
  RC_ASSERT(after.value() == before.value());
}}
"""


STRIDED = r"""// Properties of spec/strided.toml over random shapes and random chains of view ops
// (conformance/properties/strided_properties.h has the generators and the logical model).

struct FormatRule {
  MemoryFormat format;
  int rank;             // -1: any rank
  bool empty_is_contiguous;  // numel == 0 makes any strides contiguous in this format
};
// spec/strided.toml [[memory_format]] (the allocating ones) and [is_contiguous].
const FormatRule kFormats[] = {
@FORMATS@
};

// A property's verdict from a Case's mismatches (empty = holds).
#define TCTS_RC_CASE(c) RC_ASSERT((c).MismatchText() == std::string())

bool Unsupported(const Error& e) { return e.kind == ErrorKind::kNotSupported; }

RowMeta PropertyRow(const char* id, const char* clause, const char* text) { return RowMeta{id, clause, "property", text}; }

// Every view shows the elements the model says, at storage[offset + sum(stride * index)].
RC_GTEST_PROP(StridedProperties, ViewChainsMatchTheLogicalModelAndTheAddressFormula, ()) {
  const prop::Chain chain = prop::RandomChain(5, true);
  Case c(PropertyRow("property.views.model", "@ADDRESS_CLAUSE@", "random view chain"));
  const auto got = ReadValues(c, chain.tensor, prop::Describe(chain));
  if (got) ExpectEq(c, prop::Describe(chain) + " values", prop::ModelValues(chain.model), *got);
  CheckAddressFormula(c, chain.tensor, prop::Describe(chain));
  TCTS_RC_CASE(c);
}

// Views never copy: the chain's result shares the base's storage unless a reshape had to copy,
// and reshape copies exactly when view() of the same shape fails.
RC_GTEST_PROP(StridedProperties, ViewsShareStorageAndReshapeCopiesOnlyWhenViewFails, ()) {
  const prop::Chain chain = prop::RandomChain(5, false);
  Candidate& cand = CurrentCandidate();
  const Result<StorageInfo> a = cand.storage(chain.base), b = cand.storage(chain.tensor);
  if (!a.ok() && Unsupported(a.error())) RC_DISCARD("storage not supported");
  RC_ASSERT(a.ok() && b.ok());
  RC_ASSERT(a.value().id == b.value().id);
  // reshape to a random factorisation: a view exactly when view() works.
  const prop::ModelStep m = prop::RandomStep(chain.model, true);
  if (m.step.kind != ViewKind::kReshape) return;
  const Result<TensorHandle> viewed = cand.view(chain.tensor, m.step.args.vec());
  const Result<TensorHandle> reshaped = cand.reshape(chain.tensor, m.step.args.vec());
  RC_ASSERT(reshaped.ok());
  const Result<StorageInfo> r = cand.storage(reshaped.value());
  RC_ASSERT(r.ok());
  RC_ASSERT(viewed.ok() == (r.value().id == a.value().id));
  if (!viewed.ok()) RC_ASSERT(viewed.error().kind == ErrorKind::kRuntimeError);
}

// Writing one element through a view is visible through the base and every other view of it.
RC_GTEST_PROP(StridedProperties, WritesThroughAViewAreVisibleEverywhere, ()) {
  const prop::Chain chain = prop::RandomChain(4, false);
  RC_PRE(!chain.model.ids.empty());
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, chain.model.ids.size());
  const std::int64_t id = chain.model.ids[k];
  const auto index = Indices(chain.model.sizes)[k];
  Candidate& cand = CurrentCandidate();
  const Status s = cand.write_element(chain.tensor, index, Scalar::Int(-1));
  if (!s.ok() && Unsupported(s.error())) RC_DISCARD("write_element not supported");
  RC_ASSERT(s.ok());
  Case c(PropertyRow("property.views.write", "@ADDRESS_CLAUSE@", "write through a view"));
  const Result<TensorMeta> bm = cand.meta(chain.base);
  RC_ASSERT(bm.ok());
  prop::Logical base_model = prop::Iota(bm.value().sizes);
  for (std::int64_t& v : base_model.ids) v = v == id ? -1 : v;
  prop::Logical view_model = chain.model;
  for (std::int64_t& v : view_model.ids) v = v == id ? -1 : v;
  if (auto got = ReadValues(c, chain.base, "base")) ExpectEq(c, "base after the write", prop::ModelValues(base_model), *got);
  if (auto got = ReadValues(c, chain.tensor, prop::Describe(chain))) ExpectEq(c, "view after the write", prop::ModelValues(view_model), *got);
  TCTS_RC_CASE(c);
}

// is_contiguous(fmt) holds exactly when the strides are those empty(sizes, fmt) allocates,
// size-1 dimensions aside (and, for contiguous_format, whenever the tensor is empty).
RC_GTEST_PROP(StridedProperties, IsContiguousAgreesWithItsDefinition, ()) {
  const prop::Chain chain = prop::RandomChain(4, false);
  Candidate& cand = CurrentCandidate();
  const Result<TensorMeta> m = cand.meta(chain.tensor);
  RC_ASSERT(m.ok());
  const TensorMeta& meta = m.value();
  for (const FormatRule& f : kFormats) {
    const Result<bool> got = cand.is_contiguous(chain.tensor, f.format);
    if (!got.ok() && Unsupported(got.error())) RC_DISCARD("is_contiguous not supported");
    RC_ASSERT(got.ok());
    bool want = false;
    if (f.empty_is_contiguous && Numel(meta.sizes) == 0) {
      want = true;
    } else if (f.rank < 0 || static_cast<int>(meta.sizes.size()) == f.rank) {
      const Result<TensorHandle> fresh = cand.empty(meta.sizes, DType::kInt64, Layout::kStrided, f.format);
      RC_ASSERT(fresh.ok());
      const std::vector<std::int64_t> strides = cand.meta(fresh.value()).value().strides;
      want = true;
      for (std::size_t d = 0; d < meta.sizes.size(); ++d) want = want && (meta.sizes[d] == 1 || meta.strides[d] == strides[d]);
    }
    RC_ASSERT(got.value() == want);
  }
}

// clone(preserve_format) of a dense, non-overlapping tensor keeps its exact strides.
RC_GTEST_PROP(StridedProperties, ClonePreservesTheStridesOfADenseTensor, ()) {
  Candidate& cand = CurrentCandidate();
  std::vector<std::int64_t> sizes = *prop::StridedShape();
  std::vector<std::int64_t> dims(sizes.size());
  std::iota(dims.begin(), dims.end(), 0);
  for (std::size_t k = dims.size(); k > 1; --k) std::swap(dims[k - 1], dims[*rc::gen::inRange<std::size_t>(0, k)]);
  const Result<TensorHandle> base = cand.make_tensor(sizes, DType::kInt64, IotaValues(Numel(sizes)));
  RC_PRE(base.ok());
  const Result<TensorHandle> dense = cand.permute(base.value(), dims);  // dense, in a random dimension order
  if (!dense.ok() && Unsupported(dense.error())) RC_DISCARD("views not supported");
  RC_ASSERT(dense.ok());
  const Result<TensorHandle> copy = cand.clone(dense.value(), MemoryFormat::kPreserve);
  if (!copy.ok() && Unsupported(copy.error())) RC_DISCARD("clone not supported");
  RC_ASSERT(copy.ok());
  RC_ASSERT(cand.meta(copy.value()).value().strides == cand.meta(dense.value()).value().strides);
  RC_ASSERT(cand.values(copy.value()).value() == cand.values(dense.value()).value());
  RC_ASSERT(cand.storage(copy.value()).value().id != cand.storage(base.value()).value().id);
}

// contiguous(fmt) is fmt-contiguous and equal in value; an fmt-contiguous input comes back as itself.
RC_GTEST_PROP(StridedProperties, ContiguousIsFormatContiguousAndValueEqual, ()) {
  const prop::Chain chain = prop::RandomChain(4, false);
  Candidate& cand = CurrentCandidate();
  const std::size_t rank = cand.meta(chain.tensor).value().sizes.size();
  std::vector<MemoryFormat> fits;
  for (const FormatRule& f : kFormats)
    if (f.rank < 0 || static_cast<std::size_t>(f.rank) == rank) fits.push_back(f.format);
  const MemoryFormat format = *rc::gen::elementOf(fits);
  const Result<bool> was = cand.is_contiguous(chain.tensor, format);
  const Result<TensorHandle> out = cand.contiguous(chain.tensor, format);
  if (!out.ok() && Unsupported(out.error())) RC_DISCARD("contiguous not supported");
  RC_ASSERT(was.ok() && out.ok());
  RC_ASSERT(cand.is_contiguous(out.value(), format).value());
  RC_ASSERT(cand.values(out.value()).value() == cand.values(chain.tensor).value());
  const bool same = cand.storage(out.value()).value().id == cand.storage(chain.tensor).value().id;
  RC_ASSERT(same == was.value());
  if (was.value()) RC_ASSERT(cand.meta(out.value()).value().strides == cand.meta(chain.tensor).value().strides);
}

// transpose(d0, d1) twice gives back the sizes, strides and offset.
RC_GTEST_PROP(StridedProperties, TransposingTwiceRestoresTheGeometry, ()) {
  const prop::Chain chain = prop::RandomChain(4, false);
  Candidate& cand = CurrentCandidate();
  const TensorMeta before = cand.meta(chain.tensor).value();
  const std::int64_t n = std::max<std::int64_t>(static_cast<std::int64_t>(before.sizes.size()), 1);
  const std::int64_t d0 = *rc::gen::inRange<std::int64_t>(-n, n), d1 = *rc::gen::inRange<std::int64_t>(-n, n);
  const Result<TensorHandle> once = cand.transpose(chain.tensor, d0, d1);
  RC_ASSERT(once.ok());
  const Result<TensorHandle> twice = cand.transpose(once.value(), d0, d1);
  RC_ASSERT(twice.ok());
  const TensorMeta after = cand.meta(twice.value()).value();
  RC_ASSERT(after.sizes == before.sizes);
  RC_ASSERT(after.strides == before.strides);
  RC_ASSERT(after.storage_offset == before.storage_offset);
}

// Invalid requests are errors, never out-of-bounds views: as_strided reaching past the
// storage, view() of another numel, select() past the end.
RC_GTEST_PROP(StridedProperties, InvalidViewRequestsAreErrors, ()) {
  Candidate& cand = CurrentCandidate();
  const std::int64_t numel = *rc::gen::inRange<std::int64_t>(1, 30);
  const Result<TensorHandle> base = cand.make_tensor({numel}, DType::kInt64, IotaValues(numel));
  RC_PRE(base.ok());
  const std::size_t rank = *rc::gen::inRange<std::size_t>(0, 4);
  const auto sizes = *rc::gen::container<std::vector<std::int64_t>>(rank, rc::gen::inRange<std::int64_t>(0, 5));
  const auto strides = *rc::gen::container<std::vector<std::int64_t>>(rank, rc::gen::inRange<std::int64_t>(0, 8));
  const std::int64_t offset = *rc::gen::inRange<std::int64_t>(0, numel + 3);
  std::int64_t extent = offset + 1;
  for (std::size_t k = 0; k < rank; ++k) extent += (sizes[k] - 1) * strides[k];
  const bool fits = Numel(sizes) == 0 || extent <= numel;
  const Result<TensorHandle> v = cand.as_strided(base.value(), sizes, strides, offset);
  if (!v.ok() && Unsupported(v.error())) RC_DISCARD("as_strided not supported");
  RC_ASSERT(v.ok() == fits);
  if (!fits) RC_ASSERT(v.error().kind == ErrorKind::kRuntimeError);
  const Result<TensorHandle> wrong = cand.view(base.value(), {numel + *rc::gen::inRange<std::int64_t>(1, 5)});
  RC_ASSERT(!wrong.ok() && wrong.error().kind == ErrorKind::kRuntimeError);
  const std::int64_t past = *rc::gen::arbitrary<bool>() ? numel : -numel - 1;
  const Result<TensorHandle> sel = cand.select(base.value(), 0, past);
  RC_ASSERT(!sel.ok() && sel.error().kind == ErrorKind::kIndexError);
}
"""


def strided(spec: Spec) -> str:
    rows = []
    for name in ALLOCATING_FORMATS:
        f = spec.formats[name]
        rank = -1 if f["rank"] == "any" else f["rank"]
        rows.append(f"    {{{ec.format_cxx(name)}, {rank}, {ec.cbool(rank == -1)}}},  // {f['id']}")
    return (STRIDED.replace("@FORMATS@", "\n".join(rows))
            .replace("@ADDRESS_CLAUSE@", spec.address["source"].clause))


ARITHMETIC = r"""
// A random view chain a (int64, value == its storage index) plus an operand b of random
// layout that broadcasts against it: the result's values follow broadcasting, it is dense,
// and when a alone decides the order (dense, no size-1 dimension, the result's shape)
// the result has a's strides (@LAYOUT@).
RC_GTEST_PROP(ArithmeticProperties, RandomLayoutsAddAndLayOutAsTheRuleSays, ()) {
  const prop::RandomAdd add = prop::AddRandomLayouts(4);
  Candidate& cand = CurrentCandidate();
  const prop::Chain& a = add.a;
  const prop::Layout& b = add.b;
  const TensorMeta& ma = add.a_meta;
  const TensorMeta& m = add.result_meta;
  RC_ASSERT(m.sizes == ma.sizes);
  RC_ASSERT(m.dtype == DType::kInt64);
  if (Numel(m.sizes) > 0) RC_ASSERT(prop::DenseStrides(m.sizes, m.strides));  // an empty result has no memory to be dense in
  const std::vector<Scalar> got = cand.values(add.result).value();
  const std::vector<std::vector<std::int64_t>> index = Indices(m.sizes);
  RC_ASSERT(got.size() == index.size());
  for (std::size_t k = 0; k < index.size(); ++k) {
    RC_ASSERT(got[k] == Scalar::Int(a.model.ids[k] + b.At(index[k])));
  }
  const bool decides = prop::DenseStrides(ma.sizes, ma.strides) && Numel(ma.sizes) > 0 &&
                       std::none_of(ma.sizes.begin(), ma.sizes.end(), [](std::int64_t s) { return s == 1; });
  if (decides) RC_ASSERT(m.strides == ma.strides);
}

// out= of the right shape keeps its strides and storage; out= of another shape gets the
// functional result's layout (@OUT@); in-place into a writable a gives the same values and
// keeps a's strides.
RC_GTEST_PROP(ArithmeticProperties, OutAndInplaceAgreeWithTheFunctionalForm, ()) {
  const prop::RandomAdd add = prop::AddRandomLayouts(3);
  Candidate& cand = CurrentCandidate();
  const prop::Chain& a = add.a;
  const prop::Layout& b = add.b;
  const TensorMeta& ma = add.a_meta;
  const TensorMeta& mr = add.result_meta;
  const std::vector<Scalar> want = cand.values(add.result).value();

  const Result<TensorHandle> empty = cand.make_tensor({0}, DType::kInt64, {});
  RC_ASSERT(empty.ok());
  const Status resized = cand.binary_out(BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1), empty.value());
  if (!resized.ok() && resized.error().kind == ErrorKind::kNotSupported) RC_DISCARD("binary_out not supported");
  RC_ASSERT(resized.ok());
  RC_ASSERT(cand.meta(empty.value()).value().strides == mr.strides);
  RC_ASSERT(cand.values(empty.value()).value() == want);

  const prop::Layout out = prop::RandomBroadcastLayout(ma.sizes);
  const bool right_shape = out.sizes == ma.sizes &&
                           std::none_of(out.strides.begin(), out.strides.end(), [](std::int64_t s) { return s == 0; });
  if (right_shape) {
    const StorageInfo before = cand.storage(out.tensor).value();
    RC_ASSERT(cand.binary_out(BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1), out.tensor).ok());
    const TensorMeta mo = cand.meta(out.tensor).value();
    RC_ASSERT(mo.strides == out.strides);
    RC_ASSERT(mo.storage_offset == out.offset);
    RC_ASSERT(cand.storage(out.tensor).value().id == before.id);
    RC_ASSERT(cand.values(out.tensor).value() == want);
  }

  bool writable = true;  // no dimension of size > 1 with stride 0 (an expanded view)
  for (std::size_t d = 0; d < ma.sizes.size(); ++d) writable = writable && !(ma.sizes[d] > 1 && ma.strides[d] == 0);
  if (writable) {
    const Status s = cand.binary_inplace(BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1));
    RC_ASSERT(s.ok());
    RC_ASSERT(cand.meta(a.tensor).value().strides == ma.strides);
    RC_ASSERT(cand.values(a.tensor).value() == want);
  }
}
"""


def arithmetic(spec: Spec) -> str:
    return (ARITHMETIC.replace("@LAYOUT@", spec.arith["output_layout"]["id"])
            .replace("@OUT@", spec.arith["out"]["id"]))


# Each property's row: test name -> (id, clause, statement). A property test has no table
# row, so it registers one (TCTS_PROP) for the runner's records and reports.
def promotion_rows(spec: Spec) -> dict:
    c = spec.result_type_source.clause
    return {
        "PromoteTypesIsCommutative": ("property.promote_types.commutative", c, "promote_types(a, b) == promote_types(b, a)"),
        "PromoteTypesIsIdempotent": ("property.promote_types.idempotent", c, "promote_types(a, a) == a"),
        "PromoteTypesCategoryIsTheHigher": ("property.promote_types.category", spec.categories_source.clause,
                                            "the result's category is the higher of the inputs' categories"),
        "ResultTypeIgnoresValues": ("property.result_type.ignores_values", c,
                                    "result_type and the dtype of add/sub/mul/div never depend on operand values"),
    }


def casting_rows(spec: Spec) -> dict:
    return {"RejectedInplaceLeavesDestinationUnchanged": (
        "property.inplace.rejected_leaves_destination", spec.output_casting_source.clause,
        "an in-place op whose result cannot be cast to self is an error and leaves self unchanged")}


def strided_rows(spec: Spec) -> dict:
    address = spec.address["source"].clause
    view = lambda op: spec.views[op]["source"].clause  # noqa: E731
    return {
        "ViewChainsMatchTheLogicalModelAndTheAddressFormula": (
            "property.views.model", address, "every view shows storage[offset + sum(stride * index)]"),
        "ViewsShareStorageAndReshapeCopiesOnlyWhenViewFails": (
            "property.views.share_storage", view("reshape"), "views share storage; reshape copies exactly when view fails"),
        "WritesThroughAViewAreVisibleEverywhere": (
            "property.views.write", address, "a write through a view is visible through every view of the storage"),
        "IsContiguousAgreesWithItsDefinition": (
            "property.is_contiguous.definition", spec.is_contiguous["source"].clause,
            "is_contiguous(fmt) holds exactly for the strides empty(sizes, fmt) allocates"),
        "ClonePreservesTheStridesOfADenseTensor": (
            "property.clone.preserve_format", spec.preserve["source"].clause,
            "clone(preserve_format) of a dense tensor keeps its strides"),
        "ContiguousIsFormatContiguousAndValueEqual": (
            "property.contiguous.format", view("contiguous"), "contiguous(fmt) is fmt-contiguous and equal in value"),
        "TransposingTwiceRestoresTheGeometry": (
            "property.transpose.involution", view("transpose"), "transpose(d0, d1) twice restores the geometry"),
        "InvalidViewRequestsAreErrors": (
            "property.views.invalid_requests", view("as_strided"), "invalid view requests are errors"),
    }


def arithmetic_rows(spec: Spec) -> dict:
    return {
        "RandomLayoutsAddAndLayOutAsTheRuleSays": (
            "property.arith.random_layouts", spec.arith["output_layout"]["source"].clause,
            "add over random layouts broadcasts, is dense and follows the output-layout rule"),
        "OutAndInplaceAgreeWithTheFunctionalForm": (
            "property.arith.out_and_inplace", spec.arith["out"]["source"].clause,
            "out= and in-place agree with the functional form and keep the destination's layout"),
    }


PROP = re.compile(r"RC_GTEST_PROP\((\w+), (\w+), \(\)\)")


def with_rows(body: str, rows: dict) -> str:
    """Turns every RC_GTEST_PROP into TCTS_PROP with its row; a property without one is an error."""
    names = PROP.findall(body)
    missing = sorted({n for _, n in names} - set(rows))
    unused = sorted(set(rows) - {n for _, n in names})
    if missing or unused:
        raise SystemExit(f"emit_rapidcheck: property rows out of step: missing {missing}, unused {unused}")
    return PROP.sub(lambda m: "TCTS_PROP({}, {}, {})".format(m[1], m[2], ", ".join(map(ec.cstr, rows[m[2]]))), body)


SUITES = {
    "arithmetic": (arithmetic, "spec/arithmetic.toml", '"conformance/properties/arith_properties.h"'),
    "promotion": (promotion, "spec/promotion.toml", '"conformance/properties/properties.h"'),
    "casting": (casting, "spec/casting.toml, spec/promotion.toml", '"conformance/properties/properties.h"'),
    "strided": (strided, "spec/strided.toml", '"conformance/properties/strided_properties.h"'),
}


ROWS = {"arithmetic": arithmetic_rows, "promotion": promotion_rows, "casting": casting_rows, "strided": strided_rows}


def emit(spec: Spec, suite: str) -> str:
    body, src, helpers = SUITES[suite]
    return ec.cxx_file(src, "generators/emit_rapidcheck.py",
                       ["<gtest/gtest.h>", "<rapidcheck.h>", "<rapidcheck/gtest.h>", "<algorithm>", "<numeric>",
                        "<string>", "<vector>", f'"conformance/checks/{suite}.h"', helpers],
                       with_rows(body(spec), ROWS[suite](spec)))

if __name__ == "__main__":
    sys.exit(ec.main(sys.argv[1:], __doc__, emit, sorted(SUITES)))
