#include "reference/scalar_type.h"

namespace tcts::ref {

std::optional<ScalarType> ScalarTypeFromName(std::string_view name) {
  // torch/csrc/utils/tensor_dtypes.cpp getDtypeNames: each type's name and its legacy alias.
  static const struct {
    const char* name;
    ScalarType type;
  } kNames[] = {
      {"uint8", ScalarType::kUint8},         {"int8", ScalarType::kInt8},
      {"int16", ScalarType::kInt16},         {"short", ScalarType::kInt16},
      {"int32", ScalarType::kInt32},         {"int", ScalarType::kInt32},
      {"int64", ScalarType::kInt64},         {"long", ScalarType::kInt64},
      {"float16", ScalarType::kFloat16},     {"half", ScalarType::kFloat16},
      {"float32", ScalarType::kFloat32},     {"float", ScalarType::kFloat32},
      {"float64", ScalarType::kFloat64},     {"double", ScalarType::kFloat64},
      {"complex32", ScalarType::kComplex32}, {"chalf", ScalarType::kComplex32},
      {"complex64", ScalarType::kComplex64}, {"cfloat", ScalarType::kComplex64},
      {"complex128", ScalarType::kComplex128}, {"cdouble", ScalarType::kComplex128},
      {"bool", ScalarType::kBool},           {"bfloat16", ScalarType::kBfloat16},
      {"uint16", ScalarType::kUint16},       {"uint32", ScalarType::kUint32},
      {"uint64", ScalarType::kUint64},
  };
  for (const auto& n : kNames) {
    if (name == n.name) return n.type;
  }
  return std::nullopt;
}

std::optional<std::string> LegacyTensorTypeName(ScalarType t) {
  // None for the complex dtypes, nor for uint16/32/64 (the reference names none: no spec row
  // gives them one).
  if (IsComplex(t) || IsBarebonesUnsigned(t)) return std::nullopt;
  return std::string("torch.*.") + Info(t).c10_name + "Tensor";
}

}  // namespace tcts::ref
