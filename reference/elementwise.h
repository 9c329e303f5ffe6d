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

#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/tensor.h"

namespace tcts::ref {

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

// One operand as the loop reads or writes it.
struct LoopOperand {
  std::byte* data;                    // element [0, ..., 0]
  std::vector<std::int64_t> strides;  // in bytes, one per dimension of the loop shape (0: broadcast)
  ScalarType dtype;
};

// out = op(a, b) (add/sub: a + alpha*b, a - alpha*b) for every index of `shape`. Inputs
// are converted to `common`, computed in OpMath of it, rounded to `common` once and
// converted to out's dtype. The caller has checked dtypes (integral div never gets here),
// shapes and overlap.
void RunBinary(BinaryOp op, ScalarType common, const Scalar& alpha, const std::vector<std::int64_t>& shape,
               const LoopOperand& out, const LoopOperand& a, const LoopOperand& b);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_ELEMENTWISE_H_
