#include "conformance/candidate/candidate.h"

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tcts {

// ---------------------------------------------------------------- dtypes
namespace {
struct DTypeRow {
  const char* name;
  const char* c10_name;
  int itemsize;
  Category category;
  bool documented;
};
const DTypeRow kDTypeRows[] = {
#define TCTS_DTYPE_ROW(e, name, short_, c10, itemsize, cat, is_signed, is_fp, is_cx, documented) \
  {name, c10, itemsize, Category::cat, documented},
    TCTS_FORALL_DTYPES(TCTS_DTYPE_ROW)
#undef TCTS_DTYPE_ROW
};
constexpr int kSpecDTypes = static_cast<int>(sizeof(kDTypeRows) / sizeof(kDTypeRows[0]));
// Foreign dtypes take the codes from kFirstForeign on; their names live here for the process.
constexpr int kFirstForeign = 128;
static_assert(kSpecDTypes <= kFirstForeign && kFirstForeign + kMaxForeignDTypes <= 256, "DType is a uint8_t");
struct ForeignNames {
  std::mutex mu;
  std::vector<std::unique_ptr<const std::string>> names;  // stable c_str()s
};
ForeignNames& Foreign() {
  static ForeignNames* f = new ForeignNames;  // never destroyed: names outlive every record
  return *f;
}
// The spec row of d, or nullptr for a foreign dtype.
const DTypeRow* Row(DType d) {
  const int i = static_cast<int>(d);
  return i < kSpecDTypes ? &kDTypeRows[i] : nullptr;
}
const char* ForeignName(DType d) {
  ForeignNames& f = Foreign();
  std::lock_guard<std::mutex> lock(f.mu);
  const std::size_t k = static_cast<std::size_t>(static_cast<int>(d) - kFirstForeign);
  return k < f.names.size() ? f.names[k]->c_str() : "?";
}
}  // namespace

DType ForeignDType(std::string_view name) {
  ForeignNames& f = Foreign();
  std::lock_guard<std::mutex> lock(f.mu);
  for (std::size_t k = 0; k < f.names.size(); ++k) {
    if (*f.names[k] == name) return static_cast<DType>(kFirstForeign + static_cast<int>(k));
  }
  if (f.names.size() >= static_cast<std::size_t>(kMaxForeignDTypes)) {
    throw std::length_error("more than " + std::to_string(kMaxForeignDTypes) + " dtypes outside the spec's vocabulary");
  }
  f.names.push_back(std::make_unique<const std::string>(name));
  return static_cast<DType>(kFirstForeign + static_cast<int>(f.names.size()) - 1);
}
bool DTypeIsForeign(DType d) { return Row(d) == nullptr; }

const char* DTypeName(DType d) { return Row(d) ? Row(d)->name : ForeignName(d); }
const char* DTypeC10Name(DType d) { return Row(d) ? Row(d)->c10_name : ForeignName(d); }
Category DTypeCategory(DType d) { return Row(d) ? Row(d)->category : static_cast<Category>(0xff); }
int DTypeItemsize(DType d) { return Row(d) ? Row(d)->itemsize : 0; }
bool DTypeDocumented(DType d) { return Row(d) ? Row(d)->documented : false; }

const char* CategoryName(Category c) {
  switch (c) {
#define TCTS_CATEGORY_CASE(e, name) \
  case Category::e:                 \
    return name;
    TCTS_FORALL_CATEGORIES(TCTS_CATEGORY_CASE)
#undef TCTS_CATEGORY_CASE
  }
  return "?";
}

std::optional<DType> DTypeFromName(std::string_view name) {
#define TCTS_DTYPE_NAME_CASE(text, e) \
  if (name == text) return DType::e;
  TCTS_FORALL_DTYPE_NAMES(TCTS_DTYPE_NAME_CASE)
#undef TCTS_DTYPE_NAME_CASE
  return std::nullopt;
}

const std::vector<DType>& AllDTypes() {
  static const std::vector<DType> all = {
#define TCTS_DTYPE_ALL(e, ...) DType::e,
      TCTS_FORALL_DTYPES(TCTS_DTYPE_ALL)
#undef TCTS_DTYPE_ALL
  };
  return all;
}

const std::vector<DType>& DocumentedDTypes() {
  static const std::vector<DType> documented = [] {
    std::vector<DType> v;
    for (DType d : AllDTypes())
      if (DTypeDocumented(d)) v.push_back(d);
    return v;
  }();
  return documented;
}

// ---------------------------------------------------------------- errors, scalars, ops
const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
#define TCTS_ERROR_KIND_NAME(e, name) \
  case ErrorKind::e:                  \
    return name;
    TCTS_FORALL_ERROR_KINDS(TCTS_ERROR_KIND_NAME)
#undef TCTS_ERROR_KIND_NAME
  }
  return "?";
}

bool ParseErrorKind(std::string_view name, ErrorKind* kind) {
#define TCTS_ERROR_KIND_PARSE(e, text) \
  if (name == text) {                  \
    *kind = ErrorKind::e;              \
    return true;                       \
  }
  TCTS_FORALL_ERROR_KINDS(TCTS_ERROR_KIND_PARSE)
#undef TCTS_ERROR_KIND_PARSE
  return false;
}

bool RaisedByPyTorch(ErrorKind kind) {
#define TCTS_ERROR_KIND_PYTORCH(e, name) \
  if (kind == ErrorKind::e) return true;
  TCTS_FORALL_PYTORCH_ERROR_KINDS(TCTS_ERROR_KIND_PYTORCH)
#undef TCTS_ERROR_KIND_PYTORCH
  return false;
}

const char* ScalarKindName(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::kBool: return "bool";
    case Scalar::Kind::kInt: return "int";
    case Scalar::Kind::kFloat: return "float";
    case Scalar::Kind::kComplex: return "complex";
  }
  return "?";
}

std::complex<double> Scalar::AsComplex() const {
  switch (kind) {
    case Kind::kBool: return b ? 1.0 : 0.0;
    case Kind::kInt: return static_cast<double>(i);
    case Kind::kFloat: return f;
    case Kind::kComplex: return c;
  }
  return 0.0;
}

namespace {
bool SameDouble(double x, double y) { return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y)); }
}  // namespace

bool Scalar::operator==(const Scalar& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kBool: return b == o.b;
    case Kind::kInt: return i == o.i;
    case Kind::kFloat: return SameDouble(f, o.f);
    case Kind::kComplex: return SameDouble(c.real(), o.c.real()) && SameDouble(c.imag(), o.c.imag());
  }
  return false;
}

std::string Scalar::ToString() const {
  std::ostringstream os;
  os.precision(17);
  switch (kind) {
    case Kind::kBool: os << (b ? "True" : "False"); break;
    case Kind::kInt: os << i; break;
    case Kind::kFloat: os << f; break;
    case Kind::kComplex: os << "(" << c.real() << (c.imag() < 0 || std::signbit(c.imag()) ? "" : "+") << c.imag() << "j)"; break;
  }
  return os.str();
}

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
#define TCTS_BINARY_OP_NAME(e, name, ...) \
  case BinaryOp::e:                      \
    return name;
    TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_NAME)
#undef TCTS_BINARY_OP_NAME
  }
  return "?";
}

const char* BinaryOpSymbol(BinaryOp op) {
  switch (op) {
#define TCTS_BINARY_OP_SYMBOL(e, name, symbol, ...) \
  case BinaryOp::e:                               \
    return symbol;
    TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_SYMBOL)
#undef TCTS_BINARY_OP_SYMBOL
  }
  return "?";
}

std::optional<BinaryOp> BinaryOpFromName(std::string_view name) {
#define TCTS_BINARY_OP_FROM_NAME(e, spelling, ...) \
  if (name == spelling) return BinaryOp::e;
  TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_FROM_NAME)
#undef TCTS_BINARY_OP_FROM_NAME
  return std::nullopt;
}

const char* FeatureName(Feature f) {
  switch (f) {
#define TCTS_FEATURE_NAME(e, name) \
  case Feature::e:                 \
    return name;
    TCTS_FORALL_FEATURES(TCTS_FEATURE_NAME)
#undef TCTS_FEATURE_NAME
  }
  return "?";
}

const std::vector<Feature>& AllFeatures() {
  static const std::vector<Feature> kAll = {
#define TCTS_FEATURE_LIST(e, name) Feature::e,
      TCTS_FORALL_FEATURES(TCTS_FEATURE_LIST)
#undef TCTS_FEATURE_LIST
  };
  return kAll;
}

std::optional<Feature> FeatureOfOp(std::string_view op) {
#define TCTS_FEATURE_OF_OP(name, e) \
  if (op == name) return Feature::e;
  TCTS_FORALL_OPS(TCTS_FEATURE_OF_OP)
#undef TCTS_FEATURE_OF_OP
  return std::nullopt;
}

const std::vector<std::string_view>& AllOps() {
  static const std::vector<std::string_view> kAll = {
#define TCTS_OP_LIST(name, e) name,
      TCTS_FORALL_OPS(TCTS_OP_LIST)
#undef TCTS_OP_LIST
  };
  return kAll;
}

bool Candidate::supports_op(std::string_view op) const {
  const std::optional<Feature> f = FeatureOfOp(op);
  return f && supports(*f);
}

std::string DeviceArg::ToString() const {
  switch (form) {
    case Form::kString: return "torch.device('" + text + "')";
    case Form::kTypeIndex: return "torch.device('" + text + "', " + std::to_string(index) + ")";
    case Form::kOrdinal: return "torch.device(" + std::to_string(index) + ")";
  }
  return "torch.device(?)";
}

std::string PyValue::ToString() const {
  if (!is_list) return scalar.ToString();
  std::string out = "[";
  for (std::size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + items[k].ToString();
  return out + "]";
}

std::vector<Scalar> PyValue::Leaves() const {
  if (!is_list) return {scalar};
  std::vector<Scalar> out;
  for (const PyValue& item : items) {
    const std::vector<Scalar> sub = item.Leaves();
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

const char* AsarraySourceKindName(AsarraySource::Kind kind) {
  switch (kind) {
    case AsarraySource::Kind::kTensor: return "tensor";
    case AsarraySource::Kind::kArray: return "array";
    case AsarraySource::Kind::kArrayScalar: return "array_scalar";
    case AsarraySource::Kind::kDLPack: return "dlpack";
    case AsarraySource::Kind::kBuffer: return "buffer";
    case AsarraySource::Kind::kSequence: return "sequence";
  }
  return "?";
}

const char* LayoutName(Layout layout) {
  switch (layout) {
#define TCTS_LAYOUT_NAME(e, name, ...) \
  case Layout::e:                     \
    return name;
    TCTS_FORALL_LAYOUTS(TCTS_LAYOUT_NAME)
#undef TCTS_LAYOUT_NAME
  }
  return "?";
}

const char* MemoryFormatName(MemoryFormat format) {
  switch (format) {
#define TCTS_MEMORY_FORMAT_NAME(e, name, ...) \
  case MemoryFormat::e:                      \
    return name;
    TCTS_FORALL_MEMORY_FORMATS(TCTS_MEMORY_FORMAT_NAME)
#undef TCTS_MEMORY_FORMAT_NAME
  }
  return "?";
}

const std::vector<MemoryFormat>& AllMemoryFormats() {
  static const std::vector<MemoryFormat> kAll = {
#define TCTS_MEMORY_FORMAT_LIST(e, ...) MemoryFormat::e,
      TCTS_FORALL_MEMORY_FORMATS(TCTS_MEMORY_FORMAT_LIST)
#undef TCTS_MEMORY_FORMAT_LIST
  };
  return kAll;
}

// ---------------------------------------------------------------- registry
namespace {
std::map<std::string, CandidateFactory>& Registry() {
  static std::map<std::string, CandidateFactory> registry;
  return registry;
}
}  // namespace

bool CandidateConfig::Add(std::string_view key_value, std::string* error) {
  const std::size_t eq = key_value.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    *error = "--candidate_option=" + std::string(key_value) + ": expected KEY=VALUE";
    return false;
  }
  const std::string key(key_value.substr(0, eq));
  if (!options_.emplace(key, std::string(key_value.substr(eq + 1))).second) {
    *error = "--candidate_option: the key '" + key + "' is given twice";
    return false;
  }
  return true;
}

std::string CandidateConfig::Take(const std::string& key) const {
  taken_.insert(key);
  auto it = options_.find(key);
  return it == options_.end() ? "" : it->second;
}

std::vector<std::string> CandidateConfig::Untaken() const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : options_) {
    if (taken_.count(key) == 0) keys.push_back(key);
  }
  return keys;
}

bool RegisterCandidate(const char* name, CandidateFactory factory) {
  Registry()[name] = factory;
  return true;
}

std::unique_ptr<Candidate> MakeCandidate(std::string_view name, const CandidateConfig& config) {
  auto it = Registry().find(std::string(name));
  return it == Registry().end() ? nullptr : it->second(config);
}

std::vector<std::string> RegisteredCandidates() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

}  // namespace tcts
