// Adapter: the reference implementation (tcts::ref) as a candidate. Translation only.
#include <cmath>
#include <limits>

#include "conformance/candidate/candidate.h"
#include "reference/binary_ops.h"
#include "reference/device.h"
#include "reference/device_backend.h"
#include "reference/interop.h"
#include "reference/promotion.h"
#include "reference/strided.h"

namespace tcts {
namespace {

// The suite's dtypes (generated from spec/dtypes.toml) and the reference's own, by
// enumerator name: a dtype the reference lacks is a compile error here.
ref::ScalarType ToRef(DType d) {
  switch (d) {
#define TCTS_TO_REF(e, ...) \
  case DType::e:            \
    return ref::ScalarType::e;
    TCTS_FORALL_DTYPES(TCTS_TO_REF)
#undef TCTS_TO_REF
  }
  throw ref::InternalError("ToRef: invalid DType");
}
DType FromRef(ref::ScalarType t) {
  switch (t) {
#define TCTS_FROM_REF(e, ...) \
  case ref::ScalarType::e:    \
    return DType::e;
    TCTS_FORALL_DTYPES(TCTS_FROM_REF)
#undef TCTS_FROM_REF
  }
  throw ref::InternalError("FromRef: invalid ScalarType");
}

struct RefBox : TensorBox {
  explicit RefBox(ref::Tensor t) : tensor(std::move(t)) {}
  ref::Tensor tensor;
};

Error Translate(const ref::Error& e) {
  switch (e.kind()) {
    case ref::Error::Kind::kRuntimeError: return {ErrorKind::kRuntimeError, e.what()};
    case ref::Error::Kind::kTypeError: return {ErrorKind::kTypeError, e.what()};
    case ref::Error::Kind::kValueError: return {ErrorKind::kValueError, e.what()};
    case ref::Error::Kind::kIndexError: return {ErrorKind::kIndexError, e.what()};
    case ref::Error::Kind::kInternal: return {ErrorKind::kInternal, e.what()};
  }
  return {ErrorKind::kInternal, e.what()};
}

// Runs f, turning reference exceptions into Error values.
template <class F>
auto Guard(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ref::Error& e) {
    return Translate(e);
  } catch (const std::exception& e) {
    return Error{ErrorKind::kInternal, e.what()};
  }
}

ref::Scalar ToRef(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return ref::Scalar::Bool(s.b);
    case Scalar::Kind::kInt: return ref::Scalar::Int(s.i);
    case Scalar::Kind::kFloat: return ref::Scalar::Float(s.f);
    case Scalar::Kind::kComplex: return ref::Scalar::Complex(s.c);
  }
  return ref::Scalar{};
}

Scalar FromRef(const ref::Scalar& s) {
  switch (s.kind) {
    case ref::Scalar::Kind::kBool: return Scalar::Bool(s.b);
    case ref::Scalar::Kind::kInt: return Scalar::Int(s.i);
    case ref::Scalar::Kind::kFloat: return Scalar::Float(s.f);
    case ref::Scalar::Kind::kComplex: return Scalar::Complex(s.c);
  }
  return Scalar{};
}

ref::Tensor& Unbox(const TensorHandle& h) {
  auto* box = dynamic_cast<RefBox*>(h.get());
  if (!box) throw ref::InternalError("tensor handle does not belong to the reference candidate");
  return box->tensor;
}

ref::Operand ToRef(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return ToRef(*s);
  return Unbox(std::get<TensorHandle>(o));
}

// The reference's op for the interface's (the reference keeps its own enum, docs/architecture.md
// seam 5: it does not borrow the suite's tables); an op of the spec the reference does not implement answers
// NotSupported.
Result<ref::BinaryOp> ToRef(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return ref::BinaryOp::kAdd;
    case BinaryOp::kSub: return ref::BinaryOp::kSub;
    case BinaryOp::kMul: return ref::BinaryOp::kMul;
    case BinaryOp::kDiv: return ref::BinaryOp::kDiv;
    default: break;
  }
  return Error{ErrorKind::kNotSupported, std::string("binary op '") + BinaryOpName(op) + "' is not implemented by the reference"};
}

ref::MemoryFormat ToRef(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::kContiguous: return ref::MemoryFormat::kContiguous;
    case MemoryFormat::kChannelsLast: return ref::MemoryFormat::kChannelsLast;
    case MemoryFormat::kChannelsLast3d: return ref::MemoryFormat::kChannelsLast3d;
    case MemoryFormat::kPreserve: return ref::MemoryFormat::kPreserve;
  }
  return ref::MemoryFormat::kContiguous;
}

TensorHandle Box(ref::Tensor t) { return std::make_shared<RefBox>(std::move(t)); }

ref::Device ToRef(const DeviceArg& a) {
  switch (a.form) {
    case DeviceArg::Form::kString: return ref::Device::Parse(a.text);
    case DeviceArg::Form::kTypeIndex: return ref::Device::FromTypeIndex(a.text, a.index);
    case DeviceArg::Form::kOrdinal: return ref::Device::FromOrdinal(a.index);
  }
  throw ref::InternalError("unknown DeviceArg form");
}

ref::PyValue ToRef(const PyValue& v) {
  ref::PyValue out;
  out.is_list = v.is_list;
  out.scalar = ToRef(v.scalar);
  for (const PyValue& item : v.items) out.items.push_back(ToRef(item));
  return out;
}

ref::AsarrayOptions ToRef(const AsarrayOptions& o) {
  ref::AsarrayOptions out;
  if (o.dtype) out.dtype = ToRef(*o.dtype);
  if (o.device) out.device = ref::Device::Parse(*o.device);
  out.copy = o.copy;
  out.requires_grad = o.requires_grad.value_or(false);
  return out;
}

// Runs a reference function returning a tensor and boxes the result.
template <class F>
Result<TensorHandle> Boxed(F&& f) {
  return Guard([&]() -> Result<TensorHandle> { return Box(f()); });
}

// Whether this process can put tensors on cuda: the build links the cuda/ backend
// (//cuda:backend, when Bazel found a toolkit) and a GPU is usable. Empty: yes; else why not.
// Asked once, on first use: a process that never asks never starts the CUDA runtime.
const std::string& CudaUnavailable() {
  static const std::string why_not = [] {
    ref::DeviceBackend* backend = ref::FindDeviceBackend("cuda");
    if (!backend) return std::string("this build of the reference has no cuda backend (Bazel found no CUDA toolkit)");
    std::string why;
    if (backend->DeviceCount(&why) == 0) return "no usable cuda device (" + why + ")";
    return std::string();
  }();
  return why_not;
}

class ReferenceCandidate final : public CandidateOf<ReferenceCandidate> {
 public:
  std::string name() const override { return "reference"; }
  std::string version() const override { return "tcts::ref (this build)"; }
  std::string build() const override {
#ifdef __clang__
    std::string b = std::string("clang ") + __clang_version__;
#else
    std::string b = std::string("g++ ") + __VERSION__;
#endif
    b += ", C++ " + std::to_string(__cplusplus);
#ifdef __OPTIMIZE__
    b += ", optimized";
#else
    b += ", not optimized";
#endif
#ifdef NDEBUG
    b += ", NDEBUG";
#endif
    return b;
  }
  // Every op (its features: CandidateOf). Autograd is its metadata (reference/tensor.h
  // AutogradMeta): the flag and which operation made a tensor, no gradients. Of the answers:
  // no sparse layout (the reference is strided only), every device form and repr, and CUDA
  // tensors only where this process can have them (a build with the cuda backend, on a machine
  // with a GPU).
  bool answers(Feature f) const override {
    if (f == Feature::kCudaTensors) return CudaUnavailable().empty();
    return f != Feature::kSparseLayout;
  }

  Result<DType> dtype_from_name(std::string_view name) override {
    if (auto t = ref::ScalarTypeFromName(name)) return FromRef(*t);
    return Error{ErrorKind::kTypeError, "unknown dtype name '" + std::string(name) + "'"};
  }

  Result<DTypeInfo> dtype_info(DType d) override {
    const ref::ScalarTypeInfo& info = ref::Info(ToRef(d));
    DTypeInfo out;
    out.itemsize = info.itemsize;
    out.is_floating_point = ref::IsFloating(ToRef(d));
    out.is_complex = ref::IsComplex(ToRef(d));
    out.is_signed = info.is_signed;
    return out;
  }

  Result<FloatInfo> finfo(DType d) override {
    return Guard([&]() -> Result<FloatInfo> {
      const ref::ScalarType t = ToRef(d);
      if (!ref::IsFloating(t)) {
        return Error{ErrorKind::kTypeError, std::string("torch.finfo() requires a floating point input type, got ") + ref::Name(t)};
      }
      // Measured on the storage type itself (its rounding), not read from the spec.
      return ref::Dispatch(t, [&](auto tag) -> FloatInfo {
        using T = typename decltype(tag)::type;
        const auto round_trip = [](double x) { return ref::Convert<double>(ref::Convert<T>(x)); };
        FloatInfo fi;
        fi.bits = static_cast<int>(sizeof(T) * 8);
        // eps: 1 + eps/2 rounds (to even) back to 1; 1 + eps does not.
        fi.eps = 1.0;
        while (round_trip(1.0 + fi.eps / 2) != 1.0) fi.eps /= 2;
        // max: (2 - eps) times the largest finite power of two.
        double top = 1.0;
        while (std::isfinite(round_trip(top * 2)) && round_trip(top * 2) == top * 2) top *= 2;
        fi.max = top * (2 - fi.eps);
        fi.min = -fi.max;
        // tiny: the smallest power of two that still has full precision (is normal).
        fi.tiny = 1.0;
        while (true) {
          const double half = fi.tiny / 2, inc = half * fi.eps;
          if (inc == 0 || round_trip(half + inc) - half != inc) break;
          fi.tiny = half;
        }
        return fi;
      });
    });
  }

  Result<std::string> legacy_constructor(DType d) override {
    if (auto name = ref::LegacyTensorTypeName(ToRef(d))) return *name;
    return Error{ErrorKind::kValueError, std::string(ref::Name(ToRef(d))) + " has no legacy constructor"};
  }

  Result<DType> promote_types(DType a, DType b) override {
    return Guard([&]() -> Result<DType> { return FromRef(ref::PromoteTypes(ToRef(a), ToRef(b))); });
  }
  Result<bool> can_cast(DType from, DType to) override { return ref::CanCast(ToRef(from), ToRef(to)); }
  Result<DType> result_type(const Operand& a, const Operand& b) override {
    return Guard([&]() -> Result<DType> { return FromRef(ref::ResultType(ToRef(a), ToRef(b))); });
  }
  Result<DType> default_dtype() override { return FromRef(ref::DefaultDType()); }
  Status set_default_dtype(DType d) override {
    return Guard([&]() -> Status {
      ref::SetDefaultDType(ToRef(d));
      return {};
    });
  }

  // Factories without a device argument (torch.tensor, torch.empty, torch.empty_strided)
  // allocate on the default device, as PyTorch's do.
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return Boxed([&] {
      std::vector<ref::Scalar> v;
      for (const Scalar& s : values) v.push_back(ToRef(s));
      ref::Tensor t = ref::Tensor::FromScalars(sizes, ToRef(dtype), v);
      const ref::Device where = ref::ResolveDevice(nullptr);
      return where.is_cpu() ? t : ref::To(t, t.dtype(), where);
    });
  }

  Result<TensorMeta> meta(const TensorHandle& h) override {
    return Guard([&]() -> Result<TensorMeta> {
      const ref::Tensor& t = Unbox(h);
      return TensorMeta{FromRef(t.dtype()), t.sizes(), t.strides(), t.storage_offset(), t.device().str(),
                        Layout::kStrided};
    });
  }

  Result<std::vector<Scalar>> values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      std::vector<Scalar> out;
      for (const ref::Scalar& s : Unbox(h).ToScalars()) out.push_back(FromRef(s));
      return out;
    });
  }

  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    const Result<ref::BinaryOp> r = ToRef(op);
    if (!r.ok()) return r.error();
    return Boxed([&] { return ref::Binary(r.value(), ToRef(a), ToRef(b), ToRef(alpha)); });
  }

  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    const Result<ref::BinaryOp> r = ToRef(op);
    if (!r.ok()) return r.error();
    return Guard([&]() -> Status {
      ref::BinaryOut(r.value(), ToRef(a), ToRef(b), ToRef(alpha), Unbox(out));
      return {};
    });
  }

  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    const Result<ref::BinaryOp> r = ToRef(op);
    if (!r.ok()) return r.error();
    return Guard([&]() -> Status {
      ref::BinaryInplace(r.value(), Unbox(self), ToRef(other), ToRef(alpha));
      return {};
    });
  }

  // -- strided tensors
  Result<TensorHandle> empty(const std::vector<std::int64_t>& sizes, DType dtype, Layout layout,
                             MemoryFormat format) override {
    if (layout != Layout::kStrided) return NotSupported("empty: the reference has strided tensors only");
    return Boxed([&] { return ref::Empty(sizes, ToRef(dtype), ToRef(format), ref::ResolveDevice(nullptr)); });
  }
  Result<TensorHandle> empty_strided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                     DType dtype) override {
    return Boxed([&] {
      return ref::Tensor::EmptyStrided(sizes, strides, ToRef(dtype), ref::Storage::Init::kZero, ref::ResolveDevice(nullptr));
    });
  }
  Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat format) override {
    return Guard([&]() -> Result<bool> { return ref::IsContiguous(Unbox(t), ToRef(format)); });
  }
  Result<TensorHandle> as_strided(const TensorHandle& t, const std::vector<std::int64_t>& sizes,
                                  const std::vector<std::int64_t>& strides, std::int64_t offset) override {
    return Boxed([&] { return Unbox(t).AsStrided(sizes, strides, offset); });
  }
  Result<TensorHandle> t(const TensorHandle& t) override { return Boxed([&] { return ref::T(Unbox(t)); }); }
  Result<TensorHandle> transpose(const TensorHandle& t, std::int64_t d0, std::int64_t d1) override {
    return Boxed([&] { return ref::Transpose(Unbox(t), d0, d1); });
  }
  Result<TensorHandle> permute(const TensorHandle& t, const std::vector<std::int64_t>& dims) override {
    return Boxed([&] { return ref::Permute(Unbox(t), dims); });
  }
  Result<TensorHandle> narrow(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t length) override {
    return Boxed([&] { return ref::Narrow(Unbox(t), dim, start, length); });
  }
  Result<TensorHandle> select(const TensorHandle& t, std::int64_t dim, std::int64_t index) override {
    return Boxed([&] { return ref::Select(Unbox(t), dim, index); });
  }
  Result<TensorHandle> slice(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t end,
                             std::int64_t step) override {
    return Boxed([&] { return ref::Slice(Unbox(t), dim, start, end, step); });
  }
  Result<TensorHandle> expand(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return ref::Expand(Unbox(t), sizes); });
  }
  Result<TensorHandle> unsqueeze(const TensorHandle& t, std::int64_t dim) override {
    return Boxed([&] { return ref::Unsqueeze(Unbox(t), dim); });
  }
  Result<TensorHandle> squeeze(const TensorHandle& t, std::optional<std::int64_t> dim) override {
    return Boxed([&] { return ref::Squeeze(Unbox(t), dim); });
  }
  Result<TensorHandle> view(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return ref::View(Unbox(t), sizes); });
  }
  Result<TensorHandle> reshape(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return ref::Reshape(Unbox(t), sizes); });
  }
  Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return ref::Contiguous(Unbox(t), ToRef(format)); });
  }
  Result<TensorHandle> clone(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return ref::Clone(Unbox(t), ToRef(format)); });
  }
  Result<TensorHandle> empty_like(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return ref::EmptyLike(Unbox(t), ToRef(format)); });
  }

  // -- storage
  Result<StorageInfo> storage(const TensorHandle& h) override {
    return Guard([&]() -> Result<StorageInfo> {
      const ref::Tensor& t = Unbox(h);
      return StorageInfo{reinterpret_cast<std::uintptr_t>(t.storage().get()), t.StorageNumel()};
    });
  }
  Result<std::vector<Scalar>> storage_values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      const ref::Tensor t = Unbox(h).OnHost();  // one transfer for a device tensor
      std::vector<Scalar> out;
      for (std::int64_t k = 0; k < t.StorageNumel(); ++k) out.push_back(FromRef(t.Read(k)));
      return out;
    });
  }
  Status write_storage(const TensorHandle& h, std::int64_t index, const Scalar& value) override {
    return Guard([&]() -> Status {
      const ref::Tensor& t = Unbox(h);
      if (index < 0 || index >= t.StorageNumel()) {
        throw ref::IndexError("storage index " + std::to_string(index) + " out of range for a storage of " +
                              std::to_string(t.StorageNumel()) + " elements");
      }
      t.Write(index, ToRef(value));
      return {};
    });
  }
  Status write_element(const TensorHandle& h, const std::vector<std::int64_t>& index, const Scalar& value) override {
    return Guard([&]() -> Status {
      const ref::Tensor& t = Unbox(h);
      t.Write(t.Offset(index), ToRef(value));
      return {};
    });
  }
  Result<std::uintptr_t> data_ptr(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::uintptr_t> { return Unbox(h).DataPtr(); });
  }

  // -- devices
  Result<DeviceInfo> device(const DeviceArg& arg) override {
    return Guard([&]() -> Result<DeviceInfo> {
      const ref::Device d = ToRef(arg);
      return DeviceInfo{d.type_name(), d.has_index() ? std::optional<std::int64_t>(d.index()) : std::nullopt, d.str(), d.repr()};
    });
  }
  Result<DeviceComparison> compare_devices(const DeviceArg& a, const DeviceArg& b) override {
    return Guard([&]() -> Result<DeviceComparison> {
      const ref::Device x = ToRef(a), y = ToRef(b);
      return DeviceComparison{x == y, x.hash() == y.hash()};
    });
  }
  Result<std::string> default_device() override { return ref::DefaultDevice().str(); }
  Status set_default_device(const std::string& device) override {
    return Guard([&]() -> Status {
      ref::SetDefaultDevice(ref::Device::Parse(device));
      return {};
    });
  }
  Status reset_default_device() override {
    return Guard([&]() -> Status {
      ref::ResetDefaultDevice();
      return {};
    });
  }
  Status enter_device(const std::string& device) override {
    return Guard([&]() -> Status {
      ref::EnterDeviceContext(ref::Device::Parse(device));
      return {};
    });
  }
  Status exit_device() override {
    return Guard([&]() -> Status {
      ref::ExitDeviceContext();
      return {};
    });
  }
  Result<TensorHandle> empty_on(const std::vector<std::int64_t>& sizes, DType dtype,
                                const std::optional<std::string>& device) override {
    return Guard([&]() -> Result<TensorHandle> {
      const ref::Device d = device ? ref::Device::Parse(*device) : ref::Device::Cpu();
      const ref::Device where = ref::ResolveDevice(device ? &d : nullptr);
      if (where.is_cuda() && !CudaUnavailable().empty()) return NotSupported("empty_on: " + CudaUnavailable());
      return Box(ref::Tensor::Empty(sizes, ToRef(dtype), where));
    });
  }

  // -- asarray and DLPack
  Result<TensorHandle> asarray(const AsarraySource& s, const AsarrayOptions& options) override {
    return Boxed([&] {
      const ref::AsarrayOptions o = ToRef(options);
      switch (s.kind) {
        case AsarraySource::Kind::kTensor: return ref::AsarrayTensor(Unbox(s.tensor), o);
        case AsarraySource::Kind::kArray:
        case AsarraySource::Kind::kArrayScalar:
          return ref::AsarrayArray(s.array.data, ToRef(s.array.dtype), s.array.sizes, s.array.byte_strides,
                                   s.kind == AsarraySource::Kind::kArrayScalar, o);
        case AsarraySource::Kind::kDLPack: return ref::AsarrayDLPack(s.dlpack, o);
        case AsarraySource::Kind::kBuffer: return ref::AsarrayBuffer(s.buffer, s.buffer_bytes, o);
        case AsarraySource::Kind::kSequence: return ref::AsarrayValue(ToRef(s.value), o);
      }
      throw ref::InternalError("unknown asarray source kind");
    });
  }
  // -- autograd (003 requires_grad): the reference's autograd metadata.
  Status requires_grad_(const TensorHandle& t, bool requires_grad) override {
    return Guard([&]() -> Status {
      Unbox(t).RequiresGrad_(requires_grad);
      return {};
    });
  }
  Result<AutogradInfo> autograd(const TensorHandle& h) override {
    return Guard([&]() -> Result<AutogradInfo> {
      const ref::Tensor& t = Unbox(h);
      AutogradInfo info;
      info.requires_grad = t.requires_grad();
      info.is_leaf = t.is_leaf();
      if (!t.is_leaf()) info.grad_fn = t.grad_fn();
      return info;
    });
  }

  Result<DLManagedTensor*> to_dlpack(const TensorHandle& h) override {
    return Guard([&]() -> Result<DLManagedTensor*> { return ref::ToDLPack(Unbox(h)); });
  }
  Result<TensorHandle> from_dlpack(DLManagedTensor* m) override { return Boxed([&] { return ref::FromDLPack(m); }); }
};

TCTS_REGISTER_CANDIDATE("reference", [](const CandidateConfig&) { return std::unique_ptr<Candidate>(new ReferenceCandidate()); });

}  // namespace
}  // namespace tcts
