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
//    candidate declares it by returning false from supports(feature). An adapter derives from
//    CandidateOf<Adapter> (below): its declared features are the ops it overrides (the
//    features of a missing op answer NotSupported), plus the features of an answer it says
//    its library has (answers()). The suite reports
//    such cases as NOT_SUPPORTED — and checks the claim: an operation that answers
//    kNotSupported while declared supported fails, and one declared unsupported that
//    answers anything else is flagged too.
//  * Tensors are opaque handles (TensorHandle) owned by the candidate that made them;
//    passing one candidate's handle to another is an error (kInternal).
#ifndef TCTS_CONFORMANCE_CANDIDATE_H_
#define TCTS_CONFORMANCE_CANDIDATE_H_

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "conformance/candidate/dtype.h"
#include "spec/binary_ops.inc"
#include "spec/interface.inc"
#include "spec/layouts.inc"
#include "spec/memory_formats.inc"
#include "dlpack/dlpack.h"

namespace tcts {

// ---------------------------------------------------------------- errors
// PyTorch's Python exception classes, and NotSupported / Internal (spec/interface.toml [[error]],
// generated: spec/interface.inc).
enum class ErrorKind {
#define TCTS_ERROR_KIND_ENUMERATOR(e, name) e,
  TCTS_FORALL_ERROR_KINDS(TCTS_ERROR_KIND_ENUMERATOR)
#undef TCTS_ERROR_KIND_ENUMERATOR
};
const char* ErrorKindName(ErrorKind kind);
// Parses an error kind's name ("RuntimeError", ..., "NotSupported"). Returns false for unknown names.
bool ParseErrorKind(std::string_view name, ErrorKind* kind);
// Whether PyTorch raises this kind (raised_by = "pytorch"): the kinds an expected error may name;
// their names, comma-separated: TCTS_PYTORCH_ERROR_KIND_NAMES.
bool RaisedByPyTorch(ErrorKind kind);

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

// torch.asarray's keyword arguments, each nullopt when not given. A candidate without
// autograd (Feature::kAutograd undeclared) answers NotSupported when requires_grad is true.
struct AsarrayOptions {
  std::optional<DType> dtype;
  std::optional<std::string> device;
  std::optional<bool> copy;
  std::optional<bool> requires_grad;
};

// The records that cross the interface: DTypeInfo, FloatInfo, TensorMeta, StorageInfo,
// DeviceInfo, DeviceComparison and the DLPack descriptor (spec/interface.toml [[record]],
// generated: spec/interface_records.inc).
#include "spec/interface_records.inc"

// The binary ops (spec/promotion.toml [[op]], generated: spec/binary_ops.inc). An adapter's switch
// over them ends in `default:` answering NotSupported, so an op added to the spec compiles
// everywhere and is NotSupported until an adapter translates it.
enum class BinaryOp {
#define TCTS_BINARY_OP_ENUMERATOR(e, ...) e,
  TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_ENUMERATOR)
#undef TCTS_BINARY_OP_ENUMERATOR
};
const char* BinaryOpName(BinaryOp op);
// The Python operator PyTorch maps to the op ("+" for add; the row's `symbol`), for messages.
const char* BinaryOpSymbol(BinaryOp op);
// The op named `name` ("add"), or nullopt.
std::optional<BinaryOp> BinaryOpFromName(std::string_view name);

// Capabilities a candidate declares; each interface method belongs to exactly one (spec/features.toml,
// in its order; each op of spec/interface.toml names its feature; generated: spec/interface.inc).
enum class Feature {
#define TCTS_FEATURE_ENUMERATOR(e, name) e,
  TCTS_FORALL_FEATURES(TCTS_FEATURE_ENUMERATOR)
#undef TCTS_FEATURE_ENUMERATOR
};
constexpr int kFeatureCount = TCTS_FEATURE_COUNT;
// Every feature, in enumeration order.
const std::vector<Feature>& AllFeatures();
const char* FeatureName(Feature f);
// The feature op `op` belongs to (spec/interface.toml), or nullopt for a name that is no op.
std::optional<Feature> FeatureOfOp(std::string_view op);
// Every op's name, in spec/interface.toml's order.
const std::vector<std::string_view>& AllOps();

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
  // Whether the library has op `op` (spec/interface.toml's name: "as_strided"), the declaration
  // each call is judged by: a library may have some of a feature's ops and not others (a testee's
  // kit declares its ops one by one, PROTOCOL.md "Handshake"); the feature is declared when it
  // has them all. Default: the op's feature is declared. An unknown name is not supported.
  virtual bool supports_op(std::string_view op) const;
  // The dtypes the library has (default: every one). A case whose row needs a dtype not
  // declared is NOT_SUPPORTED, naming it, and is not run; a declared one that answers
  // NotSupported FAILs. The documented twelve are required: each one missing costs the verdict.
  virtual bool supports_dtype(DType dtype) const { return true; }
  // Where the candidate's tensors are, as its handshake said (a testee's answer to hello,
  // PROTOCOL.md "Handshake"), so that no call is made before the first case: `device`, what
  // meta().device says of the tensors it makes (on the run's --device when it was asked one);
  // else `refused`, why it cannot make them on that device; else `unknown` (it makes none, or
  // could not make one: "cpu", the documented initial default). All three unset: it said
  // nothing, and the suite asks (harness.cc UseDeviceForTensors).
  struct Placement {
    std::string device, refused;
    bool unknown = false;
  };
  virtual Placement placement() const { return {}; }
  // Version 3's facts (a testee's answers sent with a new tensor): how many requests they
  // answered, and how many of those the suite asked the testee anyway and compared (a sample,
  // drawn from the run's seed: a fact that contradicts the answer is a protocol error in its
  // case). Zero for a candidate without facts.
  struct FactCounts {
    std::int64_t used = 0, checked = 0;
  };
  virtual FactCounts fact_counts() const { return {}; }
  // How many protocol errors the candidate's testee made so far (a malformed answer, an answer
  // out of step, a fact that contradicts the answer): the stream marks each case in which this
  // grew (stream.schema.json end.protocol_error), so the runner never reads it from a message.
  // Zero for an in-process candidate.
  virtual std::int64_t protocol_errors() const { return 0; }

  // The operations, one virtual each, answering NotSupported unless the adapter overrides it:
  // their arguments, results and meaning are spec/interface.toml's [[op]] rows (generated:
  // spec/interface_virtuals.inc). Dimensions wrap as PyTorch's do (-1 is the last).
#include "spec/interface_virtuals.inc"
};

// Which ops a candidate class overrides, by feature, and which features are an answer's
// (spec/interface.toml answer_features; generated: spec/interface_overrides.inc).
#include "spec/interface_overrides.inc"

// The base of an adapter: `class MyCandidate final : public CandidateOf<MyCandidate>`. Its
// declared features are derived, never listed: an op feature is supported when the adapter
// overrides the feature's ops (all of them: overriding some and not the others does not
// compile), so an op the library lacks is left to the Candidate virtual, which answers
// NotSupported; a feature of an answer (a sparse layout, a device form, repr(device), cuda
// tensors, strides) is whatever answers() says. The ops must be public in Adapter.
template <class Adapter>
class CandidateOf : public Candidate {
 public:
  bool supports(Feature feature) const final {
    return IsAnswerFeature(feature) ? answers(feature) : OverridesOpsOf<Adapter>(feature);
  }

 protected:
  // Whether the library has answer feature `feature` (only answer features are asked; the
  // default: those declared by default, strides).
  virtual bool answers(Feature feature) const { return IsDeclaredByDefault(feature); }
};

// ---------------------------------------------------------------- registry
// What a run tells its candidate: the suite binary's --candidate_option=KEY=VALUE flags (the
// runner passes a testee's command, its directory and the trace folder this way, and tests pass
// the faulty candidate's faults). A factory takes the options it knows; the suite binary refuses
// any it left, naming it, so a misspelt option never goes unnoticed.
class CandidateConfig {
 public:
  // Adds "KEY=VALUE"; false with *error when it has no '=', an empty key, or a key given twice.
  bool Add(std::string_view key_value, std::string* error);
  // The value of `key` ("" when not given); the option counts as used.
  std::string Take(const std::string& key) const;
  // The keys given and never taken, sorted.
  std::vector<std::string> Untaken() const;
  // The run's --device ("" for the candidate's default): a testee is asked for it in its
  // handshake; an in-process candidate is moved there by the suite (set_default_device).
  void set_device(std::string device) { device_ = std::move(device); }
  const std::string& device() const { return device_; }
  // The run's seed: what a candidate draws (a testee's facts checked) is drawn from it.
  void set_seed(std::uint64_t seed) { seed_ = seed; }
  std::uint64_t seed() const { return seed_; }

 private:
  std::string device_;
  std::uint64_t seed_ = 0;
  std::map<std::string, std::string> options_;
  mutable std::set<std::string> taken_;
};

// Adapters register a factory at static-initialisation time:
//   TCTS_REGISTER_CANDIDATE("reference", [](const CandidateConfig&) { return std::make_unique<RefCandidate>(); });
using CandidateFactory = std::unique_ptr<Candidate> (*)(const CandidateConfig& config);
bool RegisterCandidate(const char* name, CandidateFactory factory);
// nullptr if unknown.
std::unique_ptr<Candidate> MakeCandidate(std::string_view name, const CandidateConfig& config = CandidateConfig());
std::vector<std::string> RegisteredCandidates();

#define TCTS_REGISTER_CANDIDATE_CONCAT2(a, b) a##b
#define TCTS_REGISTER_CANDIDATE_CONCAT(a, b) TCTS_REGISTER_CANDIDATE_CONCAT2(a, b)
#define TCTS_REGISTER_CANDIDATE(name, factory)                                                      \
  static const bool TCTS_REGISTER_CANDIDATE_CONCAT(tcts_registered_candidate_, __LINE__) = \
      ::tcts::RegisterCandidate(name, factory)

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CANDIDATE_H_
