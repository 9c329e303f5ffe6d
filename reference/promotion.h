// Type promotion and casting rules (tensor_attributes#type-promotion), written as rules.
//
// The reference derives promote_types from the doc's category rule instead of copying
// the spec's matrix, so the generated promote_types table is a real check of it.
#ifndef TCTS_REFERENCE_PROMOTION_H_
#define TCTS_REFERENCE_PROMOTION_H_

#include "reference/scalar_type.h"

namespace tcts::ref {

// The smallest dtype holding both a and b (promote_types).
ScalarType PromoteTypes(ScalarType a, ScalarType b);

// Whether a result of dtype `from` may be written to an output of dtype `to`.
bool CanCast(ScalarType from, ScalarType to);

// toComplexType: the complex dtype with a floating dtype's precision.
ScalarType ToComplex(ScalarType floating);

// torch.get_default_dtype / set_default_dtype: float32 or float64. The default complex
// dtype follows it (complex64 / complex128).
ScalarType DefaultDType();
ScalarType DefaultComplexDType();
void SetDefaultDType(ScalarType t);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_PROMOTION_H_
