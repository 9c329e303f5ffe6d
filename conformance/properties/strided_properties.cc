// Properties of spec/strided.toml over random shapes and random chains of view ops
// (view_chains.h has the generators and the logical model). Their rows and the memory
// formats come from the spec, through strided_properties.inc (generators/emit_rapidcheck.py).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "conformance/checks/strided.h"
#include "conformance/properties/view_chains.h"

#include "conformance/properties/strided_properties.inc"

namespace tcts {
namespace {

TCTS_SUITE_SOURCE("strided");

TCTS_STRIDED_PROPERTIES(TCTS_PROPERTY_ROW)

// An allocating memory format and its strides, by the spec (spec/strided.toml
// [[memory_format]] and [is_contiguous], through strided_properties.inc).
struct FormatRule {
  MemoryFormat format;
  int rank;                  // -1: any rank
  bool empty_is_contiguous;  // numel == 0 makes any strides contiguous in this format
  std::int64_t size_floor;   // a size counts as at least this in the strides below
  std::vector<std::size_t> order;  // the dimensions innermost first; empty: n-1, ..., 0
  const char* id;

  // The strides empty(sizes, format) allocates: walking `order`, each stride is the
  // product of the sizes walked before it (generators/strided_model.py format_strides).
  std::vector<std::int64_t> Strides(const std::vector<std::int64_t>& sizes) const {
    std::vector<std::size_t> dims = order;
    if (dims.empty()) {
      for (std::size_t d = sizes.size(); d-- > 0;) dims.push_back(d);
    }
    std::vector<std::int64_t> strides(sizes.size(), 0);
    std::int64_t running = 1;
    for (std::size_t d : dims) {
      strides[d] = running;
      running *= std::max(sizes[d], size_floor);
    }
    return strides;
  }
  bool Fits(std::size_t rank_of) const { return rank < 0 || static_cast<std::size_t>(rank) == rank_of; }
  // is_contiguous(format) by its definition: the strides are those empty(sizes, format)
  // allocates, size-1 dimensions aside (and, for contiguous_format, any strides of an empty tensor).
  bool Contiguous(const TensorMeta& m) const {
    if (empty_is_contiguous && Numel(m.sizes) == 0) return true;
    if (!Fits(m.sizes.size())) return false;
    const std::vector<std::int64_t> want = Strides(m.sizes);
    for (std::size_t d = 0; d < m.sizes.size(); ++d)
      if (m.sizes[d] != 1 && m.strides[d] != want[d]) return false;
    return true;
  }
};
#define TCTS_DIMS(...) {__VA_ARGS__}
#define TCTS_FORMAT_RULE(format, rank, empty_is_contiguous, size_floor, order, id) \
  FormatRule{format, rank, empty_is_contiguous, size_floor, std::vector<std::size_t> TCTS_DIMS order, id},
const std::vector<FormatRule> kFormats = {TCTS_STRIDED_FORMATS(TCTS_FORMAT_RULE)};
#undef TCTS_FORMAT_RULE
#undef TCTS_DIMS

// A Case for one draw of a property: the property's row, saying what was drawn.
RowMeta Drawn(const RowMeta& row, const char* text) {
  return RowMeta{row.id, row.clause, "property", text, "", row.spec_row};
}

// Every view shows the elements the model says, at storage[offset + sum(stride * index)].
TCTS_PROPERTY(StridedProperties, ViewChainsMatchTheLogicalModelAndTheAddressFormula) {
  const prop::Chain chain = prop::RandomChain(cand, 5, true);
  Case c(Drawn(kPropertyRow_ViewChainsMatchTheLogicalModelAndTheAddressFormula, "random view chain"), cand);
  const auto got = ReadValues(c, chain.tensor, prop::Describe(chain));
  if (got) ExpectEq(c, Check::kValues, prop::Describe(chain) + " values", prop::ModelValues(chain.model, chain.dtype), *got);
  CheckAddressFormula(c, chain.tensor, prop::Describe(chain));
  prop::Settle(c);
}

// Views never copy: the chain's result shares the base's storage, and reshape copies exactly
// when view() of the same shape fails.
TCTS_PROPERTY(StridedProperties, ViewsShareStorageAndReshapeCopiesOnlyWhenViewFails) {
  prop::Needs(cand, {"storage"});
  const prop::Chain chain = prop::RandomChain(cand, 5, false);
  const StorageInfo a = prop::StorageOf(cand, chain.base);
  prop::Expect(prop::StorageOf(cand, chain.tensor).id == a.id, prop::Describe(chain), "the base's storage (a view)",
               "another storage");
  // reshape to a random factorisation: a view exactly when view() works (where both are declared).
  if (!prop::OpDeclared(cand, "view") || !prop::OpDeclared(cand, "reshape")) return;
  const std::optional<prop::ModelStep> drawn = prop::RandomStep(cand, chain.model, true);
  if (!drawn || drawn->step.kind != ViewKind::kReshape) return;
  const prop::ModelStep& m = *drawn;
  const std::string call = prop::Describe(chain) + "." + ToString(m.step);
  auto viewed = calls::view(cand, chain.tensor, m.step.args.vec());
  prop::Usable(cand, viewed, call + " as view()");
  const TensorHandle reshaped = prop::Get(cand, calls::reshape(cand, chain.tensor, m.step.args.vec()), call);
  const bool shares = prop::StorageOf(cand, reshaped).id == a.id;
  prop::Expect(viewed.ok() == shares, call,
               viewed.ok() ? "a view (view() of the shape worked)" : "a copy (view() of the shape was refused)",
               shares ? "a view of the base's storage" : "a copy");
  if (!viewed.ok()) {
    prop::Expect(viewed.error().kind == ErrorKind::kRuntimeError, call + " as view()", "RuntimeError",
                 Describe(viewed.error()));
  }
}

// Writing one element through a view is visible through the base and every other view of it.
TCTS_PROPERTY(StridedProperties, WritesThroughAViewAreVisibleEverywhere) {
  prop::Needs(cand, {"write_element"});
  const prop::Chain chain = prop::RandomChain(cand, 4, false);
  RC_PRE(!chain.model.ids.empty());
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, chain.model.ids.size());
  const std::int64_t id = chain.model.ids[k];
  const auto index = Indices(chain.model.sizes)[k];
  prop::Get(cand, calls::write_element(cand, chain.tensor, index, FixtureValue(chain.dtype, -1)),
            prop::Describe(chain) + Str(index) + " = -1");
  Case c(Drawn(kPropertyRow_WritesThroughAViewAreVisibleEverywhere, "write through a view"), cand);
  prop::Logical base_model = prop::Iota(prop::MetaOf(cand, chain.base).sizes);
  for (std::int64_t& v : base_model.ids) v = v == id ? -1 : v;
  prop::Logical view_model = chain.model;
  for (std::int64_t& v : view_model.ids) v = v == id ? -1 : v;
  if (auto got = ReadValues(c, chain.base, "base")) ExpectEq(c, Check::kValues, "base after the write", prop::ModelValues(base_model, chain.dtype), *got);
  if (auto got = ReadValues(c, chain.tensor, prop::Describe(chain))) ExpectEq(c, Check::kValues, "view after the write", prop::ModelValues(view_model, chain.dtype), *got);
  prop::Settle(c);
}

// is_contiguous(fmt) holds exactly when the strides are those empty(sizes, fmt) allocates
// by the spec's formula, size-1 dimensions aside (and, for contiguous_format, whenever the
// tensor is empty).
TCTS_PROPERTY(StridedProperties, IsContiguousAgreesWithItsDefinition) {
  prop::Needs(cand, {"is_contiguous"});
  prop::Needs(cand, Feature::kStrides);  // it is about the strides an op gives
  const prop::Chain chain = prop::RandomChain(cand, 4, false);
  const TensorMeta meta = prop::MetaOf(cand, chain.tensor);
  for (const FormatRule& f : kFormats) {
    const std::string call = prop::Describe(chain) + ".is_contiguous(" + MemoryFormatName(f.format) + ")";
    const bool got = prop::Get(cand, calls::is_contiguous(cand, chain.tensor, f.format), call);
    if (got != f.Contiguous(meta)) {
      RC_FAIL(call + " is " + Str(got) + " for sizes " + Str(meta.sizes) + ", strides " + Str(meta.strides) + " (" +
              f.id + (f.Fits(meta.sizes.size()) ? ": strides " + Str(f.Strides(meta.sizes)) : ": another rank") + ")");
    }
  }
}

// clone(preserve_format) of a dense, non-overlapping tensor keeps its exact strides.
TCTS_PROPERTY(StridedProperties, ClonePreservesTheStridesOfADenseTensor) {
  prop::Needs(cand, {"permute", "clone", "storage"});
  prop::Needs(cand, Feature::kStrides);  // it is about the strides an op gives
  std::vector<std::int64_t> sizes = *prop::StridedShape();
  std::vector<std::int64_t> dims(sizes.size());
  std::iota(dims.begin(), dims.end(), 0);
  for (std::size_t k = dims.size(); k > 1; --k) std::swap(dims[k - 1], dims[*rc::gen::inRange<std::size_t>(0, k)]);
  const TensorHandle base = prop::MakeTensor(cand, sizes, prop::DeclaredFixtureDType(cand), IotaValues(Numel(sizes)));
  // dense, in a random dimension order
  const TensorHandle dense = prop::Get(cand, calls::permute(cand, base, dims), "base.permute(" + Str(dims) + ")");
  const TensorHandle copy = prop::Get(cand, calls::clone(cand, dense, MemoryFormat::kPreserve),
                                      "base.permute(" + Str(dims) + ").clone(preserve_format)");
  const std::string call = "base.permute(" + Str(dims) + ").clone(preserve_format)";
  prop::ExpectEqual(call, "the input's strides", prop::MetaOf(cand, dense).strides, prop::MetaOf(cand, copy).strides);
  if (prop::ValuesReadable(cand, "the copy's values")) {
    prop::ExpectEqual(call, "the input's values", prop::ValuesOf(cand, dense), prop::ValuesOf(cand, copy));
  }
  prop::Expect(prop::StorageOf(cand, copy).id != prop::StorageOf(cand, base).id, call, "a new storage", "the input's storage");
}

// contiguous(fmt) is fmt-contiguous (by the spec's formula) and equal in value; an
// fmt-contiguous input comes back as itself.
TCTS_PROPERTY(StridedProperties, ContiguousIsFormatContiguousAndValueEqual) {
  prop::Needs(cand, {"contiguous", "storage"});
  prop::Needs(cand, Feature::kStrides);  // it is about the strides an op gives
  const prop::Chain chain = prop::RandomChain(cand, 4, false);
  const TensorMeta meta = prop::MetaOf(cand, chain.tensor);
  std::vector<FormatRule> fits;
  for (const FormatRule& f : kFormats)
    if (f.Fits(meta.sizes.size())) fits.push_back(f);
  const FormatRule format = *rc::gen::elementOf(fits);
  const bool was = format.Contiguous(meta);
  const std::string call = prop::Describe(chain) + ".contiguous(" + MemoryFormatName(format.format) + ")";
  const TensorHandle out = prop::Get(cand, calls::contiguous(cand, chain.tensor, format.format), call);
  const TensorMeta out_meta = prop::MetaOf(cand, out);
  prop::Expect(format.Contiguous(out_meta), call,
               std::string(format.id) + "-contiguous strides " + Str(format.Strides(out_meta.sizes)),
               "strides " + Str(out_meta.strides) + " for sizes " + Str(out_meta.sizes));
  if (prop::ValuesReadable(cand, "the copy's values")) {
    prop::ExpectEqual(call, "the input's values", prop::ValuesOf(cand, chain.tensor), prop::ValuesOf(cand, out));
  }
  const bool same = prop::StorageOf(cand, out).id == prop::StorageOf(cand, chain.tensor).id;
  prop::Expect(same == was, call,
               was ? "the input itself (it is already contiguous in that format)" : "a copy (the input is not contiguous in that format)",
               same ? "the input's storage" : "a copy");
  if (was) prop::ExpectEqual(call, "the input's strides", meta.strides, out_meta.strides);
}

// transpose(d0, d1) twice gives back the sizes, strides and offset.
TCTS_PROPERTY(StridedProperties, TransposingTwiceRestoresTheGeometry) {
  prop::Needs(cand, {"transpose"});
  const prop::Chain chain = prop::RandomChain(cand, 4, false);
  const TensorMeta before = prop::MetaOf(cand, chain.tensor);
  const std::int64_t n = std::max<std::int64_t>(static_cast<std::int64_t>(before.sizes.size()), 1);
  const std::int64_t d0 = *rc::gen::inRange<std::int64_t>(-n, n), d1 = *rc::gen::inRange<std::int64_t>(-n, n);
  const std::string call = ".transpose(" + Str(d0) + ", " + Str(d1) + ")";
  const TensorHandle once = prop::Get(cand, calls::transpose(cand, chain.tensor, d0, d1), prop::Describe(chain) + call);
  const TensorHandle twice = prop::Get(cand, calls::transpose(cand, once, d0, d1), prop::Describe(chain) + call + call);
  const TensorMeta after = prop::MetaOf(cand, twice);
  const std::string twice_call = prop::Describe(chain) + call + call;
  prop::ExpectEqual(twice_call, "the sizes before", before.sizes, after.sizes);
  if (prop::StridesReadable(cand, "the strides and offset after transposing twice")) {
    prop::ExpectEqual(twice_call, "the strides before", before.strides, after.strides);
    prop::ExpectEqual(twice_call, "the storage offset before", before.storage_offset, after.storage_offset);
  }
}

// Invalid requests are errors, never out-of-bounds views: as_strided reaching past the
// storage, view() of another numel, select() past the end.
TCTS_PROPERTY(StridedProperties, InvalidViewRequestsAreErrors) {
  // Each request is checked where its op is declared; the property is about all three.
  const bool strided = prop::OpDeclared(cand, "as_strided"), viewing = prop::OpDeclared(cand, "view"), selecting = prop::OpDeclared(cand, "select");
  if (!strided && !viewing && !selecting) prop::Needs(cand, {"as_strided"});
  const std::int64_t numel = *rc::gen::inRange<std::int64_t>(1, 30);
  const TensorHandle base = prop::MakeTensor(cand, {numel}, prop::DeclaredFixtureDType(cand), IotaValues(numel));
  const std::size_t rank = *rc::gen::inRange<std::size_t>(0, 4);
  const auto sizes = *rc::gen::container<std::vector<std::int64_t>>(rank, rc::gen::inRange<std::int64_t>(0, 5));
  const auto strides = *rc::gen::container<std::vector<std::int64_t>>(rank, rc::gen::inRange<std::int64_t>(0, 8));
  const std::int64_t offset = *rc::gen::inRange<std::int64_t>(0, numel + 3);
  std::int64_t extent = offset + 1;
  for (std::size_t k = 0; k < rank; ++k) extent += (sizes[k] - 1) * strides[k];
  const bool fits = Numel(sizes) == 0 || extent <= numel;
  const std::int64_t wrong_numel = numel + *rc::gen::inRange<std::int64_t>(1, 5);
  const std::int64_t past = *rc::gen::arbitrary<bool>() ? numel : -numel - 1;
  if (strided) {
    auto v = calls::as_strided(cand, base, sizes, strides, offset);
    const std::string call = "base.as_strided(" + Str(sizes) + ", " + Str(strides) + ", " + Str(offset) + ") of " +
                             Str(numel) + " elements";
    prop::Usable(cand, v, call);
    const std::string reach = "its last element at " + Str(extent - 1);
    if (fits) prop::Expect(v.ok(), call, "a view (" + reach + " fits)", v.ok() ? "a view" : Describe(v.error()));
    else prop::Expect(!v.ok() && v.error().kind == ErrorKind::kRuntimeError, call,
                      "RuntimeError (" + reach + " is past the storage)", v.ok() ? "a view" : Describe(v.error()));
  }
  if (viewing) {
    auto wrong = calls::view(cand, base, {wrong_numel});
    prop::Usable(cand, wrong, "base.view(" + Str(wrong_numel) + ")");
    // Answered first: error() of an ok answer would throw std::bad_variant_access instead of
    // saying what was answered.
    if (wrong.ok()) RC_FAIL("base.view(" + Str(wrong_numel) + ") of " + Str(numel) + " elements was answered, not refused");
    prop::Expect(wrong.error().kind == ErrorKind::kRuntimeError, "base.view(" + Str(wrong_numel) + ")", "RuntimeError",
                 Describe(wrong.error()));
  }
  if (selecting) {
    auto sel = calls::select(cand, base, 0, past);
    prop::Usable(cand, sel, "base.select(0, " + Str(past) + ")");
    if (sel.ok()) RC_FAIL("base.select(0, " + Str(past) + ") of " + Str(numel) + " elements was answered, not refused");
    prop::Expect(sel.error().kind == ErrorKind::kIndexError, "base.select(0, " + Str(past) + ")", "IndexError",
                 Describe(sel.error()));
  }
}

// Every row of the table has its property above.
TCTS_STRIDED_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
