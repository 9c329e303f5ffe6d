#include "reference/elementwise.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <type_traits>

#include "reference/arith.h"
#include "reference/checked.h"

namespace tcts::ref {

// ---------------------------------------------------------------- operands
std::vector<std::int64_t> BroadcastStrides(const std::vector<std::int64_t>& sizes,
                                           const std::vector<std::int64_t>& strides,
                                           const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> out(shape.size(), 0);
  const std::size_t lead = shape.size() - sizes.size();
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    out[lead + k] = sizes[k] == 1 && shape[lead + k] != 1 ? 0 : strides[k];
  }
  return out;
}

LoopOperand TensorOperand(const Tensor& t, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides = BroadcastStrides(t.sizes(), t.strides(), shape);
  // In bytes. A stride along a dimension of size > 1 is within the storage's checked extent
  // (Note [Geometry overflow]); a size-1 loop dimension is never stepped (MakePlan drops it)
  // and its stride, which may be anything, becomes 0 rather than overflow.
  for (std::size_t d = 0; d < strides.size(); ++d) {
    strides[d] = shape[d] == 1 ? 0 : strides[d] * Info(t.dtype()).itemsize;
  }
  return LoopOperand{t.numel() ? t.ElementPtr(t.storage_offset()) : nullptr, strides, t.dtype()};
}

// ---------------------------------------------------------------- the plan
Plan MakePlan(const std::vector<std::int64_t>& shape, const std::array<const LoopOperand*, 3>& ops) {
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) dims.push_back(d);
  // Outermost first: larger output stride first, then a's, then b's (a dense output makes
  // this its memory order).
  std::stable_sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) {
    for (const LoopOperand* o : ops) {
      if (o->strides[x] != o->strides[y]) return o->strides[x] > o->strides[y];
    }
    return false;
  });
  Plan p;
  for (std::size_t d : dims) {
    const std::array<std::int64_t, 3> st = {ops[0]->strides[d], ops[1]->strides[d], ops[2]->strides[d]};
    if (!p.sizes.empty()) {
      const std::array<std::int64_t, 3>& outer = p.strides.back();
      bool merge = true;
      for (int k = 0; k < 3; ++k) merge = merge && (CheckedInt(st[k]) * shape[d]).value() == outer[k];
      if (merge) {
        p.sizes.back() *= shape[d];
        p.strides.back() = st;
        continue;
      }
    }
    p.sizes.push_back(shape[d]);
    p.strides.push_back(st);
  }
  return p;
}

bool IsScaled(const Scalar& alpha) { return !(alpha.kind == Scalar::Kind::kInt && alpha.i == 1); }

namespace {

// Calls run(out, a, b, n, stride_out, stride_a, stride_b) for every innermost run.
template <class Run>
void ForEachRun(const Plan& p, std::byte* o, const std::byte* a, const std::byte* b, Run&& run) {
  for (std::int64_t s : p.sizes)
    if (s == 0) return;
  if (p.sizes.empty()) return run(o, a, b, 1, 0, 0, 0);
  const std::size_t outer = p.sizes.size() - 1;
  const std::array<std::int64_t, 3>& inner = p.strides[outer];
  std::vector<std::int64_t> index(outer, 0);
  while (true) {
    run(o, a, b, p.sizes[outer], inner[0], inner[1], inner[2]);
    std::size_t k = outer;
    for (; k > 0; --k) {
      const std::array<std::int64_t, 3>& st = p.strides[k - 1];
      o += st[0], a += st[1], b += st[2];
      if (++index[k - 1] < p.sizes[k - 1]) break;
      o -= st[0] * p.sizes[k - 1], a -= st[1] * p.sizes[k - 1], b -= st[2] * p.sizes[k - 1];
      index[k - 1] = 0;
    }
    if (k == 0) return;
  }
}

// ---------------------------------------------------------------- the op as a functor
// Calls body(f) with f(x, y) = the op in compute type M (arith.h Apply), one lambda per op
// so that each loop is compiled, and vectorised, for a fixed op.
template <class M, class Body>
void WithOp(BinaryOp op, bool scaled, M alpha, Body&& body) {
  if (scaled && (op == BinaryOp::kAdd || op == BinaryOp::kSub)) {
    return body([alpha](M x, M y) { return Apply(BinaryOp::kAdd, true, alpha, x, y); });
  }
  switch (op) {
    case BinaryOp::kAdd: return body([](M x, M y) { return Apply(BinaryOp::kAdd, false, M(), x, y); });
    case BinaryOp::kSub: return body([](M x, M y) { return Apply(BinaryOp::kSub, false, M(), x, y); });
    case BinaryOp::kMul: return body([](M x, M y) { return Apply(BinaryOp::kMul, false, M(), x, y); });
    case BinaryOp::kDiv: return body([](M x, M y) { return Apply(BinaryOp::kDiv, false, M(), x, y); });
  }
}

// A run whose operands all hold T and compute in T: plain loops the compiler vectorises.
template <class T, class F>
void TypedRun(std::byte* o, const std::byte* a, const std::byte* b, std::int64_t n, std::int64_t so,
              std::int64_t sa, std::int64_t sb, F f) {
  constexpr std::int64_t s = sizeof(T);
  T* out = reinterpret_cast<T*>(o);
  const T* x = reinterpret_cast<const T*>(a);
  const T* y = reinterpret_cast<const T*>(b);
  if (so == s && sa == s && sb == s) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
  } else if (so == s && sa == s && sb == 0) {
    const T y0 = *y;
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i], y0);
  } else if (so == s && sa == 0 && sb == s) {
    const T x0 = *x;
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(x0, y[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<T*>(o + i * so) =
          f(*reinterpret_cast<const T*>(a + i * sa), *reinterpret_cast<const T*>(b + i * sb));
    }
  }
}

constexpr std::int64_t kChunk = 256;

// n elements of dtype `dtype` at p (byte stride s), converted to the result type C and
// then to its compute type M.
template <class C, class M>
void Load(ScalarType dtype, const std::byte* p, std::int64_t s, std::int64_t n, M* dst) {
  Dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t i = 0; i < n; ++i) {
      const T v = LoadValue<T>(p + i * s);
      if constexpr (std::is_same_v<T, C>) dst[i] = Convert<M>(v);
      else dst[i] = Convert<M>(Convert<C>(v));
    }
  });
}

// n compute-type values rounded to C once, then converted to dtype `dtype` at p.
template <class C, class M>
void Store(ScalarType dtype, std::byte* p, std::int64_t s, std::int64_t n, const M* src) {
  Dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t i = 0; i < n; ++i) {
      const C rounded = Convert<C>(src[i]);
      if constexpr (std::is_same_v<T, C>) *reinterpret_cast<T*>(p + i * s) = rounded;
      else *reinterpret_cast<T*>(p + i * s) = Convert<T>(rounded);
    }
  });
}

// Any other run: chunks through buffers of the compute type. An input already in M with
// unit stride is read in place, and an output in M with unit stride is written in place
// (bool inputs excepted: their bytes go through LoadValue).
template <class C, class M, class F>
void BufferedRun(ScalarType common, const LoopOperand& out, const LoopOperand& a, const LoopOperand& b, std::byte* o,
                 const std::byte* pa, const std::byte* pb, std::int64_t n, std::int64_t so, std::int64_t sa,
                 std::int64_t sb, F f) {
  constexpr bool kRounds = !std::is_same_v<C, M>;  // float16/bfloat16/complex32 results
  constexpr bool kReadsInPlace = !kRounds && !std::is_same_v<M, bool>;
  constexpr std::int64_t m_size = sizeof(M);
  const bool a_direct = kReadsInPlace && a.dtype == common && sa == m_size;
  const bool b_direct = kReadsInPlace && b.dtype == common && sb == m_size;
  const bool o_direct = !kRounds && out.dtype == common && so == m_size;
  M xa[kChunk], xb[kChunk], r[kChunk];
  for (std::int64_t start = 0; start < n; start += kChunk) {
    const std::int64_t m = std::min(kChunk, n - start);
    const M* x = a_direct ? reinterpret_cast<const M*>(pa) + start : xa;
    const M* y = b_direct ? reinterpret_cast<const M*>(pb) + start : xb;
    M* z = o_direct ? reinterpret_cast<M*>(o) + start : r;
    if (!a_direct) Load<C, M>(a.dtype, pa + start * sa, sa, m, xa);
    if (!b_direct) Load<C, M>(b.dtype, pb + start * sb, sb, m, xb);
    for (std::int64_t i = 0; i < m; ++i) z[i] = f(x[i], y[i]);
    if (!o_direct) Store<C, M>(out.dtype, o + start * so, so, m, r);
  }
}

}  // namespace

void RunBinary(BinaryOp op, ScalarType common, const Scalar& alpha, const std::vector<std::int64_t>& shape,
               const LoopOperand& out, const LoopOperand& a, const LoopOperand& b) {
  const Plan plan = MakePlan(shape, {&out, &a, &b});
  Dispatch(common, [&](auto tag) {
    using C = typename decltype(tag)::type;  // the result dtype's storage type
    using M = typename OpMath<C>::type;      // what it computes in
    const M scale = ScaleFor<C>(op, alpha);
    const bool typed = std::is_same_v<C, M> && a.dtype == common && b.dtype == common && out.dtype == common;
    WithOp<M>(op, IsScaled(alpha), scale, [&](auto f) {
      ForEachRun(plan, out.data, a.data, b.data,
                 [&](std::byte* o, const std::byte* pa, const std::byte* pb, std::int64_t n, std::int64_t so,
                     std::int64_t sa, std::int64_t sb) {
                   if constexpr (std::is_same_v<C, M> && !std::is_same_v<C, bool>) {  // bools: LoadValue
                     if (typed) return TypedRun<C>(o, pa, pb, n, so, sa, sb, f);
                   }
                   BufferedRun<C, M>(common, out, a, b, o, pa, pb, n, so, sa, sb, f);
                 });
    });
  });
}

}  // namespace tcts::ref
