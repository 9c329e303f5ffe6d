// RapidCheck helpers of the strided and arithmetic properties: random shapes, random chains
// of view ops, and a logical model of what those ops mean.
//
// The model knows nothing of strides or storage: a tensor is its sizes and, per element in
// row-major order, the id of the base element it shows (the base holds 0..n-1, so its ids
// are its values). transpose/permute reorder axes, narrow/slice/select pick indices, expand
// repeats, unsqueeze/squeeze/view/reshape keep the row-major order. A candidate's strided
// answer must show exactly the model's elements, so the stride arithmetic is checked
// against meaning, not against a second copy of the same arithmetic.
#ifndef TCTS_CONFORMANCE_PROPERTIES_VIEW_CHAINS_H_
#define TCTS_CONFORMANCE_PROPERTIES_VIEW_CHAINS_H_

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "conformance/checks/strided.h"
#include "conformance/properties/properties.h"

namespace tcts {
inline void showValue(const ViewStep& s, std::ostream& os) { os << ToString(s); }
}  // namespace tcts

namespace tcts::prop {

struct Logical {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> ids;  // row-major
};

inline Logical Iota(const std::vector<std::int64_t>& sizes) {
  Logical l{sizes, std::vector<std::int64_t>(static_cast<std::size_t>(Numel(sizes)))};
  std::iota(l.ids.begin(), l.ids.end(), 0);
  return l;
}

// out[index] = in[source(index)] over every index of out_sizes.
template <class F>
Logical Gather(const Logical& in, const std::vector<std::int64_t>& out_sizes, F source) {
  const std::vector<std::int64_t> in_strides = [&] {
    std::vector<std::int64_t> s(in.sizes.size(), 1);
    for (std::size_t k = in.sizes.size(); k-- > 1;) s[k - 1] = s[k] * in.sizes[k];
    return s;
  }();
  Logical out{out_sizes, {}};
  for (const auto& index : Indices(out_sizes)) {
    const std::vector<std::int64_t> src = source(index);
    std::int64_t linear = 0;
    for (std::size_t k = 0; k < src.size(); ++k) linear += src[k] * in_strides[k];
    out.ids.push_back(in.ids[static_cast<std::size_t>(linear)]);
  }
  return out;
}

inline Logical Permute(const Logical& in, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t d : dims) sizes.push_back(in.sizes[static_cast<std::size_t>(d)]);
  return Gather(in, sizes, [&](const std::vector<std::int64_t>& i) {
    std::vector<std::int64_t> src(i.size());
    for (std::size_t k = 0; k < dims.size(); ++k) src[static_cast<std::size_t>(dims[k])] = i[k];
    return src;
  });
}

// Elements start, start+step, ... (count of them) along dim.
inline Logical Slice(const Logical& in, std::size_t dim, std::int64_t start, std::int64_t count, std::int64_t step) {
  std::vector<std::int64_t> sizes = in.sizes;
  sizes[dim] = count;
  return Gather(in, sizes, [&](std::vector<std::int64_t> i) {
    i[dim] = start + i[dim] * step;
    return i;
  });
}

inline Logical Reshape(const Logical& in, const std::vector<std::int64_t>& sizes) { return Logical{sizes, in.ids}; }

inline Logical Expand(const Logical& in, const std::vector<std::int64_t>& sizes) {
  const std::size_t lead = sizes.size() - in.sizes.size();
  return Gather(in, sizes, [&](const std::vector<std::int64_t>& i) {
    std::vector<std::int64_t> src(i.begin() + static_cast<std::ptrdiff_t>(lead), i.end());
    for (std::size_t k = 0; k < src.size(); ++k)
      if (in.sizes[k] == 1) src[k] = 0;
    return src;
  });
}

// A step and what it means.
struct ModelStep {
  ViewStep step;
  Logical result;
};

inline Dims ToDims(const std::vector<std::int64_t>& v) {
  Dims d{static_cast<int>(v.size()), {}};
  std::copy(v.begin(), v.end(), d.v);
  return d;
}

// A dimension of a rank-n tensor, sometimes written negatively.
inline std::int64_t SomeDim(std::size_t dim, std::size_t rank) {
  return *rc::gen::arbitrary<bool>() ? static_cast<std::int64_t>(dim) : static_cast<std::int64_t>(dim) - static_cast<std::int64_t>(rank);
}

// A random valid step on `in` of one of `kinds` (RandomStep's numbers, below), and the model's
// result.
inline ModelStep DrawStep(const Logical& in, const std::vector<int>& kinds) {
  const std::size_t n = in.sizes.size();
  const auto pick_dim = [&] { return static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, n)); };
  const auto mk = [](ViewKind k, const std::vector<std::int64_t>& args) { return ViewStep{k, ToDims(args), MemoryFormat::kContiguous}; };
  switch (*rc::gen::elementOf(kinds)) {
    case 0: {  // t
      std::vector<std::int64_t> dims(n);
      std::iota(dims.begin(), dims.end(), 0);
      std::reverse(dims.begin(), dims.end());
      return {mk(ViewKind::kT, {}), Permute(in, dims)};
    }
    case 1: {  // transpose
      if (n == 0) return {mk(ViewKind::kTranspose, {0, -1}), in};
      const std::size_t a = pick_dim(), b = pick_dim();
      std::vector<std::int64_t> dims(n);
      std::iota(dims.begin(), dims.end(), 0);
      std::swap(dims[a], dims[b]);
      return {mk(ViewKind::kTranspose, {SomeDim(a, n), SomeDim(b, n)}), Permute(in, dims)};
    }
    case 2: {  // permute
      std::vector<std::int64_t> dims(n);
      std::iota(dims.begin(), dims.end(), 0);
      for (std::size_t k = n; k > 1; --k) std::swap(dims[k - 1], dims[*rc::gen::inRange<std::size_t>(0, k)]);
      std::vector<std::int64_t> args;
      for (std::int64_t d : dims) args.push_back(SomeDim(static_cast<std::size_t>(d), n));
      return {mk(ViewKind::kPermute, args), Permute(in, dims)};
    }
    case 3: {  // narrow
      const std::size_t d = pick_dim();
      const std::int64_t size = in.sizes[d];
      const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, size + 1);
      const std::int64_t length = *rc::gen::inRange<std::int64_t>(0, size - start + 1);
      return {mk(ViewKind::kNarrow, {SomeDim(d, n), start, length}), Slice(in, d, start, length, 1)};
    }
    case 4: {  // slice with a step
      const std::size_t d = pick_dim();
      const std::int64_t size = in.sizes[d];
      const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, size + 1);
      const std::int64_t end = *rc::gen::inRange<std::int64_t>(start, size + 1);
      const std::int64_t step = *rc::gen::inRange<std::int64_t>(1, 4);
      return {mk(ViewKind::kSlice, {SomeDim(d, n), start, end, step}), Slice(in, d, start, (end - start + step - 1) / step, step)};
    }
    case 5: {  // select (narrow to one, then drop the dim)
      const std::size_t d = pick_dim();
      if (in.sizes[d] == 0) return {mk(ViewKind::kNarrow, {static_cast<std::int64_t>(d), 0, 0}), Slice(in, d, 0, 0, 1)};
      const std::int64_t index = *rc::gen::inRange<std::int64_t>(0, in.sizes[d]);
      Logical one = Slice(in, d, index, 1, 1);
      std::vector<std::int64_t> sizes = in.sizes;
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(d));
      return {mk(ViewKind::kSelect, {SomeDim(d, n), index - (*rc::gen::arbitrary<bool>() ? in.sizes[d] : 0)}), Reshape(one, sizes)};
    }
    case 6: {  // expand: size-1 dims grow, maybe one new leading dim
      std::vector<std::int64_t> sizes = in.sizes;
      for (std::int64_t& s : sizes)
        if (s == 1) s = *rc::gen::inRange<std::int64_t>(0, 4);
      if (*rc::gen::arbitrary<bool>()) sizes.insert(sizes.begin(), *rc::gen::inRange<std::int64_t>(1, 3));
      return {mk(ViewKind::kExpand, sizes), Expand(in, sizes)};
    }
    case 7: {  // unsqueeze
      const std::size_t d = *rc::gen::inRange<std::size_t>(0, n + 1);
      std::vector<std::int64_t> sizes = in.sizes;
      sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d), 1);
      return {mk(ViewKind::kUnsqueeze, {SomeDim(d, n + 1)}), Reshape(in, sizes)};
    }
    case 8: {  // squeeze() or squeeze(dim)
      std::vector<std::int64_t> sizes;
      if (*rc::gen::arbitrary<bool>()) {
        for (std::int64_t s : in.sizes)
          if (s != 1) sizes.push_back(s);
        return {mk(ViewKind::kSqueeze, {}), Reshape(in, sizes)};
      }
      const std::size_t d = pick_dim();
      sizes = in.sizes;
      if (sizes[d] == 1) sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(d));
      return {mk(ViewKind::kSqueeze, {SomeDim(d, n)}), Reshape(in, sizes)};
    }
    default: {  // reshape: flatten, merge two neighbours, or split one dim
      std::vector<std::int64_t> sizes = in.sizes;
      const int how = *rc::gen::inRange(0, 3);
      if (how == 0 || n == 0) {
        sizes = {Numel(in.sizes)};
      } else if (how == 1 && n >= 2) {
        const std::size_t d = *rc::gen::inRange<std::size_t>(0, n - 1);
        sizes[d] *= sizes[d + 1];
        sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(d) + 1);
      } else {
        const std::size_t d = pick_dim();
        const std::int64_t s = sizes[d];
        std::int64_t f = 1;
        for (std::int64_t c = 2; c <= s; ++c)
          if (s % c == 0) { f = c; break; }
        sizes[d] = s / std::max<std::int64_t>(f, 1);
        sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d) + 1, f);
      }
      return {mk(ViewKind::kReshape, sizes), Reshape(in, sizes)};
    }
  }
}

// The view ops a chain draws from, by RandomStep's numbers, and whether the candidate declares
// any: a chain is drawn over the ops the library has (a library with transpose and no expand
// has its transposes checked).
inline const char* const kChainOps[] = {"t", "transpose", "permute", "narrow", "slice", "select",
                                        "expand", "unsqueeze", "squeeze", "reshape"};
inline bool AnyChainOpDeclared(Candidate& cand, bool allow_reshape) {
  for (int k = 0; k < (allow_reshape ? 10 : 9); ++k)
    if (OpDeclared(cand, kChainOps[k])) return true;
  return false;
}

// A random valid step on `in`, of an op the candidate declares, and the model's result;
// nullopt when no declared op applies to `in`. `allow_reshape`: reshape may copy.
inline std::optional<ModelStep> RandomStep(Candidate& cand, const Logical& in, bool allow_reshape) {
  const std::size_t n = in.sizes.size();
  std::vector<int> candidates = {1, 2, 6, 7};  // transpose, permute, expand, unsqueeze
  if (n <= 2) candidates.push_back(0);         // t
  if (n > 0) candidates.insert(candidates.end(), {3, 4, 5, 8});
  if (allow_reshape) candidates.push_back(9);
  const bool empty_dim = std::find(in.sizes.begin(), in.sizes.end(), 0) != in.sizes.end();
  std::vector<int> kinds;
  for (int k : candidates) {
    // select on an empty dimension narrows it to nothing instead (below): it needs narrow too.
    if (OpDeclared(cand, kChainOps[k]) && (k != 5 || !empty_dim || OpDeclared(cand, "narrow"))) kinds.push_back(k);
  }
  if (kinds.empty()) return std::nullopt;
  return DrawStep(in, kinds);
}

// A random shape of rank 0..4 with sizes 0..4 (sizes 0 rarer).
inline rc::Gen<std::vector<std::int64_t>> StridedShape() {
  return rc::gen::container<std::vector<std::int64_t>>(
      *rc::gen::inRange(0, 5), rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::just<std::int64_t>(0)},
                                                                      {9, rc::gen::inRange<std::int64_t>(1, 5)}}));
}

// The dtype of a property's fixtures where its clause does not depend on the dtype: the first
// of FixtureDTypes the candidate declares (int64 where it does), as for the strided suite's
// cases (checks/strided.h). When it declares none of them, the property is NOT_SUPPORTED
// naming them and the draw ends.
inline DType DeclaredFixtureDType(Candidate& cand) { return Drawable(cand, FixtureDTypes()).front(); }

// Candidate and model side by side after a random chain of views from an iota base.
struct Chain {
  TensorHandle base;
  TensorHandle tensor;
  Logical model;
  std::vector<ViewStep> steps;
  DType dtype;  // the base's (DeclaredFixtureDType)
};

inline std::string Describe(const Chain& c) {
  std::string s = "base";
  for (const ViewStep& v : c.steps) s += "." + ToString(v);
  return s;
}

// Builds a random chain of up to `max_steps` from a base in the fixture dtype, over the view ops
// the candidate declares (none: the property is NOT_SUPPORTED, before anything is drawn). Fails
// the draw if the candidate cannot make the base or rejects a step the rules allow.
inline Chain RandomChain(Candidate& cand, int max_steps, bool allow_reshape) {
  if (!AnyChainOpDeclared(cand, allow_reshape)) Needs(cand, {"transpose"});
  const DType dtype = DeclaredFixtureDType(cand);
  const std::vector<std::int64_t> sizes = *StridedShape();
  const TensorHandle base = MakeTensor(cand, sizes, dtype, IotaValues(Numel(sizes)));
  Chain c{base, base, Iota(sizes), {}, dtype};
  const int steps = *rc::gen::inRange(1, max_steps + 1);
  for (int k = 0; k < steps; ++k) {
    std::optional<ModelStep> drawn = RandomStep(cand, c.model, allow_reshape);
    if (!drawn) break;  // no declared op applies to this shape: the chain ends here
    ModelStep& m = *drawn;
    if (Numel(m.result.sizes) > 4096) break;  // expand chains can grow; keep cases small
    auto next = Apply(cand, m.step, c.tensor);
    c.steps.push_back(m.step);
    Usable(cand, next, Describe(c));
    if (!next.ok()) RC_FAIL(Describe(c) + " was rejected: " + tcts::Describe(next.error()));
    c.tensor = next.value();
    c.model = std::move(m.result);
  }
  return c;
}

// The elements the model says the tensor shows, as the candidate reads values of `dtype`.
inline std::vector<Scalar> ModelValues(const Logical& l, DType dtype) {
  std::vector<Scalar> v;
  for (std::int64_t id : l.ids) v.push_back(FixtureValue(dtype, id));
  return v;
}

}  // namespace tcts::prop

#endif  // TCTS_CONFORMANCE_PROPERTIES_VIEW_CHAINS_H_
