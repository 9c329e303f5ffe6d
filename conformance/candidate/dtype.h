// The dtypes of the spec, as the candidate interface names them.
//
// Expanded from spec/dtypes.inc, which generators/emit_cxx.py writes from
// spec/dtypes.toml: there is no hand-kept dtype list in C++.
#ifndef TCTS_CONFORMANCE_DTYPE_H_
#define TCTS_CONFORMANCE_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "spec/dtypes.inc"

namespace tcts {

enum class DType : std::uint8_t {
#define TCTS_DTYPE_ENUMERATOR(e, ...) e,
  TCTS_FORALL_DTYPES(TCTS_DTYPE_ENUMERATOR)
#undef TCTS_DTYPE_ENUMERATOR
};

// Promotion categories, lowest first (spec/promotion.toml [categories]).
enum class Category : std::uint8_t {
#define TCTS_CATEGORY_ENUMERATOR(e, name) e,
  TCTS_FORALL_CATEGORIES(TCTS_CATEGORY_ENUMERATOR)
#undef TCTS_CATEGORY_ENUMERATOR
};

// Canonical name ("float32"): used in test names, messages and reports.
const char* DTypeName(DType d);
// PyTorch's ScalarType name ("Float"), as it appears in PyTorch's error messages.
const char* DTypeC10Name(DType d);
Category DTypeCategory(DType d);
// Bytes per element (spec/dtypes.toml itemsize).
int DTypeItemsize(DType d);
const char* CategoryName(Category c);
// True for the doc's twelve; false for extended dtypes such as complex32.
bool DTypeDocumented(DType d);
// Canonical name or alias -> dtype.
std::optional<DType> DTypeFromName(std::string_view name);
// A dtype outside the spec's vocabulary as a candidate answered it (torch 2.x's "float8_e4m3fn"
// and "bcomplex32"): an observation to show, never a dtype the suite asks for.
// Interned by name for the process (DTypeFromName never returns one); DTypeName and
// DTypeC10Name give the name back, DTypeCategory no category of the spec (CategoryName says
// "?"), DTypeItemsize 0, DTypeDocumented false. Past kMaxForeignDTypes names it throws
// std::length_error (the protocol reports that as the answer's error).
DType ForeignDType(std::string_view name);
bool DTypeIsForeign(DType d);
constexpr int kMaxForeignDTypes = 64;
const std::vector<DType>& AllDTypes();
const std::vector<DType>& DocumentedDTypes();
// torch.get_default_dtype() before any set_default_dtype (spec/promotion.toml initial_default).
constexpr DType kInitialDefaultDType = DType::TCTS_INITIAL_DEFAULT_DTYPE;

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_DTYPE_H_
