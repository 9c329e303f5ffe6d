#include "conformance/protocol/wire.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <memory>

namespace tcts {
namespace wire {

std::string Shown(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > 120 ? s.substr(0, 117) + "..." : s;
}

namespace {

const char* TypeName(Json::value_t t) {
  switch (t) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "a list";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    default: return "a number";
  }
}

constexpr int kMaxDepth = 64;  // nested lists in a PyValue

}  // namespace

std::string ProtocolError::what_for() const {
  return "field '" + field_ + "': expected " + expected_ + ", got " + got_;
}

const Json& Get(const Json& v, const char* key) {
  if (!v.is_object()) throw ProtocolError(key, "an object holding it", Shown(v));
  auto it = v.find(key);
  if (it == v.end()) throw ProtocolError(key, "the field", "nothing (missing)");
  return *it;
}

const Json& Get(const Json& v, const char* key, Json::value_t type) {
  const Json& x = Get(v, key);
  if (x.type() != type) throw ProtocolError(key, TypeName(type), Shown(x));
  return x;
}

std::int64_t IntOf(const Json& v, const char* field) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
  if (v.is_string()) {  // protocol 2: an integer past ±(2^53 - 1), in decimal
    const std::string& text = v.get_ref<const std::string&>();
    std::int64_t n = 0;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, n);
    if (ec == std::errc() && p == end && !text.empty()) return n;
    throw ProtocolError(field, "an integer in int64 (a number, or a decimal string)", Shown(v));
  }
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  throw ProtocolError(field, "an integer in int64", Shown(v));
}

std::string StringOf(const Json& v, const char* field) {
  if (!v.is_string()) throw ProtocolError(field, "a string", Shown(v));
  return v.get<std::string>();
}

bool BoolOf(const Json& v, const char* field) {
  if (!v.is_boolean()) throw ProtocolError(field, "true or false", Shown(v));
  return v.get<bool>();
}

double FloatOf(const Json& v, const char* field) {
  if (v.is_number()) return v.get<double>();
  if (v.is_object() && v.size() == 1 && v.contains("float") && v["float"].is_string()) {
    const std::string text = v["float"].get<std::string>();
    if (text == "nan" || text == "-nan") return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size()) return d;
  }
  throw ProtocolError(field, "a number or {\"float\": \"<decimal or C99 hex float>\"}", Shown(v));
}

std::string GetString(const Json& v, const char* key) { return StringOf(Get(v, key), key); }
std::int64_t GetInt(const Json& v, const char* key) { return IntOf(Get(v, key), key); }
std::int64_t GetIntIn(const Json& v, const char* key, std::int64_t lo, std::int64_t hi) {
  const Json& x = Get(v, key);
  const std::int64_t n = IntOf(x, key);
  if (n < lo || n > hi) {
    throw ProtocolError(key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", Shown(x));
  }
  return n;
}
bool GetBool(const Json& v, const char* key) { return BoolOf(Get(v, key), key); }
double GetFloat(const Json& v, const char* key) { return FloatOf(Get(v, key), key); }

std::vector<std::int64_t> Ints(const Json& v, const char* key) {
  const Json& list = Get(v, key, Json::value_t::array);
  std::vector<std::int64_t> out;
  for (const Json& x : list) {
    if (!x.is_number_integer() && !x.is_string()) throw ProtocolError(key, "a list of integers", Shown(list));
    out.push_back(IntOf(x, key));
  }
  return out;
}

DType SpecDTypeOf(const Json& v, const char* field) {
  if (v.is_string()) {
    for (DType d : AllDTypes()) {
      if (v.get_ref<const std::string&>() == DTypeName(d)) return d;
    }
  }
  throw ProtocolError(field, "a dtype's canonical name (\"float32\", ...)", Shown(v));
}

// A name of a dtype outside the spec's vocabulary: what torch, NumPy and ml_dtypes call their
// dtypes ("bcomplex32", "float8_e4m3fn"): a lower-case letter, then lower-case letters,
// digits and underscores, 64 characters at most.
bool ForeignDTypeName(const std::string& s) {
  if (s.empty() || s.size() > 64 || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

DType DTypeOf(const Json& v, const char* field) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    for (DType d : AllDTypes()) {
      if (s == DTypeName(d)) return d;
    }
    if (ForeignDTypeName(s)) {
      try {
        return ForeignDType(s);  // an observation: shown by name, equal to no dtype of the spec
      } catch (const std::length_error& e) {
        throw ProtocolError(field, "a dtype's name", std::string(e.what()) + ": " + Shown(v));
      }
    }
  }
  throw ProtocolError(field, "a dtype's name (\"float32\", ..., or one outside the spec such as \"float8_e4m3fn\")", Shown(v));
}

Layout LayoutOf(const Json& v, const char* field) {
  if (v.is_string()) {
#define TCTS_LAYOUT_MATCH(e, ...) \
  if (v.get<std::string>() == LayoutName(Layout::e)) return Layout::e;
    TCTS_FORALL_LAYOUTS(TCTS_LAYOUT_MATCH)
#undef TCTS_LAYOUT_MATCH
  }
  throw ProtocolError(field, "a layout name (\"strided\", ...)", Shown(v));
}

MemoryFormat MemoryFormatOf(const Json& v, const char* field) {
  if (v.is_string()) {
    for (MemoryFormat f : AllMemoryFormats()) {
      if (v.get<std::string>() == MemoryFormatName(f)) return f;
    }
  }
  throw ProtocolError(field, "a memory format name (\"contiguous_format\", ...)", Shown(v));
}

Scalar ScalarOf(const Json& v, const char* field) {
  if (v.is_boolean()) return Scalar::Bool(v.get<bool>());
  if (v.is_number_integer() || v.is_string()) return Scalar::Int(IntOf(v, field));
  if (v.is_number_float() || (v.is_object() && v.contains("float"))) return Scalar::Float(FloatOf(v, field));
  if (v.is_object() && v.size() == 1 && v.contains("complex") && v["complex"].is_array() && v["complex"].size() == 2) {
    const auto part = [&](const Json& x) { return FloatOf(x.is_string() ? Json{{"float", x}} : x, field); };
    return Scalar::Complex({part(v["complex"][0]), part(v["complex"][1])});
  }
  throw ProtocolError(field, "a scalar (true/false, an integer, {\"float\": h}, {\"complex\": [h, h]})", Shown(v));
}

std::vector<Scalar> ScalarsOf(const Json& v, const char* field) {
  if (!v.is_array()) throw ProtocolError(field, "a list of scalars", Shown(v));
  std::vector<Scalar> out;
  out.reserve(v.size());
  for (const Json& x : v) out.push_back(ScalarOf(x, field));
  return out;
}

PyValue PyValueOf(const Json& v, const char* field, int depth) {
  PyValue p;
  if (v.is_array()) {
    if (depth >= kMaxDepth) throw ProtocolError(field, "lists nested at most 64 deep", "deeper");
    p.is_list = true;
    for (const Json& x : v) p.items.push_back(PyValueOf(x, field, depth + 1));
    return p;
  }
  p.scalar = ScalarOf(v, field);
  return p;
}

DeviceArg DeviceArgOf(const Json& v, const char* field) {
  const std::string form = GetString(v, "form");
  if (form == "string") return DeviceArg::String(GetString(v, "text"));
  if (form == "type_index") return DeviceArg::TypeIndex(GetString(v, "text"), GetInt(v, "index"));
  if (form == "ordinal") return DeviceArg::Ordinal(GetInt(v, "index"));
  throw ProtocolError(std::string(field) + ".form", "\"string\", \"type_index\" or \"ordinal\"", Shown(v));
}

Json IntJson(std::int64_t v, int /*protocol*/) {
  constexpr std::int64_t kSafe = (std::int64_t{1} << 53) - 1;  // every double's integer up to here is exact
  if (v > kSafe || v < -kSafe) return std::to_string(v);
  return v;
}

Json FloatJson(double f, int /*protocol*/) {
  if (std::isnan(f)) return {{"float", "nan"}};
  // The shortest decimal that reads back as f (C++17 to_chars): "1.5", "1e+300", "-0", "inf".
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  return {{"float", std::string(buf, r.ptr)}};
}

Json ScalarJson(const Scalar& s, int protocol) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.b;
    case Scalar::Kind::kInt: return IntJson(s.i, protocol);
    case Scalar::Kind::kFloat: return FloatJson(s.f, protocol);
    case Scalar::Kind::kComplex:
      return {{"complex", {FloatJson(s.c.real(), protocol)["float"], FloatJson(s.c.imag(), protocol)["float"]}}};
  }
  return nullptr;
}

Json Scalars(const std::vector<Scalar>& values, int protocol) {
  Json list = Json::array();
  for (const Scalar& s : values) list.push_back(ScalarJson(s, protocol));
  return list;
}

Json PyValueJson(const PyValue& v, int protocol) {
  if (!v.is_list) return ScalarJson(v.scalar, protocol);
  Json list = Json::array();
  for (const PyValue& x : v.items) list.push_back(PyValueJson(x, protocol));
  return list;
}

Json DeviceArgJson(const DeviceArg& a, int protocol) {
  switch (a.form) {
    case DeviceArg::Form::kString: return {{"form", "string"}, {"text", a.text}};
    case DeviceArg::Form::kTypeIndex:
      return {{"form", "type_index"}, {"text", a.text}, {"index", IntJson(a.index, protocol)}};
    case DeviceArg::Form::kOrdinal: return {{"form", "ordinal"}, {"index", IntJson(a.index, protocol)}};
  }
  return nullptr;
}

Json ToJson(std::uint64_t v, int protocol) {
  if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return IntJson(static_cast<std::int64_t>(v), protocol);
  }
  return Json(std::to_string(v));
}

Json ToJson(const std::vector<std::int64_t>& v, int protocol) {
  Json list = Json::array();
  for (std::int64_t x : v) list.push_back(IntJson(x, protocol));
  return list;
}

void FromJson(const Json& v, const char* field, DType* out) { *out = DTypeOf(v, field); }
void FromJson(const Json& v, const char* field, std::int64_t* out) { *out = IntOf(v, field); }

namespace {
std::int64_t InRange(const Json& v, const char* field, std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = IntOf(v, field);
  if (n < lo || n > hi) {
    throw ProtocolError(field, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", Shown(v));
  }
  return n;
}
}  // namespace

void FromJson(const Json& v, const char* field, int* out) {
  *out = static_cast<int>(InRange(v, field, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}
void FromJson(const Json& v, const char* field, std::uint8_t* out) {
  *out = static_cast<std::uint8_t>(InRange(v, field, 0, 255));
}
void FromJson(const Json& v, const char* field, std::uint16_t* out) {
  *out = static_cast<std::uint16_t>(InRange(v, field, 0, 65535));
}
void FromJson(const Json& v, const char* field, std::uint64_t* out) {
  // 0 ... 2^64 - 1: a JSON number, or (version 2, past 2^53 - 1) a decimal string.
  if (v.is_number_unsigned()) {
    *out = v.get<std::uint64_t>();
    return;
  }
  if (v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, *out);
    if (ec == std::errc() && p == end && !text.empty()) return;
  }
  *out = static_cast<std::uint64_t>(InRange(v, field, 0, std::numeric_limits<std::int64_t>::max()));
}
void FromJson(const Json& v, const char* field, bool* out) { *out = BoolOf(v, field); }
void FromJson(const Json& v, const char* field, std::string* out) { *out = StringOf(v, field); }
void FromJson(const Json& v, const char* field, double* out) { *out = FloatOf(v, field); }
void FromJson(const Json& v, const char* field, std::vector<std::int64_t>* out) {
  if (!v.is_array()) throw ProtocolError(field, "a list of integers", Shown(v));
  out->clear();
  out->reserve(v.size());
  for (const Json& x : v) {
    if (!x.is_number_integer() && !x.is_string()) throw ProtocolError(field, "a list of integers", Shown(v));
    out->push_back(IntOf(x, field));
  }
}
void FromJson(const Json& v, const char* field, Scalar* out) { *out = ScalarOf(v, field); }
void FromJson(const Json& v, const char* field, std::vector<Scalar>* out) { *out = ScalarsOf(v, field); }
void FromJson(const Json& v, const char* field, Layout* out) { *out = LayoutOf(v, field); }
void FromJson(const Json& v, const char* field, MemoryFormat* out) { *out = MemoryFormatOf(v, field); }
void FromJson(const Json& v, const char* field, BinaryOp* out) {
  if (v.is_string()) {
    if (std::optional<BinaryOp> op = BinaryOpFromName(v.get<std::string>())) {
      *out = *op;
      return;
    }
  }
  throw ProtocolError(field, "a binary op name (add, sub, mul or div)", Shown(v));
}
void FromJson(const Json& v, const char* field, DeviceArg* out) {
  if (!v.is_object()) throw ProtocolError(field, "a device argument {\"form\", \"text\", \"index\"}", Shown(v));
  *out = DeviceArgOf(v, field);
}

Json Mirror::Offer(std::int64_t id, int protocol) const {
  return {{"id", IntJson(id, protocol)}, {"bytes", Base64(seen.data(), seen.size())}};
}

Json Mirror::SyncOut(std::int64_t id, int protocol) {
  if (size == 0 || data == nullptr || std::memcmp(seen.data(), data, size) == 0) return nullptr;
  seen.assign(data, data + size);
  return {{"id", IntJson(id, protocol)}, {"bytes", Base64(data, size)}};
}

void Mirror::SyncIn(const Json& bytes_field, const char* field) {
  std::vector<std::byte> bytes = Unbase64(StringOf(bytes_field, field), field);
  if (bytes.size() != size) throw ProtocolError(field, std::to_string(size) + " bytes", std::to_string(bytes.size()) + " bytes");
  if (size > 0 && data != nullptr) std::memcpy(data, bytes.data(), size);
  seen = std::move(bytes);
}

bool Mirror::Holds(std::uintptr_t a) const {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  return base <= a && a <= base + size;
}

Json Mirror::AddressJson(std::int64_t id, std::uintptr_t a, int protocol) const {
  return {{"region", IntJson(id, protocol)},
          {"offset", IntJson(static_cast<std::int64_t>(a - reinterpret_cast<std::uintptr_t>(data)), protocol)}};
}

DLPackDescriptor Describe(const DLTensor& t, std::int64_t data_offset) {
  DLPackDescriptor d;
  d.data_offset = data_offset;
  d.null_data = t.data == nullptr;
  d.dtype = DLPackDType{t.dtype.code, t.dtype.bits, t.dtype.lanes};
  d.device = DLPackDevice{static_cast<int>(t.device.device_type), t.device.device_id};
  if (t.ndim > 0 && t.shape != nullptr) d.shape.assign(t.shape, t.shape + t.ndim);
  if (t.strides != nullptr) d.strides = std::vector<std::int64_t>(t.strides, t.strides + std::max(t.ndim, 0));
  d.byte_offset = t.byte_offset;
  return d;
}

DLTensor DLTensorOver(std::byte* base, DLPackDescriptor& d) {
  if (d.strides && d.strides->size() != d.shape.size()) {
    throw ProtocolError("strides", "one per dimension", std::to_string(d.strides->size()) + " for " +
                                                            std::to_string(d.shape.size()) + " dimensions");
  }
  // Valid pointers even for 0 dimensions.
  d.shape.reserve(std::max<std::size_t>(d.shape.size(), 1));
  if (d.strides) d.strides->reserve(std::max<std::size_t>(d.strides->size(), 1));
  DLTensor t{};
  t.data = d.null_data
               ? nullptr
               : reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(d.data_offset));
  t.device = DLDevice{static_cast<DLDeviceType>(d.device.type), static_cast<std::int32_t>(d.device.id)};
  t.ndim = static_cast<std::int32_t>(d.shape.size());
  t.dtype = DLDataType{d.dtype.code, d.dtype.bits, d.dtype.lanes};
  t.shape = d.shape.data();
  t.strides = d.strides ? d.strides->data() : nullptr;
  t.byte_offset = d.byte_offset;
  return t;
}

std::int64_t DLItemsize(const DLDataType& dtype) {
  return std::max<std::int64_t>(1, (dtype.bits * dtype.lanes + 7) / 8);
}

std::vector<std::int64_t> CompactStrides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  std::int64_t run = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    strides[k] = run;
    run *= std::max<std::int64_t>(shape[k], 1);
  }
  return strides;
}

void ByteExtent(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& byte_strides,
                std::int64_t itemsize, std::int64_t* lo, std::int64_t* hi) {
  *lo = 0;
  *hi = itemsize;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) {
      *lo = *hi = 0;
      return;
    }
    const std::int64_t reach = (sizes[k] - 1) * (k < byte_strides.size() ? byte_strides[k] : 0);
    (reach < 0 ? *lo : *hi) += reach;
  }
}

bool DLByteExtent(const DLDataType& dtype, const std::vector<std::int64_t>& shape,
                  const std::vector<std::int64_t>* strides, std::uint64_t byte_offset, std::int64_t* lo,
                  std::int64_t* hi) {
  if (strides != nullptr && strides->size() != shape.size()) return false;
  if (byte_offset > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  const std::int64_t offset = static_cast<std::int64_t>(byte_offset);
  const std::int64_t item = DLItemsize(dtype);  // at most 255 x 65535 / 8 + 1: no overflow
  for (std::int64_t n : shape) {
    if (n < 0) return false;
    if (n == 0) {
      *lo = *hi = offset;
      return true;
    }
  }
  std::int64_t l = 0, h = item, run = 1;  // run: the compact stride, in elements
  for (std::size_t k = shape.size(); k-- > 0;) {
    const std::int64_t stride = strides != nullptr ? (*strides)[k] : run;
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(shape[k] - 1, stride, &reach) || __builtin_mul_overflow(reach, item, &reach)) return false;
    if (__builtin_add_overflow(reach < 0 ? l : h, reach, reach < 0 ? &l : &h)) return false;
    if (strides == nullptr && __builtin_mul_overflow(run, shape[k], &run)) return false;
  }
  if (__builtin_add_overflow(l, offset, &l) || __builtin_add_overflow(h, offset, &h)) return false;
  *lo = l;
  *hi = h;
  return true;
}

bool WriteAll(int fd, const std::string& data) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::size_t NestingDepth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {
ProtocolError TooManyScalars(const std::string& count) {
  return ProtocolError("ok", "a list of at most " + std::to_string(kMaxScalars) + " values", count + " values");
}

// nlohmann's SAX events for an answer: everything goes to a DOM builder (Json::parse's own),
// except the elements of a top-level "ok" list: each is built alone, decoded to a Scalar and
// dropped. With `count_only`, nothing is built: the list's elements are counted (a first
// pass, so that the scalars' vector is allocated once, at its size).
class AnswerSax {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;
  AnswerSax(Json* root, OkScalars* ok, bool count_only) : dom_(*root), ok_(ok), count_only_(count_only) {}
  std::size_t count() const { return count_; }
  void Reserve(std::size_t n) { reserve_ = n; }

  bool null() {
    return Event([] { return Json(nullptr); }, [](Dom& d) { return d.null(); });
  }
  bool boolean(bool v) {
    return Event([v] { return Json(v); }, [v](Dom& d) { return d.boolean(v); });
  }
  bool number_integer(Json::number_integer_t v) {
    return Event([v] { return Json(v); }, [v](Dom& d) { return d.number_integer(v); });
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    return Event([v] { return Json(v); }, [v](Dom& d) { return d.number_unsigned(v); });
  }
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    return Event([v] { return Json(v); }, [v, &text](Dom& d) { return d.number_float(v, text); });
  }
  bool string(Json::string_t& v) {
    return Event([&v] { return Json(std::move(v)); }, [&v](Dom& d) { return d.string(v); });
  }
  bool binary(Json::binary_t& v) {  // never in a JSON text
    return Event([&v] { return Json::binary(v); }, [&v](Dom& d) { return d.binary(v); });
  }
  bool start_object(std::size_t n) { return Open(true, n); }
  bool start_array(std::size_t n) { return Open(false, n); }
  bool end_object() { return Close(true); }
  bool end_array() { return Close(false); }
  bool key(Json::string_t& k) {
    if (in_ok_ > 1) return count_only_ || element_->key(k);
    ok_key_ = depth_ == 1 && k == "ok";
    if (ok_key_ && !count_only_) {  // a later "ok" replaces an earlier one, as in Json::parse
      ok_->decoded = false;
      ok_->values.clear();
      ok_->error.reset();
    }
    return count_only_ || dom_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);  // throws e, as Json::parse does
  }

 private:
  // A value: an element of the "ok" list (made, then decoded), or forwarded to the builder in
  // use (the element's, or the answer's).
  template <class Make, class Build>
  bool Event(Make make, Build build) {
    if (in_ok_ == 1) return Element(make());
    if (in_ok_ > 1) return count_only_ || build(*element_);
    ok_key_ = false;
    return count_only_ || build(dom_);
  }
  bool Open(bool object, std::size_t n) {
    if (in_ok_ == 0 && !object && ok_key_) {  // the top-level "ok" list: decoded, not built
      ok_key_ = false;
      in_ok_ = 1;
      count_ = 0;  // the last "ok" list is the answer's (as in Json::parse): its length is counted
      if (count_only_) return true;
      ok_->decoded = true;
      ok_->values.clear();
      ok_->error.reset();
      if (reserve_ > kMaxScalars) {  // counted first (its text is past 64 KiB): refused before any is kept
        ok_->error = TooManyScalars(std::to_string(reserve_));
      } else {
        ok_->values.reserve(reserve_);
      }
      return dom_.null();  // its place in the answer
    }
    if (in_ok_ >= 1) {
      if (in_ok_++ == 1 && !count_only_) {
        element_value_ = Json();
        element_ = std::make_unique<Dom>(element_value_);
      }
      if (count_only_) return true;
      return object ? element_->start_object(n) : element_->start_array(n);
    }
    ok_key_ = false;
    ++depth_;
    if (count_only_) return true;
    return object ? dom_.start_object(n) : dom_.start_array(n);
  }
  bool Close(bool object) {
    if (in_ok_ == 1) {  // the end of the "ok" list
      in_ok_ = 0;
      return true;
    }
    if (in_ok_ > 1) {
      bool go = count_only_ || (object ? element_->end_object() : element_->end_array());
      if (--in_ok_ == 1) {
        element_.reset();
        go = go && Element(std::move(element_value_));
      }
      return go;
    }
    --depth_;
    if (count_only_) return true;
    return object ? dom_.end_object() : dom_.end_array();
  }
  bool Element(Json v) {  // one element of the "ok" list, whole
    ++count_;
    if (count_only_ || ok_->error) return true;
    if (ok_->values.size() == kMaxScalars) {  // (an earlier "ok" list of an answer with two)
      ok_->error = TooManyScalars("more");
      return true;
    }
    try {
      ok_->values.push_back(ScalarOf(v, "ok"));
    } catch (const ProtocolError& e) {
      ok_->error = e;  // raised where ScalarsOf would have raised it, after the answer's checks
    }
    return true;
  }

  Dom dom_;
  OkScalars* ok_;
  bool count_only_;
  std::size_t depth_ = 0;  // of the answer's containers (outside the "ok" list)
  bool ok_key_ = false;  // the last event was the answer's key "ok"
  int in_ok_ = 0;  // 1: inside the "ok" list; 2 and more: inside one of its elements
  std::size_t count_ = 0, reserve_ = 0;
  Json element_value_;
  std::unique_ptr<Dom> element_;
};
}  // namespace

Json ParseAnswer(const std::string& text, OkScalars* ok) {
  Json root;
  std::size_t n = 0;
  if (text.size() > (std::size_t{1} << 16)) {  // a long answer: its "ok" list counted first
    Json unused;
    AnswerSax counter(&unused, ok, /*count_only=*/true);
    Json::sax_parse(text, &counter);
    n = counter.count();
  }
  AnswerSax sax(&root, ok, /*count_only=*/false);
  sax.Reserve(n);
  Json::sax_parse(text, &sax);
  return root;
}

std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) h = Fnv1a64Step(h, c);
  return h;
}

void MessageCut::Reset() {
  const std::size_t keep = keep_;
  *this = MessageCut(keep);
}

void MessageCut::Invalid(const char* why) {
  // Before the cut the parser sees the bytes itself (and refuses them).
  if (cutting_ && invalid_.empty()) invalid_ = std::string(why) + " past the error message's first " + std::to_string(keep_) + " bytes";
}

void MessageCut::Byte(unsigned char c) {
  ++length_;
  digest_ = Fnv1a64Step(digest_, c);
}

void MessageCut::Raw(unsigned char c) {
  if (role_ == Role::kMessage) {
    Byte(c);
  } else if (key_size_ < sizeof key_) {
    key_[key_size_++] = static_cast<char>(c);
  } else {
    key_size_ = sizeof key_ + 1;  // too long to be a key that matters
  }
}

void MessageCut::Decoded(std::uint32_t cp) {
  unsigned char u[4];
  std::size_t n = 0;
  if (cp < 0x80) {
    u[n++] = static_cast<unsigned char>(cp);
  } else if (cp < 0x800) {
    u[n++] = static_cast<unsigned char>(0xC0 | (cp >> 6));
    u[n++] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    u[n++] = static_cast<unsigned char>(0xE0 | (cp >> 12));
    u[n++] = static_cast<unsigned char>(0x80 | ((cp >> 6) & 0x3F));
    u[n++] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
  } else {
    u[n++] = static_cast<unsigned char>(0xF0 | (cp >> 18));
    u[n++] = static_cast<unsigned char>(0x80 | ((cp >> 12) & 0x3F));
    u[n++] = static_cast<unsigned char>(0x80 | ((cp >> 6) & 0x3F));
    u[n++] = static_cast<unsigned char>(0x80 | (cp & 0x3F));
  }
  for (std::size_t k = 0; k < n; ++k) Raw(u[k]);
}

void MessageCut::StartString() {
  in_string_ = true;
  escape_ = 0;
  high_ = 0;
  utf8_need_ = 0;
  role_ = Role::kSkip;
  if ((depth_ == 1 || depth_ == 2) && object_[depth_] && expect_key_) {
    role_ = Role::kKey;
    key_size_ = 0;
  } else if (depth_ == 2 && object_[1] && object_[2] && error_key_ && message_key_ && !expect_key_) {
    role_ = Role::kMessage;  // the answer's error.message (the last one counts, as in Json::parse)
    cutting_ = cut_ = false;
    length_ = 0;
    digest_ = kFnv1a64Offset;
  }
}

void MessageCut::EndString() {
  in_string_ = false;
  if (role_ == Role::kKey) {
    const std::string_view key(key_, std::min(key_size_, sizeof key_));
    const bool whole = key_size_ <= sizeof key_;
    if (depth_ == 1) error_key_ = whole && key == "error";
    if (depth_ == 2) message_key_ = whole && key == "message";
    expect_key_ = false;
  }
  cutting_ = false;
}

void MessageCut::Feed(const char* p, std::size_t n, std::string* out) {
  std::size_t kept_from = 0;  // p[kept_from, i) is kept, not yet appended
  for (std::size_t i = 0; i < n && !ended_; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (!in_string_) {
      switch (c) {
        case '\0': ended_ = true; break;  // nlohmann's lexer: the end of the input (the rest is kept, unread)
        case '"': StartString(); break;
        case '{':
        case '[':
          if (++depth_ <= 2) object_[depth_] = c == '{';
          expect_key_ = c == '{';
          if (depth_ == 2) message_key_ = false;
          break;
        case '}':
        case ']':
          if (depth_ > 0) --depth_;
          expect_key_ = false;
          break;
        case ',': expect_key_ = depth_ >= 1 && depth_ <= 2 && object_[depth_]; break;
        case ':': expect_key_ = false; break;
        default: break;
      }
      continue;
    }
    if (role_ == Role::kSkip) {  // a string that matters to no one here: find its end
      for (; i < n; ++i) {
        const char d = p[i];
        if (escape_ != 0) {
          escape_ = 0;
        } else if (d == '\\') {
          escape_ = 1;
        } else if (d == '"') {
          EndString();
          break;
        }
      }
      continue;
    }
    // A key that may matter, or the message: decoded (and checked while cutting).
    if (cutting_ && (escape_ != 0 || c != '"')) cut_ = true;  // a byte dropped
    if (escape_ == 0) {
      if (c == '"') {
        if (utf8_need_ > 0) Invalid("a UTF-8 sequence cut short");
        if (high_ != 0) Invalid("a high surrogate without its low one");
        if (cutting_) kept_from = i;  // the closing quote is kept
        EndString();
        continue;
      }
      if (high_ != 0 && c != '\\') {
        Invalid("a high surrogate without its low one");
        high_ = 0;
      }
      if (c == '\\') {
        if (utf8_need_ > 0) Invalid("a UTF-8 sequence cut short");
        escape_ = 1;
        continue;
      }
      if (c < 0x20) {
        Invalid("a control character");
      } else if (utf8_need_ > 0) {
        if (c < utf8_lo_ || c > utf8_hi_) Invalid("ill-formed UTF-8");
        --utf8_need_;
        utf8_lo_ = 0x80;
        utf8_hi_ = 0xBF;
      } else if (c >= 0x80) {  // the lead byte of a sequence (RFC 3629, as nlohmann checks it)
        utf8_lo_ = 0x80;
        utf8_hi_ = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
          utf8_need_ = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
          utf8_need_ = 2;
          if (c == 0xE0) utf8_lo_ = 0xA0;
          if (c == 0xED) utf8_hi_ = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
          utf8_need_ = 3;
          if (c == 0xF0) utf8_lo_ = 0x90;
          if (c == 0xF4) utf8_hi_ = 0x8F;
        } else {
          Invalid("ill-formed UTF-8");
        }
      }
      Raw(c);  // a raw byte is its own decoded byte
    } else if (escape_ == 1) {
      const char* simple = std::strchr("\"\\/bfnrt", c);
      if (c == 'u') {
        escape_ = 2;
        hex_ = 0;
      } else {
        escape_ = 0;
        if (high_ != 0) {
          Invalid("a high surrogate without its low one");
          high_ = 0;
        }
        if (c != 0 && simple != nullptr) {
          static const char kDecoded[] = "\"\\/\b\f\n\r\t";
          Decoded(static_cast<unsigned char>(kDecoded[simple - "\"\\/bfnrt"]));
        } else {
          Invalid("an unknown escape");
        }
      }
    } else {  // \uXXXX: escape_ - 2 hex digits read
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) {
        Invalid("a \\u escape without 4 hex digits");
        escape_ = 0;
      } else {
        hex_ = hex_ * 16 + static_cast<std::uint32_t>(d);
        if (++escape_ == 6) {
          escape_ = 0;
          if (high_ != 0) {
            if (hex_ >= 0xDC00 && hex_ <= 0xDFFF) {
              Decoded(0x10000 + ((high_ - 0xD800) << 10) + (hex_ - 0xDC00));
            } else {
              Invalid("a high surrogate without its low one");
            }
            high_ = 0;
          } else if (hex_ >= 0xD800 && hex_ <= 0xDBFF) {
            high_ = hex_;
          } else if (hex_ >= 0xDC00 && hex_ <= 0xDFFF) {
            Invalid("a low surrogate without its high one");
          } else {
            Decoded(hex_);
          }
        }
      }
    }
    // Past `keep` at a character boundary: the message's further bytes are dropped.
    if (role_ == Role::kMessage && !cutting_ && length_ >= keep_ && escape_ == 0 && high_ == 0 && utf8_need_ == 0) {
      out->append(p + kept_from, i + 1 - kept_from);
      cutting_ = true;
    }
  }
  if (!cutting_) out->append(p + kept_from, n - kept_from);
}

std::string BoundMessage(std::string text, const MessageCut* cut) {
  std::size_t total = text.size();
  std::uint64_t h = kFnv1a64Offset;
  if (cut != nullptr && cut->cut()) {
    total = cut->total();
    h = cut->digest();
  } else if (text.size() > kMaxErrorMessage) {
    h = Fnv1a64(text);
  }
  if (text.size() <= kMaxErrorMessage && total == text.size()) return text;
  std::size_t at = std::min(kMaxErrorMessage, text.size());
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(h));
  text.resize(at);
  text.shrink_to_fit();
  return text + "... [cut: " + std::to_string(total) + " bytes in all, fnv1a64 " + digest + "]";
}

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string Base64(const std::byte* data, std::size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    std::uint32_t n = static_cast<std::uint32_t>(data[i]) << 16;
    if (i + 1 < size) n |= static_cast<std::uint32_t>(data[i + 1]) << 8;
    if (i + 2 < size) n |= static_cast<std::uint32_t>(data[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < size ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::vector<std::byte> Unbase64(const std::string& text, const char* field) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) throw ProtocolError(field, "base64 (a multiple of 4 characters)", std::to_string(text.size()) + " characters");
  std::vector<std::byte> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      v[k] = (c == '=' && k >= 2 && i + 4 == text.size()) ? 0 : value(c);
      if (v[k] < 0) throw ProtocolError(field, "base64", "the character '" + std::string(1, c) + "'");
    }
    const std::uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out.push_back(static_cast<std::byte>((n >> 16) & 255));
    if (text[i + 2] != '=') out.push_back(static_cast<std::byte>((n >> 8) & 255));
    if (text[i + 3] != '=') out.push_back(static_cast<std::byte>(n & 255));
  }
  return out;
}

}  // namespace wire
}  // namespace tcts
