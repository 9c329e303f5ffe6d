// The reference tensor: a strided view of a shared, typed byte storage.
//
// Element [i0, i1, ...] lives at storage_offset + sum_k stride[k] * i[k] (in elements;
// seed 004). Views share the Storage object; writing through one is visible in all.
#ifndef TCTS_REFERENCE_TENSOR_H_
#define TCTS_REFERENCE_TENSOR_H_

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "reference/device.h"
#include "reference/scalar_type.h"

namespace tcts::ref {

class DeviceBackend;

// Bytes on a device. A cpu storage owns its allocation or borrows memory someone else owns
// (a buffer, an array, a DLPack producer), releasing it once when the storage dies. A meta
// storage has a size and no data: reading or writing it is an error. A storage on another
// device (cuda) holds memory of that device's backend (device_backend.h): its data() is a
// device address, which host code never dereferences — it goes through ReadBytes/WriteBytes.
class Storage {
 public:
  // kUninitialized is for results every byte of which is written before anyone reads it
  // (PyTorch's empty() does not initialise either); everything else starts zeroed.
  enum class Init { kZero, kUninitialized };
  // RuntimeError naming the size when the memory cannot be had (never std::bad_alloc).
  explicit Storage(std::size_t nbytes, Init init = Init::kZero, Device device = Device::Cpu());
  // Memory owned elsewhere; `release` (may be empty) runs once, when this storage dies.
  static std::shared_ptr<Storage> Borrow(std::byte* data, std::size_t nbytes, Device device,
                                         std::function<void()> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // The bytes (a device address off the cpu); RuntimeError for a storage without data (meta).
  std::byte* data() const;
  std::byte* data_or_null() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }
  // Copies bytes [offset, offset + n) out of / into the storage, wherever it lives
  // (InternalError when the range is not inside the storage).
  void ReadBytes(std::size_t offset, void* dst, std::size_t n) const;
  void WriteBytes(std::size_t offset, const void* src, std::size_t n) const;
  // Grows (never shrinks) the allocation; existing bytes are kept, new ones zeroed. A
  // borrowed storage cannot grow (RuntimeError).
  void EnsureSize(std::size_t nbytes);

 private:
  Storage() = default;
  std::unique_ptr<std::byte[]> owned_;
  std::byte* data_ = nullptr;
  std::size_t nbytes_ = 0;
  Device device_ = Device::Cpu();
  std::function<void()> release_;
  bool borrowed_ = false;
  DeviceBackend* backend_ = nullptr;  // owner of data_ when it is device memory
};

// A number outside any tensor: a Python scalar's four kinds.
struct Scalar {
  enum class Kind { kBool, kInt, kFloat, kComplex };
  Kind kind = Kind::kInt;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::complex<double> c;

  static Scalar Bool(bool v) { Scalar s; s.kind = Kind::kBool; s.b = v; return s; }
  static Scalar Int(std::int64_t v) { Scalar s; s.kind = Kind::kInt; s.i = v; return s; }
  static Scalar Float(double v) { Scalar s; s.kind = Kind::kFloat; s.f = v; return s; }
  static Scalar Complex(std::complex<double> v) { Scalar s; s.kind = Kind::kComplex; s.c = v; return s; }

  // The dtype PyTorch gives a Python number of this kind before promotion
  // ("wrapped number"): bool, int64, double, complex128.
  ScalarType WrappedType() const;
  // -value (an int wraps at int64's limits; a bool becomes the int -0/-1), as c10::Scalar's
  // unary minus: what sub(a, b, alpha) hands to add.
  Scalar Negated() const {
    switch (kind) {
      case Kind::kBool: return Int(-static_cast<std::int64_t>(b));
      case Kind::kInt: return Int(static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(i)));
      case Kind::kFloat: return Float(-f);
      case Kind::kComplex: return Complex(-c);
    }
    return *this;
  }
  // Converts to storage type T as a cast would.
  template <class T>
  T To() const {
    switch (kind) {
      case Kind::kBool: return Convert<T>(b);
      case Kind::kInt: return Convert<T>(i);
      case Kind::kFloat: return Convert<T>(f);
      case Kind::kComplex: return Convert<T>(c);
    }
    throw InternalError("Scalar::To");
  }
};

// Autograd metadata, not gradients (003's requires_grad; spec/asarray.toml [autograd]):
// whether a tensor requires grad, and which operation made it — the class name of the
// backward node PyTorch records ("AddBackward0"), empty for a leaf. What is modelled: the
// functional binary ops, Clone and To record their history; requires_grad_ and asarray set
// the flag. Not modelled (a result is a leaf that does not require grad): views of a tensor
// that requires grad (PyTorch records e.g. TransposeBackward0), and out=/in-place ops on one
// (PyTorch refuses a leaf that requires grad, rebases a non-leaf's history).
struct AutogradMeta {
  bool requires_grad = false;
  std::string grad_fn;  // "" for a leaf
};

// A Tensor value is a handle to one tensor, as at::Tensor is: its copies are the same tensor
// (asarray that aliases answers its source itself) and share its AutogradMeta; every tensor
// made (views included) has its own.
class Tensor {
 public:
  // A new contiguous tensor (zero-filled). Empty `sizes` makes a zero-dim tensor.
  static Tensor Empty(const std::vector<std::int64_t>& sizes, ScalarType dtype, const Device& device = Device::Cpu());
  // A tensor over an existing storage (from_blob, buffers, DLPack); offset in elements.
  static Tensor Wrap(std::shared_ptr<Storage> storage, const std::vector<std::int64_t>& sizes,
                     const std::vector<std::int64_t>& strides, std::int64_t storage_offset, ScalarType dtype);
  // A new zero-filled tensor with exactly these strides (torch.empty_strided): its storage
  // holds the elements the strides reach, 1 + sum((size-1)*stride), or none when empty.
  // Every factory and view checks its geometry (Note [Geometry overflow] below).
  static Tensor EmptyStrided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                             ScalarType dtype, Storage::Init init = Storage::Init::kZero,
                             const Device& device = Device::Cpu());
  // A new contiguous tensor holding `values` (row-major), each cast to dtype.
  static Tensor FromScalars(const std::vector<std::int64_t>& sizes, ScalarType dtype,
                            const std::vector<Scalar>& values);

  ScalarType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& sizes() const { return sizes_; }
  const std::vector<std::int64_t>& strides() const { return strides_; }
  std::int64_t storage_offset() const { return storage_offset_; }
  std::int64_t dim() const { return static_cast<std::int64_t>(sizes_.size()); }
  std::int64_t numel() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  const Device& device() const { return storage_->device(); }
  // The address of the first element (data_ptr()); 0 for a tensor without data (meta).
  std::uintptr_t DataPtr() const;

  // Address of the element at storage index `offset` (in elements); InternalError when the
  // element is not inside the storage.
  std::byte* ElementPtr(std::int64_t offset) const;
  // Reads element at storage index `offset` as a Scalar of the dtype's kind.
  Scalar Read(std::int64_t offset) const;
  // Writes `value`, cast to the dtype, at storage index `offset`.
  void Write(std::int64_t offset, const Scalar& value) const;
  // The storage index of the element at `index` (seed 004's formula), bounds-checked.
  std::int64_t Offset(const std::vector<std::int64_t>& index) const;
  // Elements of the dtype the storage holds.
  std::int64_t StorageNumel() const;

  // A view of the same storage with this geometry (torch.as_strided; offset is absolute).
  // Throws RuntimeError, naming the geometry, when it would reach outside the storage or its
  // numel or extent overflows int64.
  Tensor AsStrided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                   std::int64_t storage_offset) const;
  // All elements in row-major order of the logical shape.
  std::vector<Scalar> ToScalars() const;
  // This tensor's geometry over a cpu copy of its storage (itself when on the cpu): how host
  // code reads a device tensor's elements in one transfer.
  Tensor OnHost() const;

  // t.requires_grad, t.is_leaf, type(t.grad_fn).__name__ ("" for a leaf).
  bool requires_grad() const { return autograd_->requires_grad; }
  bool is_leaf() const { return autograd_->grad_fn.empty(); }
  const std::string& grad_fn() const { return autograd_->grad_fn; }
  // t.requires_grad_(requires_grad) (VariableHooks::requires_grad_, AutogradMeta::set_requires_grad):
  // sets a leaf's flag; a non-leaf already requires grad, and cannot stop (RuntimeError);
  // only floating and complex tensors can require grad (RuntimeError).
  void RequiresGrad_(bool requires_grad) const;
  // Marks this tensor, just made by the operation whose backward node is `grad_fn`, as its
  // output when any input requires grad: then a non-leaf that requires grad.
  void RecordHistory(const char* grad_fn, bool any_input_requires_grad) const;
  // t.detach(): the same storage and geometry, a new leaf that does not require grad.
  Tensor Detach() const;

  // out=-style resize: a new shape gets contiguous strides; the storage grows if needed.
  void Resize(const std::vector<std::int64_t>& sizes);
  // Resize to `sizes` with exactly `strides` (same storage and offset; the storage grows
  // if needed): resize_output followed by as_strided_.
  void Restride(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides);

 private:
  Tensor(std::shared_ptr<Storage> storage, std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides,
         std::int64_t offset, ScalarType dtype);

  std::shared_ptr<Storage> storage_;
  std::vector<std::int64_t> sizes_;
  std::vector<std::int64_t> strides_;
  std::int64_t storage_offset_ = 0;
  ScalarType dtype_;
  std::shared_ptr<AutogradMeta> autograd_ = std::make_shared<AutogradMeta>();
};

// ---------------------------------------------------------------- geometry arithmetic
// Note [Geometry overflow]: every size, stride, offset and byte count below is exact or a
// RuntimeError naming the sizes (and strides, offset) involved — never a value that wrapped
// around int64 (reference/checked.h). Every Tensor's geometry has passed StorageNbytes and
// Numel, so arithmetic bounded by it (an in-range index's offset) cannot overflow.

// The number of elements: the product of the sizes, 0 when any size is 0 (whatever the
// others: the count is exact, not a left-to-right product). RuntimeError "numel: integer
// multiplication overflow" naming the sizes when it does not fit in int64.
std::int64_t Numel(const std::vector<std::int64_t>& sizes);

// Dense strides laying `sizes` out in `order` (innermost dimension first): each stride is the
// product of the sizes of the dimensions inside it, a size-0 dimension counting as 1 when
// `zero_as_one` (contiguous strides) and as 0 when not (channels-last and TensorIterator use
// raw sizes). RuntimeError "Stride calculation overflowed" naming the sizes when a stride
// does not fit in int64.
std::vector<std::int64_t> DenseStrides(const std::vector<std::int64_t>& sizes, const std::vector<std::size_t>& order,
                                       bool zero_as_one);
// Row-major strides of a contiguous tensor of `sizes` (size-0/1 dims get the stride
// they would have with size 1, as PyTorch does).
std::vector<std::int64_t> ContiguousStrides(const std::vector<std::int64_t>& sizes);

// The bytes a geometry reaches from the start of its storage (PyTorch's computeStorageNbytes):
// (storage_offset + 1 + sum((size-1)*stride)) * itemsize, or 0 when it has no elements.
// RuntimeError "Storage size calculation overflowed" naming the geometry when that does not
// fit in int64.
std::int64_t StorageNbytes(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                           std::int64_t storage_offset, std::int64_t itemsize);

// Calls f(index) for every index of `sizes` in row-major order (last dimension fastest).
template <class F>
void ForEachIndex(const std::vector<std::int64_t>& sizes, F&& f) {
  for (std::int64_t s : sizes)
    if (s == 0) return;
  std::vector<std::int64_t> index(sizes.size(), 0);
  while (true) {
    f(static_cast<const std::vector<std::int64_t>&>(index));
    std::size_t k = index.size();
    while (k > 0 && ++index[k - 1] == sizes[k - 1]) index[--k] = 0;
    if (k == 0) return;
  }
}

// "[2, 3]": shapes in messages are printed as PyTorch prints them.
std::string ShapeString(const std::vector<std::int64_t>& sizes);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_TENSOR_H_
