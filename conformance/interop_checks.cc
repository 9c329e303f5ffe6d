#include "conformance/interop_checks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

namespace tcts {

// ---------------------------------------------------------------- Python literals
namespace {

class LiteralParser {
 public:
  explicit LiteralParser(const std::string& text) : s_(text) {}

  std::optional<PyValue> Parse(std::string* error) {
    std::optional<PyValue> v = Value();
    Skip();
    if (v && k_ != s_.size()) Fail("unexpected '" + s_.substr(k_, 1) + "'");
    if (!error_.empty()) {
      *error = "cannot read the Python literal '" + s_ + "': " + error_ + " at character " + std::to_string(k_);
      return std::nullopt;
    }
    return v;
  }

 private:
  void Skip() {
    while (k_ < s_.size() && s_[k_] == ' ') ++k_;
  }
  void Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  bool Eat(const std::string& word) {
    Skip();
    if (s_.compare(k_, word.size(), word) != 0) return false;
    k_ += word.size();
    return true;
  }
  std::optional<PyValue> Value() {
    Skip();
    PyValue v;
    if (Eat("[")) {
      v.is_list = true;
      if (Eat("]")) return v;
      do {
        std::optional<PyValue> item = Value();
        if (!item) return std::nullopt;
        v.items.push_back(std::move(*item));
      } while (Eat(","));
      if (!Eat("]")) {
        Fail("expected ',' or ']'");
        return std::nullopt;
      }
      return v;
    }
    if (Eat("True")) return Leaf(Scalar::Bool(true));
    if (Eat("False")) return Leaf(Scalar::Bool(false));
    if (Eat("(")) {  // (re+imj)
      std::optional<double> re = Number(nullptr);
      std::optional<double> im = Number(nullptr);
      if (!re || !im || !Eat("j") || !Eat(")")) {
        Fail("expected (re+imj)");
        return std::nullopt;
      }
      return Leaf(Scalar::Complex({*re, *im}));
    }
    bool integral = false;
    std::optional<double> x = Number(&integral);
    if (!x) {
      Fail("expected a number, True, False or a list");
      return std::nullopt;
    }
    if (Eat("j")) return Leaf(Scalar::Complex({0, *x}));
    if (integral) return Leaf(Scalar::Int(static_cast<std::int64_t>(*x)));
    return Leaf(Scalar::Float(*x));
  }
  static PyValue Leaf(const Scalar& s) {
    PyValue v;
    v.scalar = s;
    return v;
  }
  std::optional<double> Number(bool* integral) {
    Skip();
    const char* begin = s_.c_str() + k_;
    char* end = nullptr;
    const double x = std::strtod(begin, &end);
    if (end == begin) return std::nullopt;
    const std::string token(begin, static_cast<const char*>(end));
    if (integral) *integral = token.find_first_of(".eEn") == std::string::npos;
    k_ += static_cast<std::size_t>(end - begin);
    return x;
  }

  std::string s_;
  std::size_t k_ = 0;
  std::string error_;
};

}  // namespace

std::optional<PyValue> ParsePyValue(const std::string& text, std::string* error) {
  return LiteralParser(text).Parse(error);
}

// ---------------------------------------------------------------- host memory
namespace {

double HalfToDouble(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(1024 + mant, exp - 25);
}

std::uint16_t DoubleToHalf(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (v >= 65520.0) return sign | 0x7c00;
  if (v < std::ldexp(1.0, -14)) return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(v, 24)));
  int e = 0;
  const double f = std::frexp(v, &e);  // v = f * 2^e, f in [0.5, 1)
  double mant = std::nearbyint((2 * f - 1) * 1024);
  int biased = e - 1 + 15;
  if (mant == 1024) {
    mant = 0;
    ++biased;
  }
  if (biased >= 31) return sign | 0x7c00;
  return sign | static_cast<std::uint16_t>(biased << 10) | static_cast<std::uint16_t>(mant);
}

std::uint16_t FloatToBfloat16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<std::uint16_t>(bits >> 16);
}

float Bfloat16ToFloat(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <class T>
T Load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void Store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

Scalar ReadHost(DType dtype, const std::byte* p) {
  switch (dtype) {
    case DType::kBool: return Scalar::Bool(Load<std::uint8_t>(p) != 0);
    case DType::kUint8: return Scalar::Int(Load<std::uint8_t>(p));
    case DType::kInt8: return Scalar::Int(Load<std::int8_t>(p));
    case DType::kInt16: return Scalar::Int(Load<std::int16_t>(p));
    case DType::kInt32: return Scalar::Int(Load<std::int32_t>(p));
    case DType::kInt64: return Scalar::Int(Load<std::int64_t>(p));
    case DType::kFloat16: return Scalar::Float(HalfToDouble(Load<std::uint16_t>(p)));
    case DType::kBfloat16: return Scalar::Float(Bfloat16ToFloat(Load<std::uint16_t>(p)));
    case DType::kFloat32: return Scalar::Float(Load<float>(p));
    case DType::kFloat64: return Scalar::Float(Load<double>(p));
    case DType::kComplex64: return Scalar::Complex({Load<float>(p), Load<float>(p + 4)});
    case DType::kComplex128: return Scalar::Complex({Load<double>(p), Load<double>(p + 8)});
    default: return Scalar::Int(0);  // not a documented dtype: the rows never use one
  }
}

void WriteHost(DType dtype, std::byte* p, const Scalar& value) {
  const Scalar v = CastTo(dtype, value.AsComplex());
  switch (dtype) {
    case DType::kBool: Store<std::uint8_t>(p, v.b ? 1 : 0); break;
    case DType::kUint8: Store(p, static_cast<std::uint8_t>(v.i)); break;
    case DType::kInt8: Store(p, static_cast<std::int8_t>(v.i)); break;
    case DType::kInt16: Store(p, static_cast<std::int16_t>(v.i)); break;
    case DType::kInt32: Store(p, static_cast<std::int32_t>(v.i)); break;
    case DType::kInt64: Store(p, v.i); break;
    case DType::kFloat16: Store(p, DoubleToHalf(v.f)); break;
    case DType::kBfloat16: Store(p, FloatToBfloat16(static_cast<float>(v.f))); break;
    case DType::kFloat32: Store(p, static_cast<float>(v.f)); break;
    case DType::kFloat64: Store(p, v.f); break;
    case DType::kComplex64:
      Store(p, static_cast<float>(v.c.real()));
      Store(p + 4, static_cast<float>(v.c.imag()));
      break;
    case DType::kComplex128:
      Store(p, v.c.real());
      Store(p + 8, v.c.imag());
      break;
    default: break;
  }
}

namespace {

// ---------------------------------------------------------------- helpers
std::int64_t Product(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) n *= s;
  return n;
}

// Bytes from the first element to one past the last one a geometry reaches (0 when empty).
std::int64_t ByteExtent(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& byte_strides,
                        std::int64_t itemsize) {
  std::int64_t extent = itemsize;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) return 0;
    extent += (sizes[k] - 1) * std::max<std::int64_t>(byte_strides[k], 0);
  }
  return extent;
}

// The values at each index of a strided geometry over host memory (strides in bytes).
std::vector<Scalar> ReadStrided(DType dtype, const std::byte* data, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& byte_strides) {
  std::vector<Scalar> out;
  for (const auto& index : Indices(sizes)) {
    std::int64_t off = 0;
    for (std::size_t k = 0; k < index.size(); ++k) off += index[k] * byte_strides[k];
    out.push_back(ReadHost(dtype, data + off));
  }
  return out;
}

std::vector<Scalar> CastAll(DType dtype, const std::vector<Scalar>& values) {
  std::vector<Scalar> out;
  for (const Scalar& v : values) out.push_back(CastTo(dtype, v.AsComplex()));
  return out;
}

std::optional<std::vector<Scalar>> LiteralLeaves(Case& c, const char* text) {
  std::string error;
  std::optional<PyValue> v = ParsePyValue(text, &error);
  if (!v) {
    c.Mismatch("the row's literal", "a Python literal", error);
    return std::nullopt;
  }
  return v->Leaves();
}

// A DLPack tensor the suite produces over memory it owns; its deleter only counts calls.
struct Produced {
  std::vector<std::byte> bytes;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor managed{};
  int deleted = 0;

  static void Deleter(DLManagedTensor* self) { ++static_cast<Produced*>(self->manager_ctx)->deleted; }
};

// Lays `values` (row-major) out in a new producer's buffer with the given geometry.
std::unique_ptr<Produced> Produce(DType dtype, int code, int bits, int lanes, int device_type,
                                  const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                  bool null_strides, std::int64_t byte_offset, const std::vector<Scalar>& values) {
  auto p = std::make_unique<Produced>();
  const std::int64_t itemsize = DTypeItemsize(dtype);
  const std::vector<std::int64_t> st = null_strides ? [&] {
    std::vector<std::int64_t> s(sizes.size());
    std::int64_t run = 1;
    for (std::size_t k = sizes.size(); k-- > 0;) {
      s[k] = run;
      run *= std::max<std::int64_t>(sizes[k], 1);
    }
    return s;
  }() : strides;
  std::vector<std::int64_t> byte_strides;
  for (std::int64_t s : st) byte_strides.push_back(s * itemsize);
  p->bytes.assign(static_cast<std::size_t>(byte_offset + ByteExtent(sizes, byte_strides, itemsize) + 16),
                  std::byte{0});
  const auto indices = Indices(sizes);
  for (std::size_t i = 0; i < indices.size() && i < values.size(); ++i) {
    std::int64_t off = byte_offset;
    for (std::size_t k = 0; k < st.size(); ++k) off += indices[i][k] * byte_strides[k];
    WriteHost(dtype, p->bytes.data() + off, values[i]);
  }
  p->shape = sizes;
  p->strides = st;
  DLTensor& dl = p->managed.dl_tensor;
  dl.data = p->bytes.data();
  dl.device = DLDevice{static_cast<DLDeviceType>(device_type), 0};
  dl.ndim = static_cast<std::int32_t>(sizes.size());
  dl.dtype = DLDataType{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits),
                        static_cast<std::uint16_t>(lanes)};
  dl.shape = p->shape.data();
  dl.strides = null_strides ? nullptr : p->strides.data();
  dl.byte_offset = static_cast<std::uint64_t>(byte_offset);
  p->managed.manager_ctx = p.get();
  p->managed.deleter = &Produced::Deleter;
  return p;
}

std::vector<Scalar> Alternating(std::int64_t n) {
  std::vector<Scalar> v;
  for (std::int64_t k = 0; k < n; ++k) v.push_back(Scalar::Int(k % 2));
  return v;
}

// The value that differs from `v` in every dtype (0 <-> 1).
Scalar Flipped(const Scalar& v) { return Scalar::Int(v.AsComplex() == 0.0 ? 1 : 0); }

// Builds a view of make_tensor(base, dtype, 0 1 0 1 ...) through `steps` on a candidate.
std::optional<TensorHandle> MakeView(Case& c, Candidate& cand, DType dtype, const Dims& base, int nsteps,
                                     const ViewStep* steps, const std::string& who) {
  const std::vector<std::int64_t> sizes = base.vec();
  const auto get = [&](Feature f, Result<TensorHandle> r, const std::string& what) -> std::optional<TensorHandle> {
    if (&cand == &CurrentCandidate()) return Get(c, f, std::move(r), what);
    if (!r.ok()) c.Mismatch(what + " (on the peer)", "a tensor", Describe(r.error()));
    return r.ok() ? std::optional<TensorHandle>(r.value()) : std::nullopt;
  };
  std::optional<TensorHandle> t = get(Feature::kTensors, cand.make_tensor(sizes, dtype, Alternating(Product(sizes))),
                                      who + ".make_tensor(" + Str(sizes) + ", " + DTypeName(dtype) + ")");
  for (int k = 0; t && k < nsteps; ++k) {
    t = get(FeatureOf(steps[k].kind), Apply(cand, steps[k], *t), who + "." + ToString(steps[k]));
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------- devices
void Check(const DeviceRow& row) {
  Case c(row.meta);
  const DeviceArg arg = row.arg.arg();
  const std::string call = arg.ToString();
  const Result<DeviceInfo> r = CurrentCandidate().device(arg);
  if (c.Usable(Feature::kDevices, r, call)) {
    if (CheckOutcome(c, row.error, r, call, row.repr)) {
      const DeviceInfo& d = r.value();
      ExpectEq(c, call + ".type", std::string(row.type), d.type);
      ExpectEq(c, call + ".index", row.index, d.index.value_or(-1));
      ExpectEq(c, "str(" + call + ")", std::string(row.str), d.str);
      ExpectEq(c, "repr(" + call + ")", std::string(row.repr), d.repr);
    } else if (row.error.expected && !r.ok() && row.lists_types) {
      for (const char* type : {"cpu", "cuda", "mps"}) {
        if (r.error().message.find(type) == std::string::npos) {
          c.Mismatch(call + " error names the accepted types", std::string("a message naming '") + type + "'",
                     r.error().message);
        }
      }
    }
  }
  c.Finish();
}

void Check(const DeviceEqualityRow& row) {
  Case c(row.meta);
  const DeviceArg a = row.a.arg(), b = row.b.arg();
  const std::string call = a.ToString() + " == " + b.ToString();
  const auto r = Get(c, Feature::kDevices, CurrentCandidate().compare_devices(a, b), call);
  if (r) {
    ExpectEq(c, call, row.equal, r->equal);
    if (row.equal) ExpectEq(c, "hash(" + a.ToString() + ") == hash(" + b.ToString() + ")", true, r->same_hash);
  }
  c.Finish();
}

namespace {
// Restores the default device and closes contexts a case left open, whatever happened.
class DefaultDeviceRestorer {
 public:
  explicit DefaultDeviceRestorer(Candidate& cand) : cand_(cand) {}
  ~DefaultDeviceRestorer() {
    for (; open > 0; --open) cand_.exit_device();
    if (changed) cand_.set_default_device("cpu");
  }
  int open = 0;
  bool changed = false;

 private:
  Candidate& cand_;
};
}  // namespace

void Check(const DefaultDeviceRow& row) {
  Case c(row.meta);
  Candidate& cand = CurrentCandidate();
  DefaultDeviceRestorer restore(cand);
  for (int k = 0; k < row.nsteps && !c.failed() && !c.not_supported(); ++k) {
    const DeviceStep& s = row.steps[k];
    const std::string dev = s.device;
    switch (s.kind) {
      case DeviceStepKind::kSet: {
        const std::string call = "set_default_device('" + dev + "')";
        const Status st = cand.set_default_device(dev);
        if (!c.Usable(Feature::kDefaultDevice, st, call)) break;
        restore.changed = true;
        if (!st.ok()) c.Mismatch(call, "ok", Describe(st.error()));
        break;
      }
      case DeviceStepKind::kEnter: {
        const std::string call = "with torch.device('" + dev + "'): (enter)";
        const Status st = cand.enter_device(dev);
        if (!c.Usable(Feature::kDefaultDevice, st, call)) break;
        if (!st.ok()) c.Mismatch(call, "ok", Describe(st.error()));
        else ++restore.open;
        break;
      }
      case DeviceStepKind::kExit: {
        const Status st = cand.exit_device();
        if (!c.Usable(Feature::kDefaultDevice, st, "(leaving the with block)")) break;
        if (!st.ok()) c.Mismatch("(leaving the with block)", "ok", Describe(st.error()));
        else --restore.open;
        break;
      }
      case DeviceStepKind::kGet: {
        const auto d = Get(c, Feature::kDefaultDevice, cand.default_device(), "get_default_device()");
        if (d) ExpectEq(c, "get_default_device() (step " + std::to_string(k + 1) + ")", std::string(s.expect), *d);
        break;
      }
      case DeviceStepKind::kFactory:
      case DeviceStepKind::kAsarray:
      case DeviceStepKind::kAsarrayTensor: {
        std::string call;
        Feature f = Feature::kDeviceFactories;
        Result<TensorHandle> t = Error{ErrorKind::kInternal, ""};
        if (s.kind == DeviceStepKind::kFactory) {
          const bool cuda = std::string(s.expect).rfind("cuda", 0) == 0;
          f = cuda ? Feature::kCudaTensors : Feature::kDeviceFactories;
          call = "empty([2]" + (dev.empty() ? "" : ", device='" + dev + "'") + ")";
          t = cand.empty_on({2}, DType::kFloat32, dev.empty() ? std::nullopt : std::optional<std::string>(dev));
        } else if (s.kind == DeviceStepKind::kAsarray) {
          f = Feature::kAsarray;
          call = "asarray([1, 2])";
          AsarraySource src;
          src.kind = AsarraySource::Kind::kSequence;
          src.value = *ParsePyValue("[1, 2]", nullptr);
          t = cand.asarray(src, AsarrayOptions{});
        } else {
          f = Feature::kAsarray;
          call = "asarray(tensor([1, 2]))";
          // A cpu tensor whatever the default device is (make_tensor follows the default).
          const auto base = Get(c, Feature::kDeviceFactories, cand.empty_on({2}, DType::kInt64, std::string("cpu")),
                                "empty([2], dtype=int64, device='cpu')");
          if (!base) break;
          AsarraySource src;
          src.kind = AsarraySource::Kind::kTensor;
          src.tensor = *base;
          t = cand.asarray(src, AsarrayOptions{});
        }
        const auto handle = Get(c, f, std::move(t), call);
        if (!handle) break;
        if (auto m = Meta(c, *handle, call)) {
          ExpectEq(c, call + ".device (step " + std::to_string(k + 1) + ")", std::string(s.expect), m->device);
        }
        break;
      }
    }
  }
  c.Finish();
}

// ---------------------------------------------------------------- asarray
namespace {

bool Shares(SourceKind k) { return k != SourceKind::kSequence && k != SourceKind::kScalar; }

std::string SourceText(const AsarrayRow& row) {
  switch (row.source) {
    case SourceKind::kTensor: return std::string("tensor(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ")";
    case SourceKind::kArray:
      return std::string("array(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ", byte strides " +
             Str(row.byte_strides.vec()) + ")";
    case SourceKind::kDLPack: return std::string("dlpack(") + DTypeName(row.source_dtype) + Str(row.sizes.vec()) + ")";
    case SourceKind::kArrayScalar: return std::string("numpy.") + DTypeName(row.source_dtype) + "(" + row.values + ")";
    case SourceKind::kBuffer: return "bytearray(" + std::to_string(row.buffer_bytes) + ")";
    case SourceKind::kSequence:
    case SourceKind::kScalar: return row.values;
  }
  return "?";
}

}  // namespace

void Check(const AsarrayRow& row) {
  Case c(row.meta);
  Candidate& cand = CurrentCandidate();
  DefaultDTypeScope default_dtype(c, row.default_dtype);
  if (!default_dtype.ok()) return c.Finish();

  AsarrayOptions options;
  if (row.has_dtype) options.dtype = row.dtype;
  if (*row.device) options.device = std::string(row.device);
  if (row.copy >= 0) options.copy = row.copy == 1;
  const std::string call = "asarray(" + SourceText(row) + (row.has_dtype ? std::string(", dtype=") + DTypeName(row.dtype) : "") +
                           (*row.device ? std::string(", device='") + row.device + "'" : "") +
                           ", copy=" + (row.copy < 0 ? "None" : row.copy ? "True" : "False") + ")";

  // The source. Host memory (array, buffer, DLPack) is the suite's and outlives every tensor below.
  const std::vector<std::int64_t> sizes = row.sizes.vec();
  std::vector<std::byte> host;
  std::unique_ptr<Produced> produced;
  std::vector<Scalar> source_values;  // row-major, before any mutation
  AsarraySource src;
  std::uintptr_t source_address = 0;
  std::vector<std::int64_t> source_strides;  // in elements
  {
    const auto values = (row.source == SourceKind::kBuffer) ? std::optional<std::vector<Scalar>>(std::vector<Scalar>{})
                                                            : LiteralLeaves(c, row.values);
    if (!values) return c.Finish();
    source_values = *values;
  }
  switch (row.source) {
    case SourceKind::kTensor: {
      const auto t = Get(c, Feature::kTensors, cand.make_tensor(sizes, row.source_dtype, source_values),
                         "make_tensor(" + Str(sizes) + ", " + DTypeName(row.source_dtype) + ")");
      if (!t) return c.Finish();
      src.kind = AsarraySource::Kind::kTensor;
      src.tensor = *t;
      const auto p = Get(c, Feature::kStorage, cand.data_ptr(*t), "data_ptr(source)");
      const auto m = Meta(c, *t, "source");
      if (!p || !m) return c.Finish();
      source_address = *p;
      source_strides = m->strides;
      break;
    }
    case SourceKind::kArray:
    case SourceKind::kArrayScalar: {
      const std::int64_t item = DTypeItemsize(row.source_dtype);
      std::vector<std::int64_t> bstr = row.byte_strides.vec();
      if (row.source == SourceKind::kArrayScalar) bstr.clear();
      host.assign(static_cast<std::size_t>(ByteExtent(sizes, bstr, item) + 16), std::byte{0});
      const auto indices = Indices(sizes);
      for (std::size_t i = 0; i < indices.size() && i < source_values.size(); ++i) {
        std::int64_t off = 0;
        for (std::size_t k = 0; k < bstr.size(); ++k) off += indices[i][k] * std::max<std::int64_t>(bstr[k], 0);
        WriteHost(row.source_dtype, host.data() + off, source_values[i]);
      }
      // What the array holds, read through its geometry (a broadcast row repeats the last write).
      if (!bstr.empty() && std::all_of(bstr.begin(), bstr.end(), [](std::int64_t s) { return s >= 0; })) {
        source_values = ReadStrided(row.source_dtype, host.data(), sizes, bstr);
      }
      src.kind = row.source == SourceKind::kArray ? AsarraySource::Kind::kArray : AsarraySource::Kind::kArrayScalar;
      src.array = HostArray{host.data(), row.source_dtype, sizes, bstr};
      source_address = reinterpret_cast<std::uintptr_t>(host.data());
      for (std::int64_t s : bstr) source_strides.push_back(s / item);
      break;
    }
    case SourceKind::kDLPack: {
      produced = Produce(row.source_dtype, row.dl_code, DTypeItemsize(row.source_dtype) * 8, 1, kDLCPU, sizes, {}, true,
                         0, source_values);
      src.kind = AsarraySource::Kind::kDLPack;
      src.dlpack = &produced->managed;
      source_address = reinterpret_cast<std::uintptr_t>(produced->bytes.data());
      source_strides = produced->strides;
      break;
    }
    case SourceKind::kBuffer:
      host.assign(static_cast<std::size_t>(row.buffer_bytes), std::byte{0});
      src.kind = AsarraySource::Kind::kBuffer;
      src.buffer = host.data();
      src.buffer_bytes = host.size();
      source_address = reinterpret_cast<std::uintptr_t>(host.data());
      source_strides = {1};
      break;
    case SourceKind::kSequence:
    case SourceKind::kScalar: {
      std::string error;
      src.kind = AsarraySource::Kind::kSequence;
      src.value = *ParsePyValue(row.values, &error);
      break;
    }
  }

  bool answered = false;
  {
    Result<TensorHandle> r = cand.asarray(src, options);
    answered = c.Usable(Feature::kAsarray, r, call);
    if (answered &&
        CheckOutcome(c, row.error, r, call, std::string(DTypeName(row.result_dtype)) + " " + Str(row.result_sizes.vec()))) {
      const TensorHandle out = r.value();
      if (auto m = Meta(c, out, "result")) {
        ExpectEq(c, call + ".dtype", row.result_dtype, m->dtype);
        ExpectEq(c, call + ".shape", row.result_sizes.vec(), m->sizes);
        ExpectEq(c, call + ".device", std::string(row.result_device), m->device);
        if (row.shares && Shares(row.source) && row.source != SourceKind::kBuffer) {
          ExpectEq(c, call + ".stride() (shares the source's layout)", source_strides, m->strides);
        }
      }
      const bool on_host = std::string(row.result_device) == "cpu";
      if (on_host && !c.failed()) {
        // Values: the source's, cast to the result's dtype (a fresh buffer reads as zeros).
        const auto before = ReadValues(c, out, "result");
        const std::vector<Scalar> want =
            row.source == SourceKind::kBuffer ? CastAll(row.result_dtype, std::vector<Scalar>(before ? before->size() : 0, Scalar::Int(0)))
                                              : CastAll(row.result_dtype, source_values);
        if (before && *before != want) c.Mismatch(call + " values", Str(want), Str(*before));
        // Sharing: the data pointers (the doc's data_ptr() equalities), then a write to the
        // source's first element, which the result sees exactly when it shares.
        const auto ptr = Get(c, Feature::kStorage, cand.data_ptr(out), "data_ptr(result)");
        const bool nonempty = before && !before->empty();
        if (ptr && Shares(row.source) && nonempty) {
          if (row.shares && *ptr != source_address) {
            c.Mismatch(call + ".data_ptr() == source data_ptr()", "equal (shares memory)", "a different address");
          } else if (!row.shares && *ptr == source_address) {
            c.Mismatch(call + ".data_ptr() != source data_ptr()", "a new memory (a copy)", "the source's address");
          }
        }
        if (before && nonempty && Shares(row.source) && !c.failed()) {
          const Scalar flip = Flipped(source_values.empty() ? Scalar::Int(0) : source_values[0]);
          bool wrote = true;
          switch (row.source) {
            case SourceKind::kTensor: {
              const Status st = cand.write_element(src.tensor, std::vector<std::int64_t>(sizes.size(), 0), flip);
              wrote = c.Usable(Feature::kStorage, st, "source[0...] = ...") && st.ok();
              break;
            }
            case SourceKind::kArray:
            case SourceKind::kArrayScalar: WriteHost(row.source_dtype, host.data(), flip); break;
            case SourceKind::kDLPack: WriteHost(row.source_dtype, produced->bytes.data(), flip); break;
            case SourceKind::kBuffer: host[0] = std::byte{1}; break;
            default: wrote = false;
          }
          const auto after = wrote ? ReadValues(c, out, "result after writing the source") : std::nullopt;
          if (after) {
            const bool changed = (*after)[0] != (*before)[0];
            if (changed != row.shares) {
              c.Mismatch("writing the source's first element, then reading the result's",
                         row.shares ? "the new value (shared memory)" : "the old value (a copy)",
                         (*after)[0].ToString());
            }
          }
        }
      }
    }
  }
  // Every tensor made from the DLPack source is gone: its deleter has run exactly once.
  if (produced && answered) {
    src.tensor.reset();
    if (produced->deleted != 1) {
      c.Mismatch("the DLPack deleter after every tensor using it is gone", "called once",
                 "called " + std::to_string(produced->deleted) + " times");
    }
  }
  c.Finish();
}

// ---------------------------------------------------------------- DLPack
void Check(const DLPackExportRow& row) {
  Case c(row.meta);
  Candidate& cand = CurrentCandidate();
  const std::string dev = row.device;
  std::optional<TensorHandle> t;
  if (dev == "cpu") {
    t = MakeView(c, cand, row.dtype, row.base, row.nsteps, row.steps, "t");
  } else {
    const Feature f = dev.rfind("cuda", 0) == 0 ? Feature::kCudaTensors : Feature::kDeviceFactories;
    t = Get(c, f, cand.empty_on(row.base.vec(), row.dtype, dev), "empty(" + Str(row.base.vec()) + ", device='" + dev + "')");
  }
  if (!t) return c.Finish();
  const std::string call = "to_dlpack(t)";
  Result<DLManagedTensor*> r = cand.to_dlpack(*t);
  if (c.Usable(Feature::kDLPack, r, call) && CheckOutcome(c, row.error, r, call, "a DLManagedTensor")) {
    DLManagedTensor* m = r.value();
    const DLTensor& dl = m->dl_tensor;
    ExpectEq(c, "dtype.code", row.code, static_cast<int>(dl.dtype.code));
    ExpectEq(c, "dtype.bits", row.bits, static_cast<int>(dl.dtype.bits));
    ExpectEq(c, "dtype.lanes", 1, static_cast<int>(dl.dtype.lanes));
    ExpectEq(c, "device.device_type", row.device_type, static_cast<int>(dl.device.device_type));
    ExpectEq(c, "device.device_id", row.device_id, static_cast<int>(dl.device.device_id));
    ExpectEq(c, "ndim", row.shape.n, static_cast<int>(dl.ndim));
    if (dl.ndim == row.shape.n) {
      ExpectEq(c, "shape", row.shape.vec(), std::vector<std::int64_t>(dl.shape, dl.shape + dl.ndim));
      if (!dl.strides && dl.ndim > 0) c.Mismatch("strides", Str(row.strides.vec()), "NULL");
      else ExpectEq(c, "strides (in elements)", row.strides.vec(), std::vector<std::int64_t>(dl.strides, dl.strides + dl.ndim));
    }
    ExpectEq(c, "byte_offset", std::int64_t{0}, static_cast<std::int64_t>(dl.byte_offset));
    if (dev == "cpu" && !c.failed()) {
      const auto ptr = Get(c, Feature::kStorage, cand.data_ptr(*t), "data_ptr(t)");
      const auto values = ReadValues(c, *t, "t");
      if (ptr && Product(row.shape.vec()) > 0 && reinterpret_cast<std::uintptr_t>(dl.data) != *ptr) {
        c.Mismatch("data == t.data_ptr()", "t's first element", "another address");
      } else if (values) {
        // What the DLTensor describes, read straight from memory, is t.
        std::vector<std::int64_t> byte_strides;
        for (int k = 0; k < dl.ndim; ++k) byte_strides.push_back(dl.strides[k] * DTypeItemsize(row.dtype));
        const auto seen = ReadStrided(row.dtype, static_cast<const std::byte*>(dl.data) + dl.byte_offset,
                                      row.shape.vec(), byte_strides);
        if (seen != *values) c.Mismatch("the memory the DLTensor describes", Str(*values), Str(seen));
      }
    }
    m->deleter(m);  // the consumer's one call; t stays valid
    if (dev == "cpu" && !c.failed()) {
      const auto values = ReadValues(c, *t, "t after the DLManagedTensor's deleter ran");
      (void)values;
    }
  }
  c.Finish();
}

void Check(const DLPackImportRow& row) {
  Case c(row.meta);
  Candidate& cand = CurrentCandidate();
  const std::vector<std::int64_t> sizes = row.sizes.vec();
  const std::vector<Scalar> values = Alternating(Product(sizes));
  std::unique_ptr<Produced> p = Produce(row.dtype, row.code, row.bits, row.lanes, row.device_type, sizes,
                                        row.strides.vec(), row.null_strides, row.byte_offset, values);
  const std::string call = "from_dlpack(DLTensor code " + std::to_string(row.code) + ", bits " +
                           std::to_string(row.bits) + ", lanes " + std::to_string(row.lanes) + ", device_type " +
                           std::to_string(row.device_type) + ", shape " + Str(sizes) + ", strides " +
                           (row.null_strides ? std::string("NULL") : Str(row.strides.vec())) + ", byte_offset " +
                           std::to_string(row.byte_offset) + ")";
  {
    Result<TensorHandle> r = cand.from_dlpack(&p->managed);
    if (c.Usable(Feature::kDLPack, r, call) && CheckOutcome(c, row.error, r, call, DTypeName(row.dtype))) {
      TensorHandle t = r.value();
      const std::byte* first = p->bytes.data() + row.byte_offset;
      if (auto m = Meta(c, t, "t")) {
        ExpectEq(c, call + ".dtype", row.dtype, m->dtype);
        ExpectEq(c, call + ".shape", sizes, m->sizes);
        ExpectEq(c, call + ".stride()", p->strides, m->strides);
        ExpectEq(c, call + ".device", std::string("cpu"), m->device);
      }
      const auto ptr = Get(c, Feature::kStorage, cand.data_ptr(t), "data_ptr(t)");
      if (ptr && *ptr != reinterpret_cast<std::uintptr_t>(first)) {
        c.Mismatch("t.data_ptr() == data + byte_offset", "the DLTensor's first element", "another address");
      }
      if (auto v = ReadValues(c, t, "t")) {
        if (*v != CastAll(row.dtype, values)) c.Mismatch(call + " values", Str(CastAll(row.dtype, values)), Str(*v));
      }
      // A write through the tensor lands in the producer's memory.
      if (!sizes.empty() && Product(sizes) > 0 && !c.failed()) {
        const std::vector<std::int64_t> last(sizes.size(), 0);
        const Status st = cand.write_element(t, last, Scalar::Int(1));
        if (c.Usable(Feature::kStorage, st, "t[0...] = 1") && st.ok()) {
          const Scalar seen = ReadHost(row.dtype, first);
          if (seen != CastTo(row.dtype, 1.0)) c.Mismatch("t[0...] = 1, read from the DLTensor's memory", "1", seen.ToString());
        }
      }
      // The deleter waits for the last tensor using the memory: a view keeps it alive.
      std::optional<TensorHandle> view;
      if (!sizes.empty()) view = Get(c, Feature::kViews, cand.unsqueeze(t, 0), "t.unsqueeze(0)");
      if (p->deleted != 0) c.Mismatch("the deleter while t lives", "not called", "called " + std::to_string(p->deleted) + " times");
      t.reset();
      r = Result<TensorHandle>(Error{ErrorKind::kInternal, "released"});
      if (view && p->deleted != 0) {
        c.Mismatch("the deleter while a view of t lives", "not called", "called " + std::to_string(p->deleted) + " times");
      }
      view.reset();
      if (p->deleted != 1) {
        c.Mismatch("the deleter once every tensor is gone", "called once", "called " + std::to_string(p->deleted) + " times");
      }
    } else if (row.error.expected && p->deleted != 0) {
      c.Mismatch("the deleter after a failed import", "not called (the caller still owns the tensor)",
                 "called " + std::to_string(p->deleted) + " times");
    }
  }
  c.Finish();
}

void Check(const DLPackRoundTripRow& row) {
  Case c(row.meta);
  Candidate& cand = CurrentCandidate();
  std::unique_ptr<Candidate> peer = MakeCandidate(row.peer);
  if (!peer) {
    c.Mismatch("the peer candidate", std::string("'") + row.peer + "' linked into this binary", "not registered");
    return c.Finish();
  }
  Candidate& from = row.from_peer ? *peer : cand;
  Candidate& to = row.from_peer ? cand : *peer;
  const std::string a = row.from_peer ? row.peer : "candidate", b = row.from_peer ? "candidate" : row.peer;
  // The candidate's answers go through its declarations; the peer's must simply work.
  const auto get = [&](Candidate& who, Feature f, auto r, const std::string& what) {
    if (&who == &cand) return Get(c, f, std::move(r), what);
    if (!r.ok()) c.Mismatch(what + " (on the peer)", "an answer", Describe(r.error()));
    return r.ok() ? std::optional(std::move(r.value())) : std::nullopt;
  };
  const auto src = MakeView(c, from, row.dtype, row.base, row.nsteps, row.steps, a);
  if (!src) return c.Finish();
  const auto m = get(from, Feature::kDLPack, from.to_dlpack(*src), a + ".to_dlpack(t)");
  if (!m) return c.Finish();
  const std::string call = b + ".from_dlpack(" + a + ".to_dlpack(t))";
  const auto imported = get(to, Feature::kDLPack, to.from_dlpack(*m), call);
  if (!imported) {
    (*m)->deleter(*m);  // not consumed: still ours to release
    return c.Finish();
  }
  const TensorHandle u = *imported;
  const auto mu = get(to, Feature::kTensors, to.meta(u), b + ".meta(u)");
  if (mu) {
    ExpectEq(c, call + ".dtype", row.dtype, mu->dtype);
    ExpectEq(c, call + ".shape", row.sizes.vec(), mu->sizes);
    ExpectEq(c, call + ".stride()", row.strides.vec(), mu->strides);
  }
  const auto pa = get(from, Feature::kStorage, from.data_ptr(*src), a + ".data_ptr(t)");
  const auto pb = get(to, Feature::kStorage, to.data_ptr(u), b + ".data_ptr(u)");
  if (pa && pb && *pa != *pb) c.Mismatch("t.data_ptr() == u.data_ptr()", "one memory", "two addresses");
  const auto va = get(from, Feature::kTensors, from.values(*src), a + ".values(t)");
  const auto vb = get(to, Feature::kTensors, to.values(u), b + ".values(u)");
  if (va && vb && *va != *vb) c.Mismatch("values(u) == values(t)", Str(*va), Str(*vb));
  // A write through the importer's tensor is seen by the exporter's.
  if (va && !va->empty() && !c.failed()) {
    const std::vector<std::int64_t> zero(row.sizes.n, 0);
    const Scalar flip = Flipped((*va)[0]);
    const Status st = to.write_element(u, zero, flip);
    if (!st.ok()) c.Mismatch(b + ".u[0...] = ...", "ok", Describe(st.error()));
    if (st.ok()) {
      const auto again = get(from, Feature::kTensors, from.values(*src), a + ".values(t) after the write");
      if (again && (*again)[0] != CastTo(row.dtype, flip.AsComplex())) {
        c.Mismatch("writing u[0...], then reading t[0...]", CastTo(row.dtype, flip.AsComplex()).ToString(),
                   (*again)[0].ToString());
      }
    }
  }
  c.Finish();
}

}  // namespace tcts
