// Fuzz target: DLPack import of arbitrary DLTensor headers (FromDLPack, AsarrayDLPack).
//
// Input: the header's fields — dtype code, bits and lanes, device type, ndim, shape, strides
// (or none), byte_offset, a null shape or data pointer — then the bytes of the memory.
// The harness is an honest producer where it can be: when the header reaches at most
// kMaxHonest bytes, data points at exactly that many (ASan sees any read past them); a header
// claiming more points at one byte, and its elements are never read. A shape pointer is null
// or holds ndim values (the ABI cannot say more).
// Properties:
//   * the import succeeds or raises a RuntimeError; after an error the producer's deleter has
//     not run (the tensor is still the caller's); after a success it runs exactly once, when
//     the last tensor using the memory dies;
//   * a success has the header's shape, a numel and byte count inside int64, no null data
//     unless it is empty without an offset, and (honest memory) elements that read without
//     a sanitizer finding (a bool byte other than 0 or 1 included).
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlpack/dlpack.h"
#include "reference/fuzz/fuzz_support.h"
#include "reference/interop.h"
#include "reference/tensor.h"

namespace tcts::ref::fuzz {
namespace {

constexpr Int128 kMaxHonest = 4096;     // bytes of memory the harness really provides
constexpr std::int64_t kReadAll = 256;  // imports of at most this many elements are read (and copied) whole

struct Header {
  DLTensor dl{};
  std::vector<std::int64_t> shape, strides;
  std::unique_ptr<std::byte[]> memory;
  bool honest = false;  // data holds every byte the header claims
};

Header ReadHeader(FuzzInput& in) {
  Header h;
  DLTensor& dl = h.dl;
  static constexpr std::uint8_t kBits[] = {8, 16, 32, 64, 128};
  dl.dtype.code = in.Byte() % 8;
  const std::uint8_t bits = in.Byte();
  dl.dtype.bits = bits < 200 ? kBits[bits % 5] : bits;
  dl.dtype.lanes = in.Byte() < 240 ? 1 : in.Raw<std::uint16_t>();
  // Any int32, stored as a C producer would (a value outside the enum is no valid C++ enum value).
  const std::int32_t device_type = in.Byte() < 240 ? kDLCPU : in.Raw<std::int32_t>();
  std::memcpy(&dl.device.device_type, &device_type, sizeof device_type);
  const std::uint8_t ndim = in.Byte();
  const std::uint8_t flags = in.Byte();
  const bool huge = ndim >= 250;  // any int32: no shape can back it, so the shape pointer is null
  dl.ndim = huge ? in.Raw<std::int32_t>() : ndim % 7;
  if (!huge && dl.ndim > 0) h.shape = in.Int64s(static_cast<std::size_t>(dl.ndim));
  if (!huge && (flags & 1) && dl.ndim > 0) h.strides = in.Int64s(static_cast<std::size_t>(dl.ndim));
  dl.shape = huge || (flags & 2) ? nullptr : h.shape.data();
  dl.strides = h.strides.empty() ? nullptr : h.strides.data();
  dl.byte_offset = in.Byte() < 224 ? in.Byte() % 64 : in.Raw<std::uint64_t>();
  // The bytes the header claims (honest when the geometry is valid and small).
  const Int128 itemsize = dl.dtype.bits / 8;
  std::vector<std::int64_t> strides = h.strides;
  if (dl.shape && !dl.strides) strides = ContiguousStrides(h.shape);  // the shape's own, may throw
  bool valid = dl.shape || dl.ndim == 0;
  for (std::size_t k = 0; valid && k < h.shape.size(); ++k) valid = h.shape[k] >= 0 && strides[k] >= 0;
  const Int128 claimed = valid ? Int128(dl.byte_offset) + Extent128(h.shape, strides) * itemsize : kMaxHonest + 1;
  if (flags & 4 && flags & 8) {
    dl.data = nullptr;
  } else if (claimed <= kMaxHonest) {
    h.memory.reset(new std::byte[static_cast<std::size_t>(claimed)]);  // exactly what is claimed
    for (std::size_t k = 0; k < static_cast<std::size_t>(claimed); ++k) h.memory[k] = std::byte{in.Byte()};
    dl.data = h.memory.get();
    h.honest = true;
  } else {
    h.memory.reset(new std::byte[1]());
    dl.data = h.memory.get();
  }
  return h;
}

void CheckImport(const Header& h, const Tensor& t, bool copied) {
  const DLTensor& dl = h.dl;
  TCTS_FUZZ_CHECK(dl.shape || dl.ndim == 0, "imported a null shape");
  TCTS_FUZZ_CHECK(t.sizes() == h.shape, "shape " + ShapeString(t.sizes()) + " for " + ShapeString(h.shape));
  TCTS_FUZZ_CHECK(Numel128(h.shape) <= kInt64Max, ShapeString(h.shape));
  if (!dl.data) TCTS_FUZZ_CHECK(t.numel() == 0 && dl.byte_offset == 0, "imported null data");
  if (!copied) {
    const Int128 nbytes = Int128{t.storage_offset()} + Extent128(t.sizes(), t.strides()) * Info(t.dtype()).itemsize;
    TCTS_FUZZ_CHECK(t.numel() == 0 || nbytes <= static_cast<Int128>(t.storage()->nbytes()), ShapeString(t.strides()));
  }
  // Reading is the check here: ASan for the bounds, UBSan for the values (a bool byte of 2).
  if (!h.honest || t.numel() == 0) return;
  if (t.numel() <= kReadAll) {
    t.ToScalars();
    return;
  }
  t.Read(t.storage_offset());  // the first and the last element
  t.Read(t.storage_offset() + static_cast<std::int64_t>(Extent128(t.sizes(), t.strides())) - 1);
}

}  // namespace
}  // namespace tcts::ref::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcts::ref;
  using namespace tcts::ref::fuzz;
  FuzzInput in(data, size);
  // Fails only in the harness's own ContiguousStrides of a shape whose strides do not fit.
  const std::optional<Header> header = Attempt([&] { return ReadHeader(in); });
  if (!header) return 0;
  const Header& h = *header;
  int deleted = 0;
  DLManagedTensor m{};
  m.dl_tensor = h.dl;
  m.manager_ctx = &deleted;
  m.deleter = [](DLManagedTensor* self) { ++*static_cast<int*>(self->manager_ctx); };
  // A copy (asarray copy=True) only of memory that is really there and small.
  const bool copy = h.honest && h.dl.shape && Numel128(h.shape) <= kReadAll && in.Flag();
  bool imported = false;
  try {
    AsarrayOptions o;
    o.copy = true;
    const Tensor t = copy ? AsarrayDLPack(&m, o) : FromDLPack(&m);
    imported = true;
    TCTS_FUZZ_CHECK(deleted == (copy ? 1 : 0), "the deleter ran " + std::to_string(deleted) + " times");
    CheckImport(h, t, copy);
  } catch (const Error& e) {
    CheckError(e);
    TCTS_FUZZ_CHECK(e.kind() == Error::Kind::kRuntimeError, e.what());
    TCTS_FUZZ_CHECK(deleted == 0, std::string("a failed import ran the deleter: ") + e.what());
  }
  TCTS_FUZZ_CHECK(deleted == (imported ? 1 : 0), "the deleter ran " + std::to_string(deleted) + " times");
  return 0;
}
