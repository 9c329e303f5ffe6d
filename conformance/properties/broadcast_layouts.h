// Helpers of the arithmetic properties (arithmetic_properties.cc):
// a second operand of random layout that broadcasts against a random view chain.
#ifndef TCTS_CONFORMANCE_PROPERTIES_BROADCAST_LAYOUTS_H_
#define TCTS_CONFORMANCE_PROPERTIES_BROADCAST_LAYOUTS_H_

#include <rapidcheck.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "conformance/checks/arithmetic.h"
#include "conformance/properties/view_chains.h"

namespace tcts::prop {

// A tensor viewed into an iota storage (value == storage index) with its geometry.
struct Layout {
  TensorHandle tensor;
  std::vector<std::int64_t> sizes, strides;
  std::int64_t offset = 0;
  std::string text;
  // The value at `index` of the broadcast result this operand feeds.
  std::int64_t At(const std::vector<std::int64_t>& index) const {
    std::int64_t v = offset;
    const std::size_t lead = index.size() - sizes.size();
    for (std::size_t k = 0; k < sizes.size(); ++k) v += (sizes[k] == 1 ? 0 : index[lead + k]) * strides[k];
    return v;
  }
};

// Sizes that broadcast to `shape`: some dimensions 1, maybe fewer leading dimensions;
// strides dense in a random order, or 0 on a random dimension (an expanded layout); a
// random storage offset. The storage is of `dtype` (a fixture dtype: DeclaredFixtureDType).
inline Layout RandomBroadcastLayout(Candidate& cand, const std::vector<std::int64_t>& shape, DType dtype) {
  const std::size_t drop = *rc::gen::inRange<std::size_t>(0, shape.size() + 1);
  std::vector<std::int64_t> sizes(shape.begin() + static_cast<std::ptrdiff_t>(drop), shape.end());
  for (std::int64_t& s : sizes)
    if (*rc::gen::inRange(0, 4) == 0) s = 1;
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  order = *rc::gen::just(order);
  for (std::size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[*rc::gen::inRange<std::size_t>(0, k)]);
  std::vector<std::int64_t> strides(sizes.size(), 0);
  std::int64_t running = 1;
  for (std::size_t d : order) {
    strides[d] = running;
    running *= std::max<std::int64_t>(sizes[d], 1);
  }
  if (!sizes.empty() && *rc::gen::inRange(0, 3) == 0) strides[*rc::gen::inRange<std::size_t>(0, sizes.size())] = 0;
  Layout l{nullptr, sizes, strides, *rc::gen::inRange<std::int64_t>(0, 4), ""};
  const std::int64_t storage = l.offset + running + 1;
  const TensorHandle base = MakeTensor(cand, {storage}, dtype, IotaValues(storage));
  l.text = "as_strided(" + Str(sizes) + ", " + Str(strides) + ", " + std::to_string(l.offset) + ")";
  l.tensor = Get(cand, calls::as_strided(cand, base, sizes, strides, l.offset), l.text);
  return l;
}

// add(a, b) for a random view chain a (its fixture dtype, value == storage index) and an
// operand b of random layout and the same dtype broadcasting against it (Get: add must answer).
struct RandomAdd {
  std::string call;  // "add(base.t(), b)": the call that made `result`, for a failed draw's cause
  Chain a;
  TensorMeta a_meta;
  Layout b;
  TensorHandle result;
  TensorMeta result_meta;
};
inline RandomAdd AddRandomLayouts(Candidate& cand, int max_steps) {
  Chain a = RandomChain(cand, max_steps, false);
  const TensorMeta ma = MetaOf(cand, a.tensor);
  Layout b = RandomBroadcastLayout(cand, ma.sizes, a.dtype);
  std::string call = "add(" + Describe(a) + ", " + b.text + ")";
  const TensorHandle r = Get(cand, calls::binary(cand, BinaryOp::kAdd, a.tensor, b.tensor, Scalar::Int(1)), call);
  return RandomAdd{std::move(call), std::move(a), ma, std::move(b), r, MetaOf(cand, r)};
}

// Strides that are a dense layout of `sizes` under some order of the dimensions.
inline bool DenseStrides(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) { return strides[x] < strides[y]; });
  std::int64_t want = 1;
  for (std::size_t d : dims) {
    if (strides[d] != want) return false;
    want *= sizes[d];
  }
  return true;
}

}  // namespace tcts::prop

#endif  // TCTS_CONFORMANCE_PROPERTIES_BROADCAST_LAYOUTS_H_
