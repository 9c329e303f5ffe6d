#include "conformance/checks/promotion.h"

#include <string>

namespace tcts {

void CheckPromote(const PromoteRow& row) {
  Case c(row.meta);
  Result<DType> r = CurrentCandidate().promote_types(row.a, row.b);
  const std::string call = "promote_types(" + Str(row.a) + ", " + Str(row.b) + ")";
  if (c.Usable(Feature::kPromoteTypes, r, call)) {
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
      Result<DType> r = CurrentCandidate().result_type(*a, *b);
      const std::string call = "result_type(" + ToString(row.a) + ", " + ToString(row.b) + ")";
      if (c.Usable(Feature::kResultType, r, call)) {
        if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.expected), Describe(r.error()));
        else ExpectEq(c, Check::kAnswer, call, row.expected, r.value());
      }
    }
  }
  c.Finish();
}

}  // namespace tcts
