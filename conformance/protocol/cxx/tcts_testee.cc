#include "conformance/protocol/cxx/tcts_testee.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "conformance/protocol/wire.h"

namespace tcts {

using Json = wire::Json;
using wire::ProtocolError;
using wire::Shown;

namespace {

// `key` of `v`, or `fallback` when absent (the Python kit's req.get(key, fallback)).
const Json& Opt(const Json& v, const char* key, const Json& fallback) {
  auto it = v.find(key);
  return it == v.end() ? fallback : *it;
}

const Json kNull = nullptr;
const Json kZero = 0;
const Json kFalse = false;
const Json kEmptyObject = Json::object();

// v[key], a list, or an empty one when absent.
const Json& ListOr(const Json& v, const char* key) {
  static const Json empty = Json::array();
  return v.contains(key) ? wire::Get(v, key, Json::value_t::array) : empty;
}

// v[key] as a list of integers; none when absent.
std::vector<std::int64_t> IntsOr(const Json& v, const char* key) {
  return v.contains(key) ? wire::Ints(v, key) : std::vector<std::int64_t>{};
}

Error Internal(std::string message) { return Error{ErrorKind::kInternal, std::move(message)}; }

}  // namespace

// ---------------------------------------------------------------- the server's state
class TesteeServer::State {
 public:
  explicit State(Candidate& c) : c_(c) {
    for (int f = 0; f <= static_cast<int>(Feature::kDLPack); ++f) {
      if (c_.supports(static_cast<Feature>(f))) features_.push_back(FeatureName(static_cast<Feature>(f)));
    }
  }

  ~State() {
    closing_ = true;
    handles_.clear();  // the candidate's tensors go first: they may use what follows
    for (Region& r : regions_) {
      if (r.export_tensor != nullptr && r.export_tensor->deleter != nullptr) r.export_tensor->deleter(r.export_tensor);
    }
    regions_.clear();
    graveyard_.clear();
    // A DLPack import whose deleter the library has not called is still the library's: it may
    // call it later (from a candidate destroyed after this server), so it is never freed here.
    for (auto& [id, import] : imports_) import.release();
  }

  std::string Answer(std::string_view line) {
    Json answer = {{"id", nullptr}};
    try {
      Json req;
      try {
        req = Json::parse(line);
      } catch (const Json::exception& e) {
        throw ProtocolError("(request)", "one JSON object per line", std::string("not JSON (") + e.what() + ")");
      }
      if (!req.is_object()) throw ProtocolError("(request)", "a JSON object", Shown(req));
      answer["id"] = Opt(req, "id", kNull);
      Result<Json> r = Handle(req);
      if (r.ok()) {
        answer["ok"] = std::move(r.value());
      } else {
        answer["error"] = {{"kind", ErrorKindName(r.error().kind)}, {"message", r.error().message}};
      }
    } catch (const ProtocolError& e) {
      answer["error"] = {{"kind", "Internal"}, {"message", "testee kit: bad request: " + e.what_for()}};
    } catch (const std::exception& e) {
      answer["error"] = {{"kind", "Internal"}, {"message", std::string("testee kit: uncaught exception: ") + e.what()}};
    } catch (...) {
      answer["error"] = {{"kind", "Internal"}, {"message", "testee kit: uncaught exception of an unknown type"}};
    }
    keeps_.clear();
    Extras(&answer);
    return answer.dump(-1, ' ', false, Json::error_handler_t::replace);
  }

 private:
  // Host memory the suite lent (an asarray source, a DLPack producer's bytes): a copy of its
  // bytes, which the library's objects use. Registered as a region while it lives.
  struct Block {
    State* server = nullptr;
    std::int64_t region = 0;
    std::byte* data = nullptr;
    std::size_t size = 0;
    ~Block() {
      server->Forget(region, data);
      std::free(data);
    }
  };
  using Keeps = std::vector<std::shared_ptr<Block>>;

  // Bytes mirrored with the suite: a lent block (id > 0) or the memory a DLPack tensor the
  // library exported describes (id < 0).
  struct Region {
    std::int64_t id = 0;
    std::byte* address = nullptr;
    std::size_t size = 0;
    std::vector<std::byte> seen;  // the bytes both sides last agreed on
    DLManagedTensor* export_tensor = nullptr;  // an export, not yet consumed: its deleter runs on release
    Keeps keeps;  // what the exported tensor may use
  };

  // A DLPack tensor the suite lent: a real DLManagedTensor over a block, whose deleter tells the suite.
  struct Imported {
    DLManagedTensor managed{};
    std::vector<std::int64_t> shape, strides;
    std::shared_ptr<Block> block;
    State* server = nullptr;
  };

  struct Entry {
    TensorHandle tensor;
    Keeps keeps;  // lent memory the tensor may use
  };

  using Handler = Result<Json> (State::*)(const Json&);

  // ---- one request
  Result<Json> Handle(const Json& req) {
    graveyard_.clear();  // DLPack imports whose deleter ran during an earlier call
    for (const Json& h : ListOr(req, "release")) handles_.erase(wire::IntOf(h, "release"));
    for (const Json& id : ListOr(req, "release_regions")) ReleaseRegion(wire::IntOf(id, "release_regions"));
    for (const Json& s : ListOr(req, "sync")) {
      Region* r = Find(wire::GetInt(s, "id"));
      if (r == nullptr) continue;  // released meanwhile
      std::vector<std::byte> bytes = wire::Unbase64(wire::GetString(s, "bytes"), "sync.bytes");
      if (bytes.size() != r->size) {
        throw ProtocolError("sync.bytes", "the " + std::to_string(r->size) + " bytes of region " + std::to_string(r->id),
                            std::to_string(bytes.size()) + " bytes");
      }
      if (r->size > 0) std::memcpy(r->address, bytes.data(), r->size);
      r->seen = std::move(bytes);
    }
    const Json& op = wire::Get(req, "op");
    if (op.is_string()) {
      const std::string& name = op.get_ref<const std::string&>();
      if (name == "release") return Json(nullptr);  // nothing but the release fields above
      if (name == "hello") return Hello(req);
      const auto& ops = Ops();
      auto it = ops.find(name);
      if (it != ops.end()) return (this->*(it->second))(req);
    }
    return NotSupported("unknown request " + Shown(op));
  }

  // What the answer carries besides the value: bytes this side changed, DLPack deleters the
  // library ran, lent regions no object uses any more.
  void Extras(Json* answer) {
    Json sync = Json::array();
    for (Region& r : regions_) {
      if (r.size > 0 && std::memcmp(r.seen.data(), r.address, r.size) != 0) {
        r.seen.assign(r.address, r.address + r.size);
        sync.push_back({{"id", r.id}, {"bytes", wire::Base64(r.address, r.size)}});
      }
    }
    if (!sync.empty()) (*answer)["sync"] = std::move(sync);
    if (!deleted_.empty()) (*answer)["deleted"] = std::exchange(deleted_, {});
    if (!released_.empty()) (*answer)["released"] = std::exchange(released_, {});
  }

  Result<Json> Hello(const Json& req) {
    const Json& known = Opt(req, "features", kNull);  // absent: the suite knows them all
    if (!known.is_null()) {
      if (!known.is_array()) throw ProtocolError("features", "a list of feature names", Shown(known));
      std::vector<std::string> unknown;
      for (const std::string& f : features_) {
        if (std::find(known.begin(), known.end(), Json(f)) == known.end()) unknown.push_back(f);
      }
      if (!unknown.empty()) throw ProtocolError("features", "every feature this testee declares", Json(unknown).dump() + " missing");
    }
    return Json{{"name", c_.name()}, {"version", c_.version()}, {"build", c_.build()},
                {"protocol", 1}, {"features", features_}};
  }

  // ---- arguments
  // The tensor of handle req[key]; its kept memory passes to whatever this request makes.
  const TensorHandle& Tensor(const Json& req, const char* key) {
    const Json& h = wire::Get(req, key);
    auto it = h.is_number_integer() ? handles_.find(wire::IntOf(h, key)) : handles_.end();
    if (it == handles_.end()) throw ProtocolError(key, "the handle of a live tensor", Shown(h));
    for (const auto& k : it->second.keeps) {
      if (std::find(keeps_.begin(), keeps_.end(), k) == keeps_.end()) keeps_.push_back(k);
    }
    return it->second.tensor;
  }
  Operand OperandOf(const Json& req, const char* key) {
    const Json& v = wire::Get(req, key);
    if (v.is_object() && v.contains("tensor")) return Tensor(v, "tensor");
    if (v.is_object() && v.contains("scalar")) return wire::ScalarOf(v["scalar"], key);
    throw ProtocolError(key, "{\"tensor\": h} or {\"scalar\": s}", Shown(v));
  }
  static DType DTypeArg(const Json& req, const char* key) { return wire::DTypeOf(wire::Get(req, key), key); }
  static MemoryFormat Format(const Json& req) { return wire::MemoryFormatOf(wire::Get(req, "memory_format"), "memory_format"); }
  static Scalar ScalarArg(const Json& req, const char* key) { return wire::ScalarOf(wire::Get(req, key), key); }
  static BinaryOp Op(const Json& req) {
    const std::string name = wire::GetString(req, "binary_op");
    if (std::optional<BinaryOp> op = BinaryOpFromName(name)) return *op;
    throw ProtocolError("binary_op", "add, sub, mul or div", "\"" + name + "\"");
  }
  static std::optional<std::string> OptString(const Json& req, const char* key) {
    const Json& v = Opt(req, key, kNull);
    if (v.is_null()) return std::nullopt;
    return wire::StringOf(v, key);
  }

  // ---- answers
  Result<Json> NewTensor(const Result<TensorHandle>& r) {
    if (!r.ok()) return r.error();
    if (r.value() == nullptr) return Internal("the candidate answered a null tensor handle");
    const std::int64_t h = next_handle_++;
    handles_.emplace(h, Entry{r.value(), keeps_});
    return Json(h);
  }
  static Result<Json> Done(const Status& s) {
    if (!s.ok()) return s.error();
    return Json(nullptr);
  }
  template <class T, class F>
  static Result<Json> Map(const Result<T>& r, F encode) {
    if (!r.ok()) return r.error();
    return Json(encode(r.value()));
  }
  static Result<Json> Name(const Result<DType>& r) {
    return Map(r, [](DType d) { return DTypeName(d); });
  }
  template <class T>
  static Result<Json> Plain(const Result<T>& r) {
    return Map(r, [](const T& v) { return v; });
  }

  // ---- host memory
  Region* Find(std::int64_t id) {
    for (Region& r : regions_) {
      if (r.id == id) return &r;
    }
    return nullptr;
  }

  // A block was freed: its region goes, and the suite hears so.
  void Forget(std::int64_t id, const std::byte* data) {
    if (closing_) return;
    auto it = std::find_if(regions_.begin(), regions_.end(), [&](const Region& r) { return r.id == id && r.address == data; });
    if (it == regions_.end()) return;
    regions_.erase(it);
    released_.push_back(id);
  }

  void ReleaseRegion(std::int64_t id) {
    auto it = std::find_if(regions_.begin(), regions_.end(), [&](const Region& r) { return r.id == id; });
    if (it == regions_.end()) return;
    DLManagedTensor* m = it->export_tensor;
    regions_.erase(it);  // its keeps go after the library's deleter ran
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }

  // src["region"] = {"id", "bytes"}: a new block holding the bytes, registered as that region.
  std::shared_ptr<Block> Lend(const Json& src) {
    const Json& reg = wire::Get(src, "region", Json::value_t::object);
    const std::int64_t id = wire::GetInt(reg, "id");
    const std::vector<std::byte> bytes =
        wire::Unbase64(wire::StringOf(Opt(reg, "bytes", Json("")), "region.bytes"), "region.bytes");
    ReleaseRegion(id);  // a suite reusing an id replaces the region
    const std::size_t capacity = (std::max<std::size_t>(bytes.size(), 1) + 63) / 64 * 64;
    auto block = std::make_shared<Block>();
    block->data = static_cast<std::byte*>(std::aligned_alloc(64, capacity));
    if (block->data == nullptr) throw std::bad_alloc();
    block->server = this;
    block->region = id;
    block->size = bytes.size();
    if (!bytes.empty()) std::memcpy(block->data, bytes.data(), bytes.size());
    Region r;
    r.id = id;
    r.address = block->data;
    r.size = bytes.size();
    r.seen = bytes;
    regions_.push_back(std::move(r));
    return block;
  }

  static void ImportDeleter(DLManagedTensor* m) {
    auto* import = static_cast<Imported*>(m->manager_ctx);
    State* s = import->server;
    const std::int64_t id = import->block->region;
    s->deleted_.push_back(id);
    // The library is done with it: freed at the next request, after this call has returned.
    auto it = s->imports_.find(id);
    if (it != s->imports_.end() && it->second.get() == import) {
      s->graveyard_.push_back(std::move(it->second));
      s->imports_.erase(it);
    }
  }

  // A DLPack tensor as the suite describes it (process_candidate.cc's from_dlpack_impl),
  // over a new block: returns its region id.
  std::int64_t ImportDLPack(const Json& src) {
    auto import = std::make_unique<Imported>();
    import->server = this;
    import->block = Lend(src);
    const std::int64_t id = import->block->region;
    import->shape = IntsOr(src, "shape");
    const Json& strides = Opt(src, "strides", kNull);
    if (!strides.is_null()) {
      import->strides = wire::Ints(src, "strides");
      if (import->strides.size() != import->shape.size()) throw ProtocolError("strides", "one per dimension", Shown(strides));
    }
    const Json& dtype = Opt(src, "dtype", kEmptyObject);
    const Json& device = Opt(src, "device", kEmptyObject);
    const std::size_t ndim = import->shape.size();
    import->shape.reserve(std::max<std::size_t>(ndim, 1));  // a valid pointer even for 0 dimensions
    import->strides.reserve(std::max<std::size_t>(ndim, 1));
    DLTensor& t = import->managed.dl_tensor;
    t.data = wire::BoolOf(Opt(src, "null_data", kFalse), "null_data")
                 ? nullptr
                 : reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(import->block->data) +
                                           static_cast<std::uintptr_t>(wire::IntOf(Opt(src, "data_offset", kZero), "data_offset")));
    t.device = DLDevice{static_cast<DLDeviceType>(wire::IntOf(Opt(device, "type", Json(1)), "device.type")),
                        static_cast<std::int32_t>(wire::IntOf(Opt(device, "id", kZero), "device.id"))};
    t.ndim = static_cast<std::int32_t>(ndim);
    t.dtype = DLDataType{static_cast<std::uint8_t>(wire::IntOf(Opt(dtype, "code", kZero), "dtype.code")),
                         static_cast<std::uint8_t>(wire::IntOf(Opt(dtype, "bits", kZero), "dtype.bits")),
                         static_cast<std::uint16_t>(wire::IntOf(Opt(dtype, "lanes", Json(1)), "dtype.lanes"))};
    t.shape = import->shape.data();
    t.strides = strides.is_null() ? nullptr : import->strides.data();
    t.byte_offset = static_cast<std::uint64_t>(wire::IntOf(Opt(src, "byte_offset", kZero), "byte_offset"));
    import->managed.manager_ctx = import.get();
    import->managed.deleter = &ImportDeleter;
    imports_[id] = std::move(import);
    return id;
  }

  // Calls the candidate with DLPack import `id` (none: -1); an import it did not take (an error,
  // or an exception, which goes on) is the caller's again: no deleter call is expected.
  template <class F>
  Result<TensorHandle> Importing(std::int64_t id, F call) {
    try {
      Result<TensorHandle> r = call();
      if (!r.ok()) imports_.erase(id);
      return r;
    } catch (...) {
      imports_.erase(id);
      throw;
    }
  }

  // A DLPack tensor the library exported, mirrored to the suite as region `id` < 0.
  Json Export(DLManagedTensor* m) {
    const DLTensor& t = m->dl_tensor;
    std::vector<std::int64_t> shape(t.shape, t.shape + std::max(t.ndim, 0));
    const bool compact = t.strides == nullptr;
    const std::vector<std::int64_t> strides =
        compact ? wire::CompactStrides(shape) : std::vector<std::int64_t>(t.strides, t.strides + shape.size());
    const std::int64_t item = wire::DLItemsize(t.dtype);
    std::vector<std::int64_t> byte_strides = strides;
    for (std::int64_t& s : byte_strides) s *= item;
    std::int64_t lo = 0, hi = 0;
    wire::ByteExtent(shape, byte_strides, item, &lo, &hi);
    const std::uintptr_t data = reinterpret_cast<std::uintptr_t>(t.data);
    const std::uintptr_t first = data + static_cast<std::uintptr_t>(t.byte_offset) + static_cast<std::uintptr_t>(lo);
    Region r;
    r.id = next_export_--;
    r.address = reinterpret_cast<std::byte*>(first);
    r.size = t.device.device_type == kDLCPU && t.data != nullptr ? static_cast<std::size_t>(hi - lo) : 0;
    r.seen.assign(r.address, r.address + r.size);
    r.export_tensor = m;
    r.keeps = keeps_;
    Json answer = {{"region", {{"id", r.id}, {"bytes", wire::Base64(r.seen.data(), r.size)}}},
                   {"data_offset", static_cast<std::int64_t>(data - first)},
                   {"dtype", {{"code", t.dtype.code}, {"bits", t.dtype.bits}, {"lanes", t.dtype.lanes}}},
                   {"device", {{"type", static_cast<int>(t.device.device_type)}, {"id", t.device.device_id}}},
                   {"shape", shape},
                   {"strides", compact ? Json(nullptr) : Json(strides)},
                   {"byte_offset", t.byte_offset}};
    regions_.push_back(std::move(r));
    return answer;
  }

  // An address the library answered: inside a region, named relative to it (the suite's copy
  // of those bytes is elsewhere); otherwise the number.
  Json Address(std::uintptr_t a) const {
    for (const Region& r : regions_) {
      const auto base = reinterpret_cast<std::uintptr_t>(r.address);
      if (base <= a && a <= base + r.size) return {{"region", r.id}, {"offset", static_cast<std::int64_t>(a - base)}};
    }
    return static_cast<std::int64_t>(a);
  }

  // ---- the operations (candidate.h), by request name
  static const std::unordered_map<std::string, Handler>& Ops();

  // dtypes
  Result<Json> OnDTypeFromName(const Json& q) { return Name(c_.dtype_from_name(wire::GetString(q, "name"))); }
  Result<Json> OnDTypeInfo(const Json& q) {
    return Map(c_.dtype_info(DTypeArg(q, "dtype")), [](const DTypeInfo& i) {
      return Json{{"itemsize", i.itemsize}, {"is_floating_point", i.is_floating_point}, {"is_complex", i.is_complex},
                  {"is_signed", i.is_signed}};
    });
  }
  Result<Json> OnFinfo(const Json& q) {
    return Map(c_.finfo(DTypeArg(q, "dtype")), [](const FloatInfo& f) {
      return Json{{"bits", f.bits}, {"eps", wire::FloatJson(f.eps)}, {"max", wire::FloatJson(f.max)},
                  {"min", wire::FloatJson(f.min)}, {"tiny", wire::FloatJson(f.tiny)}};
    });
  }
  Result<Json> OnLegacyConstructor(const Json& q) { return Plain(c_.legacy_constructor(DTypeArg(q, "dtype"))); }

  // promotion and casting
  Result<Json> OnPromoteTypes(const Json& q) { return Name(c_.promote_types(DTypeArg(q, "a"), DTypeArg(q, "b"))); }
  Result<Json> OnResultType(const Json& q) { return Name(c_.result_type(OperandOf(q, "a"), OperandOf(q, "b"))); }
  Result<Json> OnCanCast(const Json& q) { return Plain(c_.can_cast(DTypeArg(q, "from"), DTypeArg(q, "to"))); }
  Result<Json> OnDefaultDType(const Json&) { return Name(c_.default_dtype()); }
  Result<Json> OnSetDefaultDType(const Json& q) { return Done(c_.set_default_dtype(DTypeArg(q, "dtype"))); }

  // tensors
  Result<Json> OnMakeTensor(const Json& q) {
    return NewTensor(c_.make_tensor(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), wire::ScalarsOf(wire::Get(q, "values"), "values")));
  }
  Result<Json> OnMeta(const Json& q) {
    return Map(c_.meta(Tensor(q, "t")), [](const TensorMeta& m) {
      return Json{{"dtype", DTypeName(m.dtype)}, {"sizes", m.sizes}, {"strides", m.strides},
                  {"storage_offset", m.storage_offset}, {"device", m.device}, {"layout", LayoutName(m.layout)}};
    });
  }
  Result<Json> OnValues(const Json& q) { return Map(c_.values(Tensor(q, "t")), wire::Scalars); }

  // arithmetic
  Result<Json> OnBinary(const Json& q) {
    return NewTensor(c_.binary(Op(q), OperandOf(q, "a"), OperandOf(q, "b"), ScalarArg(q, "alpha")));
  }
  Result<Json> OnBinaryOut(const Json& q) {
    return Done(c_.binary_out(Op(q), OperandOf(q, "a"), OperandOf(q, "b"), ScalarArg(q, "alpha"), Tensor(q, "out")));
  }
  Result<Json> OnBinaryInplace(const Json& q) {
    return Done(c_.binary_inplace(Op(q), Tensor(q, "self"), OperandOf(q, "other"), ScalarArg(q, "alpha")));
  }

  // strided tensors
  Result<Json> OnEmpty(const Json& q) {
    return NewTensor(c_.empty(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), wire::LayoutOf(wire::Get(q, "layout"), "layout"), Format(q)));
  }
  Result<Json> OnEmptyStrided(const Json& q) {
    return NewTensor(c_.empty_strided(wire::Ints(q, "sizes"), wire::Ints(q, "strides"), DTypeArg(q, "dtype")));
  }
  Result<Json> OnIsContiguous(const Json& q) { return Plain(c_.is_contiguous(Tensor(q, "t"), Format(q))); }
  Result<Json> OnAsStrided(const Json& q) {
    return NewTensor(c_.as_strided(Tensor(q, "t"), wire::Ints(q, "sizes"), wire::Ints(q, "strides"), wire::GetInt(q, "storage_offset")));
  }
  Result<Json> OnT(const Json& q) { return NewTensor(c_.t(Tensor(q, "t"))); }
  Result<Json> OnTranspose(const Json& q) {
    return NewTensor(c_.transpose(Tensor(q, "t"), wire::GetInt(q, "dim0"), wire::GetInt(q, "dim1")));
  }
  Result<Json> OnPermute(const Json& q) { return NewTensor(c_.permute(Tensor(q, "t"), wire::Ints(q, "dims"))); }
  Result<Json> OnNarrow(const Json& q) {
    return NewTensor(c_.narrow(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "start"), wire::GetInt(q, "length")));
  }
  Result<Json> OnSelect(const Json& q) {
    return NewTensor(c_.select(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "index")));
  }
  Result<Json> OnSlice(const Json& q) {
    return NewTensor(c_.slice(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "start"), wire::GetInt(q, "end"),
                              wire::GetInt(q, "step")));
  }
  Result<Json> OnExpand(const Json& q) { return NewTensor(c_.expand(Tensor(q, "t"), wire::Ints(q, "sizes"))); }
  Result<Json> OnUnsqueeze(const Json& q) { return NewTensor(c_.unsqueeze(Tensor(q, "t"), wire::GetInt(q, "dim"))); }
  Result<Json> OnSqueeze(const Json& q) {
    const Json& dim = wire::Get(q, "dim");
    return NewTensor(c_.squeeze(Tensor(q, "t"), dim.is_null() ? std::nullopt : std::optional<std::int64_t>(wire::IntOf(dim, "dim"))));
  }
  Result<Json> OnView(const Json& q) { return NewTensor(c_.view(Tensor(q, "t"), wire::Ints(q, "sizes"))); }
  Result<Json> OnReshape(const Json& q) { return NewTensor(c_.reshape(Tensor(q, "t"), wire::Ints(q, "sizes"))); }
  Result<Json> OnContiguous(const Json& q) { return NewTensor(c_.contiguous(Tensor(q, "t"), Format(q))); }
  Result<Json> OnClone(const Json& q) { return NewTensor(c_.clone(Tensor(q, "t"), Format(q))); }
  Result<Json> OnEmptyLike(const Json& q) { return NewTensor(c_.empty_like(Tensor(q, "t"), Format(q))); }

  // storage
  Result<Json> OnStorage(const Json& q) {
    return Map(c_.storage(Tensor(q, "t")), [](const StorageInfo& s) {
      return Json{{"id", static_cast<std::int64_t>(s.id)}, {"numel", s.numel}};
    });
  }
  Result<Json> OnStorageValues(const Json& q) { return Map(c_.storage_values(Tensor(q, "t")), wire::Scalars); }
  Result<Json> OnWriteStorage(const Json& q) {
    return Done(c_.write_storage(Tensor(q, "t"), wire::GetInt(q, "index"), ScalarArg(q, "value")));
  }
  Result<Json> OnWriteElement(const Json& q) {
    return Done(c_.write_element(Tensor(q, "t"), wire::Ints(q, "index"), ScalarArg(q, "value")));
  }
  Result<Json> OnDataPtr(const Json& q) {
    return Map(c_.data_ptr(Tensor(q, "t")), [this](std::uintptr_t a) { return Address(a); });
  }

  // devices
  Result<Json> OnDevice(const Json& q) {
    return Map(c_.device(wire::DeviceArgOf(wire::Get(q, "arg", Json::value_t::object), "arg")), [](const DeviceInfo& d) {
      return Json{{"type", d.type}, {"index", d.index ? Json(*d.index) : Json(nullptr)}, {"str", d.str}, {"repr", d.repr}};
    });
  }
  Result<Json> OnCompareDevices(const Json& q) {
    return Map(c_.compare_devices(wire::DeviceArgOf(wire::Get(q, "a", Json::value_t::object), "a"),
                                  wire::DeviceArgOf(wire::Get(q, "b", Json::value_t::object), "b")),
               [](const DeviceComparison& c) { return Json{{"equal", c.equal}, {"same_hash", c.same_hash}}; });
  }
  Result<Json> OnDefaultDevice(const Json&) { return Plain(c_.default_device()); }
  Result<Json> OnSetDefaultDevice(const Json& q) { return Done(c_.set_default_device(wire::GetString(q, "device"))); }
  Result<Json> OnEnterDevice(const Json& q) { return Done(c_.enter_device(wire::GetString(q, "device"))); }
  Result<Json> OnExitDevice(const Json&) { return Done(c_.exit_device()); }
  Result<Json> OnEmptyOn(const Json& q) {
    return NewTensor(c_.empty_on(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), OptString(q, "device")));
  }

  // asarray
  Result<Json> OnAsarray(const Json& q) {
    AsarrayOptions options;
    if (const Json& d = Opt(q, "dtype", kNull); !d.is_null()) options.dtype = wire::DTypeOf(d, "dtype");
    options.device = OptString(q, "device");
    if (const Json& c = Opt(q, "copy", kNull); !c.is_null()) options.copy = wire::BoolOf(c, "copy");
    const Json& src = wire::Get(q, "source", Json::value_t::object);
    const std::string kind = wire::GetString(src, "kind");
    AsarraySource source;
    std::shared_ptr<Block> lent;  // freed at the end of this call unless the result keeps it
    std::int64_t imported = -1;  // regions the suite lends have positive ids
    if (kind == "tensor") {
      source.kind = AsarraySource::Kind::kTensor;
      source.tensor = Tensor(src, "tensor");
    } else if (kind == "array" || kind == "array_scalar") {
      lent = Lend(src);
      source.kind = kind == "array" ? AsarraySource::Kind::kArray : AsarraySource::Kind::kArrayScalar;
      source.array.data = lent->data + wire::IntOf(Opt(src, "offset", kZero), "offset");
      source.array.dtype = DTypeArg(src, "dtype");
      source.array.sizes = IntsOr(src, "shape");
      source.array.byte_strides = IntsOr(src, "byte_strides");
    } else if (kind == "buffer") {
      lent = Lend(src);
      source.kind = AsarraySource::Kind::kBuffer;
      source.buffer = lent->data;
      source.buffer_bytes = lent->size;
    } else if (kind == "dlpack") {
      imported = ImportDLPack(src);
      source.kind = AsarraySource::Kind::kDLPack;
      source.dlpack = &imports_.at(imported)->managed;
    } else if (kind == "sequence") {
      source.kind = AsarraySource::Kind::kSequence;
      source.value = wire::PyValueOf(wire::Get(src, "value"), "source.value");
    } else {
      throw ProtocolError("source.kind", "tensor, array, array_scalar, dlpack, buffer or sequence", "\"" + kind + "\"");
    }
    Result<TensorHandle> r = Importing(imported, [&] { return c_.asarray(source, options); });
    if (r.ok() && lent) keeps_.push_back(lent);
    return NewTensor(r);
  }

  // DLPack
  Result<Json> OnToDLPack(const Json& q) {
    Result<DLManagedTensor*> r = c_.to_dlpack(Tensor(q, "t"));
    if (!r.ok()) return r.error();
    if (r.value() == nullptr) return Internal("the candidate's to_dlpack answered a null DLManagedTensor");
    return Export(r.value());
  }
  Result<Json> OnFromDLPack(const Json& q) {
    const std::int64_t id = ImportDLPack(q);
    return NewTensor(Importing(id, [&] { return c_.from_dlpack(&imports_.at(id)->managed); }));
  }

  Candidate& c_;
  std::vector<std::string> features_;
  std::unordered_map<std::int64_t, Entry> handles_;
  std::int64_t next_handle_ = 1;
  std::vector<Region> regions_;  // in the order they came (an address is looked up in it)
  std::int64_t next_export_ = -1;
  std::map<std::int64_t, std::unique_ptr<Imported>> imports_;  // by region, until the library deletes them
  std::vector<std::unique_ptr<Imported>> graveyard_;          // deleted by the library during a call
  Keeps keeps_;  // this request's: what the tensor it makes may use
  std::vector<std::int64_t> deleted_, released_;
  bool closing_ = false;
};

const std::unordered_map<std::string, TesteeServer::State::Handler>& TesteeServer::State::Ops() {
  static const std::unordered_map<std::string, Handler> ops = {
      {"dtype_from_name", &State::OnDTypeFromName},
      {"dtype_info", &State::OnDTypeInfo},
      {"finfo", &State::OnFinfo},
      {"legacy_constructor", &State::OnLegacyConstructor},
      {"promote_types", &State::OnPromoteTypes},
      {"result_type", &State::OnResultType},
      {"can_cast", &State::OnCanCast},
      {"default_dtype", &State::OnDefaultDType},
      {"set_default_dtype", &State::OnSetDefaultDType},
      {"make_tensor", &State::OnMakeTensor},
      {"meta", &State::OnMeta},
      {"values", &State::OnValues},
      {"binary", &State::OnBinary},
      {"binary_out", &State::OnBinaryOut},
      {"binary_inplace", &State::OnBinaryInplace},
      {"empty", &State::OnEmpty},
      {"empty_strided", &State::OnEmptyStrided},
      {"is_contiguous", &State::OnIsContiguous},
      {"as_strided", &State::OnAsStrided},
      {"t", &State::OnT},
      {"transpose", &State::OnTranspose},
      {"permute", &State::OnPermute},
      {"narrow", &State::OnNarrow},
      {"select", &State::OnSelect},
      {"slice", &State::OnSlice},
      {"expand", &State::OnExpand},
      {"unsqueeze", &State::OnUnsqueeze},
      {"squeeze", &State::OnSqueeze},
      {"view", &State::OnView},
      {"reshape", &State::OnReshape},
      {"contiguous", &State::OnContiguous},
      {"clone", &State::OnClone},
      {"empty_like", &State::OnEmptyLike},
      {"storage", &State::OnStorage},
      {"storage_values", &State::OnStorageValues},
      {"write_storage", &State::OnWriteStorage},
      {"write_element", &State::OnWriteElement},
      {"data_ptr", &State::OnDataPtr},
      {"device", &State::OnDevice},
      {"compare_devices", &State::OnCompareDevices},
      {"default_device", &State::OnDefaultDevice},
      {"set_default_device", &State::OnSetDefaultDevice},
      {"enter_device", &State::OnEnterDevice},
      {"exit_device", &State::OnExitDevice},
      {"empty_on", &State::OnEmptyOn},
      {"asarray", &State::OnAsarray},
      {"to_dlpack", &State::OnToDLPack},
      {"from_dlpack", &State::OnFromDLPack},
  };
  return ops;
}

// ---------------------------------------------------------------- the server
TesteeServer::TesteeServer(Candidate& candidate) : state_(std::make_unique<State>(candidate)) {}
TesteeServer::~TesteeServer() = default;
std::string TesteeServer::Answer(std::string_view request) { return state_->Answer(request); }

namespace {

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

int ServeCandidate(Candidate& candidate, int in_fd, int out_fd) {
  TesteeServer server(candidate);
  std::string buffer, answer;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = buffer.find('\n', start);
    if (nl == std::string::npos) {
      buffer.erase(0, start);
      start = 0;
      char chunk[1 << 16];
      const ssize_t n = read(in_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // end of input (a last line without a newline is not a request)
      buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    const std::string_view line(buffer.data() + start, nl - start);
    start = nl + 1;
    if (IsBlank(line)) continue;
    answer = server.Answer(line);
    answer += '\n';
    if (!wire::WriteAll(out_fd, answer)) return 1;
  }
  return 0;
}

int ServeCandidate(Candidate& candidate, std::istream& in, std::ostream& out) {
  TesteeServer server(candidate);
  std::string line;
  while (std::getline(in, line)) {
    if (IsBlank(line)) continue;
    out << server.Answer(line) << '\n';
    out.flush();
    if (!out) return 1;
  }
  return 0;
}

int ServeStdio(Candidate& candidate) {
  std::fflush(stdout);
  const int protocol = dup(1);  // the answers' own descriptor
  if (protocol < 0) {
    std::perror("tcts testee kit: dup(stdout)");
    return 1;
  }
  dup2(2, 1);                // the library's own prints go to stderr
  signal(SIGPIPE, SIG_IGN);  // a suite that is gone is a failed write, not a signal
  const int status = ServeCandidate(candidate, 0, protocol);
  close(protocol);
  return status;
}

}  // namespace tcts
