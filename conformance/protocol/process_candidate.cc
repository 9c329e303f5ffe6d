#include "conformance/protocol/process_candidate.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/protocol/testee_session.h"
#include "conformance/protocol/wire.h"

namespace tcts {
namespace {

using Json = nlohmann::json;
using wire::ProtocolError;

// A tensor of the testee: its handle, released (through the session) when the last
// TensorHandle goes, and the lent regions whose bytes it may use (pins, dropped after the
// release: see Region).
class ProcessBox : public TensorBox {
 public:
  ProcessBox(TesteeSession* session, std::int64_t handle, std::vector<TesteeSession::Pin> pins)
      : session_(session), handle_(handle), pins_(std::move(pins)) {}
  ~ProcessBox() override { session_->Released(handle_); }
  std::int64_t handle() const { return handle_; }
  const TesteeSession* session() const { return session_; }
  const std::vector<TesteeSession::Pin>& pins() const { return pins_; }

 private:
  TesteeSession* session_;
  std::int64_t handle_;
  std::vector<TesteeSession::Pin> pins_;
};

// Each Candidate method is one request (PROTOCOL.md "Operations"): its arguments encoded,
// its answer decoded, through the session.
class ProcessCandidate : public Candidate {
 public:
  explicit ProcessCandidate(std::string command) : session_(std::move(command)) {}

  bool Start(const std::string& cwd, std::string* error) { return session_.Start(cwd, error); }

  std::string name() const override { return session_.name(); }
  std::string version() const override { return session_.version(); }
  std::string build() const override { return session_.build(); }
  bool supports(Feature feature) const override { return session_.supports(feature); }
  bool supports_dtype(DType dtype) const override { return session_.supports_dtype(dtype); }

  // -- dtypes
  Result<DType> dtype_from_name(std::string_view name) override {
    return Ask<DType>("dtype_from_name", {{"name", std::string(name)}}, wire::DTypeOf);
  }
  Result<DTypeInfo> dtype_info(DType d) override {
    return Ask<DTypeInfo>("dtype_info", {{"dtype", DTypeName(d)}}, [](const Json& v) {
      DTypeInfo i;
      i.itemsize = static_cast<int>(wire::GetIntIn(v, "itemsize", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
      i.is_floating_point = wire::GetBool(v, "is_floating_point");
      i.is_complex = wire::GetBool(v, "is_complex");
      i.is_signed = wire::GetBool(v, "is_signed");
      return i;
    });
  }
  Result<FloatInfo> finfo(DType d) override {
    return Ask<FloatInfo>("finfo", {{"dtype", DTypeName(d)}}, [](const Json& v) {
      FloatInfo i;
      i.bits = static_cast<int>(wire::GetIntIn(v, "bits", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
      i.eps = wire::GetFloat(v, "eps");
      i.max = wire::GetFloat(v, "max");
      i.min = wire::GetFloat(v, "min");
      i.tiny = wire::GetFloat(v, "tiny");
      return i;
    });
  }
  Result<std::string> legacy_constructor(DType d) override {
    return Ask<std::string>("legacy_constructor", {{"dtype", DTypeName(d)}}, wire::StringOf);
  }

  // -- promotion and casting
  Result<DType> promote_types(DType a, DType b) override {
    return Ask<DType>("promote_types", {{"a", DTypeName(a)}, {"b", DTypeName(b)}}, wire::DTypeOf);
  }
  Result<DType> result_type(const Operand& a, const Operand& b) override {
    Json args;
    if (!Operands(a, b, &args)) return Foreign();
    return Ask<DType>("result_type", args, wire::DTypeOf);
  }
  Result<bool> can_cast(DType from, DType to) override {
    return Ask<bool>("can_cast", {{"from", DTypeName(from)}, {"to", DTypeName(to)}}, wire::BoolOf);
  }
  Result<DType> default_dtype() override { return Ask<DType>("default_dtype", Json::object(), wire::DTypeOf); }
  Status set_default_dtype(DType d) override { return AskStatus("set_default_dtype", {{"dtype", DTypeName(d)}}); }

  // -- tensors
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return AskTensor("make_tensor", {{"sizes", sizes}, {"dtype", DTypeName(dtype)}, {"values", wire::Scalars(values)}});
  }
  Result<TensorMeta> meta(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<TensorMeta>("meta", args, [](const Json& v) {
      TensorMeta m;
      m.dtype = wire::DTypeOf(wire::Get(v, "dtype"), "dtype");
      m.sizes = wire::Ints(v, "sizes");
      m.strides = wire::Ints(v, "strides");
      m.storage_offset = wire::GetInt(v, "storage_offset");
      m.device = wire::GetString(v, "device");
      m.layout = wire::LayoutOf(wire::Get(v, "layout"), "layout");
      return m;
    });
  }
  Result<std::vector<Scalar>> values(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<std::vector<Scalar>>("values", args, [](const Json& v) { return wire::ScalarsOf(v, "values"); });
  }

  // -- arithmetic
  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    Json args = {{"binary_op", BinaryOpName(op)}, {"alpha", wire::ScalarJson(alpha)}};
    if (!Operands(a, b, &args)) return Foreign();
    return AskTensor("binary", args);
  }
  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    Json args = {{"binary_op", BinaryOpName(op)}, {"alpha", wire::ScalarJson(alpha)}};
    if (!Operands(a, b, &args) || !Tensor(out, "out", &args)) return Foreign();
    return AskStatus("binary_out", args);
  }
  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    Json args = {{"binary_op", BinaryOpName(op)}, {"alpha", wire::ScalarJson(alpha)}};
    if (!Tensor(self, "self", &args) || !OperandJson(other, "other", &args)) return Foreign();
    return AskStatus("binary_inplace", args);
  }

  // -- strided tensors
  Result<TensorHandle> empty(const std::vector<std::int64_t>& sizes, DType dtype, Layout layout,
                             MemoryFormat format) override {
    return AskTensor("empty", {{"sizes", sizes},
                               {"dtype", DTypeName(dtype)},
                               {"layout", LayoutName(layout)},
                               {"memory_format", MemoryFormatName(format)}});
  }
  Result<TensorHandle> empty_strided(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                     DType dtype) override {
    return AskTensor("empty_strided", {{"sizes", sizes}, {"strides", strides}, {"dtype", DTypeName(dtype)}});
  }
  Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat format) override {
    Json args = {{"memory_format", MemoryFormatName(format)}};
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<bool>("is_contiguous", args, wire::BoolOf);
  }
  Result<TensorHandle> as_strided(const TensorHandle& t, const std::vector<std::int64_t>& sizes,
                                  const std::vector<std::int64_t>& strides, std::int64_t storage_offset) override {
    return View(t, "as_strided", {{"sizes", sizes}, {"strides", strides}, {"storage_offset", storage_offset}});
  }
  Result<TensorHandle> t(const TensorHandle& t) override { return View(t, "t", Json::object()); }
  Result<TensorHandle> transpose(const TensorHandle& t, std::int64_t dim0, std::int64_t dim1) override {
    return View(t, "transpose", {{"dim0", dim0}, {"dim1", dim1}});
  }
  Result<TensorHandle> permute(const TensorHandle& t, const std::vector<std::int64_t>& dims) override {
    return View(t, "permute", {{"dims", dims}});
  }
  Result<TensorHandle> narrow(const TensorHandle& t, std::int64_t dim, std::int64_t start,
                              std::int64_t length) override {
    return View(t, "narrow", {{"dim", dim}, {"start", start}, {"length", length}});
  }
  Result<TensorHandle> select(const TensorHandle& t, std::int64_t dim, std::int64_t index) override {
    return View(t, "select", {{"dim", dim}, {"index", index}});
  }
  Result<TensorHandle> slice(const TensorHandle& t, std::int64_t dim, std::int64_t start, std::int64_t end,
                             std::int64_t step) override {
    return View(t, "slice", {{"dim", dim}, {"start", start}, {"end", end}, {"step", step}});
  }
  Result<TensorHandle> expand(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return View(t, "expand", {{"sizes", sizes}});
  }
  Result<TensorHandle> unsqueeze(const TensorHandle& t, std::int64_t dim) override {
    return View(t, "unsqueeze", {{"dim", dim}});
  }
  Result<TensorHandle> squeeze(const TensorHandle& t, std::optional<std::int64_t> dim) override {
    return View(t, "squeeze", {{"dim", dim ? Json(*dim) : Json(nullptr)}});
  }
  Result<TensorHandle> view(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return View(t, "view", {{"sizes", sizes}});
  }
  Result<TensorHandle> reshape(const TensorHandle& t, const std::vector<std::int64_t>& sizes) override {
    return View(t, "reshape", {{"sizes", sizes}});
  }
  Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat format) override {
    return View(t, "contiguous", {{"memory_format", MemoryFormatName(format)}});
  }
  Result<TensorHandle> clone(const TensorHandle& t, MemoryFormat format) override {
    return View(t, "clone", {{"memory_format", MemoryFormatName(format)}}, /*may_alias=*/false);
  }
  Result<TensorHandle> empty_like(const TensorHandle& t, MemoryFormat format) override {
    return View(t, "empty_like", {{"memory_format", MemoryFormatName(format)}}, /*may_alias=*/false);
  }

  // -- storage
  Result<StorageInfo> storage(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<StorageInfo>("storage", args, [](const Json& v) {
      StorageInfo s;
      s.id = static_cast<std::uintptr_t>(wire::GetInt(v, "id"));
      s.numel = wire::GetInt(v, "numel");
      return s;
    });
  }
  Result<std::vector<Scalar>> storage_values(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<std::vector<Scalar>>("storage_values", args, [](const Json& v) { return wire::ScalarsOf(v, "values"); });
  }
  Status write_storage(const TensorHandle& t, std::int64_t index, const Scalar& value) override {
    Json args = {{"index", index}, {"value", wire::ScalarJson(value)}};
    if (!Tensor(t, "t", &args)) return Foreign();
    return AskStatus("write_storage", args);
  }
  Status write_element(const TensorHandle& t, const std::vector<std::int64_t>& index, const Scalar& value) override {
    Json args = {{"index", index}, {"value", wire::ScalarJson(value)}};
    if (!Tensor(t, "t", &args)) return Foreign();
    return AskStatus("write_element", args);
  }
  Result<std::uintptr_t> data_ptr(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<std::uintptr_t>("data_ptr", args, [this](const Json& v) { return session_.Address(v, "ok"); });
  }

  // -- devices
  Result<DeviceInfo> device(const DeviceArg& arg) override {
    return Ask<DeviceInfo>("device", {{"arg", wire::DeviceArgJson(arg)}}, [](const Json& v) {
      DeviceInfo d;
      d.type = wire::GetString(v, "type");
      const Json& index = wire::Get(v, "index");
      if (!index.is_null()) d.index = wire::IntOf(index, "index");
      d.str = wire::GetString(v, "str");
      d.repr = v.contains("repr") ? wire::GetString(v, "repr") : "";
      return d;
    });
  }
  Result<DeviceComparison> compare_devices(const DeviceArg& a, const DeviceArg& b) override {
    return Ask<DeviceComparison>("compare_devices", {{"a", wire::DeviceArgJson(a)}, {"b", wire::DeviceArgJson(b)}},
                                 [](const Json& v) {
                                   DeviceComparison c;
                                   c.equal = wire::GetBool(v, "equal");
                                   c.same_hash = wire::GetBool(v, "same_hash");
                                   return c;
                                 });
  }
  Result<std::string> default_device() override { return Ask<std::string>("default_device", Json::object(), wire::StringOf); }
  Status set_default_device(const std::string& d) override { return AskStatus("set_default_device", {{"device", d}}); }
  Status enter_device(const std::string& d) override { return AskStatus("enter_device", {{"device", d}}); }
  Status exit_device() override { return AskStatus("exit_device", Json::object()); }
  Result<TensorHandle> empty_on(const std::vector<std::int64_t>& sizes, DType dtype,
                                const std::optional<std::string>& device) override {
    return AskTensor("empty_on", {{"sizes", sizes}, {"dtype", DTypeName(dtype)}, {"device", device ? Json(*device) : Json(nullptr)}});
  }

  // -- asarray
  Result<TensorHandle> asarray(const AsarraySource& source, const AsarrayOptions& options) override {
    Json src = {{"kind", AsarraySourceKindName(source.kind)}};
    Json args = {{"dtype", options.dtype ? Json(DTypeName(*options.dtype)) : Json(nullptr)},
                 {"device", options.device ? Json(*options.device) : Json(nullptr)},
                 {"copy", options.copy ? Json(*options.copy) : Json(nullptr)}};
    std::int64_t region = -1;
    switch (source.kind) {
      case AsarraySource::Kind::kTensor:
        if (!Tensor(source.tensor, "tensor", &src)) return Foreign();
        break;
      case AsarraySource::Kind::kArray:
      case AsarraySource::Kind::kArrayScalar: {
        const HostArray& a = source.array;
        std::int64_t lo = 0, hi = 0;
        wire::ByteExtent(a.sizes, a.byte_strides, DTypeItemsize(a.dtype), &lo, &hi);
        region = session_.Lend(a.data + lo, static_cast<std::size_t>(hi - lo), &src);
        src["offset"] = -lo;  // the first element, in the region
        src["dtype"] = DTypeName(a.dtype);
        src["shape"] = a.sizes;
        src["byte_strides"] = a.byte_strides;
        break;
      }
      case AsarraySource::Kind::kBuffer:
        region = session_.Lend(source.buffer, source.buffer_bytes, &src);
        break;
      case AsarraySource::Kind::kDLPack:
        return from_dlpack_impl(source.dlpack, "asarray", &src, args);
      case AsarraySource::Kind::kSequence:
        src["value"] = wire::PyValueJson(source.value);
        break;
    }
    args["source"] = src;
    if (region > 0) pins_.push_back(session_.PinRegion(region));  // the array's bytes, while the answer may use them
    return AskTensor("asarray", args, /*may_alias=*/true);
  }

  // -- DLPack
  Result<DLManagedTensor*> to_dlpack(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    Result<Json> r = session_.Call("to_dlpack", args);
    if (!r.ok()) return r.error();
    try {
      return session_.Borrow(r.value());
    } catch (const ProtocolError& e) {
      return session_.Broken(session_.Where("to_dlpack") + e.what_for());
    }
  }
  Result<TensorHandle> from_dlpack(DLManagedTensor* m) override {
    Json src, args = Json::object();
    return from_dlpack_impl(m, "from_dlpack", &src, args);
  }

 private:
  Error Foreign() {
    pins_.clear();
    return Error{ErrorKind::kInternal, "a tensor handle of another candidate"};
  }
  bool Tensor(const TensorHandle& t, const char* key, Json* args) {
    auto* box = dynamic_cast<const ProcessBox*>(t.get());
    if (box == nullptr || box->session() != &session_) return false;
    (*args)[key] = box->handle();
    pins_.insert(pins_.end(), box->pins().begin(), box->pins().end());
    return true;
  }
  bool OperandJson(const Operand& o, const char* key, Json* args) {
    if (const Scalar* s = std::get_if<Scalar>(&o)) {
      (*args)[key] = {{"scalar", wire::ScalarJson(*s)}};
      return true;
    }
    Json t;
    if (!Tensor(std::get<TensorHandle>(o), "tensor", &t)) return false;
    (*args)[key] = t;
    return true;
  }
  bool Operands(const Operand& a, const Operand& b, Json* args) { return OperandJson(a, "a", args) && OperandJson(b, "b", args); }

  Result<TensorHandle> from_dlpack_impl(DLManagedTensor* m, const char* op, Json* src, Json& args) {
    if (m == nullptr) return Error{ErrorKind::kValueError, "from_dlpack: a null DLManagedTensor"};
    const std::int64_t region = session_.LendImport(m, src);
    if (region < 0) {
      return Error{ErrorKind::kInternal, std::string(op) + ": the DLTensor's extent in bytes does not fit in int64; not lent"};
    }
    // The producer's bytes, while the answer may use them (and until the answer is read).
    const TesteeSession::Pin pin = session_.PinRegion(region);
    pins_.push_back(pin);
    Result<TensorHandle> r = Error{ErrorKind::kInternal, ""};
    if (std::string(op) == "asarray") {
      args["source"] = *src;
      r = AskTensor("asarray", args, /*may_alias=*/true);
    } else {
      r = AskTensor("from_dlpack", *src, /*may_alias=*/true);
    }
    session_.ImportAnswered(region, r.ok(), /*consumed_on_error=*/std::string(op) == "asarray");
    return r;
  }

  // ---- calls
  template <class T, class F>
  Result<T> Ask(const char* op, Json args, F decode) {
    pins_.clear();  // only a tensor answer that may alias its inputs keeps them (AskTensor)
    Result<Json> r = session_.Call(op, std::move(args));
    if (!r.ok()) return r.error();
    try {
      return T(decode(r.value()));
    } catch (const ProtocolError& e) {
      return session_.Broken(session_.Where(op) + e.what_for());
    }
  }
  template <class T>
  Result<T> Ask(const char* op, Json args, T (*decode)(const Json&, const char*)) {
    return Ask<T>(op, std::move(args), [decode](const Json& v) { return decode(v, "ok"); });
  }
  Status AskStatus(const char* op, Json args) {
    pins_.clear();
    Result<Json> r = session_.Call(op, std::move(args));
    if (!r.ok()) return r.error();
    return Status();
  }
  // A tensor answer; one that may alias its inputs' memory (a view, asarray, an import)
  // keeps the lent regions they pin.
  Result<TensorHandle> AskTensor(const char* op, Json args, bool may_alias = false) {
    std::vector<TesteeSession::Pin> pins = std::exchange(pins_, {});
    if (!may_alias) pins.clear();
    return Ask<TensorHandle>(op, std::move(args), [this, &pins](const Json& v) {
      return TensorHandle(std::make_shared<ProcessBox>(&session_, wire::IntOf(v, "ok"), pins));
    });
  }
  Result<TensorHandle> View(const TensorHandle& t, const char* op, Json args, bool may_alias = true) {
    if (!Tensor(t, "t", &args)) return Foreign();
    return AskTensor(op, std::move(args), may_alias);
  }

  TesteeSession session_;
  std::vector<TesteeSession::Pin> pins_;  // the lent regions the call being made uses (Tensor)
};

std::unique_ptr<Candidate> MakeFromEnvironment() {
  const char* command = std::getenv("TCTS_TESTEE");
  if (command == nullptr || *command == 0) {
    std::cerr << "tcts: the candidate 'testee' runs the command in TCTS_TESTEE, which is not set (bazel run "
                 "//conformance:run -- --testee='CMD ARGS' sets it)\n";
    std::exit(2);
  }
  const char* cwd = std::getenv("TCTS_TESTEE_CWD");
  std::string error;
  std::unique_ptr<Candidate> c = StartTestee(command, cwd ? cwd : "", &error);
  if (!c) {
    std::cerr << "tcts: the testee '" << command << "' did not start: " << error << "\n";
    std::exit(2);
  }
  return c;
}

TCTS_REGISTER_CANDIDATE("testee", MakeFromEnvironment);

}  // namespace

std::unique_ptr<Candidate> StartTestee(const std::string& command, const std::string& cwd, std::string* error) {
  auto c = std::make_unique<ProcessCandidate>(command);
  if (!c->Start(cwd, error)) return nullptr;
  return c;
}

}  // namespace tcts
