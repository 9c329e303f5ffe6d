// The elementwise loop engine of the reference: out[i] = op(a[i], b[i]) over a broadcast
// shape, for operands of any dtype and any strides.
//
// How it runs (the same plan TensorIterator makes, minus threads):
//   1. Dimensions of size 1 are dropped; the rest are ordered by the output's strides
//      (outermost first) and adjacent dimensions that are contiguous for every operand are
//      merged, so a dense operation becomes one long run.
//   2. The innermost dimension is a run; an odometer walks the outer dimensions.
//   3. A run whose operands all have the result dtype (computed in itself) goes through a
//      typed loop the compiler vectorises; any other run is converted chunk by chunk into
//      small buffers of the compute type (input -> result dtype -> opmath), computed, and
//      converted back (opmath -> result dtype -> output dtype).
#ifndef TCTS_REFERENCE_ELEMENTWISE_H_
#define TCTS_REFERENCE_ELEMENTWISE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "reference/arith.h"
#include "reference/tensor.h"

namespace tcts::ref {

// One operand as the loop reads or writes it.
struct LoopOperand {
  std::byte* data;                    // element [0, ..., 0]
  std::vector<std::int64_t> strides;  // in bytes, one per dimension of the loop shape (0: broadcast)
  ScalarType dtype;
  // `data` is one value in host memory (every stride 0): a Python scalar or a zero-dim cpu
  // tensor. A device loop takes it by value; the CPU loop reads it where it is.
  bool host_value = false;
};

// Strides (in elements) that read a tensor of `sizes` as if broadcast to `shape` (0 for a
// size-1 or missing dimension).
std::vector<std::int64_t> BroadcastStrides(const std::vector<std::int64_t>& sizes,
                                           const std::vector<std::int64_t>& strides,
                                           const std::vector<std::int64_t>& shape);
// t, broadcast to `shape`, as a loop operand (byte strides; no data when t is empty).
LoopOperand TensorOperand(const Tensor& t, const std::vector<std::int64_t>& shape);

// The loop's geometry: size-1 dimensions dropped, the rest ordered by the operands'
// strides (outermost first: out's, then a's, then b's decide), adjacent dimensions that
// are contiguous for every operand merged. The device backend walks the same plan.
struct Plan {
  std::vector<std::int64_t> sizes;                  // outermost first
  std::vector<std::array<std::int64_t, 3>> strides;  // per dimension: out, a, b (bytes)
};
Plan MakePlan(const std::vector<std::int64_t>& shape, const std::array<const LoopOperand*, 3>& ops);

// alpha != 1: add/sub compute x + alpha*y instead of x +/- y.
bool IsScaled(const Scalar& alpha);
// alpha as the loop multiplies with it, in compute type M = OpMath of result type C: sub(a, b,
// alpha) is add(a, b, -alpha); an integral or bool result takes alpha as C (wrapping), a
// floating or complex one at opmath precision.
template <class C, class M = typename OpMath<C>::type>
M ScaleFor(BinaryOp op, const Scalar& alpha) {
  const Scalar scaled = op == BinaryOp::kSub ? alpha.Negated() : alpha;
  if constexpr (IsComplexT<M>::value || std::is_floating_point_v<M>) return scaled.To<M>();
  else return Convert<M>(scaled.To<C>());
}

// out = op(a, b) (add/sub: a + alpha*b, a - alpha*b) for every index of `shape`. Inputs
// are converted to `common`, computed in OpMath of it, rounded to `common` once and
// converted to out's dtype. The caller has checked dtypes (integral div never gets here),
// shapes and overlap.
void RunBinary(BinaryOp op, ScalarType common, const Scalar& alpha, const std::vector<std::int64_t>& shape,
               const LoopOperand& out, const LoopOperand& a, const LoopOperand& b);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_ELEMENTWISE_H_
