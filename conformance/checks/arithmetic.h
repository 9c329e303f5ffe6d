// Row type and check of the arithmetic suite (spec/arithmetic.toml): values, alpha,
// broadcasting, output layout, out= and in-place, memory overlap.
//
// A row builds up to three storages (make_tensor of literal values), views each operand
// into one of them with as_strided (operands naming the same storage alias each other),
// runs op in one form and compares the result's dtype, sizes, strides and values (exact,
// or within the row's tolerance), or the error and the untouched destination.
#ifndef TCTS_CONFORMANCE_CHECKS_ARITHMETIC_H_
#define TCTS_CONFORMANCE_CHECKS_ARITHMETIC_H_

#include <cstdint>
#include <ostream>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "conformance/checks/strided.h"

namespace tcts {


// make_tensor(base, dtype, values): a storage operands view into.
struct StorageDef {
  bool used;
  DType dtype;
  Dims base;
  int n;
  const Value* values;
};

enum class ArithOperandKind { kNone, kTensor, kScalar };
struct ArithOperand {
  ArithOperandKind kind;
  int storage;             // tensors: index into ArithRow::storages
  bool view;               // tensors: as_strided(sizes, strides, offset) of the storage (else the storage itself)
  Dims sizes, strides;
  std::int64_t offset;
  Value scalar;            // scalars
};
std::string ToString(const ArithOperand& o, const StorageDef* storages);

struct ArithRow {
  RowMeta meta;
  BinaryForm form;
  BinaryOp op;
  bool has_alpha;
  Value alpha;
  StorageDef storages[3];
  ArithOperand a, b, out;  // in-place: a is self; out: BinaryForm::kOut only
  ExpectedError error;
  DType dtype;             // the result's dtype
  Dims sizes, strides;     // the result's geometry (on the cpu)
  Dims device_strides;     // its strides on other devices (cuda), which cast while loading:
                           // output_layout's step 1 is cpu-only
  bool keeps_storage;      // out=/in-place: the destination keeps its storage and offset
  int n;
  const Value* values;     // the result's values, row-major
  double atol, rtol;       // tolerance; 0, 0 = exact
};
inline void PrintTo(const ArithRow& r, std::ostream* os) { *os << r.meta.id; }

void CheckArith(Case& c, const ArithRow& row);

// |observed - expected| <= atol + rtol * |expected| (per component, |.| the modulus), or
// exactly equal. Shared with the properties.
bool WithinTolerance(const Scalar& expected, const Scalar& observed, double atol, double rtol);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_ARITHMETIC_H_
