// Row types and checks of the dtypes suite (spec/dtypes.toml): names and aliases,
// attributes, finfo, legacy constructors, a tensor of a barebones unsigned dtype.
#ifndef TCTS_CONFORMANCE_CHECKS_DTYPES_H_
#define TCTS_CONFORMANCE_CHECKS_DTYPES_H_

#include "conformance/checks/common.h"

namespace tcts {

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

// torch.tensor(values, dtype=dtype): the tensor's dtype and sizes (spec/dtypes.toml
// [barebones_tensor]).
struct BarebonesTensorRow {
  RowMeta meta;
  DType dtype;
  Dims values;
};

TCTS_ROW_PRINTER(DTypeNameRow)
TCTS_ROW_PRINTER(DTypeInfoRow)
TCTS_ROW_PRINTER(FloatInfoRow)
TCTS_ROW_PRINTER(LegacyConstructorRow)
TCTS_ROW_PRINTER(BarebonesTensorRow)

void CheckDTypeName(Case& c, const DTypeNameRow& row);
void CheckDTypeInfo(Case& c, const DTypeInfoRow& row);
void CheckFloatInfo(Case& c, const FloatInfoRow& row);
void CheckLegacyConstructor(Case& c, const LegacyConstructorRow& row);
void CheckBarebonesTensor(Case& c, const BarebonesTensorRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_DTYPES_H_
