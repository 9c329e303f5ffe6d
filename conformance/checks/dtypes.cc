#include "conformance/checks/dtypes.h"

#include <string>
#include <vector>

namespace tcts {

void CheckDTypeName(Case& c, const DTypeNameRow& row) {
  auto r = calls::dtype_from_name(c.candidate(), row.name);
  const std::string call = std::string("dtype_from_name(\"") + row.name + "\")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, Str(row.dtype), Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, row.dtype, r.value());
  }
}

void CheckDTypeInfo(Case& c, const DTypeInfoRow& row) {
  auto r = calls::dtype_info(c.candidate(), row.dtype);
  const std::string call = std::string("dtype_info(") + DTypeName(row.dtype) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) {
      c.Mismatch(Check::kError, call, "the dtype's attributes", Describe(r.error()));
    } else {
      ExpectEq(c, Check::kAnswer, call + ".itemsize", row.itemsize, r.value().itemsize);
      ExpectEq(c, Check::kAnswer, call + ".is_floating_point", row.is_floating_point, r.value().is_floating_point);
      ExpectEq(c, Check::kAnswer, call + ".is_complex", row.is_complex, r.value().is_complex);
      ExpectEq(c, Check::kAnswer, call + ".is_signed", row.is_signed, r.value().is_signed);
    }
  }
}

void CheckFloatInfo(Case& c, const FloatInfoRow& row) {
  auto r = calls::finfo(c.candidate(), row.dtype);
  const std::string call = std::string("finfo(") + DTypeName(row.dtype) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) {
      c.Mismatch(Check::kError, call, "finfo", Describe(r.error()));
    } else {
      ExpectEq(c, Check::kAnswer, call + ".bits", row.bits, r.value().bits);
      ExpectEq(c, Check::kAnswer, call + ".eps", row.eps, r.value().eps);
      ExpectEq(c, Check::kAnswer, call + ".max", row.max, r.value().max);
      ExpectEq(c, Check::kAnswer, call + ".min", -row.max, r.value().min);
      ExpectEq(c, Check::kAnswer, call + ".tiny", row.tiny, r.value().tiny);
    }
  }
}

void CheckLegacyConstructor(Case& c, const LegacyConstructorRow& row) {
  auto r = calls::legacy_constructor(c.candidate(), row.dtype);
  const std::string call = std::string("legacy_constructor(") + DTypeName(row.dtype) + ")";
  if (c.Usable(r, call)) {
    if (!r.ok()) c.Mismatch(Check::kError, call, row.name, Describe(r.error()));
    else ExpectEq(c, Check::kAnswer, call, std::string(row.name), r.value());
  }
}

void CheckBarebonesTensor(Case& c, const BarebonesTensorRow& row) {
  std::vector<Scalar> values;
  for (const std::int64_t v : row.values.vec()) values.push_back(Scalar::Int(v));
  const std::vector<std::int64_t> sizes = {row.values.n};
  const std::string call = "make_tensor(" + Str(sizes) + ", " + DTypeName(row.dtype) + ", " + Str(values) + ")";
  // The operation under test is the tensor's making: an error from it fails the error check.
  if (const auto t = Get(c, calls::make_tensor(c.candidate(), sizes, row.dtype, values), call)) {
    if (const auto m = Meta(c, *t, call)) {
      ExpectEq(c, Check::kDType, call + ".dtype", row.dtype, m->dtype);
      ExpectEq(c, Check::kSizes, call + ".sizes", sizes, m->sizes);
    }
  }
}

}  // namespace tcts
