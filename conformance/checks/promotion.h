// Row types and checks of the promotion suite (spec/promotion.toml): promote_types,
// result_type over operand kinds, and the dtype add/sub/mul/div compute in (binary.h).
#ifndef TCTS_CONFORMANCE_CHECKS_PROMOTION_H_
#define TCTS_CONFORMANCE_CHECKS_PROMOTION_H_

#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"

namespace tcts {

struct PromoteRow {
  RowMeta meta;
  DType a, b, expected;
};

// A pair promote_types refuses (spec/promotion.toml [promote_types_barebones]).
struct PromoteRefusedRow {
  RowMeta meta;
  DType a, b;
  ExpectedError error;
};

struct ResultTypeRow {
  RowMeta meta;
  OperandSpec a, b;
  DType default_dtype;
  DType expected;
};

TCTS_ROW_PRINTER(PromoteRow)
TCTS_ROW_PRINTER(PromoteRefusedRow)
TCTS_ROW_PRINTER(ResultTypeRow)

void CheckPromote(Case& c, const PromoteRow& row);
void CheckPromoteRefused(Case& c, const PromoteRefusedRow& row);
void CheckResultType(Case& c, const ResultTypeRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_PROMOTION_H_
