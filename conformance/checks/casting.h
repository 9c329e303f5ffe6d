// Row type and check of the casting suite (spec/casting.toml): can_cast, and the out=/in-place
// output cast of add/sub/mul/div (binary.h).
#ifndef TCTS_CONFORMANCE_CHECKS_CASTING_H_
#define TCTS_CONFORMANCE_CHECKS_CASTING_H_

#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"

namespace tcts {

struct CanCastRow {
  RowMeta meta;
  DType from, to;
  bool expected;
};

TCTS_ROW_PRINTER(CanCastRow)

void CheckCanCast(Case& c, const CanCastRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_CASTING_H_
