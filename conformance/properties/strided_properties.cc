// Properties of spec/strided.toml over random shapes and random chains of view ops
// (view_chains.h has the generators and the logical model). Their rows and the memory
// formats come from the spec, through strided_properties.inc (generators/emit_rapidcheck.py).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "conformance/checks/strided.h"
#include "conformance/properties/view_chains.h"

#include "conformance/properties/strided_properties.inc"

namespace tcts {
namespace {

TCTS_STRIDED_PROPERTIES(TCTS_PROPERTY_ROW)

struct FormatRule {
  MemoryFormat format;
  int rank;             // -1: any rank
  bool empty_is_contiguous;  // numel == 0 makes any strides contiguous in this format
};
// spec/strided.toml [[memory_format]] (the allocating ones) and [is_contiguous].
#define TCTS_FORMAT_RULE(format, rank, empty_is_contiguous, id) FormatRule{format, rank, empty_is_contiguous},
const FormatRule kFormats[] = {TCTS_STRIDED_FORMATS(TCTS_FORMAT_RULE)};
#undef TCTS_FORMAT_RULE

// A property's verdict from a Case's mismatches (empty = holds).
#define TCTS_RC_CASE(c) RC_ASSERT((c).MismatchText() == std::string())

bool Unsupported(const Error& e) { return e.kind == ErrorKind::kNotSupported; }

// A Case for one draw of a property: the property's row, saying what was drawn.
RowMeta Drawn(const RowMeta& row, const char* text) { return RowMeta{row.id, row.clause, "property", text}; }

// Every view shows the elements the model says, at storage[offset + sum(stride * index)].
TCTS_PROPERTY(StridedProperties, ViewChainsMatchTheLogicalModelAndTheAddressFormula) {
  const prop::Chain chain = prop::RandomChain(5, true);
  Case c(Drawn(kPropertyRow_ViewChainsMatchTheLogicalModelAndTheAddressFormula, "random view chain"));
  const auto got = ReadValues(c, chain.tensor, prop::Describe(chain));
  if (got) ExpectEq(c, prop::Describe(chain) + " values", prop::ModelValues(chain.model), *got);
  CheckAddressFormula(c, chain.tensor, prop::Describe(chain));
  TCTS_RC_CASE(c);
}

// Views never copy: the chain's result shares the base's storage unless a reshape had to copy,
// and reshape copies exactly when view() of the same shape fails.
TCTS_PROPERTY(StridedProperties, ViewsShareStorageAndReshapeCopiesOnlyWhenViewFails) {
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
TCTS_PROPERTY(StridedProperties, WritesThroughAViewAreVisibleEverywhere) {
  const prop::Chain chain = prop::RandomChain(4, false);
  RC_PRE(!chain.model.ids.empty());
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, chain.model.ids.size());
  const std::int64_t id = chain.model.ids[k];
  const auto index = Indices(chain.model.sizes)[k];
  Candidate& cand = CurrentCandidate();
  const Status s = cand.write_element(chain.tensor, index, Scalar::Int(-1));
  if (!s.ok() && Unsupported(s.error())) RC_DISCARD("write_element not supported");
  RC_ASSERT(s.ok());
  Case c(Drawn(kPropertyRow_WritesThroughAViewAreVisibleEverywhere, "write through a view"));
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
TCTS_PROPERTY(StridedProperties, IsContiguousAgreesWithItsDefinition) {
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
TCTS_PROPERTY(StridedProperties, ClonePreservesTheStridesOfADenseTensor) {
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
TCTS_PROPERTY(StridedProperties, ContiguousIsFormatContiguousAndValueEqual) {
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
TCTS_PROPERTY(StridedProperties, TransposingTwiceRestoresTheGeometry) {
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
TCTS_PROPERTY(StridedProperties, InvalidViewRequestsAreErrors) {
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

// Every row of the table has its property above.
TCTS_STRIDED_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
