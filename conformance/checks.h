// Row types of the generated tables and the check each row runs.
//
// generators/emit_gtest.py writes arrays of these rows (one per spec row) and a
// value-parameterized test per table that calls the matching Check function. The checks
// see only the candidate interface (conformance/candidate.h).
#ifndef TCTS_CONFORMANCE_CHECKS_H_
#define TCTS_CONFORMANCE_CHECKS_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "conformance/candidate.h"
#include "conformance/harness.h"

namespace tcts {

// ---------------------------------------------------------------- dtypes.toml
struct DTypeNameRow {
  RowMeta meta;
  const char* name;  // canonical name or alias
  DType dtype;
};
struct DTypeInfoRow {
  RowMeta meta;
  DType dtype;
  int itemsize;
  bool is_floating_point, is_complex, is_signed;
};
struct FloatInfoRow {
  RowMeta meta;
  DType dtype;
  int bits;
  double eps, max, tiny;  // derived from the spec's sign/exponent/significand bits
};
struct LegacyConstructorRow {
  RowMeta meta;
  DType dtype;
  const char* name;
};

// ---------------------------------------------------------------- promotion.toml
struct PromoteRow {
  RowMeta meta;
  DType a, b, expected;
};

// One operand as a row describes it. Tensors hold the row's value in every element
// (dimensioned: shape [2]; zero-dim: shape []); scalars are Python numbers.
enum class OperandKind { kTensor, kZeroDim, kScalar };
struct OperandSpec {
  OperandKind kind;
  DType dtype;               // tensors
  Scalar::Kind scalar_kind;  // scalars
};
std::string ToString(const OperandSpec& o);

struct ResultTypeRow {
  RowMeta meta;
  OperandSpec a, b;
  DType default_dtype;
  DType expected;
};

// ---------------------------------------------------------------- binary operations
enum class BinaryForm { kFunctional, kOut, kInplace };
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
};

// ---------------------------------------------------------------- casting.toml
struct CanCastRow {
  RowMeta meta;
  DType from, to;
  bool expected;
};

// GoogleTest prints parameters in failure headers; keep them short.
#define TCTS_ROW_PRINTER(Row) \
  inline void PrintTo(const Row& r, std::ostream* os) { *os << r.meta.id; }
TCTS_ROW_PRINTER(DTypeNameRow)
TCTS_ROW_PRINTER(DTypeInfoRow)
TCTS_ROW_PRINTER(FloatInfoRow)
TCTS_ROW_PRINTER(LegacyConstructorRow)
TCTS_ROW_PRINTER(PromoteRow)
TCTS_ROW_PRINTER(ResultTypeRow)
TCTS_ROW_PRINTER(BinaryRow)
TCTS_ROW_PRINTER(CanCastRow)
#undef TCTS_ROW_PRINTER

// GoogleTest parameter names: the row id with every non-alphanumeric character as '_'.
std::string RowIdentifier(const char* row_id);
template <class Row>
std::string RowName(const ::testing::TestParamInfo<Row>& info) {
  RegisterRow(info.param.meta);  // GoogleTest names each case once, at registration
  return RowIdentifier(info.param.meta.id);
}

void Check(const DTypeNameRow& row);
void Check(const DTypeInfoRow& row);
void Check(const FloatInfoRow& row);
void Check(const LegacyConstructorRow& row);
void Check(const PromoteRow& row);
void Check(const ResultTypeRow& row);
void Check(const BinaryRow& row);
void Check(const CanCastRow& row);

// ---------------------------------------------------------------- shared with other checks
// How checks print values in mismatch reports.
std::string Str(DType d);
std::string Str(bool b);
std::string Str(const std::string& s);  // quoted: 'cuda:0'
std::string Str(int v);
std::string Str(std::int64_t v);
std::string Str(double v);
std::string Str(const std::vector<std::int64_t>& v);
std::string Str(const std::vector<Scalar>& v);
// Compares one field; records a mismatch when it differs.
template <class T>
void ExpectEq(Case& c, const std::string& check, const T& expected, const T& observed) {
  if (!(expected == observed)) c.Mismatch(check, Str(expected), Str(observed));
}
// The number of elements of a tensor of `sizes` (1 for a zero-dim tensor).
std::int64_t Numel(const std::vector<std::int64_t>& sizes);
// Reads a tensor's values; records a mismatch and returns nullopt when that fails.
std::optional<std::vector<Scalar>> ReadValues(Case& c, const TensorHandle& t, const std::string& what);

// ---------------------------------------------------------------- shared with properties
// The value a row's operand holds: 3 for the first operand, 2 for the second (so every
// add/sub/mul/div result is exact in every dtype); bool operands hold true.
Scalar OperandValue(const OperandSpec& o, bool first);
// Builds the operand on the current candidate. On failure records a mismatch and returns nullopt.
std::optional<Operand> MakeOperand(Case& c, const OperandSpec& o, const Scalar& value);
// The exact value `v` as a tensor of `dtype` reads it back (cast: bool is != 0,
// integers truncate and wrap, real dtypes drop the imaginary part).
Scalar CastTo(DType dtype, std::complex<double> v);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_H_
