// The candidate interface: the only thing generated conformance tests see.
//
// A candidate is a tensor library under test (our reference, libtorch, ...), reached
// through one adapter that translates these calls into the library's own API and
// nothing else. The interface speaks the spec's vocabulary (spec/*.toml): dtypes,
// operands (tensor / zero-dim tensor / Python-style scalar), add/sub/mul/div in their
// functional, out= and in-place forms.
//
// Contract for adapters:
//  * Errors come back as values (Error: kind + message), never as exceptions or a
//    crash of the runner. Map the library's error classes onto ErrorKind, which mirrors
//    PyTorch's Python exception classes.
//  * An operation the library does not have answers ErrorKind::kNotSupported, and the
//    candidate declares it by returning false from supports(feature). The suite reports
//    such cases as NOT_SUPPORTED — and checks the claim: an operation that answers
//    kNotSupported while declared supported fails, and one declared unsupported that
//    answers anything else is flagged too.
//  * Tensors are opaque handles (TensorHandle) owned by the candidate that made them;
//    passing one candidate's handle to another is an error (kInternal).
#ifndef TCTS_CONFORMANCE_CANDIDATE_H_
#define TCTS_CONFORMANCE_CANDIDATE_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "conformance/candidate/dtype.h"
#include "spec/binary_ops.inc"
#include "spec/layouts.inc"
#include "spec/memory_formats.inc"
#include "dlpack/dlpack.h"

namespace tcts {

// ---------------------------------------------------------------- errors
enum class ErrorKind {
  kRuntimeError,         // PyTorch RuntimeError (c10::Error)
  kTypeError,            // PyTorch TypeError (c10::TypeError)
  kValueError,           // PyTorch ValueError (c10::ValueError)
  kIndexError,           // PyTorch IndexError (c10::IndexError)
  kNotImplementedError,  // PyTorch NotImplementedError (a kernel missing for a dtype/backend)
  kNotSupported,         // the candidate (or its adapter) has no such operation at all
  kInternal,             // the adapter caught something it could not classify
};
const char* ErrorKindName(ErrorKind kind);
// Parses a spec error kind ("RuntimeError", ...). Returns false for unknown names.
bool ParseErrorKind(std::string_view name, ErrorKind* kind);

struct Error {
  ErrorKind kind;
  std::string message;
};

// A value or an Error. Result<void> is a status.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_{ErrorKind::kInternal, ""};
  bool ok_ = true;
};
using Status = Result<void>;

inline Error NotSupported(std::string what) { return Error{ErrorKind::kNotSupported, std::move(what)}; }

// ---------------------------------------------------------------- scalars and operands
// A Python-style number: the four scalar kinds of the promotion rules.
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

  // The value as a complex number (bool -> 0/1).
  std::complex<double> AsComplex() const;
  // Exact equality of kind and value (NaN equals NaN, so a value compares to itself).
  bool operator==(const Scalar& o) const;
  bool operator!=(const Scalar& o) const { return !(*this == o); }
  std::string ToString() const;
};
const char* ScalarKindName(Scalar::Kind kind);

// Base of every candidate's tensor box. Adapters derive and downcast their own.
class TensorBox {
 public:
  virtual ~TensorBox() = default;
};
using TensorHandle = std::shared_ptr<TensorBox>;

// An operand of a binary operation: a tensor (dimensioned or zero-dim) or a scalar.
using Operand = std::variant<TensorHandle, Scalar>;

// torch.layout (spec/strided.toml [[layout]], generated: spec/layouts.inc).
enum class Layout {
#define TCTS_LAYOUT_ENUMERATOR(e, ...) e,
  TCTS_FORALL_LAYOUTS(TCTS_LAYOUT_ENUMERATOR)
#undef TCTS_LAYOUT_ENUMERATOR
};
const char* LayoutName(Layout layout);

// torch.memory_format (spec/strided.toml [[memory_format]], generated: spec/memory_formats.inc).
enum class MemoryFormat {
#define TCTS_MEMORY_FORMAT_ENUMERATOR(e, ...) e,
  TCTS_FORALL_MEMORY_FORMATS(TCTS_MEMORY_FORMAT_ENUMERATOR)
#undef TCTS_MEMORY_FORMAT_ENUMERATOR
};
const char* MemoryFormatName(MemoryFormat format);  // "contiguous_format", ...
// Every memory format, in spec order.
const std::vector<MemoryFormat>& AllMemoryFormats();

// ---------------------------------------------------------------- devices (torch.device)
// The arguments of one torch.device(...) call, in one of its three forms:
//   String     torch.device("cuda:1")        text = the device string
//   TypeIndex  torch.device("cuda", 1)       text = the type string, index = the ordinal
//   Ordinal    torch.device(1)  (legacy)     index = the ordinal
struct DeviceArg {
  enum class Form { kString, kTypeIndex, kOrdinal };
  Form form = Form::kString;
  std::string text;
  std::int64_t index = 0;

  static DeviceArg String(std::string text) { return DeviceArg{Form::kString, std::move(text), 0}; }
  static DeviceArg TypeIndex(std::string type, std::int64_t index) {
    return DeviceArg{Form::kTypeIndex, std::move(type), index};
  }
  static DeviceArg Ordinal(std::int64_t index) { return DeviceArg{Form::kOrdinal, "", index}; }
  // The call as Python writes it: torch.device('cuda', 1).
  std::string ToString() const;
};

// What a torch.device reports about itself.
struct DeviceInfo {
  std::string type;                   // "cuda"
  std::optional<std::int64_t> index;  // none: "the current device" of the type
  std::string str;                    // str(device): "cuda:1"
  std::string repr;                   // repr(device): "device(type='cuda', index=1)" (kDeviceRepr)
};

// a == b and hash(a) == hash(b), for two torch.device objects.
struct DeviceComparison {
  bool equal = false;
  bool same_hash = false;
};

// ---------------------------------------------------------------- asarray sources (003)
// A host array exposing the array interface (NumPy-like): elements of `dtype` at
// data + sum(byte_strides[k] * i[k]). A 0-dim array with kArrayScalar is a NumPy scalar.
struct HostArray {
  std::byte* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> byte_strides;
};

// A Python number or a (nested) list of them.
struct PyValue {
  bool is_list = false;
  Scalar scalar;               // !is_list
  std::vector<PyValue> items;  // is_list
  std::string ToString() const;  // as Python prints it: [[1, 2.5], [True, 1j]]
  std::vector<Scalar> Leaves() const;  // the numbers, in row-major order
};

// What torch.asarray is given. The caller keeps host memory (array, buffer) alive and
// unmoved while any tensor made from it lives; a DLPack tensor's ownership passes to the
// candidate when asarray succeeds (and stays with the caller when it fails).
struct AsarraySource {
  enum class Kind { kTensor, kArray, kArrayScalar, kDLPack, kBuffer, kSequence };
  Kind kind = Kind::kSequence;
  TensorHandle tensor;                 // kTensor
  HostArray array;                     // kArray, kArrayScalar
  DLManagedTensor* dlpack = nullptr;   // kDLPack
  std::byte* buffer = nullptr;         // kBuffer: writable bytes (the buffer protocol)
  std::size_t buffer_bytes = 0;
  PyValue value;                       // kSequence: a scalar or a nested list
};
const char* AsarraySourceKindName(AsarraySource::Kind kind);

// torch.asarray's keyword arguments (requires_grad is not modelled).
struct AsarrayOptions {
  std::optional<DType> dtype;
  std::optional<std::string> device;
  std::optional<bool> copy;
};

// Metadata read back from a tensor.
struct TensorMeta {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;  // in elements
  std::int64_t storage_offset = 0;    // in elements
  std::string device;                 // "cpu", "cuda:0", ...
  Layout layout = Layout::kStrided;
};

// A tensor's storage as the storage model (seed 004) sees it.
struct StorageInfo {
  std::uintptr_t id = 0;   // identity: equal for tensors sharing a storage, distinct otherwise
  std::int64_t numel = 0;  // elements of the tensor's dtype the storage holds
};

// What a candidate reports about a dtype (torch.dtype attributes).
struct DTypeInfo {
  int itemsize = 0;
  bool is_floating_point = false;
  bool is_complex = false;
  bool is_signed = false;
};

// torch.finfo for a floating dtype.
struct FloatInfo {
  int bits = 0;
  double eps = 0;   // 2^-significand_bits
  double max = 0;   // largest finite value
  double min = 0;   // most negative finite value (-max)
  double tiny = 0;  // smallest positive normal value
};

// add/sub/mul/div (spec/promotion.toml [[op]], generated: spec/binary_ops.inc).
enum class BinaryOp {
#define TCTS_BINARY_OP_ENUMERATOR(e, ...) e,
  TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_ENUMERATOR)
#undef TCTS_BINARY_OP_ENUMERATOR
};
const char* BinaryOpName(BinaryOp op);
// The op named `name` ("add"), or nullopt.
std::optional<BinaryOp> BinaryOpFromName(std::string_view name);

// Capabilities a candidate declares. Each interface method belongs to exactly one.
enum class Feature {
  kDTypeNames,          // dtype_from_name
  kDTypeInfo,           // dtype_info
  kFloatInfo,           // finfo
  kLegacyConstructor,   // legacy_constructor
  kPromoteTypes,        // promote_types
  kResultType,          // result_type
  kCanCast,             // can_cast
  kDefaultDType,        // default_dtype / set_default_dtype
  kTensors,             // make_tensor / meta / values
  kBinaryOps,           // binary
  kBinaryOut,           // binary_out
  kBinaryInplace,       // binary_inplace
  kMemoryFormats,       // empty / empty_strided / is_contiguous
  kSparseLayout,        // empty(..., Layout::kSparseCoo)
  kViews,               // t / transpose / permute / narrow / select / slice / expand / unsqueeze /
                        // squeeze / view / reshape / as_strided
  kFormatCopies,        // contiguous / clone / empty_like
  kStorage,             // storage / storage_values / write_storage / write_element / data_ptr
  kDevices,             // device / compare_devices of device strings ("cuda:1")
  kDeviceForms,         // device / compare_devices of the constructor's other forms: (type, index), ordinal
  kDeviceRepr,          // DeviceInfo::repr: repr(torch.device), a Python-level string
  kDefaultDevice,       // default_device / set_default_device / enter_device / exit_device
  kDeviceFactories,     // empty_on (cpu and meta)
  kCudaTensors,         // empty_on(..., "cuda[:N]"): tensors on a CUDA device (needs a GPU)
  kAsarray,             // asarray
  kDLPack,              // to_dlpack / from_dlpack
};
const char* FeatureName(Feature f);

// ---------------------------------------------------------------- the interface
class Candidate {
 public:
  virtual ~Candidate() = default;

  // Identity, for reports: e.g. "libtorch", "1.13.1", and how the library was built
  // (compiler, flags, configuration; one line, may be empty).
  virtual std::string name() const = 0;
  virtual std::string version() const = 0;
  virtual std::string build() const { return ""; }
  // The declared capabilities. Must not depend on what a call returned.
  virtual bool supports(Feature feature) const = 0;
  // The dtypes the library has (default: every one). A case whose row needs a dtype not
  // declared is NOT_SUPPORTED, naming it, and is not run; a declared one that answers
  // NotSupported FAILs. The documented twelve are required: each one missing costs the verdict.
  virtual bool supports_dtype(DType dtype) const { return true; }

  // -- dtypes (tensor_attributes#torch.dtype)
  // "float32", "float", "bool", ... -> the dtype; unknown names are an error.
  virtual Result<DType> dtype_from_name(std::string_view name) { return NotSupported("dtype_from_name"); }
  virtual Result<DTypeInfo> dtype_info(DType dtype) { return NotSupported("dtype_info"); }
  virtual Result<FloatInfo> finfo(DType dtype) { return NotSupported("finfo"); }
  // The legacy constructor, written as the doc writes it: "torch.*.FloatTensor".
  virtual Result<std::string> legacy_constructor(DType dtype) { return NotSupported("legacy_constructor"); }

  // -- promotion and casting (tensor_attributes#type-promotion)
  virtual Result<DType> promote_types(DType a, DType b) { return NotSupported("promote_types"); }
  virtual Result<DType> result_type(const Operand& a, const Operand& b) { return NotSupported("result_type"); }
  virtual Result<bool> can_cast(DType from, DType to) { return NotSupported("can_cast"); }
  // torch.get_default_dtype / torch.set_default_dtype (process-wide state).
  virtual Result<DType> default_dtype() { return NotSupported("default_dtype"); }
  virtual Status set_default_dtype(DType dtype) { return NotSupported("set_default_dtype"); }

  // -- tensors
  // torch.tensor(values, dtype=dtype).reshape(sizes): a contiguous tensor of `sizes` (empty =
  // zero-dim) holding `values` in row-major order, each converted to `dtype` as a cast would,
  // on the default device (the cpu unless set_default_device / enter_device say otherwise).
  // Likewise empty and empty_strided allocate on the default device.
  virtual Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                           const std::vector<Scalar>& values) {
    return NotSupported("make_tensor");
  }
  virtual Result<TensorMeta> meta(const TensorHandle& t) { return NotSupported("meta"); }
  // The elements in row-major order of the logical shape: bool dtypes as kBool, integral
  // as kInt, floating as kFloat (exact, widened to double), complex as kComplex.
  virtual Result<std::vector<Scalar>> values(const TensorHandle& t) { return NotSupported("values"); }

  // -- arithmetic: add/sub/mul/div (div is true division), on strided operands of any
  // layout, with broadcasting. alpha scales b for add and sub (a + alpha*b, a - alpha*b);
  // callers pass Scalar::Int(1) for mul and div, and adapters ignore it there.
  virtual Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
    return NotSupported("binary");
  }
  // op(a, b, out=out): writes into `out` (resizing it when its shape differs).
  virtual Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                            const TensorHandle& out) {
    return NotSupported("binary_out");
  }
  // self op= other.
  virtual Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) {
    return NotSupported("binary_inplace");
  }

  // -- strided tensors (spec/strided.toml). Dimensions wrap as PyTorch's do (-1 is the last).
  // torch.empty(sizes, dtype=dtype, layout=layout, memory_format=format).
  virtual Result<TensorHandle> empty(const std::vector<std::int64_t>& sizes, DType dtype, Layout layout,
                                     MemoryFormat format) {
    return NotSupported("empty");
  }
  virtual Result<TensorHandle> empty_strided(const std::vector<std::int64_t>& sizes,
                                             const std::vector<std::int64_t>& strides, DType dtype) {
    return NotSupported("empty_strided");
  }
  virtual Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat format) {
    return NotSupported("is_contiguous");
  }
  // Views: the result shares t's storage.
  virtual Result<TensorHandle> as_strided(const TensorHandle& t, const std::vector<std::int64_t>& sizes,
                                          const std::vector<std::int64_t>& strides, std::int64_t storage_offset) {
    return NotSupported("as_strided");
  }
  virtual Result<TensorHandle> t(const TensorHandle& t) { return NotSupported("t"); }
  virtual Result<TensorHandle> transpose(const TensorHandle& t, std::int64_t dim0, std::int64_t dim1) {
    return NotSupported("transpose");
  }
  virtual Result<TensorHandle> permute(const TensorHandle& t, const std::vector<std::int64_t>& dims) {
    return NotSupported("permute");
  }
  virtual Result<TensorHandle> narrow(const TensorHandle& t, std::int64_t dim, std::int64_t start,
                                      std::int64_t length) {
    return NotSupported("narrow");
  }
  virtual Result<TensorHandle> select(const TensorHandle& t, std::int64_t dim, std::int64_t index) {
    return NotSupported("select");
  }
  // t[..., start:end:step, ...] along dim (Python slice semantics; end may be INT64_MAX).
  virtual Result<TensorHandle> slice(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t end,
                                     std::int64_t step) {
    return NotSupported("slice");
  }
  virtual Result<TensorHandle> expand(const TensorHandle& t, const std::vector<std::int64_t>& sizes) {
    return NotSupported("expand");
  }
  virtual Result<TensorHandle> unsqueeze(const TensorHandle& t, std::int64_t dim) { return NotSupported("unsqueeze"); }
  // squeeze() when dim is empty, squeeze(dim) otherwise.
  virtual Result<TensorHandle> squeeze(const TensorHandle& t, std::optional<std::int64_t> dim) {
    return NotSupported("squeeze");
  }
  virtual Result<TensorHandle> view(const TensorHandle& t, const std::vector<std::int64_t>& sizes) {
    return NotSupported("view");
  }
  // A view when view() would succeed, a copy otherwise.
  virtual Result<TensorHandle> reshape(const TensorHandle& t, const std::vector<std::int64_t>& sizes) {
    return NotSupported("reshape");
  }
  // Memory-format-aware copies. contiguous() returns t itself (sharing its storage) when
  // t is already contiguous in that format.
  virtual Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat format) {
    return NotSupported("contiguous");
  }
  virtual Result<TensorHandle> clone(const TensorHandle& t, MemoryFormat format) { return NotSupported("clone"); }
  virtual Result<TensorHandle> empty_like(const TensorHandle& t, MemoryFormat format) {
    return NotSupported("empty_like");
  }

  // -- storage (seed 004)
  virtual Result<StorageInfo> storage(const TensorHandle& t) { return NotSupported("storage"); }
  // Every element of t's storage (storage.numel of them), in storage order, read as t's dtype.
  virtual Result<std::vector<Scalar>> storage_values(const TensorHandle& t) { return NotSupported("storage_values"); }
  // t.storage()[index] = value.
  virtual Status write_storage(const TensorHandle& t, std::int64_t index, const Scalar& value) {
    return NotSupported("write_storage");
  }
  // t[index...] = value (one element, through t's geometry).
  virtual Status write_element(const TensorHandle& t, const std::vector<std::int64_t>& index, const Scalar& value) {
    return NotSupported("write_element");
  }
  // t.data_ptr(): the address of t's first element (storage data + offset * itemsize).
  virtual Result<std::uintptr_t> data_ptr(const TensorHandle& t) { return NotSupported("data_ptr"); }

  // -- devices (002/000 torch.device)
  virtual Result<DeviceInfo> device(const DeviceArg& arg) { return NotSupported("device"); }
  virtual Result<DeviceComparison> compare_devices(const DeviceArg& a, const DeviceArg& b) {
    return NotSupported("compare_devices");
  }
  // str(torch.get_default_device()) and torch.set_default_device(device) (process-wide).
  virtual Result<std::string> default_device() { return NotSupported("default_device"); }
  virtual Status set_default_device(const std::string& device) { return NotSupported("set_default_device"); }
  // Entering and leaving a `with torch.device(device):` block (properly nested).
  virtual Status enter_device(const std::string& device) { return NotSupported("enter_device"); }
  virtual Status exit_device() { return NotSupported("exit_device"); }
  // torch.empty(sizes, dtype=dtype, device=device): device nullopt means "not given".
  virtual Result<TensorHandle> empty_on(const std::vector<std::int64_t>& sizes, DType dtype,
                                        const std::optional<std::string>& device) {
    return NotSupported("empty_on");
  }

  // -- torch.asarray (003)
  virtual Result<TensorHandle> asarray(const AsarraySource& source, const AsarrayOptions& options) {
    return NotSupported("asarray");
  }

  // -- DLPack. to_dlpack: the caller owns the result and calls its deleter once. from_dlpack:
  // on success the tensor owns `m` (its deleter runs once, when the memory is no longer
  // used); on failure the caller still owns it.
  virtual Result<DLManagedTensor*> to_dlpack(const TensorHandle& t) { return NotSupported("to_dlpack"); }
  virtual Result<TensorHandle> from_dlpack(DLManagedTensor* m) { return NotSupported("from_dlpack"); }
};

// ---------------------------------------------------------------- registry
// Adapters register a factory at static-initialisation time:
//   TCTS_REGISTER_CANDIDATE("reference", [] { return std::make_unique<RefCandidate>(); });
using CandidateFactory = std::unique_ptr<Candidate> (*)();
bool RegisterCandidate(const char* name, CandidateFactory factory);
std::unique_ptr<Candidate> MakeCandidate(std::string_view name);  // nullptr if unknown
std::vector<std::string> RegisteredCandidates();

#define TCTS_REGISTER_CANDIDATE_CONCAT2(a, b) a##b
#define TCTS_REGISTER_CANDIDATE_CONCAT(a, b) TCTS_REGISTER_CANDIDATE_CONCAT2(a, b)
#define TCTS_REGISTER_CANDIDATE(name, factory)                                                      \
  static const bool TCTS_REGISTER_CANDIDATE_CONCAT(tcts_registered_candidate_, __LINE__) = \
      ::tcts::RegisterCandidate(name, factory)

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CANDIDATE_H_
