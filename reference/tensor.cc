#include "reference/tensor.h"

#include <sstream>

namespace tcts::ref {

ScalarType Scalar::WrappedType() const {
  switch (kind) {
    case Kind::kBool: return ScalarType::kBool;
    case Kind::kInt: return ScalarType::kInt64;
    case Kind::kFloat: return ScalarType::kFloat64;
    case Kind::kComplex: return ScalarType::kComplex128;
  }
  throw InternalError("Scalar::WrappedType");
}

std::vector<std::int64_t> ContiguousStrides(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t running = 1;
  for (std::size_t k = sizes.size(); k-- > 0;) {
    strides[k] = running;
    running *= std::max<std::int64_t>(sizes[k], 1);
  }
  return strides;
}

std::string ShapeString(const std::vector<std::int64_t>& sizes) {
  std::ostringstream os;
  os << "[";
  for (std::size_t k = 0; k < sizes.size(); ++k) os << (k ? ", " : "") << sizes[k];
  os << "]";
  return os.str();
}

namespace {
std::int64_t Numel(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) n *= s;
  return n;
}
void CheckSizes(const std::vector<std::int64_t>& sizes) {
  for (std::int64_t s : sizes) {
    if (s < 0) throw RuntimeError("Trying to create tensor with negative dimension " + std::to_string(s) + ": " + ShapeString(sizes));
  }
}
}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides,
               std::int64_t offset, ScalarType dtype)
    : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(std::move(strides)), storage_offset_(offset),
      dtype_(dtype) {}

Tensor Tensor::Empty(const std::vector<std::int64_t>& sizes, ScalarType dtype) {
  CheckSizes(sizes);
  auto storage = std::make_shared<Storage>(static_cast<std::size_t>(Numel(sizes)) * Info(dtype).itemsize);
  return Tensor(std::move(storage), sizes, ContiguousStrides(sizes), 0, dtype);
}

Tensor Tensor::FromScalars(const std::vector<std::int64_t>& sizes, ScalarType dtype, const std::vector<Scalar>& values) {
  Tensor t = Empty(sizes, dtype);
  if (static_cast<std::int64_t>(values.size()) != t.numel()) {
    throw ValueError("tensor of shape " + ShapeString(sizes) + " needs " + std::to_string(t.numel()) + " values, got " +
                     std::to_string(values.size()));
  }
  Dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = reinterpret_cast<T*>(t.storage_->data());
    for (std::size_t k = 0; k < values.size(); ++k) data[k] = values[k].To<T>();
  });
  return t;
}

std::int64_t Tensor::numel() const { return Numel(sizes_); }

std::byte* Tensor::ElementPtr(std::int64_t offset) const {
  const std::int64_t itemsize = Info(dtype_).itemsize;
  if (offset < 0 || (offset + 1) * itemsize > static_cast<std::int64_t>(storage_->nbytes())) {
    throw InternalError("element " + std::to_string(offset) + " outside a storage of " +
                        std::to_string(storage_->nbytes()) + " bytes");
  }
  return storage_->data() + offset * itemsize;
}

Scalar Tensor::Read(std::int64_t offset) const {
  const std::byte* p = ElementPtr(offset);
  return Dispatch(dtype_, [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    const T v = *reinterpret_cast<const T*>(p);
    switch (CategoryOf(dtype_)) {
      case Category::kBool: return Scalar::Bool(Convert<bool>(v));
      case Category::kIntegral: return Scalar::Int(Convert<std::int64_t>(v));
      case Category::kFloating: return Scalar::Float(Convert<double>(v));
      case Category::kComplex: return Scalar::Complex(Convert<std::complex<double>>(v));
    }
    throw InternalError("Tensor::Read");
  });
}

std::vector<Scalar> Tensor::ToScalars() const {
  std::vector<Scalar> out;
  const std::int64_t n = numel();
  out.reserve(static_cast<std::size_t>(n));
  std::vector<std::int64_t> index(sizes_.size(), 0);
  for (std::int64_t linear = 0; linear < n; ++linear) {
    std::int64_t offset = storage_offset_;
    for (std::size_t k = 0; k < index.size(); ++k) offset += strides_[k] * index[k];
    out.push_back(Read(offset));
    for (std::size_t k = index.size(); k-- > 0;) {  // odometer increment, last dim fastest
      if (++index[k] < sizes_[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

void Tensor::Resize(const std::vector<std::int64_t>& sizes) {
  CheckSizes(sizes);
  if (sizes == sizes_) return;
  sizes_ = sizes;
  strides_ = ContiguousStrides(sizes);
  storage_->EnsureSize(static_cast<std::size_t>(storage_offset_ + Numel(sizes)) * Info(dtype_).itemsize);
}

}  // namespace tcts::ref
