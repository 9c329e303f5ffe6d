#include "conformance/checks/promotion.h"

#include <string>

namespace tcts {

void CheckPromote(const PromoteRow& row) {
  Case c(row.meta);
  auto r = calls::promote_types(CurrentCandidate(), row.a, row.b);
  const std::string call = "promote_types(" + Str(row.a) + ", " + Str(row.b) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
  }
  c.Finish();
}

void CheckResultType(const ResultTypeRow& row) {
  Case c(row.meta);
  DefaultDTypeScope scope(c, row.default_dtype);
  if (scope.ok()) {
    const auto a = MakeOperand(c, row.a, OperandValue(row.a, true));
    const auto b = MakeOperand(c, row.b, OperandValue(row.b, false));
    if (a && b) {
      auto r = calls::result_type(CurrentCandidate(), *a, *b);
      const std::string call = "result_type(" + ToString(row.a) + ", " + ToString(row.b) + ")";
      if (c.Usable(r, call)) {
        if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
        else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
      }
    }
  }
  c.Finish();
}

}  // namespace tcts
