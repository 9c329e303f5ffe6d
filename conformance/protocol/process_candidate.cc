#include "conformance/protocol/process_candidate.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/protocol/wire.h"

namespace tcts {
namespace {

using Json = nlohmann::json;
using wire::ProtocolError;

// ---------------------------------------------------------------- the pipe
class Pipe {
 public:
  ~Pipe() { Close(); }

  bool Start(const std::string& command, const std::string& cwd, std::string* error) {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
      *error = std::string("pipe: ") + std::strerror(errno);
      return false;
    }
    pid_ = fork();
    if (pid_ < 0) {
      *error = std::string("fork: ") + std::strerror(errno);
      return false;
    }
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
        std::fprintf(stderr, "tcts: cannot enter the testee's directory '%s': %s\n", cwd.c_str(), std::strerror(errno));
        _exit(127);
      }
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    out_ = to_child[1];
    in_ = from_child[0];
    signal(SIGPIPE, SIG_IGN);  // a dead testee is an EPIPE on write, reported as such
    return true;
  }

  bool WriteLine(const std::string& line) { return wire::WriteAll(out_, line + "\n"); }

  // One line without its newline; false at end of file, or when no newline came within
  // kMaxLine bytes (*too_long set).
  static constexpr std::size_t kMaxLine = std::size_t{256} << 20;
  bool ReadLine(std::string* line, bool* too_long) {
    line->clear();
    for (;;) {
      const std::size_t nl = buffer_.find('\n', start_);
      if (nl != std::string::npos) {
        line->assign(buffer_, start_, nl - start_);
        start_ = nl + 1;
        if (start_ > (1 << 20)) {
          buffer_.erase(0, start_);
          start_ = 0;
        }
        return true;
      }
      if (buffer_.size() - start_ > kMaxLine) {
        *too_long = true;
        return false;
      }
      char chunk[1 << 16];
      const ssize_t n = read(in_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // How the testee ended ("exit status 3", "killed by SIGSEGV"), waiting for it.
  std::string Reap() {
    if (pid_ <= 0) return "not started";
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (WIFSIGNALED(status)) return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    return "exit status " + std::to_string(WEXITSTATUS(status));
  }

  void Close() {
    if (out_ >= 0) close(out_);  // end of input: the testee's loop ends
    if (in_ >= 0) close(in_);
    out_ = in_ = -1;
    if (pid_ > 0) Reap();
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1, in_ = -1;
  std::string buffer_;
  std::size_t start_ = 0;
};

// ---------------------------------------------------------------- host memory regions
// Host memory the suite lends (an array, a buffer, a DLPack producer's bytes) or borrows (a
// testee's DLPack export) is mirrored across the pipe: the testee holds a real object over
// its copy, and each side's writes reach the other before the next call is answered
// (PROTOCOL.md "Regions").
struct Region {
  std::byte* data = nullptr;  // this side's memory
  std::size_t size = 0;
  std::vector<std::byte> seen;  // the bytes both sides last agreed on
  DLManagedTensor* import = nullptr;  // from_dlpack: the producer, whose deleter the testee's call forwards
  bool import_owned = false;          // the import succeeded: the deleter is the testee's to call
  std::vector<std::byte> owned;       // an export's mirror (this side owns the memory)
};

class ProcessCandidate;

class ProcessBox : public TensorBox {
 public:
  ProcessBox(ProcessCandidate* owner, std::int64_t handle) : owner_(owner), handle_(handle) {}
  ~ProcessBox() override;
  std::int64_t handle() const { return handle_; }
  const ProcessCandidate* owner() const { return owner_; }

 private:
  ProcessCandidate* owner_;
  std::int64_t handle_;
};

// ---------------------------------------------------------------- the candidate
class ProcessCandidate : public Candidate {
 public:
  ProcessCandidate(std::string command) : command_(std::move(command)) {}
  ~ProcessCandidate() override {
    alive_ = false;
    pipe_.Close();
    // For the run's log: what the protocol cost this process.
    std::fprintf(stderr, "tcts: testee '%s': %lld requests, %.3f s waiting for answers\n", command_.c_str(),
                 static_cast<long long>(next_id_ - 1), waited_s_);
  }

  bool Start(const std::string& cwd, std::string* error) {
    if (!pipe_.Start(command_, cwd, error)) return false;
    Json hello = {{"op", "hello"}, {"protocol", kProtocolVersion}, {"features", Json::array()}};
    for (Feature f : AllFeaturesList()) hello["features"].push_back(FeatureName(f));
    Result<Json> r = Call("hello", hello);
    if (!r.ok()) {
      *error = "the testee's handshake: " + r.error().message;
      return false;
    }
    try {
      const Json& v = r.value();
      name_ = wire::GetString(v, "name");
      version_ = wire::GetString(v, "version");
      build_ = v.contains("build") ? wire::GetString(v, "build") : "";
      const std::int64_t protocol = wire::GetInt(v, "protocol");
      if (protocol != kProtocolVersion) {
        *error = "the testee speaks protocol version " + std::to_string(protocol) + "; this suite speaks " +
                 std::to_string(kProtocolVersion);
        return false;
      }
      for (const Json& f : wire::Get(v, "features", Json::value_t::array)) {
        if (!f.is_string()) throw ProtocolError("features", "a list of feature names", f.dump());
        bool known = false;
        for (Feature g : AllFeaturesList()) {
          if (f.get<std::string>() == FeatureName(g)) {
            supported_.insert(g);
            known = true;
          }
        }
        if (!known) throw ProtocolError("features", "feature names of PROTOCOL.md", f.dump());
      }
    } catch (const ProtocolError& e) {
      *error = "the testee's handshake (answer to 'hello'): " + e.what_for();
      return false;
    }
    return true;
  }

  std::string name() const override { return name_; }
  std::string version() const override { return version_; }
  std::string build() const override { return build_; }
  bool supports(Feature feature) const override { return supported_.count(feature) > 0; }

  // -- dtypes
  Result<DType> dtype_from_name(std::string_view name) override {
    return Ask<DType>("dtype_from_name", {{"name", std::string(name)}}, wire::DTypeOf);
  }
  Result<DTypeInfo> dtype_info(DType d) override {
    return Ask<DTypeInfo>("dtype_info", {{"dtype", DTypeName(d)}}, [](const Json& v) {
      DTypeInfo i;
      i.itemsize = static_cast<int>(wire::GetInt(v, "itemsize"));
      i.is_floating_point = wire::GetBool(v, "is_floating_point");
      i.is_complex = wire::GetBool(v, "is_complex");
      i.is_signed = wire::GetBool(v, "is_signed");
      return i;
    });
  }
  Result<FloatInfo> finfo(DType d) override {
    return Ask<FloatInfo>("finfo", {{"dtype", DTypeName(d)}}, [](const Json& v) {
      FloatInfo i;
      i.bits = static_cast<int>(wire::GetInt(v, "bits"));
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
    return View(t, "clone", {{"memory_format", MemoryFormatName(format)}});
  }
  Result<TensorHandle> empty_like(const TensorHandle& t, MemoryFormat format) override {
    return View(t, "empty_like", {{"memory_format", MemoryFormatName(format)}});
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
    return Ask<std::uintptr_t>("data_ptr", args, [this](const Json& v) { return Address(v, "ok"); });
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
        region = Lend(a.data + lo, static_cast<std::size_t>(hi - lo), &src);
        src["offset"] = -lo;  // the first element, in the region
        src["dtype"] = DTypeName(a.dtype);
        src["shape"] = a.sizes;
        src["byte_strides"] = a.byte_strides;
        break;
      }
      case AsarraySource::Kind::kBuffer:
        region = Lend(source.buffer, source.buffer_bytes, &src);
        break;
      case AsarraySource::Kind::kDLPack:
        return from_dlpack_impl(source.dlpack, "asarray", &src, args);
      case AsarraySource::Kind::kSequence:
        src["value"] = wire::PyValueJson(source.value);
        break;
    }
    args["source"] = src;
    Result<TensorHandle> r = AskTensor("asarray", args);
    (void)region;
    return r;
  }

  // -- DLPack
  Result<DLManagedTensor*> to_dlpack(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    Result<Json> r = Call("to_dlpack", args);
    if (!r.ok()) return r.error();
    try {
      return Borrow(r.value());
    } catch (const ProtocolError& e) {
      return Error{ErrorKind::kInternal, Where("to_dlpack") + e.what_for()};
    }
  }
  Result<TensorHandle> from_dlpack(DLManagedTensor* m) override {
    Json src, args = Json::object();
    return from_dlpack_impl(m, "from_dlpack", &src, args);
  }

  // A box's handle went away: the testee may free it (sent with the next request).
  // While this side lends memory (a DLPack import waiting for its deleter, an asarray array or
  // buffer), releases go at once: when the last tensor using it goes, the library's deleter
  // call must be seen before the next check, and the caller may free the memory right away,
  // which the next request's sync must no longer read.
  void Released(std::int64_t handle) {
    if (!alive_) return;
    releases_.push_back(handle);
    if (in_call_) return;
    for (const auto& [id, r] : regions_) {
      if (r.owned.empty()) {
        Call("release", Json::object());
        return;
      }
    }
  }

 private:
  static const std::vector<Feature>& AllFeaturesList() {
    static const std::vector<Feature> all = [] {
      std::vector<Feature> v;
      for (int f = 0; f <= static_cast<int>(Feature::kDLPack); ++f) v.push_back(static_cast<Feature>(f));
      return v;
    }();
    return all;
  }

  static Error Foreign() { return Error{ErrorKind::kInternal, "a tensor handle of another candidate"}; }
  std::string Where(const std::string& op) const {
    return "testee protocol: the answer to '" + op + "' (request " + std::to_string(next_id_ - 1) + "): ";
  }

  bool Tensor(const TensorHandle& t, const char* key, Json* args) {
    auto* box = dynamic_cast<const ProcessBox*>(t.get());
    if (box == nullptr || box->owner() != this) return false;
    (*args)[key] = box->handle();
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

  // Lends `size` bytes at `data` as a new region; writes {"region": id, "bytes": base64} into src.
  std::int64_t Lend(std::byte* data, std::size_t size, Json* src) {
    const std::int64_t id = next_region_++;
    Region& r = regions_[id];
    r.data = data;
    r.size = size;
    r.seen.assign(data, data + size);
    (*src)["region"] = {{"id", id}, {"bytes", wire::Base64(r.seen.data(), size)}};
    return id;
  }

  Result<TensorHandle> from_dlpack_impl(DLManagedTensor* m, const char* op, Json* src, Json& args) {
    if (m == nullptr) return Error{ErrorKind::kValueError, "from_dlpack: a null DLManagedTensor"};
    const DLTensor& dl = m->dl_tensor;
    std::vector<std::int64_t> shape, strides;
    if (dl.ndim > 0 && dl.shape != nullptr) shape.assign(dl.shape, dl.shape + dl.ndim);
    if (dl.strides != nullptr && dl.ndim > 0) strides.assign(dl.strides, dl.strides + dl.ndim);
    const std::int64_t item = wire::DLItemsize(dl.dtype);
    std::vector<std::int64_t> byte_strides = dl.strides == nullptr ? wire::CompactStrides(shape) : strides;
    for (std::int64_t& s : byte_strides) s *= item;
    std::int64_t lo = 0, hi = 0;
    wire::ByteExtent(shape, byte_strides, item, &lo, &hi);
    // The region, relative to dl.data: the elements, and the bytes from dl.data itself on (a
    // library that ignores byte_offset reads there, in this process's memory as in the producer's).
    const std::int64_t first = std::min<std::int64_t>(0, static_cast<std::int64_t>(dl.byte_offset) + lo);
    const std::int64_t end = static_cast<std::int64_t>(dl.byte_offset) + hi;
    std::byte* base = static_cast<std::byte*>(dl.data);
    const std::int64_t id = Lend(base == nullptr ? nullptr : base + first, base == nullptr ? 0 : static_cast<std::size_t>(end - first), src);
    regions_[id].import = m;
    (*src)["kind"] = "dlpack";
    (*src)["data_offset"] = -first;  // dl.data, relative to the region
    (*src)["null_data"] = base == nullptr;
    (*src)["dtype"] = {{"code", dl.dtype.code}, {"bits", dl.dtype.bits}, {"lanes", dl.dtype.lanes}};
    (*src)["device"] = {{"type", static_cast<int>(dl.device.device_type)}, {"id", dl.device.device_id}};
    (*src)["shape"] = shape;
    (*src)["strides"] = dl.strides == nullptr ? Json(nullptr) : Json(strides);
    (*src)["byte_offset"] = dl.byte_offset;
    Result<TensorHandle> r = Error{ErrorKind::kInternal, ""};
    if (std::string(op) == "asarray") {
      args["source"] = *src;
      r = AskTensor("asarray", args);
    } else {
      r = AskTensor("from_dlpack", *src);
    }
    auto it = regions_.find(id);
    if (it != regions_.end()) {
      if (r.ok()) {
        it->second.import_owned = true;  // the deleter is the testee's to call from now on
      } else {
        it->second.import = nullptr;  // still the caller's: never forward a deleter call
        pending_drop_.push_back(id);
      }
    }
    return r;
  }

  // A testee's DLPack export: mirrored in memory of ours, released when our consumer's
  // deleter runs.
  struct Export {
    DLManagedTensor managed{};
    std::vector<std::int64_t> shape, strides;
    ProcessCandidate* owner = nullptr;
    std::int64_t region = -1;
  };
  static void ExportDeleter(DLManagedTensor* m) {
    auto* e = static_cast<Export*>(m->manager_ctx);
    if (e->owner != nullptr && e->owner->alive_) {
      e->owner->regions_.erase(e->region);
      e->owner->release_regions_.push_back(e->region);
    }
    delete e;
  }

  DLManagedTensor* Borrow(const Json& v) {
    auto e = std::make_unique<Export>();
    e->owner = this;
    const Json& reg = wire::Get(v, "region", Json::value_t::object);
    e->region = wire::GetInt(reg, "id");
    const std::vector<std::byte> bytes = wire::Unbase64(wire::GetString(reg, "bytes"), "region.bytes");
    const std::int64_t data_offset = wire::GetInt(v, "data_offset");
    const Json& dtype = wire::Get(v, "dtype", Json::value_t::object);
    const Json& device = wire::Get(v, "device", Json::value_t::object);
    e->shape = wire::Ints(v, "shape");
    const Json& strides = wire::Get(v, "strides");
    if (!strides.is_null()) e->strides = wire::Ints(v, "strides");
    if (!strides.is_null() && e->strides.size() != e->shape.size()) throw ProtocolError("strides", "one per dimension", strides.dump());
    Region& r = regions_[e->region];
    r.owned = bytes;
    r.size = bytes.size();
    r.data = r.owned.data();
    r.seen = bytes;
    DLTensor& dl = e->managed.dl_tensor;
    dl.data = r.data + data_offset;
    dl.device = DLDevice{static_cast<DLDeviceType>(wire::GetInt(device, "type")), static_cast<std::int32_t>(wire::GetInt(device, "id"))};
    dl.ndim = static_cast<std::int32_t>(e->shape.size());
    dl.dtype = DLDataType{static_cast<std::uint8_t>(wire::GetInt(dtype, "code")), static_cast<std::uint8_t>(wire::GetInt(dtype, "bits")),
                          static_cast<std::uint16_t>(wire::GetInt(dtype, "lanes"))};
    dl.shape = e->shape.data();
    dl.strides = strides.is_null() ? nullptr : e->strides.data();
    dl.byte_offset = static_cast<std::uint64_t>(wire::GetInt(v, "byte_offset"));
    e->managed.manager_ctx = e.get();
    e->managed.deleter = &ExportDeleter;
    return &e.release()->managed;
  }

  // An address the testee reported: a raw integer, or a place in a region ({"region", "offset"}),
  // which is the same place in this side's copy.
  std::uintptr_t Address(const Json& a, const char* field) {
    if (a.is_object()) {
      const std::int64_t id = wire::GetInt(a, "region");
      auto it = regions_.find(id);
      if (it == regions_.end()) throw ProtocolError(std::string(field) + ".region", "a live region", a.dump());
      return reinterpret_cast<std::uintptr_t>(it->second.data) + static_cast<std::uintptr_t>(wire::GetInt(a, "offset"));
    }
    return static_cast<std::uintptr_t>(wire::IntOf(a, field));
  }

  // ---- calls
  template <class T, class F>
  Result<T> Ask(const char* op, Json args, F decode) {
    Result<Json> r = Call(op, std::move(args));
    if (!r.ok()) return r.error();
    try {
      return T(decode(r.value()));
    } catch (const ProtocolError& e) {
      return Error{ErrorKind::kInternal, Where(op) + e.what_for()};
    }
  }
  template <class T>
  Result<T> Ask(const char* op, Json args, T (*decode)(const Json&, const char*)) {
    return Ask<T>(op, std::move(args), [decode](const Json& v) { return decode(v, "ok"); });
  }
  Status AskStatus(const char* op, Json args) {
    Result<Json> r = Call(op, std::move(args));
    if (!r.ok()) return r.error();
    return Status();
  }
  Result<TensorHandle> AskTensor(const char* op, Json args) {
    return Ask<TensorHandle>(op, std::move(args), [this](const Json& v) {
      return TensorHandle(std::make_shared<ProcessBox>(this, wire::IntOf(v, "ok")));
    });
  }
  Result<TensorHandle> View(const TensorHandle& t, const char* op, Json args) {
    if (!Tensor(t, "t", &args)) return Foreign();
    return AskTensor(op, std::move(args));
  }

  // One request and its answer: {"ok": value} or an Error (the testee's, or a protocol error).
  Result<Json> Call(const char* op, Json args) {
    struct InCall {
      bool& flag;
      explicit InCall(bool& f) : flag(f) { flag = true; }
      ~InCall() { flag = false; }
    } in_call(in_call_);
    const std::int64_t id = next_id_++;
    args["id"] = id;
    args["op"] = op;
    if (!releases_.empty()) args["release"] = std::exchange(releases_, {});
    if (!release_regions_.empty()) args["release_regions"] = std::exchange(release_regions_, {});
    Json sync = Json::array();
    for (auto& [rid, r] : regions_) {
      if (r.size > 0 && r.data != nullptr && std::memcmp(r.seen.data(), r.data, r.size) != 0) {
        r.seen.assign(r.data, r.data + r.size);
        sync.push_back({{"id", rid}, {"bytes", wire::Base64(r.data, r.size)}});
      }
    }
    if (!sync.empty()) args["sync"] = sync;
    const std::string line = args.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::string answer;
    bool too_long = false;
    const auto sent = std::chrono::steady_clock::now();
    const bool answered = pipe_.WriteLine(line) && pipe_.ReadLine(&answer, &too_long);
    waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    if (!answered) {
      Died(op, id, too_long ? "its answer ran past 256 MiB without a newline; the testee was stopped" : "");
    }
    Json v;
    try {
      v = Json::parse(answer);
    } catch (const Json::exception& e) {
      return Error{ErrorKind::kInternal, "testee protocol: the answer to '" + std::string(op) + "' (request " +
                                             std::to_string(id) + ") is not JSON (" + e.what() + "): " + answer.substr(0, 200)};
    }
    try {
      if (!v.is_object()) throw ProtocolError("(message)", "a JSON object", answer.substr(0, 200));
      if (wire::GetInt(v, "id") != id) throw ProtocolError("id", std::to_string(id), v["id"].dump());
      Absorb(v);
      if (v.contains("error")) {
        const Json& e = wire::Get(v, "error", Json::value_t::object);
        ErrorKind kind;
        const std::string name = wire::GetString(e, "kind");
        if (!ParseErrorKind(name, &kind)) throw ProtocolError("error.kind", "an error kind of PROTOCOL.md", "\"" + name + "\"");
        return Error{kind, wire::GetString(e, "message")};
      }
      if (!v.contains("ok")) throw ProtocolError("ok", "\"ok\" or \"error\"", "neither");
      return v["ok"];
    } catch (const ProtocolError& e) {
      return Error{ErrorKind::kInternal, Where(op) + e.what_for()};
    }
  }

  // What the testee reports besides the answer: region bytes it changed, DLPack deleters its
  // library ran, regions its objects no longer use.
  void Absorb(const Json& v) {
    if (v.contains("sync")) {
      for (const Json& s : wire::Get(v, "sync", Json::value_t::array)) {
        auto it = regions_.find(wire::GetInt(s, "id"));
        if (it == regions_.end()) continue;  // released meanwhile
        const std::vector<std::byte> bytes = wire::Unbase64(wire::GetString(s, "bytes"), "sync.bytes");
        if (bytes.size() != it->second.size) throw ProtocolError("sync.bytes", std::to_string(it->second.size) + " bytes", std::to_string(bytes.size()));
        std::copy(bytes.begin(), bytes.end(), it->second.data);
        it->second.seen = bytes;
      }
    }
    if (v.contains("deleted")) {
      for (const Json& d : wire::Get(v, "deleted", Json::value_t::array)) {
        auto it = regions_.find(wire::IntOf(d, "deleted"));
        if (it == regions_.end() || it->second.import == nullptr) continue;
        DLManagedTensor* m = it->second.import;
        regions_.erase(it);
        if (m->deleter != nullptr) m->deleter(m);  // the library's one call, forwarded
      }
    }
    if (v.contains("released")) {
      for (const Json& d : wire::Get(v, "released", Json::value_t::array)) {
        auto it = regions_.find(wire::IntOf(d, "released"));
        if (it != regions_.end() && it->second.import == nullptr && it->second.owned.empty()) regions_.erase(it);
      }
    }
    for (std::int64_t id : std::exchange(pending_drop_, {})) regions_.erase(id);
  }

  [[noreturn]] void Died(const char* op, std::int64_t id, const std::string& why = "") {
    if (!why.empty()) {
      std::cerr << "tcts: the testee '" << command_ << "' broke the protocol on request " << id << " ('" << op
                << "'): " << why << "\n";
      std::cerr.flush();
      std::_Exit(86);  // the process group goes with us (the runner kills it)
    }
    std::string how = pipe_.Reap();
    std::cerr << "tcts: the testee '" << command_ << "' died while answering request " << id << " ('" << op
              << "'): " << how << "\n";
    std::cerr.flush();
    std::_Exit(86);
  }

  std::string command_;
  Pipe pipe_;
  std::string name_, version_, build_;
  std::set<Feature> supported_;
  std::int64_t next_id_ = 1;
  std::int64_t next_region_ = 1;
  std::map<std::int64_t, Region> regions_;
  std::vector<std::int64_t> releases_, release_regions_, pending_drop_;
  bool alive_ = true;
  bool in_call_ = false;
  double waited_s_ = 0;
};

ProcessBox::~ProcessBox() { owner_->Released(handle_); }

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
