// GENERATED from spec/dtypes.toml by generators/emit_gtest.py — do not edit.
#include <gtest/gtest.h>
#include "conformance/checks.h"

namespace tcts {
namespace {

// Cases: DTypeNames: 7, DTypeAttributes: 4, DTypeFinfo: 1, DTypeLegacyConstructor: 3.

const DTypeNameRow kDTypeNamesRows[] = {
  {{"dtype.float32.name.float32", "002#torch.dtype", "doc", "torch.float32 is torch.float32"}, "float32", DType::kFloat32},
  {{"dtype.float32.name.float", "002#torch.dtype", "doc", "torch.float is torch.float32"}, "float", DType::kFloat32},
  {{"dtype.complex64.name.complex64", "002#torch.dtype", "doc", "torch.complex64 is torch.complex64"}, "complex64", DType::kComplex64},
  {{"dtype.complex64.name.cfloat", "002#torch.dtype", "doc", "torch.cfloat is torch.complex64"}, "cfloat", DType::kComplex64},
  {{"dtype.int32.name.int32", "002#torch.dtype", "doc", "torch.int32 is torch.int32"}, "int32", DType::kInt32},
  {{"dtype.int32.name.int", "002#torch.dtype", "doc", "torch.int is torch.int32"}, "int", DType::kInt32},
  {{"dtype.bool.name.bool", "002#torch.dtype", "doc", "torch.bool is torch.bool"}, "bool", DType::kBool},
};
class DTypeNames : public ::testing::TestWithParam<DTypeNameRow> {};
TEST_P(DTypeNames, Case) { Check(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Spec, DTypeNames, ::testing::ValuesIn(kDTypeNamesRows), RowName<DTypeNameRow>);

const DTypeInfoRow kDTypeAttributesRows[] = {
  {{"dtype.float32.attributes", "002#torch.dtype", "doc", "float32: itemsize 4, is_floating_point True, is_complex False, is_signed True"}, DType::kFloat32, 4, true, false, true},
  {{"dtype.complex64.attributes", "002#torch.dtype", "doc", "complex64: itemsize 8, is_floating_point False, is_complex True, is_signed True"}, DType::kComplex64, 8, false, true, true},
  {{"dtype.int32.attributes", "002#torch.dtype", "doc", "int32: itemsize 4, is_floating_point False, is_complex False, is_signed True"}, DType::kInt32, 4, false, false, true},
  {{"dtype.bool.attributes", "002#torch.dtype", "doc", "bool: itemsize 1, is_floating_point False, is_complex False, is_signed False"}, DType::kBool, 1, false, false, false},
};
class DTypeAttributes : public ::testing::TestWithParam<DTypeInfoRow> {};
TEST_P(DTypeAttributes, Case) { Check(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Spec, DTypeAttributes, ::testing::ValuesIn(kDTypeAttributesRows), RowName<DTypeInfoRow>);

const FloatInfoRow kDTypeFinfoRows[] = {
  {{"dtype.float32.finfo", "002#torch.dtype", "doc", "float32: 1 sign, 8 exponent, 23 significand bits -> eps 2^-23, max (2-2^-23)*2^127, tiny 2^-126"}, DType::kFloat32, 32, 0x1.0000000000000p-23, 0x1.fffffe0000000p+127, 0x1.0000000000000p-126},
};
class DTypeFinfo : public ::testing::TestWithParam<FloatInfoRow> {};
TEST_P(DTypeFinfo, Case) { Check(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Spec, DTypeFinfo, ::testing::ValuesIn(kDTypeFinfoRows), RowName<FloatInfoRow>);

const LegacyConstructorRow kDTypeLegacyConstructorRows[] = {
  {{"dtype.float32.legacy_constructor", "002#torch.dtype", "doc", "float32's legacy constructor is torch.*.FloatTensor"}, DType::kFloat32, "torch.*.FloatTensor"},
  {{"dtype.int32.legacy_constructor", "002#torch.dtype", "doc", "int32's legacy constructor is torch.*.IntTensor"}, DType::kInt32, "torch.*.IntTensor"},
  {{"dtype.bool.legacy_constructor", "002#torch.dtype", "doc", "bool's legacy constructor is torch.*.BoolTensor"}, DType::kBool, "torch.*.BoolTensor"},
};
class DTypeLegacyConstructor : public ::testing::TestWithParam<LegacyConstructorRow> {};
TEST_P(DTypeLegacyConstructor, Case) { Check(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Spec, DTypeLegacyConstructor, ::testing::ValuesIn(kDTypeLegacyConstructorRows), RowName<LegacyConstructorRow>);

}  // namespace
}  // namespace tcts
