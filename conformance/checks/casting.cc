#include "conformance/checks/casting.h"

#include <string>

namespace tcts {

void CheckCanCast(const CanCastRow& row) {
  Case c(row.meta);
  auto r = calls::can_cast(CurrentCandidate(), row.from, row.to);
  const std::string call = "can_cast(" + Str(row.from) + ", " + Str(row.to) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
  }
  c.Finish();
}

}  // namespace tcts
