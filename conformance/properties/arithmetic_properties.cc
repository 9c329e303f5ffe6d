// Properties of spec/arithmetic.toml over random layouts (broadcast_layouts.h has the
// generators). Their rows come from the spec, through arithmetic_properties.inc
// (generators/emit_rapidcheck.py).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "conformance/checks/arithmetic.h"
#include "conformance/properties/broadcast_layouts.h"

#include "conformance/properties/arithmetic_properties.inc"

namespace tcts {
namespace {

TCTS_SUITE_SOURCE("arithmetic");

TCTS_ARITHMETIC_PROPERTIES(TCTS_PROPERTY_ROW)

// A random view chain a (its fixture dtype, value == its storage index) plus an operand b of random
// layout that broadcasts against it: the result's values follow broadcasting, it is dense,
// and when a alone decides the order (dense, no size-1 dimension, the result's shape)
// the result has a's strides (spec/arithmetic.toml [output_layout]).
TCTS_PROPERTY(ArithmeticProperties, RandomLayoutsAddAndLayOutAsTheRuleSays) {
  prop::Needs(cand, {"binary", "as_strided"});  // the operands' layouts are made with as_strided
  const prop::RandomAdd add = prop::AddRandomLayouts(cand, 4);
  const prop::Chain& a = add.a;
  const prop::Layout& b = add.b;
  const TensorMeta& ma = add.a_meta;
  const TensorMeta& m = add.result_meta;
  prop::ExpectEqual(add.call, "sizes", ma.sizes, m.sizes);
  prop::ExpectEqual(add.call, "dtype", a.dtype, m.dtype);
  const bool strided = prop::StridesReadable(cand, "the result's strides: dense, and a's where a decides");
  if (strided && Numel(m.sizes) > 0) {  // an empty result has no memory to be dense in
    prop::Expect(prop::DenseStrides(m.sizes, m.strides), add.call, "dense strides for sizes " + Str(m.sizes),
                 "strides " + Str(m.strides));
  }
  if (prop::ValuesReadable(cand, "the result's values")) {
    const std::vector<Scalar> got = prop::ValuesOf(cand, add.result);
    const std::vector<std::vector<std::int64_t>> index = Indices(m.sizes);
    std::vector<Scalar> want;
    for (std::size_t k = 0; k < index.size(); ++k) want.push_back(FixtureValue(a.dtype, a.model.ids[k] + b.At(index[k])));
    prop::ExpectEqual(add.call, "values", want, got);
  }
  const bool decides = strided && prop::DenseStrides(ma.sizes, ma.strides) && Numel(ma.sizes) > 0 &&
                       std::none_of(ma.sizes.begin(), ma.sizes.end(), [](std::int64_t s) { return s == 1; });
  if (decides) prop::ExpectEqual(add.call + " (a decides the order)", "a's strides", ma.strides, m.strides);
}

// out= of the right shape keeps its strides and storage; out= of another shape gets the
// functional result's layout (spec/arithmetic.toml [out]); in-place into a writable a gives
// the same values and keeps a's strides.
TCTS_PROPERTY(ArithmeticProperties, OutAndInplaceAgreeWithTheFunctionalForm) {
  prop::Needs(cand, {"binary", "binary_out", "binary_inplace", "as_strided", "storage"});
  const prop::RandomAdd add = prop::AddRandomLayouts(cand, 3);
  const prop::Chain& a = add.a;
  const prop::Layout& b = add.b;
  const TensorMeta& ma = add.a_meta;
  const TensorMeta& mr = add.result_meta;
  const bool readable = prop::ValuesReadable(cand, "out= and in-place values equal the functional result's");
  const bool strided = prop::StridesReadable(cand, "out= and in-place keep their strides and offset");
  const std::vector<Scalar> want = readable ? prop::ValuesOf(cand, add.result) : std::vector<Scalar>{};
  const std::string call = "add(" + prop::Describe(a) + ", " + b.text + ", out=";

  const TensorHandle empty = prop::MakeTensor(cand, {0}, a.dtype, {});
  prop::Get(cand, calls::binary_out(cand, BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1), empty),
            call + "empty)");
  if (strided) prop::ExpectEqual(call + "empty)", "the functional result's strides", mr.strides, prop::MetaOf(cand, empty).strides);
  if (readable) prop::ExpectEqual(call + "empty)", "the functional result's values", want, prop::ValuesOf(cand, empty));

  const prop::Layout out = prop::RandomBroadcastLayout(cand, ma.sizes, a.dtype);
  const bool right_shape = out.sizes == ma.sizes &&
                           std::none_of(out.strides.begin(), out.strides.end(), [](std::int64_t s) { return s == 0; });
  if (right_shape) {
    const StorageInfo before = prop::StorageOf(cand, out.tensor);
    prop::Get(cand, calls::binary_out(cand, BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1), out.tensor),
              call + out.text + ")");
    const TensorMeta mo = prop::MetaOf(cand, out.tensor);
    const std::string out_call = call + out.text + ")";
    if (strided) {
      prop::ExpectEqual(out_call, "out's own strides", out.strides, mo.strides);
      prop::ExpectEqual(out_call, "out's own storage offset", out.offset, mo.storage_offset);
    }
    prop::Expect(prop::StorageOf(cand, out.tensor).id == before.id, out_call, "out's own storage", "a new storage");
    if (readable) prop::ExpectEqual(out_call, "the functional result's values", want, prop::ValuesOf(cand, out.tensor));
  }

  bool writable = strided;  // no dimension of size > 1 with stride 0 (an expanded view)
  for (std::size_t d = 0; writable && d < ma.sizes.size(); ++d) writable = !(ma.sizes[d] > 1 && ma.strides[d] == 0);
  if (writable) {
    const std::string inplace_call = prop::Describe(a) + ".add_(" + b.text + ")";
    prop::Get(cand, calls::binary_inplace(cand, BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1)), inplace_call);
    prop::ExpectEqual(inplace_call, "a's own strides", ma.strides, prop::MetaOf(cand, a.tensor).strides);
    if (readable) prop::ExpectEqual(inplace_call, "the functional result's values", want, prop::ValuesOf(cand, a.tensor));
  }
}

// Every row of the table has its property above.
TCTS_ARITHMETIC_PROPERTIES(TCTS_PROPERTY_DEFINED)

}  // namespace
}  // namespace tcts
