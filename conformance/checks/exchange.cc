#include "conformance/checks/exchange.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

namespace tcts {

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

std::int64_t ByteExtent(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& byte_strides,
                        std::int64_t itemsize) {
  std::int64_t extent = itemsize;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) return 0;
    extent += (sizes[k] - 1) * std::max<std::int64_t>(byte_strides[k], 0);
  }
  return extent;
}

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
  // The DLTensor claims ceil(bits x lanes / 8) bytes an element (DLPack): the producer owns
  // them all, also where the row's bits or lanes differ from the dtype's (a consumer that
  // copies what the description reaches reads only its own memory).
  const std::int64_t dl_item = std::max<std::int64_t>(1, (std::int64_t{bits} * lanes + 7) / 8);
  std::vector<std::int64_t> dl_byte_strides;
  for (std::int64_t s : st) dl_byte_strides.push_back(s * dl_item);
  const std::int64_t extent = std::max(ByteExtent(sizes, byte_strides, itemsize), ByteExtent(sizes, dl_byte_strides, dl_item));
  p->bytes.assign(static_cast<std::size_t>(byte_offset + extent + 16), std::byte{0});
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

Scalar Flipped(const Scalar& v) { return Scalar::Int(v.AsComplex() == 0.0 ? 1 : 0); }

std::optional<TensorHandle> MakeView(Case& c, Candidate& cand, DType dtype, const Dims& base, int nsteps,
                                     const ViewStep* steps, const std::string& who) {
  const std::vector<std::int64_t> sizes = base.vec();
  const auto get = [&](Called<TensorHandle> r, const std::string& what) -> std::optional<TensorHandle> {
    if (&cand == &c.candidate()) return Get(c, std::move(r), what, Check::kSetup);
    if (!r.ok()) c.Mismatch(Check::kSetup, what + " (on the peer)", "a tensor", Describe(r.error()));
    return r.ok() ? std::optional<TensorHandle>(r.value()) : std::nullopt;
  };
  std::optional<TensorHandle> t = get(calls::make_tensor(cand, sizes, dtype, Alternating(Numel(sizes))),
                                      who + ".make_tensor(" + Str(sizes) + ", " + DTypeName(dtype) + ")");
  for (int k = 0; t && k < nsteps; ++k) {
    t = get(Apply(cand, steps[k], *t), who + "." + ToString(steps[k]));
  }
  return t;
}

}  // namespace tcts
