// Adapter: libtorch (ATen/c10, the C++ core of PyTorch) as a candidate. Translation only:
// every answer comes from a libtorch call; errors map from c10's exception classes.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <ATen/ScalarOps.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Logging.h>
#include <torch/csrc/autograd/function.h>
#include <torch/version.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/candidate/candidate.h"

namespace tcts {
namespace {

// The spec's dtypes by c10 name (spec/dtypes.toml c10_name) among this libtorch's ScalarTypes:
// a dtype its ScalarType does not name (uint16, uint32, uint64 before torch 2.3) has no entry,
// and is declared missing (supports_dtype).
const std::vector<std::pair<DType, at::ScalarType>>& AtenTypes() {
  static const auto* types = [] {
    auto* out = new std::vector<std::pair<DType, at::ScalarType>>();
    for (DType d : AllDTypes()) {
      for (int i = 0; i < static_cast<int>(at::ScalarType::NumOptions); ++i) {
        const auto t = static_cast<at::ScalarType>(i);
        if (std::string_view(c10::toString(t)) == DTypeC10Name(d)) out->emplace_back(d, t);
      }
    }
    return out;
  }();
  return *types;
}

at::ScalarType ToAten(DType d) {
  for (const auto& [dtype, t] : AtenTypes()) {
    if (dtype == d) return t;
  }
  return at::ScalarType::Undefined;
}

Result<DType> FromAten(at::ScalarType t) {
  for (const auto& [dtype, aten] : AtenTypes()) {
    if (aten == t) return dtype;
  }
  return Error{ErrorKind::kInternal, std::string("libtorch answered a dtype outside the spec: ") + c10::toString(t)};
}

struct TorchBox : TensorBox {
  explicit TorchBox(at::Tensor t) : tensor(std::move(t)) {}
  at::Tensor tensor;
};

// Runs f, turning c10 exceptions into Error values (Python's exception class for each).
template <class F>
auto Guard(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const c10::TypeError& e) {
    return Error{ErrorKind::kTypeError, e.what_without_backtrace()};
  } catch (const c10::ValueError& e) {
    return Error{ErrorKind::kValueError, e.what_without_backtrace()};
  } catch (const c10::IndexError& e) {
    return Error{ErrorKind::kIndexError, e.what_without_backtrace()};
  } catch (const c10::NotImplementedError& e) {
    return Error{ErrorKind::kNotImplementedError, e.what_without_backtrace()};
  } catch (const c10::Error& e) {
    return Error{ErrorKind::kRuntimeError, e.what_without_backtrace()};
  } catch (const std::exception& e) {
    // Some ATen code throws std::runtime_error (e.g. 1.13's infer_size); PyTorch's Python
    // layer raises RuntimeError for any std::exception (torch/csrc/Exceptions.h).
    return Error{ErrorKind::kRuntimeError, e.what()};
  }
}

at::Tensor& Unbox(const TensorHandle& h) {
  auto* box = dynamic_cast<TorchBox*>(h.get());
  TORCH_INTERNAL_ASSERT(box, "tensor handle does not belong to the libtorch candidate");
  return box->tensor;
}

// What a binary op of the spec that the adapter's switches do not translate answers.
Error NotTranslated(BinaryOp op) {
  return Error{ErrorKind::kNotSupported, std::string("binary op '") + BinaryOpName(op) + "' is not translated to ATen"};
}

at::Scalar ToAten(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return at::Scalar(s.b);
    case Scalar::Kind::kInt: return at::Scalar(static_cast<int64_t>(s.i));
    case Scalar::Kind::kFloat: return at::Scalar(s.f);
    case Scalar::Kind::kComplex: return at::Scalar(c10::complex<double>(s.c.real(), s.c.imag()));
  }
  return at::Scalar();
}

// A Python number as PyTorch's Python layer passes it to an op: a wrapped-number tensor.
at::Tensor ToAten(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return at::native::wrapped_scalar_tensor(ToAten(*s));
  return Unbox(std::get<TensorHandle>(o));
}

// The elements of t in row-major order, widened exactly (bool, int64, double, complex128).
std::vector<Scalar> ValuesOf(const at::Tensor& t) {
  const at::ScalarType st = t.scalar_type();
  std::vector<Scalar> out;
  if (st == at::kBool) {
    const at::Tensor w = t.contiguous();
    const bool* p = w.data_ptr<bool>();
    for (int64_t k = 0; k < w.numel(); ++k) out.push_back(Scalar::Bool(p[k]));
  } else if (at::isIntegralType(st, /*includeBool=*/false)) {
    const at::Tensor w = t.to(at::kLong).contiguous();
    const int64_t* p = w.data_ptr<int64_t>();
    for (int64_t k = 0; k < w.numel(); ++k) out.push_back(Scalar::Int(p[k]));
  } else if (at::isFloatingType(st)) {
    const at::Tensor w = t.to(at::kDouble).contiguous();
    const double* p = w.data_ptr<double>();
    for (int64_t k = 0; k < w.numel(); ++k) out.push_back(Scalar::Float(p[k]));
  } else {
    const at::Tensor w = t.to(at::kComplexDouble).contiguous();
    const c10::complex<double>* p = w.data_ptr<c10::complex<double>>();
    for (int64_t k = 0; k < w.numel(); ++k) out.push_back(Scalar::Complex({p[k].real(), p[k].imag()}));
  }
  return out;
}

at::MemoryFormat ToAten(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::kContiguous: return at::MemoryFormat::Contiguous;
    case MemoryFormat::kChannelsLast: return at::MemoryFormat::ChannelsLast;
    case MemoryFormat::kChannelsLast3d: return at::MemoryFormat::ChannelsLast3d;
    case MemoryFormat::kPreserve: return at::MemoryFormat::Preserve;
  }
  return at::MemoryFormat::Contiguous;
}

// The whole storage of t as a 1-D tensor of t's dtype (t.storage() in Python).
at::Tensor StorageTensor(const at::Tensor& t) {
  const int64_t n = static_cast<int64_t>(t.storage().nbytes() / t.element_size());
  return at::empty({0}, t.options()).set_(t.storage(), 0, {n}, {1});
}

TensorHandle Box(at::Tensor t) { return std::make_shared<TorchBox>(std::move(t)); }

// Runs a libtorch call returning a tensor and boxes the result.
template <class F>
Result<TensorHandle> Boxed(F&& f) {
  return Guard([&]() -> Result<TensorHandle> { return Box(f()); });
}

class LibtorchCandidate final : public CandidateOf<LibtorchCandidate> {
 public:
  LibtorchCandidate() {
    // Every c10::Error captures a C++ stack trace when thrown (milliseconds each), which
    // the suite never reads (it uses what_without_backtrace()). Error kinds and messages
    // are unchanged; error-heavy suites run several times faster.
    c10::SetStackTraceFetcher([] { return std::string(); });
  }

  std::string name() const override { return "libtorch"; }
  // The dtypes its c10::ScalarType names (AtenTypes): Debian's 1.13 has no uint16, uint32, uint64.
  bool supports_dtype(DType d) const override {
    const auto& types = AtenTypes();
    return std::any_of(types.begin(), types.end(), [d](const auto& e) { return e.first == d; });
  }
  std::string version() const override { return TORCH_VERSION; }
  // at::show_config() ("PyTorch built with: - GCC 12.2 - C++ Version: 201703 ..."), one line.
  std::string build() const override {
    std::string line;
    for (const char c : at::show_config()) {
      if (c == '\n') {
        if (!line.empty() && line.back() != ' ') line += ' ';
      } else if (!(c == ' ' && (line.empty() || line.back() == ' '))) {
        line += c;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
  }
  // The ops it has (their features: CandidateOf). Not overridden, so NotSupported: dtype_from_name
  // (no dtype-name parser: names live in PyTorch's Python layer), the default device ops
  // (torch.set_default_device is Python, 2.0+), asarray (torch.asarray is Python,
  // torch/csrc/utils/tensor_new.cpp). Of the answers: no repr(torch.device) (Python,
  // torch/csrc/Device.cpp), no torch.device(type, index) / torch.device(ordinal) (Python), sparse
  // layouts, and CUDA tensors where ATen has CUDA.
  bool answers(Feature f) const override {
    switch (f) {
      case Feature::kDeviceRepr:
      case Feature::kDeviceForms:
        return false;
      case Feature::kCudaTensors: return at::hasCUDA();
      default: return true;
    }
  }

  Result<DTypeInfo> dtype_info(DType d) override {
    return Guard([&]() -> Result<DTypeInfo> {
      const at::ScalarType t = ToAten(d);
      DTypeInfo info;
      info.itemsize = static_cast<int>(c10::elementSize(t));
      info.is_floating_point = at::isFloatingType(t);
      info.is_complex = at::isComplexType(t);
      info.is_signed = at::isSignedType(t);
      return info;
    });
  }

  Result<FloatInfo> finfo(DType d) override {
    return Guard([&]() -> Result<FloatInfo> {
      FloatInfo fi;
      AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, ToAten(d), "finfo", [&] {
        using L = std::numeric_limits<scalar_t>;
        fi.bits = static_cast<int>(sizeof(scalar_t) * 8);
        fi.eps = static_cast<double>(static_cast<float>(L::epsilon()));
        fi.max = static_cast<double>(L::max());
        fi.min = static_cast<double>(L::lowest());
        fi.tiny = static_cast<double>(L::min());
        if (std::is_same<scalar_t, double>::value) fi.eps = static_cast<double>(L::epsilon());
      });
      return fi;
    });
  }

  Result<std::string> legacy_constructor(DType d) override {
    return Guard([&]() -> Result<std::string> {
      // DeprecatedTypeProperties names the legacy type "CPUFloatType"; the doc writes
      // the constructor torch.*.FloatTensor.
      std::string name = at::empty({0}, at::TensorOptions().dtype(ToAten(d))).type().toString();
      const std::string prefix = "CPU", suffix = "Type";
      if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + suffix.size()) {
        return Error{ErrorKind::kInternal, "unexpected legacy type name " + name};
      }
      name = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      return "torch.*." + name + "Tensor";
    });
  }

  Result<DType> promote_types(DType a, DType b) override {
    return Guard([&]() -> Result<DType> { return FromAten(at::promote_types(ToAten(a), ToAten(b))); });
  }
  Result<bool> can_cast(DType from, DType to) override {
    return Guard([&]() -> Result<bool> { return at::can_cast(ToAten(from), ToAten(to)); });
  }
  Result<DType> result_type(const Operand& a, const Operand& b) override {
    return Guard([&]() -> Result<DType> { return FromAten(at::result_type(ToAten(a), ToAten(b))); });
  }
  Result<DType> default_dtype() override {
    return Guard([&]() -> Result<DType> { return FromAten(c10::typeMetaToScalarType(c10::get_default_dtype())); });
  }
  Status set_default_dtype(DType d) override {
    return Guard([&]() -> Status {
      c10::set_default_dtype(c10::scalarTypeToTypeMeta(ToAten(d)));
      return {};
    });
  }

  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return Guard([&]() -> Result<TensorHandle> {
      const int64_t n = c10::multiply_integers(sizes);
      TORCH_CHECK_VALUE(static_cast<int64_t>(values.size()) == n, "tensor of ", n, " elements given ", values.size(),
                        " values");
      // Build a widened tensor (bool, int64, double or complex128) and cast it with .to(),
      // libtorch's own value conversion.
      at::Tensor wide;
      if (!values.empty() && std::all_of(values.begin(), values.end(),
                                          [&](const Scalar& v) { return v.kind == values.front().kind; })) {
        switch (values.front().kind) {
          case Scalar::Kind::kBool: {
            std::vector<uint8_t> v;  // at::kBool storage is one byte per element
            for (const Scalar& x : values) v.push_back(x.b);
            wide = at::from_blob(v.data(), sizes, at::kBool).clone();
            break;
          }
          case Scalar::Kind::kInt: {
            std::vector<int64_t> v;
            for (const Scalar& x : values) v.push_back(x.i);
            wide = at::from_blob(v.data(), sizes, at::kLong).clone();
            break;
          }
          case Scalar::Kind::kFloat: {
            std::vector<double> v;
            for (const Scalar& x : values) v.push_back(x.f);
            wide = at::from_blob(v.data(), sizes, at::kDouble).clone();
            break;
          }
          case Scalar::Kind::kComplex: {
            std::vector<c10::complex<double>> v;
            for (const Scalar& x : values) v.emplace_back(x.c.real(), x.c.imag());
            wide = at::from_blob(v.data(), sizes, at::kComplexDouble).clone();
            break;
          }
        }
      }
      at::Tensor t;
      if (wide.defined()) {
        t = wide.to(ToAten(dtype));
      } else {  // mixed kinds (or no values): element by element
        t = at::empty(sizes, at::TensorOptions().dtype(ToAten(dtype)));
        at::Tensor flat = t.view({-1});
        for (std::size_t k = 0; k < values.size(); ++k) flat.select(0, static_cast<int64_t>(k)).fill_(ToAten(values[k]));
      }
      return Box(t);
    });
  }

  Result<TensorMeta> meta(const TensorHandle& h) override {
    return Guard([&]() -> Result<TensorMeta> {
      const at::Tensor& t = Unbox(h);
      Result<DType> d = FromAten(t.scalar_type());
      if (!d.ok()) return d.error();
      if (t.layout() != at::kStrided) {  // sparse tensors have no strides or storage offset
        return TensorMeta{d.value(), t.sizes().vec(), {}, 0, t.device().str(), Layout::kSparseCoo};
      }
      return TensorMeta{d.value(), t.sizes().vec(), t.strides().vec(), t.storage_offset(), t.device().str(),
                        Layout::kStrided};
    });
  }

  Result<std::vector<Scalar>> values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> { return ValuesOf(Unbox(h)); });
  }

  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    return Guard([&]() -> Result<TensorHandle> {
      const at::Tensor x = ToAten(a), y = ToAten(b);
      at::Tensor r;
      switch (op) {
        case BinaryOp::kAdd: r = at::add(x, y, ToAten(alpha)); break;
        case BinaryOp::kSub: r = at::sub(x, y, ToAten(alpha)); break;
        case BinaryOp::kMul: r = at::mul(x, y); break;
        case BinaryOp::kDiv: r = at::div(x, y); break;
        default: return NotTranslated(op);
      }
      return Box(r);
    });
  }

  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    return Guard([&]() -> Status {
      const at::Tensor x = ToAten(a), y = ToAten(b);
      at::Tensor& o = Unbox(out);
      switch (op) {
        case BinaryOp::kAdd: at::add_out(o, x, y, ToAten(alpha)); break;
        case BinaryOp::kSub: at::sub_out(o, x, y, ToAten(alpha)); break;
        case BinaryOp::kMul: at::mul_out(o, x, y); break;
        case BinaryOp::kDiv: at::div_out(o, x, y); break;
        default: return NotTranslated(op);
      }
      return {};
    });
  }

  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    return Guard([&]() -> Status {
      at::Tensor& s = Unbox(self);
      const at::Tensor y = ToAten(other);
      switch (op) {
        case BinaryOp::kAdd: s.add_(y, ToAten(alpha)); break;
        case BinaryOp::kSub: s.sub_(y, ToAten(alpha)); break;
        case BinaryOp::kMul: s.mul_(y); break;
        case BinaryOp::kDiv: s.div_(y); break;
        default: return NotTranslated(op);
      }
      return {};
    });
  }

  // -- strided tensors
  Result<TensorHandle> empty(const std::vector<std::int64_t>& sizes, DType dtype, Layout layout,
                             MemoryFormat format) override {
    return Boxed([&] {
      const at::TensorOptions options = at::TensorOptions().dtype(ToAten(dtype));
      if (layout == Layout::kSparseCoo) return at::empty(sizes, options.layout(at::kSparse));
      return at::empty(sizes, options, ToAten(format));
    });
  }
  Result<TensorHandle> empty_strided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                     DType dtype) override {
    return Boxed([&] { return at::empty_strided(sizes, strides, at::TensorOptions().dtype(ToAten(dtype))); });
  }
  Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat format) override {
    return Guard([&]() -> Result<bool> { return Unbox(t).is_contiguous(ToAten(format)); });
  }
  Result<TensorHandle> as_strided(const TensorHandle& t, const std::vector<std::int64_t>& sizes,
                                  const std::vector<std::int64_t>& strides, std::int64_t offset) override {
    return Boxed([&] { return Unbox(t).as_strided(sizes, strides, offset); });
  }
  Result<TensorHandle> t(const TensorHandle& t) override { return Boxed([&] { return Unbox(t).t(); }); }
  Result<TensorHandle> transpose(const TensorHandle& t, std::int64_t d0, std::int64_t d1) override {
    return Boxed([&] { return Unbox(t).transpose(d0, d1); });
  }
  Result<TensorHandle> permute(const TensorHandle& t, const std::vector<std::int64_t>& dims) override {
    return Boxed([&] { return Unbox(t).permute(dims); });
  }
  Result<TensorHandle> narrow(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t length) override {
    return Boxed([&] { return Unbox(t).narrow(dim, start, length); });
  }
  Result<TensorHandle> select(const TensorHandle& t, std::int64_t dim, std::int64_t index) override {
    return Boxed([&] { return Unbox(t).select(dim, index); });
  }
  Result<TensorHandle> slice(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t end,
                             std::int64_t step) override {
    return Boxed([&] { return Unbox(t).slice(dim, start, end, step); });
  }
  Result<TensorHandle> expand(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return Unbox(t).expand(sizes); });
  }
  Result<TensorHandle> unsqueeze(const TensorHandle& t, std::int64_t dim) override {
    return Boxed([&] { return Unbox(t).unsqueeze(dim); });
  }
  Result<TensorHandle> squeeze(const TensorHandle& t, std::optional<std::int64_t> dim) override {
    return Boxed([&] { return dim ? Unbox(t).squeeze(*dim) : Unbox(t).squeeze(); });
  }
  Result<TensorHandle> view(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return Unbox(t).view(sizes); });
  }
  Result<TensorHandle> reshape(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return Boxed([&] { return Unbox(t).reshape(sizes); });
  }
  Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return Unbox(t).contiguous(ToAten(format)); });
  }
  Result<TensorHandle> clone(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return Unbox(t).clone(ToAten(format)); });
  }
  Result<TensorHandle> empty_like(const TensorHandle& t, MemoryFormat format) override {
    return Boxed([&] { return at::empty_like(Unbox(t), at::TensorOptions(), ToAten(format)); });
  }

  // -- storage
  Result<StorageInfo> storage(const TensorHandle& h) override {
    return Guard([&]() -> Result<StorageInfo> {
      const at::Tensor& t = Unbox(h);
      return StorageInfo{reinterpret_cast<std::uintptr_t>(t.storage().unsafeGetStorageImpl()),
                         static_cast<std::int64_t>(t.storage().nbytes() / t.element_size())};
    });
  }
  Result<std::vector<Scalar>> storage_values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> { return ValuesOf(StorageTensor(Unbox(h))); });
  }
  Status write_storage(const TensorHandle& h, std::int64_t index, const Scalar& value) override {
    return Guard([&]() -> Status {
      StorageTensor(Unbox(h)).select(0, index).fill_(ToAten(value));
      return {};
    });
  }
  Status write_element(const TensorHandle& h, const std::vector<std::int64_t>& index, const Scalar& value) override {
    return Guard([&]() -> Status {
      at::Tensor e = Unbox(h);
      TORCH_CHECK_INDEX(static_cast<int64_t>(index.size()) == e.dim(), "an index of ", index.size(),
                        " dimensions for a tensor of ", e.dim());
      for (int64_t i : index) e = e.select(0, i);
      e.fill_(ToAten(value));
      return {};
    });
  }
  Result<std::uintptr_t> data_ptr(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::uintptr_t> { return reinterpret_cast<std::uintptr_t>(Unbox(h).data_ptr()); });
  }

  // -- devices. c10::Device parses device strings and prints str(); repr and the (type, index)
  // and legacy-ordinal constructor forms are Python (torch/csrc/Device.cpp), declared
  // unsupported rather than re-created here.
  Result<DeviceInfo> device(const DeviceArg& arg) override {
    return Guard([&]() -> Result<DeviceInfo> {
      if (arg.form != DeviceArg::Form::kString) return NotSupported("device(" + arg.ToString() + ")");
      const c10::Device d(arg.text);
      DeviceInfo info;
      info.type = c10::DeviceTypeName(d.type(), /*lower_case=*/true);
      if (d.has_index()) info.index = d.index();
      info.str = d.str();
      return info;
    });
  }
  Result<DeviceComparison> compare_devices(const DeviceArg& a, const DeviceArg& b) override {
    return Guard([&]() -> Result<DeviceComparison> {
      if (a.form != DeviceArg::Form::kString || b.form != DeviceArg::Form::kString) {
        return NotSupported("compare_devices(" + a.ToString() + ", " + b.ToString() + ")");
      }
      const c10::Device x = DeviceOf(a), y = DeviceOf(b);
      return DeviceComparison{x == y, std::hash<c10::Device>()(x) == std::hash<c10::Device>()(y)};
    });
  }
  Result<TensorHandle> empty_on(const std::vector<std::int64_t>& sizes, DType dtype,
                                const std::optional<std::string>& device) override {
    return Guard([&]() -> Result<TensorHandle> {
      at::TensorOptions o = at::TensorOptions().dtype(ToAten(dtype));
      if (device) {
        const c10::Device d(*device);
        if (d.is_cuda() && !at::hasCUDA()) return NotSupported("empty_on: this libtorch has no CUDA");
        o = o.device(d);
      }
      return Box(at::empty(sizes, o));
    });
  }

  // -- autograd (003 requires_grad): libtorch's own autograd, through the Variable API. A node's
  // name() is its class name without namespace ("AddBackward0": the generated nodes override
  // it, torch/csrc/autograd/generated/Functions.h), what Python's type(t.grad_fn).__name__ is.
  Status requires_grad_(const TensorHandle& t, bool requires_grad) override {
    return Guard([&]() -> Status {
      Unbox(t).requires_grad_(requires_grad);
      return {};
    });
  }
  Result<AutogradInfo> autograd(const TensorHandle& h) override {
    return Guard([&]() -> Result<AutogradInfo> {
      const at::Tensor& t = Unbox(h);
      AutogradInfo info;
      info.requires_grad = t.requires_grad();
      info.is_leaf = t.is_leaf();
      if (const auto& fn = t.grad_fn()) info.grad_fn = fn->name();
      return info;
    });
  }

  // -- asarray: declared unsupported. torch.asarray is Python (torch/csrc/utils/tensor_new.cpp);
  // libtorch's C++ API has no equivalent, and re-creating its rules here would be our code,
  // not the library's. The real torch.asarray is judged through the Python testee.

  Result<DLManagedTensor*> to_dlpack(const TensorHandle& h) override {
    return Guard([&]() -> Result<DLManagedTensor*> { return at::toDLPack(Unbox(h)); });
  }
  Result<TensorHandle> from_dlpack(DLManagedTensor* m) override { return Boxed([&] { return at::fromDLPack(m); }); }

 private:
  static c10::Device DeviceOf(const DeviceArg& a) {
    TORCH_CHECK(a.form == DeviceArg::Form::kString, "only device strings reach c10::Device");
    return c10::Device(a.text);
  }

};

TCTS_REGISTER_CANDIDATE("libtorch", [](const CandidateConfig&) { return std::unique_ptr<Candidate>(new LibtorchCandidate()); });

}  // namespace
}  // namespace tcts
