// Fuzz target: view geometry — as_strided and every view op (reference/strided.h) over sizes,
// strides, offsets, dims and steps from the input, edges of int64 included.
//
// Input: the base tensor (a small cpu storage whose element k holds the value k, or a meta
// storage of any size up to int64's limit), then up to 16 ops, each a byte and its arguments.
// Properties, against an independent 128-bit oracle (fuzz_support.h):
//   * an op either succeeds or raises a user error (never an InternalError);
//   * every result is a valid view: sizes and strides non-negative, numel and every byte it
//     reaches inside int64 and inside its storage; on the cpu its first and last elements,
//     and all of them when few, hold the value of the storage index seed 004's formula gives;
//   * as_strided succeeds exactly when the geometry is valid; slice gives ceil((end - start) /
//     step) elements for any step and succeeds whenever its stride and offset fit;
//   * ops that keep the row-major order (view, reshape, squeeze, unsqueeze, contiguous,
//     clone) keep the elements; add(t, t) doubles them.
#include <algorithm>
#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "reference/binary_ops.h"
#include "reference/fuzz/fuzz_support.h"
#include "reference/strided.h"
#include "reference/tensor.h"

namespace tcts::ref::fuzz {
namespace {

constexpr std::int64_t kReadAll = 256;   // views of at most this many elements are read whole
constexpr std::int64_t kMaxCopy = 4096;  // the largest copy (reshape, clone, add) a step makes
constexpr int kMaxOps = 16;

double ValueOf(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.b;
    case Scalar::Kind::kInt: return static_cast<double>(s.i);
    case Scalar::Kind::kFloat: return s.f;
    case Scalar::Kind::kComplex: return s.c.real();
  }
  return 0;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (const Scalar& s : t.ToScalars()) out.push_back(ValueOf(s));
  return out;
}

std::string Geometry(const Tensor& t) {
  return "sizes " + ShapeString(t.sizes()) + " strides " + ShapeString(t.strides()) + " offset " +
         std::to_string(t.storage_offset());
}

// Small tensors on the cpu: ones whose elements can all be read or copied.
bool Small(const Tensor& t, std::int64_t limit) { return t.device().is_cpu() && t.numel() <= limit; }

Tensor MakeBase(FuzzInput& in) {
  const int kind = in.Byte() % 4;
  if (kind == 3) return Tensor::Empty({in.Int64()}, ScalarType::kUint8, Device::Parse("meta"));
  const ScalarType dtype = kind == 0 ? ScalarType::kFloat32 : kind == 1 ? ScalarType::kInt16 : ScalarType::kComplex128;
  const std::int64_t n = in.Byte() % 65;
  std::vector<Scalar> values;
  for (std::int64_t k = 0; k < n; ++k) values.push_back(Scalar::Int(k));
  return Tensor::FromScalars({n}, dtype, values);
}

// The geometry PyTorch's as_strided accepts on this storage, decided in 128 bits.
bool ValidGeometry(const Tensor& base, const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                   std::int64_t offset) {
  if (sizes.size() != strides.size() || offset < 0) return false;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0 || strides[k] < 0) return false;
  }
  const Int128 numel = Numel128(sizes);
  if (numel > kInt64Max) return false;
  if (numel == 0) return true;
  const Int128 end = (Int128{offset} + Extent128(sizes, strides)) * Info(base.dtype()).itemsize;
  return end <= static_cast<Int128>(base.storage()->nbytes());
}

// Every result of every op: a valid view whose elements are where the formula says.
void CheckView(const Tensor& t) {
  const std::vector<std::int64_t>& sizes = t.sizes();
  const std::vector<std::int64_t>& strides = t.strides();
  TCTS_FUZZ_CHECK(sizes.size() == strides.size(), Geometry(t));
  TCTS_FUZZ_CHECK(t.storage_offset() >= 0, Geometry(t));
  for (std::size_t k = 0; k < sizes.size(); ++k) TCTS_FUZZ_CHECK(sizes[k] >= 0 && strides[k] >= 0, Geometry(t));
  const Int128 numel = Numel128(sizes);
  TCTS_FUZZ_CHECK(numel <= kInt64Max && t.numel() == numel, Geometry(t));
  if (numel == 0) return;
  const Int128 end = (Int128{t.storage_offset()} + Extent128(sizes, strides)) * Info(t.dtype()).itemsize;
  TCTS_FUZZ_CHECK(end <= static_cast<Int128>(t.storage()->nbytes()), "past its storage: " + Geometry(t));
  if (!t.device().is_cpu()) return;
  // The first and the last element it reaches: ASan sees any read outside the storage.
  const std::int64_t last = static_cast<std::int64_t>(Extent128(sizes, strides)) - 1 + t.storage_offset();
  TCTS_FUZZ_CHECK(ValueOf(t.Read(t.storage_offset())) == t.storage_offset(), Geometry(t));
  TCTS_FUZZ_CHECK(ValueOf(t.Read(last)) == last, Geometry(t));
  if (numel > kReadAll) return;
  const std::vector<double> values = Values(t);
  std::size_t k = 0;
  ForEachIndex(sizes, [&](const std::vector<std::int64_t>& index) {
    Int128 offset = t.storage_offset();
    for (std::size_t d = 0; d < index.size(); ++d) offset += Int128{index[d]} * strides[d];
    TCTS_FUZZ_CHECK(values[k++] == static_cast<double>(offset), Geometry(t));
  });
}

void CheckSameElements(const Tensor& before, const Tensor& after) {
  if (Small(before, kReadAll)) TCTS_FUZZ_CHECK(Values(before) == Values(after), Geometry(after));
}

std::vector<std::int64_t> Dims(FuzzInput& in) { return in.Int64s(in.Byte() % 5); }

// Slice's size in 128 bits, with Python's rules (negative start/end count from the end).
Int128 SliceSize(std::int64_t size, std::int64_t start, std::int64_t end, std::int64_t step) {
  Int128 s = start < 0 ? Int128{start} + size : start, e = end < 0 ? Int128{end} + size : end;
  s = std::clamp<Int128>(s, 0, size);
  e = std::clamp<Int128>(e, s, size);
  return (e - s + step - 1) / step;
}

// One op on t, its arguments read from the input; nullopt when the op was skipped.
std::optional<Tensor> Step(const Tensor& base, const Tensor& t, FuzzInput& in) {
  switch (in.Byte() % 14) {
    case 0: {
      const std::vector<std::int64_t> sizes = Dims(in);
      const std::vector<std::int64_t> strides = in.Flag() ? in.Int64s(sizes.size()) : Dims(in);
      const std::int64_t offset = in.Int64();
      const bool valid = ValidGeometry(base, sizes, strides, offset);
      try {
        Tensor r = base.AsStrided(sizes, strides, offset);
        TCTS_FUZZ_CHECK(valid, "as_strided accepted " + Geometry(r));
        return r;
      } catch (const Error&) {
        TCTS_FUZZ_CHECK(!valid, "as_strided rejected a valid geometry");
        throw;
      }
    }
    case 1: {
      const std::int64_t d0 = in.Int64(), d1 = in.Int64();
      Tensor r = Transpose(t, d0, d1);
      if (t.dim() > 0) {
        const std::int64_t a = WrapDim(d0, t.dim()), b = WrapDim(d1, t.dim());
        TCTS_FUZZ_CHECK(r.sizes()[a] == t.sizes()[b] && r.strides()[b] == t.strides()[a], Geometry(r));
      }
      return r;
    }
    case 2: return Permute(t, in.Int64s(in.Flag() ? static_cast<std::size_t>(t.dim()) : in.Byte() % 5));
    case 3: {
      const std::int64_t dim = in.Int64(), start = in.Int64(), length = in.Int64();
      return Narrow(t, dim, start, length);
    }
    case 4: {
      const std::int64_t dim = in.Int64(), index = in.Int64();
      Tensor r = Select(t, dim, index);
      const std::int64_t d = WrapDim(dim, t.dim()), i = index < 0 ? index + t.sizes()[d] : index;
      TCTS_FUZZ_CHECK(r.storage_offset() == Int128{t.storage_offset()} + Int128{i} * t.strides()[d], Geometry(r));
      return r;
    }
    case 5: {
      const std::int64_t dim = in.Int64(), start = in.Int64(), end = in.Int64(), step = in.Int64();
      std::optional<Int128> size, offset, stride;  // what the slice must give, when its arguments are valid
      if (t.dim() > 0 && dim >= -t.dim() && dim < t.dim() && step > 0) {
        const std::int64_t d = dim < 0 ? dim + t.dim() : dim;
        const std::int64_t n = t.sizes()[d];
        Int128 s = start < 0 ? Int128{start} + n : start;
        s = std::clamp<Int128>(s, 0, n);
        size = SliceSize(n, start, end, step);
        offset = t.storage_offset() + s * t.strides()[d];
        stride = Int128{t.strides()[d]} * step;
      }
      const bool fits = size && *offset <= kInt64Max && *stride <= kInt64Max;
      try {
        Tensor r = Slice(t, dim, start, end, step);
        TCTS_FUZZ_CHECK(fits, "slice accepted " + Geometry(r));
        const std::int64_t d = dim < 0 ? dim + t.dim() : dim;
        TCTS_FUZZ_CHECK(r.sizes()[d] == *size && r.storage_offset() == *offset && r.strides()[d] == *stride,
                        Geometry(r));
        return r;
      } catch (const Error&) {
        TCTS_FUZZ_CHECK(!fits, "slice rejected valid arguments: " + Geometry(t));
        throw;
      }
    }
    case 6: {
      const std::vector<std::int64_t> target = in.Flag() ? std::vector<std::int64_t>(t.dim(), -1) : Dims(in);
      Tensor r = Expand(t, target);
      for (std::size_t k = 0; k < target.size(); ++k) {
        if (target[k] != -1) TCTS_FUZZ_CHECK(r.sizes()[k] == target[k], Geometry(r));
      }
      return r;
    }
    case 7: {
      Tensor r = Unsqueeze(t, in.Int64());
      CheckSameElements(t, r);
      return r;
    }
    case 8: {
      Tensor r = Squeeze(t, in.Flag() ? std::optional<std::int64_t>(in.Int64()) : std::nullopt);
      CheckSameElements(t, r);
      return r;
    }
    case 9:
    case 10: {
      const bool reshape = in.Byte() & 1;  // reshape may copy: only small ones
      const std::vector<std::int64_t> shape = Dims(in);
      if (reshape && !Small(t, kMaxCopy)) return std::nullopt;
      Tensor r = reshape ? Reshape(t, shape) : View(t, shape);
      TCTS_FUZZ_CHECK(r.numel() == t.numel(), Geometry(r));
      CheckSameElements(t, r);
      if (r.storage() != t.storage()) return std::nullopt;  // reshape copied: not a view of the base
      return r;
    }
    case 11: {
      if (!Small(t, kMaxCopy)) return std::nullopt;
      const MemoryFormat format = static_cast<MemoryFormat>(in.Byte() % 4);
      Tensor r = in.Flag() ? Contiguous(t, format) : Clone(t, format);
      CheckSameElements(t, r);
      return std::nullopt;  // a new storage: the chain goes on over the base's
    }
    case 12: {
      if (!Small(t, kReadAll)) return std::nullopt;
      const Tensor sum = Binary(BinaryOp::kAdd, t, t);
      const std::vector<double> a = Values(t), s = Values(sum);
      for (std::size_t k = 0; k < a.size(); ++k) TCTS_FUZZ_CHECK(s[k] == 2 * a[k], Geometry(t));
      return std::nullopt;
    }
    default: return T(t);
  }
}

}  // namespace
}  // namespace tcts::ref::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcts::ref;
  using namespace tcts::ref::fuzz;
  FuzzInput in(data, size);
  const std::optional<Tensor> base = Attempt([&] { return MakeBase(in); });
  if (!base) return 0;
  Tensor t = *base;
  for (int k = 0; k < kMaxOps && !in.empty(); ++k) {
    try {
      if (std::optional<Tensor> r = Step(*base, t, in)) {
        CheckView(*r);
        t = *r;
      }
    } catch (const Error& e) {
      CheckError(e);
    }
  }
  return 0;
}
