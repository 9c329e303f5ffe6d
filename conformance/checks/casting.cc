#include "conformance/checks/casting.h"

#include <string>

namespace tcts {

void CheckCanCast(Case& c, const CanCastRow& row) {
  auto r = calls::can_cast(c.candidate(), row.from, row.to);
  const std::string call = "can_cast(" + Str(row.from) + ", " + Str(row.to) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
  }
}

}  // namespace tcts
