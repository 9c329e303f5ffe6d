#include "reference/tensor.h"

#include <cstring>
#include <new>
#include <numeric>
#include <sstream>

#include "reference/checked.h"
#include "reference/device_backend.h"

namespace tcts::ref {

namespace {
// Running out of memory is the reference's own error (PyTorch's allocators raise a
// RuntimeError too), never std::bad_alloc.
Error AllocationError(std::size_t nbytes, const Device& device) {
  return RuntimeError("can't allocate memory on device '" + device.str() + "': you tried to allocate " +
                      std::to_string(nbytes) + " bytes");
}

// Host memory for a storage (nothrow new: a failure is the error above, also under ASan).
std::unique_ptr<std::byte[]> AllocateHost(std::size_t nbytes, bool zero) {
  std::byte* p = zero ? new (std::nothrow) std::byte[nbytes]() : new (std::nothrow) std::byte[nbytes];
  if (!p) throw AllocationError(nbytes, Device::Cpu());
  return std::unique_ptr<std::byte[]>(p);
}

std::byte* AllocateOn(DeviceBackend& backend, std::size_t nbytes, bool zero, const Device& device) {
  try {
    return backend.Allocate(nbytes, zero, static_cast<int>(device.index()));
  } catch (const std::bad_alloc&) {
    throw AllocationError(nbytes, device);
  }
}
}  // namespace

Storage::Storage(std::size_t nbytes, Init init, Device device) : nbytes_(nbytes), device_(std::move(device)) {
  if (device_.is_meta()) return;
  if (!device_.is_cpu()) {
    device_ = ResolveDevice(&device_);  // an index-less cuda is the current device
    backend_ = &BackendFor(device_);
    data_ = AllocateOn(*backend_, nbytes, init == Init::kZero, device_);
    return;
  }
  owned_ = AllocateHost(nbytes, init == Init::kZero);
  data_ = owned_.get();
}

std::shared_ptr<Storage> Storage::Borrow(std::byte* data, std::size_t nbytes, Device device,
                                         std::function<void()> release) {
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->device_ = std::move(device);
  s->release_ = std::move(release);
  s->borrowed_ = true;
  return s;
}

Storage::~Storage() {
  if (release_) release_();
  if (backend_ && data_) backend_->Free(data_, static_cast<int>(device_.index()));
}

std::byte* Storage::data() const {
  if (!data_ && nbytes_ > 0) {
    throw RuntimeError("Cannot access data of a tensor on device '" + device_.str() + "': it has no data");
  }
  return data_;
}

void Storage::ReadBytes(std::size_t offset, void* dst, std::size_t n) const {
  if (!RangeWithin(offset, n, nbytes_)) {
    throw InternalError("ReadBytes past the end of a storage of " + std::to_string(nbytes_) + " bytes");
  }
  if (n == 0) return;
  if (backend_) {
    backend_->Memcpy(dst, data() + offset, n, DeviceBackend::Direction::kDeviceToHost, static_cast<int>(device_.index()));
  } else {
    std::memcpy(dst, data() + offset, n);
  }
}

void Storage::WriteBytes(std::size_t offset, const void* src, std::size_t n) const {
  if (!RangeWithin(offset, n, nbytes_)) {
    throw InternalError("WriteBytes past the end of a storage of " + std::to_string(nbytes_) + " bytes");
  }
  if (n == 0) return;
  if (backend_) {
    backend_->Memcpy(data() + offset, src, n, DeviceBackend::Direction::kHostToDevice, static_cast<int>(device_.index()));
  } else {
    std::memcpy(data() + offset, src, n);
  }
}

void Storage::EnsureSize(std::size_t nbytes) {
  if (nbytes <= nbytes_) return;
  if (borrowed_) {
    throw RuntimeError("Trying to resize storage that is not resizable (it borrows " + std::to_string(nbytes_) +
                       " bytes it does not own; " + std::to_string(nbytes) + " needed)");
  }
  if (device_.is_meta()) {
    nbytes_ = nbytes;
    return;
  }
  if (backend_) {
    const int index = static_cast<int>(device_.index());
    std::byte* grown = AllocateOn(*backend_, nbytes, true, device_);
    if (nbytes_) backend_->Memcpy(grown, data_, nbytes_, DeviceBackend::Direction::kDeviceToDevice, index);
    backend_->Free(data_, index);
    data_ = grown;
    nbytes_ = nbytes;
    return;
  }
  std::unique_ptr<std::byte[]> grown = AllocateHost(nbytes, true);
  std::copy(data_, data_ + nbytes_, grown.get());
  owned_ = std::move(grown);
  data_ = owned_.get();
  nbytes_ = nbytes;
}

ScalarType Scalar::WrappedType() const {
  switch (kind) {
    case Kind::kBool: return ScalarType::kBool;
    case Kind::kInt: return ScalarType::kInt64;
    case Kind::kFloat: return ScalarType::kFloat64;
    case Kind::kComplex: return ScalarType::kComplex128;
  }
  throw InternalError("Scalar::WrappedType");
}

std::int64_t Numel(const std::vector<std::int64_t>& sizes) {
  CheckedInt n = 1;
  for (std::int64_t s : sizes) {
    if (s == 0) return 0;
    n *= s;
  }
  if (!n.value()) throw RuntimeError("numel: integer multiplication overflow with sizes=" + ShapeString(sizes));
  return *n.value();
}

std::vector<std::int64_t> DenseStrides(const std::vector<std::int64_t>& sizes, const std::vector<std::size_t>& order,
                                       bool zero_as_one) {
  std::vector<std::int64_t> strides(sizes.size());
  CheckedInt running = 1;
  for (std::size_t d : order) {
    // Only a stride that is used must fit: the product of all the sizes never is.
    if (!running.value()) throw RuntimeError("Stride calculation overflowed with sizes=" + ShapeString(sizes));
    strides[d] = *running.value();
    const std::int64_t size = zero_as_one ? std::max<std::int64_t>(sizes[d], 1) : sizes[d];
    running = size == 0 ? CheckedInt(0) : running * size;  // a zero factor makes every outer stride exactly 0
  }
  return strides;
}

std::vector<std::int64_t> ContiguousStrides(const std::vector<std::int64_t>& sizes) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.rbegin(), order.rend(), 0);  // n-1 (innermost), ..., 0
  return DenseStrides(sizes, order, true);
}

std::string ShapeString(const std::vector<std::int64_t>& sizes) {
  std::ostringstream os;
  os << "[";
  for (std::size_t k = 0; k < sizes.size(); ++k) os << (k ? ", " : "") << sizes[k];
  os << "]";
  return os.str();
}

namespace {
void CheckSizes(const std::vector<std::int64_t>& sizes) {
  for (std::int64_t s : sizes) {
    if (s < 0) throw RuntimeError("Trying to create tensor with negative dimension " + std::to_string(s) + ": " + ShapeString(sizes));
  }
}
// Sizes and strides of one geometry: as many strides as sizes, none negative, a numel that
// fits in int64.
void CheckGeometry(const char* op, const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  CheckSizes(sizes);
  Numel(sizes);
  if (sizes.size() != strides.size()) {
    throw RuntimeError(std::string(op) + ": mismatch in length of strides and shape: sizes " + ShapeString(sizes) +
                       ", strides " + ShapeString(strides));
  }
  for (std::int64_t s : strides) {
    if (s < 0) {
      throw RuntimeError(std::string(op) + ": Negative strides are not supported at the moment, got strides: " +
                         ShapeString(strides));
    }
  }
}
}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides,
               std::int64_t offset, ScalarType dtype)
    : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(std::move(strides)), storage_offset_(offset),
      dtype_(dtype) {}

void Tensor::RequiresGrad_(bool requires_grad) const {
  if (!is_leaf()) {
    if (requires_grad) return;
    throw RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a computed "
                       "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  if (requires_grad && !IsFloating(dtype_) && !IsComplex(dtype_)) {
    throw RuntimeError("Only Tensors of floating point and complex dtype can require gradients");
  }
  autograd_->requires_grad = requires_grad;
}

void Tensor::RecordHistory(const char* grad_fn, bool any_input_requires_grad) const {
  if (!any_input_requires_grad) return;
  autograd_->requires_grad = true;
  autograd_->grad_fn = grad_fn;
}

Tensor Tensor::Detach() const { return Tensor(storage_, sizes_, strides_, storage_offset_, dtype_); }

Tensor Tensor::Empty(const std::vector<std::int64_t>& sizes, ScalarType dtype, const Device& device) {
  CheckSizes(sizes);
  return EmptyStrided(sizes, ContiguousStrides(sizes), dtype, Storage::Init::kZero, device);
}

Tensor Tensor::Wrap(std::shared_ptr<Storage> storage, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::int64_t>& strides, std::int64_t storage_offset, ScalarType dtype) {
  Tensor t(std::move(storage), {}, {}, 0, dtype);
  return t.AsStrided(sizes, strides, storage_offset);
}

std::uintptr_t Tensor::DataPtr() const {
  std::byte* base = storage_->data_or_null();
  // An address, not a pointer into the storage: an empty tensor's offset may lie past its end.
  return base ? reinterpret_cast<std::uintptr_t>(base) +
                    static_cast<std::uintptr_t>(storage_offset_) * static_cast<std::uintptr_t>(Info(dtype_).itemsize)
              : 0;
}

std::int64_t StorageNbytes(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                           std::int64_t storage_offset, std::int64_t itemsize) {
  CheckedInt extent = 1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) return 0;
    extent += (CheckedInt(sizes[k]) - 1) * strides[k];
  }
  const std::optional<std::int64_t> nbytes = ((extent + storage_offset) * itemsize).value();
  if (!nbytes) {
    throw RuntimeError("Storage size calculation overflowed with sizes=" + ShapeString(sizes) +
                       " and strides=" + ShapeString(strides) + " (storage offset " + std::to_string(storage_offset) +
                       ", itemsize " + std::to_string(itemsize) + ")");
  }
  return *nbytes;
}

Tensor Tensor::EmptyStrided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                            ScalarType dtype, Storage::Init init, const Device& device) {
  CheckGeometry("empty_strided", sizes, strides);
  const std::int64_t nbytes = StorageNbytes(sizes, strides, 0, Info(dtype).itemsize);
  auto storage = std::make_shared<Storage>(static_cast<std::size_t>(nbytes), init, device);
  return Tensor(std::move(storage), sizes, strides, 0, dtype);
}

Tensor Tensor::AsStrided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                         std::int64_t storage_offset) const {
  CheckGeometry("as_strided", sizes, strides);
  if (storage_offset < 0) throw RuntimeError("Tensor: invalid storage offset " + std::to_string(storage_offset));
  const std::int64_t itemsize = Info(dtype_).itemsize;
  const std::int64_t needed = StorageNbytes(sizes, strides, storage_offset, itemsize);
  if (static_cast<std::uint64_t>(needed) > storage_->nbytes()) {
    throw RuntimeError("setStorage: sizes " + ShapeString(sizes) + ", strides " + ShapeString(strides) +
                       ", storage offset " + std::to_string(storage_offset) + ", and itemsize " +
                       std::to_string(itemsize) + " requiring a storage size of " + std::to_string(needed) +
                       " are out of bounds for storage of size " + std::to_string(storage_->nbytes()));
  }
  return Tensor(storage_, sizes, strides, storage_offset, dtype_);
}

std::int64_t Tensor::StorageNumel() const {
  return static_cast<std::int64_t>(storage_->nbytes()) / Info(dtype_).itemsize;
}

// No overflow (Note [Geometry overflow]): an in-range index lies inside the checked extent.
std::int64_t Tensor::Offset(const std::vector<std::int64_t>& index) const {
  if (index.size() != sizes_.size()) {
    throw IndexError("an index of " + std::to_string(index.size()) + " dimensions for a tensor of " +
                     std::to_string(sizes_.size()));
  }
  std::int64_t offset = storage_offset_;
  for (std::size_t k = 0; k < index.size(); ++k) {
    if (index[k] < 0 || index[k] >= sizes_[k]) {
      throw IndexError("index " + std::to_string(index[k]) + " is out of bounds for dimension " + std::to_string(k) +
                       " with size " + std::to_string(sizes_[k]));
    }
    offset += strides_[k] * index[k];
  }
  return offset;
}

void Tensor::Write(std::int64_t offset, const Scalar& value) const {
  ElementPtr(offset);  // bounds
  Dispatch(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.To<T>();
    storage_->WriteBytes(static_cast<std::size_t>(offset) * sizeof(T), &v, sizeof(T));
  });
}

Tensor Tensor::FromScalars(const std::vector<std::int64_t>& sizes, ScalarType dtype, const std::vector<Scalar>& values) {
  Tensor t = Empty(sizes, dtype);
  if (static_cast<std::int64_t>(values.size()) != t.numel()) {
    throw ValueError("tensor of shape " + ShapeString(sizes) + " needs " + std::to_string(t.numel()) + " values, got " +
                     std::to_string(values.size()));
  }
  if (IsBarebonesUnsigned(dtype)) {
    // Their conversions are not the reference's (it casts into none of them): integers only.
    for (const Scalar& v : values) {
      if (v.kind != Scalar::Kind::kInt && v.kind != Scalar::Kind::kBool) {
        throw RuntimeError(std::string("the reference makes a ") + Name(dtype) + " tensor of integers only");
      }
    }
  }
  DispatchStorage(dtype, [&](auto tag) {  // the barebones unsigned dtypes too (scalar_type.h)
    using T = typename decltype(tag)::type;
    T* data = reinterpret_cast<T*>(t.storage_->data());
    for (std::size_t k = 0; k < values.size(); ++k) {
      if constexpr (std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> ||
                    std::is_same_v<T, std::uint64_t>) {
        const Scalar& v = values[k];
        data[k] = static_cast<T>(v.kind == Scalar::Kind::kBool ? std::int64_t{v.b} : v.i);  // modulo 2^bits
      } else {
        data[k] = values[k].To<T>();
      }
    }
  });
  return t;
}

std::int64_t Tensor::numel() const { return Numel(sizes_); }

std::byte* Tensor::ElementPtr(std::int64_t offset) const {
  if (offset < 0 || offset >= StorageNumel()) {
    throw InternalError("element " + std::to_string(offset) + " outside a storage of " +
                        std::to_string(storage_->nbytes()) + " bytes");
  }
  return storage_->data() + offset * Info(dtype_).itemsize;
}

Scalar Tensor::Read(std::int64_t offset) const {
  ElementPtr(offset);  // bounds
  return Dispatch(dtype_, [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    alignas(T) std::byte bytes[sizeof(T)];
    storage_->ReadBytes(static_cast<std::size_t>(offset) * sizeof(T), bytes, sizeof(T));
    const T v = LoadValue<T>(bytes);
    switch (CategoryOf(dtype_)) {
      case Category::kBool: return Scalar::Bool(Convert<bool>(v));
      case Category::kIntegral: return Scalar::Int(Convert<std::int64_t>(v));
      case Category::kFloating: return Scalar::Float(Convert<double>(v));
      case Category::kComplex: return Scalar::Complex(Convert<std::complex<double>>(v));
    }
    throw InternalError("Tensor::Read");
  });
}

Tensor Tensor::OnHost() const {
  if (device().is_cpu()) return *this;
  auto host = std::make_shared<Storage>(storage_->nbytes(), Storage::Init::kUninitialized);
  storage_->ReadBytes(0, host->data(), storage_->nbytes());
  return Tensor(std::move(host), sizes_, strides_, storage_offset_, dtype_);
}

std::vector<Scalar> Tensor::ToScalars() const {
  if (!device().is_cpu() && !device().is_meta()) return OnHost().ToScalars();
  std::vector<Scalar> out;
  try {
    out.reserve(static_cast<std::size_t>(numel()));
  } catch (const std::exception&) {  // std::bad_alloc, std::length_error
    throw RuntimeError("can't allocate memory for the " + std::to_string(numel()) + " values of a tensor of shape " +
                       ShapeString(sizes_));
  }
  ForEachIndex(sizes_, [&](const std::vector<std::int64_t>& index) { out.push_back(Read(Offset(index))); });
  return out;
}

void Tensor::Resize(const std::vector<std::int64_t>& sizes) {
  CheckSizes(sizes);
  if (sizes == sizes_) return;
  Restride(sizes, ContiguousStrides(sizes));
}

// The geometry changes only once it is checked and the storage has grown: a failure leaves
// the tensor as it was.
void Tensor::Restride(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  CheckGeometry("as_strided_", sizes, strides);
  const std::int64_t nbytes = StorageNbytes(sizes, strides, storage_offset_, Info(dtype_).itemsize);
  if (nbytes > 0) storage_->EnsureSize(static_cast<std::size_t>(nbytes));
  sizes_ = sizes;
  strides_ = strides;
}

}  // namespace tcts::ref
