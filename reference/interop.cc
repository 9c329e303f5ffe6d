#include "reference/interop.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "reference/error.h"
#include "reference/promotion.h"
#include "reference/strided.h"

namespace tcts::ref {

// ---------------------------------------------------------------- PyValue
// Each copies or frees one level at a time from an explicit worklist.
PyValue::PyValue(const PyValue& other) : is_list(other.is_list), scalar(other.scalar) {
  std::vector<std::pair<PyValue*, const PyValue*>> todo = {{this, &other}};  // (copy, original)
  while (!todo.empty()) {
    const auto [to, from] = todo.back();
    todo.pop_back();
    to->items.reserve(from->items.size());  // so the pointers taken below stay valid
    for (const PyValue& item : from->items) {
      PyValue& copy = to->items.emplace_back();
      copy.is_list = item.is_list;
      copy.scalar = item.scalar;
      todo.emplace_back(&copy, &item);
    }
  }
}

PyValue& PyValue::operator=(const PyValue& other) {
  if (this != &other) *this = PyValue(other);
  return *this;
}

PyValue& PyValue::operator=(PyValue&& other) noexcept {
  if (this == &other) return *this;
  // `other` may live inside this value (v = std::move(v.items[0])): keep the old value alive
  // until `other` has been taken, then free it without recursion. (This value inside `other`,
  // v.items[0] = std::move(v), would make a list that holds itself: as for any container, no.)
  PyValue old(std::move(*this));
  is_list = other.is_list;
  scalar = other.scalar;
  items = std::move(other.items);
  return *this;
}

PyValue::~PyValue() {
  std::vector<std::vector<PyValue>> levels;  // lists whose items still hold lists
  if (!items.empty()) levels.push_back(std::move(items));
  while (!levels.empty()) {
    std::vector<PyValue> level = std::move(levels.back());
    levels.pop_back();
    for (PyValue& item : level)
      if (!item.items.empty()) levels.push_back(std::move(item.items));
  }  // each `level` dies holding only items without items: no destructor recurses
}

namespace {

// asarray's last step, for every source: requires_grad (AsarrayOptions::requires_grad).
Tensor WithRequiresGrad(const Tensor& t, const AsarrayOptions& o) {
  if (!t.is_leaf()) return o.requires_grad ? t : t.Detach();
  t.RequiresGrad_(o.requires_grad);
  return t;
}

// The tail of asarray for every source that can alias: copy or alias as the options ask
// (a copy: clone, or Tensor.to for another dtype or device, as tensor_new.cpp asarray does).
Tensor CopyOrAlias(const Tensor& t, const AsarrayOptions& o) {
  const bool wrong_device = o.device && *o.device != t.device();
  const bool wrong_dtype = o.dtype && *o.dtype != t.dtype();
  const bool force_copy = o.copy.value_or(false);
  if (force_copy || (!o.copy && (wrong_device || wrong_dtype))) {
    if (!wrong_device && !wrong_dtype) return WithRequiresGrad(Clone(t, MemoryFormat::kPreserve), o);
    return WithRequiresGrad(To(t, o.dtype.value_or(t.dtype()), o.device.value_or(t.device())), o);
  }
  if (wrong_device) {
    throw ValueError("can't alias tensor from device '" + t.device().str() + "' to '" + o.device->str() +
                     "' (asarray with copy=False)");
  }
  if (wrong_dtype) {
    throw ValueError(std::string("can't alias tensor with dtype '") + Info(t.dtype()).c10_name + "' into dtype '" +
                     Info(*o.dtype).c10_name + "' (asarray with copy=False)");
  }
  return WithRequiresGrad(t, o);
}

// Calls f(item, depth) for v (depth 0) and every item nested in it, in order (pre-order).
// An explicit stack instead of recursion: a nesting of any depth costs heap, never the call
// stack.
template <class F>
void Walk(const PyValue& v, F&& f) {
  std::vector<std::pair<const PyValue*, std::size_t>> open;  // the lists being walked, and the next item of each
  f(v, std::size_t{0});
  if (v.is_list) open.emplace_back(&v, 0);
  while (!open.empty()) {
    const PyValue* list = open.back().first;
    const std::size_t next = open.back().second++;
    if (next == list->items.size()) {
      open.pop_back();
      continue;
    }
    const PyValue& item = list->items[next];
    f(item, open.size());
    if (item.is_list) open.emplace_back(&item, 0);
  }
}

// The sizes of a nested list, read along its first items as compute_sizes does, then checked
// against every item: ValueError naming the first ragged dimension, TypeError for a list
// where the sizes say a number and for a number where they say a sequence ("not a sequence",
// as recursive_store's PySequence_Fast says). More than kMaxSequenceDims levels is a ValueError.
std::vector<std::int64_t> SequenceSizes(const PyValue& v) {
  std::vector<std::int64_t> sizes;
  for (const PyValue* p = &v; p->is_list; p = &p->items.front()) {
    if (sizes.size() == kMaxSequenceDims) {
      throw ValueError("too many dimensions 'list' (asarray takes sequences nested at most " +
                       std::to_string(kMaxSequenceDims) + " deep)");
    }
    sizes.push_back(static_cast<std::int64_t>(p->items.size()));
    if (p->items.empty()) break;
  }
  Walk(v, [&](const PyValue& item, std::size_t dim) {
    const auto expected = [&] {
      return "expected sequence of length " + std::to_string(sizes[dim]) + " at dim " + std::to_string(dim);
    };
    if (dim == sizes.size()) {
      if (item.is_list) {
        throw TypeError("expected a number at dim " + std::to_string(dim) + " (got a sequence of length " +
                        std::to_string(item.items.size()) + ")");
      }
    } else if (!item.is_list) {
      throw TypeError("not a sequence (a number at dim " + std::to_string(dim) + ", where the sizes need a sequence of length " +
                      std::to_string(sizes[dim]) + ")");
    } else if (static_cast<std::int64_t>(item.items.size()) != sizes[dim]) {
      throw ValueError(expected() + " (got " + std::to_string(item.items.size()) + ")");
    }
  });
  return sizes;
}

ScalarType FromDLDataType(const DLDataType& t) {
  if (t.lanes != 1) throw RuntimeError("DLPack: lanes != 1 is not supported (got lanes " + std::to_string(t.lanes) + ")");
  const auto bits = [&](const char* code) {
    return RuntimeError(std::string("DLPack: Unsupported ") + code + " bits " + std::to_string(t.bits));
  };
  switch (t.code) {
    case kDLUInt:
      if (t.bits == 8) return ScalarType::kUint8;
      throw bits("kDLUInt");
    case kDLInt:
      switch (t.bits) {
        case 8: return ScalarType::kInt8;
        case 16: return ScalarType::kInt16;
        case 32: return ScalarType::kInt32;
        case 64: return ScalarType::kInt64;
      }
      throw bits("kDLInt");
    case kDLFloat:
      switch (t.bits) {
        case 16: return ScalarType::kFloat16;
        case 32: return ScalarType::kFloat32;
        case 64: return ScalarType::kFloat64;
      }
      throw bits("kDLFloat");
    case kDLBfloat:
      if (t.bits == 16) return ScalarType::kBfloat16;
      throw bits("kDLBfloat");
    case kDLComplex:
      switch (t.bits) {
        case 64: return ScalarType::kComplex64;
        case 128: return ScalarType::kComplex128;
      }
      throw bits("kDLComplex");
    case 6:  // kDLBool (DLPack 0.8; the 0.6 header lacks the name)
      if (t.bits == 8) return ScalarType::kBool;
      throw bits("kDLBool");
  }
  throw RuntimeError("DLPack: Unsupported code " + std::to_string(t.code));
}

DLDataType ToDLDataType(ScalarType t) {
  DLDataType out;
  out.lanes = 1;
  out.bits = static_cast<std::uint8_t>(Info(t).itemsize * 8);
  switch (CategoryOf(t)) {
    case Category::kBool: out.code = 6; break;  // kDLBool
    case Category::kIntegral: out.code = Info(t).is_signed ? kDLInt : kDLUInt; break;
    case Category::kFloating: out.code = t == ScalarType::kBfloat16 ? kDLBfloat : kDLFloat; break;
    case Category::kComplex: out.code = kDLComplex; break;
  }
  return out;
}

// The producer's device type as the int32 the ABI stores. A value the enum of this header
// does not list (a newer DLPack's device, or garbage) is a number to report: loading it as
// the enum would be undefined.
std::int32_t DeviceTypeOf(const DLDevice& device) {
  static_assert(sizeof device.device_type == sizeof(std::int32_t), "DLPack stores device_type in 32 bits");
  std::int32_t type;
  std::memcpy(&type, &device.device_type, sizeof type);
  return type;
}

// What an exported DLManagedTensor owns: the tensor (keeping its storage alive) and the
// shape and strides its DLTensor points at.
struct ExportContext {
  Tensor tensor;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor managed;
};

}  // namespace

Tensor AsarrayTensor(const Tensor& t, const AsarrayOptions& o) { return CopyOrAlias(t, o); }

Tensor AsarrayArray(std::byte* data, ScalarType dtype, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::int64_t>& byte_strides, bool is_scalar, const AsarrayOptions& o) {
  if (is_scalar && o.copy == false) {
    throw RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray.");
  }
  if (sizes.size() != byte_strides.size()) {
    throw ValueError("array interface: " + std::to_string(sizes.size()) + " sizes but " +
                     std::to_string(byte_strides.size()) + " strides");
  }
  const std::int64_t itemsize = Info(dtype).itemsize;
  std::vector<std::int64_t> strides;  // in elements
  for (std::int64_t s : byte_strides) {
    if (s < 0) {
      throw ValueError("At least one stride in the given numpy array is negative, and tensors with negative strides "
                       "are not currently supported (strides " + ShapeString(byte_strides) + " bytes)");
    }
    if (s % itemsize != 0) {
      throw ValueError("given numpy array strides not a multiple of the element byte size (strides " +
                       ShapeString(byte_strides) + " bytes, itemsize " + std::to_string(itemsize) + ")");
    }
    strides.push_back(s / itemsize);
  }
  const std::int64_t nbytes = StorageNbytes(sizes, strides, 0, itemsize);
  Tensor t = Tensor::Wrap(Storage::Borrow(data, static_cast<std::size_t>(nbytes), Device::Cpu(), nullptr), sizes,
                          strides, 0, dtype);
  if (!is_scalar) return CopyOrAlias(t, o);
  // A NumPy scalar is copied here; only a different dtype or device copies it again.
  AsarrayOptions again = o;
  again.copy = std::nullopt;
  return CopyOrAlias(To(t, dtype, Device::Cpu()), again);
}

Tensor AsarrayBuffer(std::byte* data, std::size_t nbytes, const AsarrayOptions& o) {
  const ScalarType dtype = o.dtype.value_or(DefaultDType());
  const auto itemsize = static_cast<std::size_t>(Info(dtype).itemsize);
  if (nbytes == 0) throw ValueError("both buffer length (0) and count (-1) must not be 0");
  if (nbytes % itemsize != 0) {
    throw ValueError("buffer length (" + std::to_string(nbytes) + " bytes) after offset (0 bytes) must be a multiple "
                     "of element size (" + std::to_string(itemsize) + ") for dtype " + Name(dtype));
  }
  const auto n = static_cast<std::int64_t>(nbytes / itemsize);
  return CopyOrAlias(Tensor::Wrap(Storage::Borrow(data, nbytes, Device::Cpu(), nullptr), {n}, {1}, 0, dtype), o);
}

Tensor AsarrayDLPack(DLManagedTensor* m, const AsarrayOptions& o) { return CopyOrAlias(FromDLPack(m), o); }

ScalarType InferScalarType(const PyValue& v) {
  // The highest kind among the leaves; an empty list is the default dtype.
  int rank = -1;  // 0 bool, 1 int, 2 float, 3 complex
  Walk(v, [&](const PyValue& item, std::size_t) {
    if (!item.is_list) rank = std::max(rank, static_cast<int>(item.scalar.kind));
  });
  switch (rank) {
    case 0: return ScalarType::kBool;
    case 1: return ScalarType::kInt64;
    case 3: return ToComplex(DefaultDType());
    default: return DefaultDType();
  }
}

Tensor AsarrayValue(const PyValue& v, const AsarrayOptions& o) {
  if (o.copy == false) throw ValueError("can't alias arbitrary sequence into a tensor (asarray with copy=False)");
  const std::vector<std::int64_t> sizes = SequenceSizes(v);
  const ScalarType dtype = o.dtype.value_or(InferScalarType(v));
  const Device device = ResolveDevice(o.device ? &*o.device : nullptr);
  Tensor t = Tensor::Empty(sizes, dtype, device);
  if (device.is_meta()) return WithRequiresGrad(t, o);
  std::int64_t k = 0;
  // A complex number converts only to a complex or bool element (recursive_store unpacks a
  // real dtype's element with THPUtils_unpackDouble / THPUtils_unpackLong, a bool element
  // with THPUtils_unpackNumberAsBool: its truth value, both parts — unlike a tensor cast).
  const auto check_storable = [&](const Scalar& s) {
    if (s.kind != Scalar::Kind::kComplex) return;
    if (IsFloating(dtype)) throw TypeError("must be real number, not complex");
    if (IsIntegral(dtype)) throw TypeError("'complex' object cannot be interpreted as an integer");
  };
  Walk(v, [&](const PyValue& item, std::size_t) {
    if (!item.is_list) check_storable(item.scalar);
  });
  Walk(v, [&](const PyValue& item, std::size_t) {
    if (item.is_list) return;
    const Scalar& s = item.scalar;
    t.Write(k++, IsBool(dtype) && s.kind == Scalar::Kind::kComplex ? Scalar::Bool(s.c != 0.0) : s);
  });
  return WithRequiresGrad(t, o);
}

DLManagedTensor* ToDLPack(const Tensor& t) {
  // CPU memory as kDLCPU, a CUDA device's as kDLCUDA with its index (ATen's getDLDevice); the
  // data pointer is the device's address, which the exporter never dereferences.
  if (!t.device().is_cpu() && !t.device().is_cuda()) {
    throw RuntimeError("Cannot pack tensors on " + t.device().str() + " (DLPack export)");
  }
  auto* ctx = new ExportContext{t, t.sizes(), t.strides(), {}};
  for (std::size_t k = 0; k < ctx->shape.size(); ++k) {
    if (ctx->shape[k] < 2) ctx->strides[k] = 1;  // PyTorch normalises these (gh-83069)
  }
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = reinterpret_cast<void*>(t.DataPtr());
  dl.device = t.device().is_cuda()
                  ? DLDevice{kDLCUDA, static_cast<std::int32_t>(t.device().has_index() ? t.device().index() : 0)}
                  : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<std::int32_t>(t.dim());
  dl.dtype = ToDLDataType(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); };
  return &ctx->managed;
}

// Every field of the header is checked before the tensor takes ownership of m; the producer
// is trusted only for what the header cannot show: that shape and strides hold ndim values
// and that data + byte_offset holds the bytes the geometry reaches.
Tensor FromDLPack(DLManagedTensor* m) {
  if (!m) throw RuntimeError("from_dlpack: a null DLManagedTensor");
  const DLTensor& dl = m->dl_tensor;
  const ScalarType dtype = FromDLDataType(dl.dtype);
  if (DeviceTypeOf(dl.device) != kDLCPU) {
    throw RuntimeError("DLPack: Unsupported device_type: " + std::to_string(DeviceTypeOf(dl.device)) +
                       " (the reference imports kDLCPU memory only)");
  }
  if (dl.ndim < 0) throw RuntimeError("DLPack: negative ndim " + std::to_string(dl.ndim));
  if (dl.ndim > 0 && !dl.shape) throw RuntimeError("DLPack: null shape for a tensor of ndim " + std::to_string(dl.ndim));
  std::vector<std::int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<std::int64_t> strides =
      dl.strides ? std::vector<std::int64_t>(dl.strides, dl.strides + dl.ndim) : ContiguousStrides(sizes);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0 || strides[k] < 0) {
      throw RuntimeError("DLPack: negative sizes or strides are not supported (shape " + ShapeString(sizes) +
                         ", strides " + ShapeString(strides) + ")");
    }
  }
  const auto nbytes = static_cast<std::uint64_t>(StorageNbytes(sizes, strides, 0, Info(dtype).itemsize));
  const auto address = reinterpret_cast<std::uintptr_t>(dl.data);
  if (!dl.data && (dl.byte_offset != 0 || nbytes != 0)) {
    throw RuntimeError("DLPack: null data with byte_offset " + std::to_string(dl.byte_offset) + " for a tensor of " +
                       std::to_string(nbytes) + " bytes (shape " + ShapeString(sizes) + ", strides " +
                       ShapeString(strides) + ")");
  }
  if (dl.byte_offset > UINTPTR_MAX - address || nbytes > UINTPTR_MAX - address - dl.byte_offset) {
    throw RuntimeError("DLPack: data + byte_offset " + std::to_string(dl.byte_offset) + " + " + std::to_string(nbytes) +
                       " bytes (shape " + ShapeString(sizes) + ", strides " + ShapeString(strides) +
                       ") runs past the end of the address space");
  }
  std::byte* data = dl.data ? static_cast<std::byte*>(dl.data) + dl.byte_offset : nullptr;
  // The deleter is armed only once the tensor exists: should anything before fail, the
  // storage dies without running it and m stays the caller's.
  const auto owned = std::make_shared<bool>(false);
  auto storage = Storage::Borrow(data, static_cast<std::size_t>(nbytes), Device::Cpu(), [m, owned] {
    if (*owned && m->deleter) m->deleter(m);
  });
  Tensor t = Tensor::Wrap(std::move(storage), sizes, strides, 0, dtype);
  *owned = true;
  return t;
}

}  // namespace tcts::ref
