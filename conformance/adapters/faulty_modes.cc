#include "conformance/adapters/faulty_modes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <variant>

#include "conformance/harness/harness.h"

namespace tcts::faulty {

std::vector<Fault> ParseFaults(const std::string& spec) {
  std::vector<Fault> faults;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(';', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (!item.empty()) {
      const std::string mode = item.substr(0, eq);
      static const char* const kModes[] = {
          "abort", "segv", "exit", "hang", "wrong", "unsupported", "undeclared", "broken", "valuebased",
          "ignore_format", "dtype_info", "dtype_name", "finfo", "promote_types", "result_type", "can_cast",
          "out_cast", "alpha", "value_ulp", "out_strides", "empty_strides", "is_contiguous", "view_geometry",
          "view_copies", "storage_offset", "storage_order", "write_through", "broadcast", "overlap",
          "device_parse", "device_str", "device_eq", "default_device", "asarray_dtype", "asarray_copies",
          "buffer", "dlpack_strides", "dlpack_deleter", "byte_offset", "autograd_history",
          "asarray_requires_grad", "no_strides"};
      if (eq == std::string::npos || std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
        std::fprintf(stderr,
                     "faulty: bad --candidate_option=faults item '%s' (expected MODE=GLOB, MODE one of faulty.cc's modes)\n",
                     item.c_str());
        std::exit(2);
      }
      faults.push_back({mode, item.substr(eq + 1)});
    }
    start = end + 1;
  }
  return faults;
}

std::string ModeFor(const std::vector<Fault>& faults, const std::string& id) {
  for (const Fault& f : faults)
    if (GlobMatch(f.glob, id)) return f.mode;
  return "";
}

namespace {

// A DLManagedTensor whose deleter poisons the memory it describes (every byte 0xA5) before
// the exporter's deleter releases it: what a consumer sees after a deleter that frees memory
// still in use is reused, without freeing it.
struct Poisoning {
  DLManagedTensor outer;
  DLManagedTensor* inner;
  static DLManagedTensor* Wrap(DLManagedTensor* inner) {
    auto* p = new Poisoning{DLManagedTensor{}, inner};
    p->outer.dl_tensor = inner->dl_tensor;
    p->outer.manager_ctx = p;
    p->outer.deleter = &Poisoning::Deleter;
    return &p->outer;
  }
  static void Deleter(DLManagedTensor* self) {
    auto* p = static_cast<Poisoning*>(self->manager_ctx);
    const DLTensor& dl = self->dl_tensor;
    const std::int64_t item = (dl.dtype.bits * dl.dtype.lanes + 7) / 8;
    std::int64_t lo = 0, hi = 0, numel = 1;  // the byte range the elements span
    for (int k = 0; k < dl.ndim; ++k) {
      numel *= dl.shape[k];
      const std::int64_t stride = dl.strides ? dl.strides[k] : 0;
      (stride < 0 ? lo : hi) += stride * (dl.shape[k] - 1) * item;
    }
    if (numel > 0 && dl.device.device_type == kDLCPU) {
      std::byte* first = static_cast<std::byte*>(dl.data) + dl.byte_offset;
      std::fill(first + lo, first + hi + item, std::byte{0xA5});
    }
    if (p->inner->deleter) p->inner->deleter(p->inner);
    delete p;
  }
};

}  // namespace

DLManagedTensor* PoisoningExport(DLManagedTensor* inner) { return Poisoning::Wrap(inner); }

// Writes a's first element (row-major) back 1 ulp off: +1 for integers, not for bool, the
// next representable value of the dtype for floating (the real part for complex).
std::optional<Error> OneUlpOff(Candidate& base, const TensorHandle& t) {
  const Result<TensorMeta> m = base.meta(t);
  if (!m.ok()) return m.error();
  const Result<std::vector<Scalar>> v = base.values(t);
  if (!v.ok()) return v.error();
  if (v.value().empty()) return std::nullopt;
  const Scalar& x = v.value().front();
  const int mantissa = m.value().dtype == DType::kFloat16    ? 10
                       : m.value().dtype == DType::kBfloat16 ? 7
                       : DTypeItemsize(m.value().dtype) == 4 || m.value().dtype == DType::kComplex64 ? 23
                                                                                                     : 52;
  const auto up = [&](double f) {
    if (!std::isfinite(f)) return f;
    if (f == 0) return std::ldexp(1.0, -10);
    int e = 0;
    std::frexp(f, &e);  // |f| in [2^(e-1), 2^e)
    return f + std::ldexp(1.0, e - 1 - mantissa);
  };
  Scalar y = x;
  switch (x.kind) {
    case Scalar::Kind::kBool: y.b = !x.b; break;
    case Scalar::Kind::kInt: y.i = x.i + 1; break;
    case Scalar::Kind::kFloat: y.f = up(x.f); break;
    case Scalar::Kind::kComplex: y.c = {up(x.c.real()), x.c.imag()}; break;
  }
  const Status s = base.write_element(t, std::vector<std::int64_t>(m.value().sizes.size(), 0), y);
  if (!s.ok()) return s.error();
  return std::nullopt;
}

// A view with one stride changed (in bounds: a stride > 1 of a dimension of size > 1 one
// smaller, else a size-1 dimension's stride one larger), or a copy of it (same geometry).
Result<TensorHandle> PerturbView(Candidate& base, const std::string& mode, Result<TensorHandle> r) {
  if (!r.ok() || (mode != "view_geometry" && mode != "view_copies")) return r;
  const Result<TensorMeta> m = base.meta(r.value());
  if (!m.ok()) return m.error();
  const TensorMeta& g = m.value();
  if (mode == "view_geometry") {
    std::vector<std::int64_t> strides = g.strides;
    bool changed = false;
    for (std::size_t k = 0; k < strides.size() && !changed; ++k)
      if (g.sizes[k] > 1 && strides[k] > 1) --strides[k], changed = true;
    for (std::size_t k = 0; k < strides.size() && !changed; ++k)
      if (g.sizes[k] == 1) ++strides[k], changed = true;
    if (!changed) return r;
    return base.as_strided(r.value(), g.sizes, strides, g.storage_offset);
  }
  // view_copies: the whole storage copied, the same geometry over the copy.
  const Result<std::vector<Scalar>> all = base.storage_values(r.value());
  if (!all.ok()) return all.error();
  const std::int64_t n = static_cast<std::int64_t>(all.value().size());
  const Result<TensorHandle> flat = base.make_tensor({n}, g.dtype, all.value());
  if (!flat.ok()) return flat.error();
  return base.as_strided(flat.value(), g.sizes, g.strides, g.storage_offset);
}

DType OtherFloat(DType d) { return d == DType::kFloat64 ? DType::kFloat32 : DType::kFloat64; }
// "cuda:1" -> "cuda", "cpu" -> "cpu:0".
std::string ToggleIndex(const std::string& device) {
  const std::size_t colon = device.find(':');
  return colon == std::string::npos ? device + ":0" : device.substr(0, colon);
}

MemoryFormat NoChannelsLast(MemoryFormat f) {
  return f == MemoryFormat::kChannelsLast || f == MemoryFormat::kChannelsLast3d ? MemoryFormat::kContiguous : f;
}
// Value-based promotion, which PyTorch does not do: a Python int or float of a magnitude
// `d` cannot hold widens it to int64 or float64.
DType ValueBased(DType d, const Operand& a, const Operand& b) {
  for (const Operand* o : {&a, &b}) {
    const Scalar* s = std::get_if<Scalar>(o);
    if (!s) continue;
    if (DTypeCategory(d) == Category::kIntegral && s->kind == Scalar::Kind::kInt) {
      const int bits = 8 * DTypeItemsize(d) - (d == DType::kUint8 ? 0 : 1);  // magnitude bits
      if (std::fabs(static_cast<double>(s->i)) >= std::ldexp(1.0, bits)) d = DType::kInt64;
    }
    if (DTypeCategory(d) == Category::kFloating && s->kind == Scalar::Kind::kFloat && std::isfinite(s->f)) {
      const double max = d == DType::kFloat16    ? 65504.0
                         : d == DType::kBfloat16 ? 3.3895313892515355e38
                         : d == DType::kFloat32  ? 3.4028234663852886e38
                                                 : HUGE_VAL;
      if (std::fabs(s->f) > max) d = DType::kFloat64;
    }
  }
  return d;
}


}  // namespace tcts::faulty
