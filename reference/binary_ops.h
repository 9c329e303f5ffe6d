// add, sub, mul, div (true division) with PyTorch's promotion, broadcasting, output
// layout and output checks (spec/promotion.toml, casting.toml, arithmetic.toml).
//
// The order PyTorch checks things in, and so the error an op with several faults gives:
//   1. sub rejects bool operands (BinaryOps.h sub_check).
//   2. out= / in-place: the destination must not overlap itself (a stride-0 dimension of
//      size > 1) nor partially overlap an input (TensorIterator compute_mem_overlaps).
//   3. The shapes must broadcast; in-place, to self's shape.
//   4. The result dtype is result_type(a, b) (ResultType below); div turns an integral or
//      bool result into the default dtype; an out= / in-place destination must be a
//      dtype it can be cast to.
//   5. alpha must suit the result dtype (alpha_check).
// (Between 3 and 4, TensorIterator's device rule: one common device; a zero-dim cpu tensor
// may feed a kernel on another device as a scalar.)
// Then a new result (or an out= of another shape) gets TensorIterator's layout
// (OutputStrides) and elementwise.h computes every element.
#ifndef TCTS_REFERENCE_BINARY_OPS_H_
#define TCTS_REFERENCE_BINARY_OPS_H_

#include <variant>
#include <vector>

#include "reference/elementwise.h"
#include "reference/tensor.h"

namespace tcts::ref {

// A binary operand: a tensor (any dim) or a Python scalar.
using Operand = std::variant<Tensor, Scalar>;

// torch.result_type(a, b).
ScalarType ResultType(const Operand& a, const Operand& b);

// The dtype op(a, b) computes and returns: ResultType, where div turns an integral or bool result
// into the default dtype (step 4 above).
ScalarType CommonDType(BinaryOp op, const Operand& a, const Operand& b);

// The strides TensorIterator gives a new result of `shape` and dtype `common` computed
// from `inputs` on `device` (spec/arithmetic.toml [output_layout]).
std::vector<std::int64_t> OutputStrides(const std::vector<std::int64_t>& shape, ScalarType common,
                                        const std::vector<const Operand*>& inputs, const Device& device);

// op(a, b, alpha): a new tensor of the broadcast shape and the op's result dtype.
Tensor Binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha = Scalar::Int(1));
// op(a, b, alpha, out=out): out keeps its strides when it has the broadcast shape, else it
// is resized and restrided like a new result.
void BinaryOut(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, Tensor& out);
// self op= other (alpha scaling other).
void BinaryInplace(BinaryOp op, Tensor& self, const Operand& other, const Scalar& alpha = Scalar::Int(1));

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_BINARY_OPS_H_
