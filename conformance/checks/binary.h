// add/sub/mul/div on operands a row describes: the result dtype (promotion suite) and the
// out=/in-place output cast (casting suite) share this row type and its check.
#ifndef TCTS_CONFORMANCE_CHECKS_BINARY_H_
#define TCTS_CONFORMANCE_CHECKS_BINARY_H_

#include <complex>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "conformance/checks/common.h"

namespace tcts {

// One operand as a row describes it. Tensors hold the row's value in every element
// (dimensioned: shape [2]; zero-dim: shape []); scalars are Python numbers.
enum class OperandKind { kTensor, kZeroDim, kScalar };
struct OperandSpec {
  OperandKind kind;
  DType dtype;               // tensors
  Scalar::Kind scalar_kind;  // scalars
};
std::string ToString(const OperandSpec& o);

enum class MessageMatch { kContains, kGlob };
struct BinaryRow {
  RowMeta meta;
  BinaryForm form;
  BinaryOp op;
  OperandSpec a, b;  // in-place: a is self
  DType out_dtype;   // out=: the out tensor's dtype; in-place: a's dtype; functional: the result dtype
  DType default_dtype;
  bool expect_error;
  ErrorKind error_kind;
  const char* error_message;  // exact text (kContains) or a doc pattern (kGlob)
  MessageMatch match;
  DType result_dtype;  // the dtype the op computes in (before the output cast)
  Value expected;      // every element of the result (arith_model: computed in result_dtype, cast to out_dtype)
};

TCTS_ROW_PRINTER(BinaryRow)
void CheckBinary(Case& c, const BinaryRow& row);

// ---------------------------------------------------------------- shared with properties and the result_type check
// The value a row's operand holds: 3 for the first operand, 2 for the second (so every
// add/sub/mul/div result is exact in every dtype); bool operands hold true.
Scalar OperandValue(const OperandSpec& o, bool first);
// Builds the operand on the current candidate. On failure records a mismatch and returns nullopt.
std::optional<Operand> MakeOperand(Case& c, const OperandSpec& o, const Scalar& value);
// The exact value `v` as a tensor of `dtype` reads it back (cast: bool is != 0,
// integers truncate and wrap, real dtypes drop the imaginary part).
Scalar CastTo(DType dtype, std::complex<double> v);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_BINARY_H_
