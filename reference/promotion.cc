#include "reference/promotion.h"

#include <algorithm>
#include <atomic>

namespace tcts::ref {

namespace {

int Bits(ScalarType t) { return Info(t).itemsize * 8; }

// promote within one category: the doc's "sufficient size".
ScalarType PromoteSameCategory(ScalarType a, ScalarType b) {
  switch (CategoryOf(a)) {
    case Category::kBool:
      return a;
    case Category::kIntegral: {
      const bool sa = Info(a).is_signed, sb = Info(b).is_signed;
      if (sa == sb) return Bits(a) >= Bits(b) ? a : b;
      // uint8 with a signed type: the signed type if it is wider, else int16 (holds both).
      const ScalarType u = sa ? b : a, s = sa ? a : b;
      if (Bits(s) > Bits(u)) return s;
      return ScalarType::kInt16;
    }
    case Category::kFloating:
      // float16 and bfloat16 trade range for precision: neither holds the other.
      if ((a == ScalarType::kFloat16 && b == ScalarType::kBfloat16) ||
          (a == ScalarType::kBfloat16 && b == ScalarType::kFloat16)) {
        return ScalarType::kFloat32;
      }
      return Bits(a) >= Bits(b) ? a : b;
    case Category::kComplex:
      return Bits(a) >= Bits(b) ? a : b;
  }
  throw InternalError("PromoteSameCategory");
}

}  // namespace

ScalarType ToComplex(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat16: return ScalarType::kComplex32;
    case ScalarType::kBfloat16: return ScalarType::kComplex64;  // bfloat16 has float32's range
    case ScalarType::kFloat32: return ScalarType::kComplex64;
    case ScalarType::kFloat64: return ScalarType::kComplex128;
    default:
      if (IsComplex(t)) return t;
      throw InternalError(std::string("ToComplex of non-floating ") + Name(t));
  }
}

ScalarType PromoteTypes(ScalarType a, ScalarType b) {
  if (a == b) return a;
  // uint16/32/64 promote only to a floating dtype (PyTorch's promoteTypes punts on the rest:
  // uint64 with int64 has no integral type that holds both).
  if (IsBarebonesUnsigned(a) || IsBarebonesUnsigned(b)) {
    if (IsFloating(a)) return a;
    if (IsFloating(b)) return b;
    throw RuntimeError(std::string("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ") +
                       Info(a).c10_name + " and " + Info(b).c10_name);
  }
  if (CategoryOf(a) == CategoryOf(b)) return PromoteSameCategory(a, b);
  // Different categories: the higher category wins, at a size that holds the higher
  // operand. Only complex must also hold the lower operand's precision
  // (float64 with complex64 -> complex128), since complex holds floats exactly.
  const ScalarType hi = CategoryOf(a) > CategoryOf(b) ? a : b;
  const ScalarType lo = hi == a ? b : a;
  if (IsComplex(hi) && IsFloating(lo)) return PromoteSameCategory(hi, ToComplex(lo));
  return hi;
}

bool CanCast(ScalarType from, ScalarType to) {
  // The doc's three exceptions to "we allow casting to its dtype".
  if (IsFloating(from) && IsIntegral(to)) return false;  // integral output, floating result
  if (!IsBool(from) && IsBool(to)) return false;         // boolean output, non-boolean result
  if (IsComplex(from) && !IsComplex(to)) return false;   // non-complex output, complex result
  return true;
}

namespace {
std::atomic<ScalarType> g_default_dtype{ScalarType::kFloat32};
}  // namespace

ScalarType DefaultDType() { return g_default_dtype.load(); }
ScalarType DefaultComplexDType() { return ToComplex(DefaultDType()); }

void SetDefaultDType(ScalarType t) {
  if (t != ScalarType::kFloat32 && t != ScalarType::kFloat64) {
    throw TypeError(std::string("only floating-point types float32 and float64 are supported as the default type, got ") +
                    Name(t));
  }
  g_default_dtype.store(t);
}

}  // namespace tcts::ref
