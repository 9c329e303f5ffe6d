// add, sub, mul, div (true division) with PyTorch's type promotion and output casting.
//
// The rule, in the order PyTorch's TensorIterator applies it:
//   1. sub rejects bool operands (BinaryOps.h sub_check).
//   2. The result dtype is result_type(a, b): operands are ranked dimensioned tensor >
//      zero-dim tensor > Python scalar, and a lower rank only matters when its category
//      is higher (ResultType below).
//   3. div turns an integral or bool result dtype into the default dtype.
//   4. With an output (out= or in-place) the result dtype must be castable to the
//      output's dtype, else "result type X can't be cast to the desired output type Y".
//   5. Every element is computed in the result dtype (float16/bfloat16 via float, rounded
//      once), then converted to the output dtype.
#ifndef TCTS_REFERENCE_BINARY_OPS_H_
#define TCTS_REFERENCE_BINARY_OPS_H_

#include <variant>

#include "reference/tensor.h"

namespace tcts::ref {

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

// A binary operand: a tensor (any dim) or a Python scalar.
using Operand = std::variant<Tensor, Scalar>;

// torch.result_type(a, b).
ScalarType ResultType(const Operand& a, const Operand& b);

// op(a, b): a new tensor of the broadcast shape and the op's result dtype.
Tensor Binary(BinaryOp op, const Operand& a, const Operand& b);
// op(a, b, out=out): out is resized to the broadcast shape when its shape differs.
void BinaryOut(BinaryOp op, const Operand& a, const Operand& b, Tensor& out);
// self op= other: the broadcast shape must be self's shape.
void BinaryInplace(BinaryOp op, Tensor& self, const Operand& other);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_BINARY_OPS_H_
