#include "conformance/checks/promotion.h"

#include <string>

namespace tcts {

void CheckPromote(Case& c, const PromoteRow& row) {
  auto r = calls::promote_types(c.candidate(), row.a, row.b);
  const std::string call = "promote_types(" + Str(row.a) + ", " + Str(row.b) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
  }
}

void CheckPromoteRefused(Case& c, const PromoteRefusedRow& row) {
  auto r = calls::promote_types(c.candidate(), row.a, row.b);
  const std::string call = "promote_types(" + Str(row.a) + ", " + Str(row.b) + ")";
  if (c.Usable(r, call)) {
    // An answer instead of the refusal is shown as that dtype (the reports' matrices read it).
    if (r.ok()) c.Checked(Check::kError), c.Mismatch(Check::kError, call, ExpectedText(row.error), Str(r.value()));
    else CheckOutcome(c, row.error, r, call, ExpectedText(row.error));
  }
}

void CheckResultType(Case& c, const ResultTypeRow& row) {
  DefaultDTypeScope scope(c, row.default_dtype);
  if (scope.ok()) {
    const auto a = MakeOperand(c, row.a, OperandValue(row.a, true));
    const auto b = MakeOperand(c, row.b, OperandValue(row.b, false));
    if (a && b) {
      auto r = calls::result_type(c.candidate(), *a, *b);
      const std::string call = "result_type(" + ToString(row.a) + ", " + ToString(row.b) + ")";
      if (c.Usable(r, call)) {
        if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
        else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
      }
    }
  }
}

}  // namespace tcts
