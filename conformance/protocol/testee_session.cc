#include "conformance/protocol/testee_session.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <utility>

#include <unistd.h>

#include "conformance/candidate/fresh_process.h"
#include "conformance/harness/exit_codes.h"
#include "conformance/protocol/wire.h"
#include "gtest/gtest.h"

namespace tcts {

using Json = nlohmann::json;
using wire::ProtocolError;

namespace {
// Bounds on what a testee sends (PROTOCOL.md "Bounds"): the handshake's answer, an answer's
// nesting (checked before anything walks it recursively), an export's dimensions.
constexpr std::size_t kMaxHandshakeLine = std::size_t{1} << 20;
constexpr std::size_t kMaxHandshakeFeatures = 256;
constexpr std::size_t kMaxHandshakeText = 65536;
constexpr int kMaxAnswerDepth = 100;
constexpr std::size_t kMaxExportDims = 1024;
}  // namespace

// --trace (the runner passes the candidate option trace_dir): every line sent to the testee and every answer,
// one JSON object a line in <dir>/<pid>.<n>.jsonl, each with the GoogleTest name of the case
// running ("" outside a case: the handshake). The runner cuts it into one file per case.
void TesteeSession::Trace(const char* direction, const std::string& line, bool served) {
  if (trace_ == nullptr) return;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  Json record = {{"test", test}, {direction, line}};
  if (served) record["served"] = "fact";  // answered by the suite from a fact (version 3)
  const std::string text = record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), trace_);
  std::fflush(trace_);  // a crash loses no line
}

TesteeSession::~TesteeSession() {
  alive_ = false;
  pipe_.Close();
  if (trace_ != nullptr) std::fclose(trace_);
  // For the run's log: what the protocol cost this process.
  std::fprintf(stderr, "tcts: testee '%s': %lld requests (%lld of them answered from facts), %.3f s waiting for answers\n",
               command_.c_str(), static_cast<long long>(next_id_ - 1), static_cast<long long>(served_), waited_s_);
}

bool TesteeSession::Start(const std::string& cwd, const std::string& device, std::string* error) {
  if (!trace_dir_.empty()) {
    static int sessions = 0;
    const std::string path = trace_dir_ + "/" + std::to_string(getpid()) + "." + std::to_string(sessions++) + ".jsonl";
    trace_ = std::fopen(path.c_str(), "w");
    if (trace_ == nullptr) {
      *error = "cannot write the trace " + path + ": " + std::strerror(errno);
      return false;
    }
  }
  if (!pipe_.Start(argv_, cwd, error)) return false;
  handshake_ = true;
  // The versions this suite speaks (the testee picks one), and the interface's description as
  // data: the Python and Node.js kits dispatch, decode and encode from it.
  static const Json kInterface = Json::parse(TCTS_INTERFACE_JSON);
  Json hello = {{"op", "hello"},
                {"protocol", std::end(kProtocolVersions)[-1]},
                {"protocols", kProtocolVersions},
                {"interface", kInterface},
                {"features", Json::array()}};
  for (Feature f : AllFeatures()) hello["features"].push_back(FeatureName(f));
  hello["dtypes"] = Json::array();
  for (DType d : AllDTypes()) hello["dtypes"].push_back(DTypeName(d));
  // Where the suite wants the testee's tensors (null: its default); the answer says where they
  // are, so that no request comes before the first case (PROTOCOL.md "Handshake").
  hello["device"] = device.empty() ? Json(nullptr) : Json(device);
  Result<Json> r = Call("hello", hello);
  handshake_ = false;
  if (!r.ok()) {
    *error = "the testee's handshake: " + r.error().message;
    return false;
  }
  try {
    const Json& v = r.value();
    name_ = wire::GetString(v, "name");
    version_ = wire::GetString(v, "version");
    build_ = v.contains("build") ? wire::GetString(v, "build") : "";
    for (const std::string* text : {&name_, &version_, &build_}) {
      if (text->size() > kMaxHandshakeText) {
        throw ProtocolError("name, version, build", "at most 65536 bytes each", std::to_string(text->size()) + " bytes");
      }
    }
    const std::int64_t protocol = wire::GetInt(v, "protocol");
    if (std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), protocol) == std::end(kProtocolVersions)) {
      std::string spoken;
      for (int p : kProtocolVersions) spoken += (spoken.empty() ? "" : ", ") + std::to_string(p);
      *error = "the testee speaks protocol version " + std::to_string(protocol) + "; this suite speaks " + spoken;
      return false;
    }
    protocol_ = static_cast<int>(protocol);
    const Json& features = wire::Get(v, "features", Json::value_t::array);
    if (features.size() > kMaxHandshakeFeatures) {
      throw ProtocolError("features", "at most 256 feature names", std::to_string(features.size()) + " entries");
    }
    for (const Json& f : features) {
      if (!f.is_string()) throw ProtocolError("features", "a list of feature names", f.dump());
      bool known = false;
      for (Feature g : AllFeatures()) {
        if (f.get<std::string>() == FeatureName(g)) {
          supported_.insert(g);
          known = true;
        }
      }
      if (!known) throw ProtocolError("features", "feature names of PROTOCOL.md", f.dump());
    }
    if (v.contains("ops")) {
      // The ops the testee has, one by one: a feature may be partly there (some view ops and not
      // others); a declared feature must have every one of its ops.
      const Json& ops = wire::Get(v, "ops", Json::value_t::array);
      if (ops.size() > AllOps().size()) {
        throw ProtocolError("ops", "at most " + std::to_string(AllOps().size()) + " op names", std::to_string(ops.size()) + " entries");
      }
      for (const Json& o : ops) {
        if (!o.is_string() || !FeatureOfOp(o.get<std::string>())) throw ProtocolError("ops", "op names of PROTOCOL.md", o.dump());
        ops_.insert(o.get<std::string>());
      }
      for (std::string_view op : AllOps()) {
        if (supported_.count(*FeatureOfOp(op)) && !ops_.count(op)) {
          throw ProtocolError("ops", std::string("every op of declared feature ") + FeatureName(*FeatureOfOp(op)),
                              "no '" + std::string(op) + "'");
        }
      }
      ops_declared_ = true;
    }
    if (v.contains("dtypes")) {
      dtypes_declared_ = true;
      for (const Json& d : wire::Get(v, "dtypes", Json::value_t::array)) dtypes_.insert(wire::SpecDTypeOf(d, "dtypes"));
    }
    if (v.contains("device_refused")) {
      if (device.empty()) throw ProtocolError("device_refused", "absent: hello asked for no device", "a refusal");
      placement_.refused = wire::GetString(v, "device_refused");
      if (placement_.refused.empty() || placement_.refused.size() > kMaxHandshakeText) {
        throw ProtocolError("device_refused", "why, in 1 to 65536 bytes", std::to_string(placement_.refused.size()) + " bytes");
      }
      if (v.contains("device")) throw ProtocolError("device", "absent beside device_refused", v["device"].dump());
    } else if (v.contains("device")) {
      if (v["device"].is_null()) {
        // Asked for a device, the testee says where its tensors are, or refuses.
        if (!device.empty()) throw ProtocolError("device", "the device asked for ('" + device + "'), or device_refused", "null");
        placement_.unknown = true;
      } else {
        placement_.device = wire::GetString(v, "device");
        if (placement_.device.empty() || placement_.device.size() > 256) {
          throw ProtocolError("device", "a device's name (\"cpu\", \"cuda:0\", \"meta\"), or null", v["device"].dump());
        }
        // Asked for a device, the testee answers where its tensors are: on that device's type.
        const std::string type = placement_.device.substr(0, placement_.device.find(':'));
        if (!device.empty() && type != device.substr(0, device.find(':'))) {
          throw ProtocolError("device", "a device of type '" + device.substr(0, device.find(':')) +
                                            "' (hello asked for '" + device + "'), or device_refused",
                              v["device"].dump());
        }
      }
    }
  } catch (const ProtocolError& e) {
    *error = "the testee's handshake (answer to 'hello'): " + e.what_for();
    return false;
  }
  return true;
}

bool TesteeSession::supports_op(std::string_view op) const {
  if (ops_declared_) return ops_.count(op) > 0;
  const std::optional<Feature> f = FeatureOfOp(op);
  return f && supports(*f);
}

std::string TesteeSession::Where(const std::string& op) const {
  return "testee protocol: the answer to '" + op + "' (request " + std::to_string(next_id_ - 1) + "): ";
}

// One request and its answer: {"ok": value} or an Error (the testee's, or a protocol error).
const nlohmann::json* TesteeSession::Fact(std::int64_t handle, const char* op) const {
  auto it = facts_.find(handle);
  if (it == facts_.end()) return nullptr;
  auto f = it->second.find(op);
  return f == it->second.end() ? nullptr : &*f;
}

void TesteeSession::Served(const char* op, Json args, const Json& fact) {
  const std::int64_t id = next_id_++;
  ++served_;
  if (trace_ == nullptr) return;
  args["id"] = id;
  args["op"] = op;
  Trace("send", args.dump(-1, ' ', false, Json::error_handler_t::replace), true);
  const Json answer = {{"id", id}, {"ok", fact}};
  Trace("recv", answer.dump(-1, ' ', false, Json::error_handler_t::replace), true);
}

Result<nlohmann::json> TesteeSession::Call(const char* op, Json args, wire::OkScalars* ok_scalars, Json* facts) {
  struct InCall {
    bool& flag;
    explicit InCall(bool& f) : flag(f) { flag = true; }
    ~InCall() { flag = false; }
  } in_call(in_call_);
  if (!broken_.empty()) {
    return Fault("testee protocol: '" + std::string(op) + "' not asked: the testee is out of step since " + broken_ +
                 " (a fresh testee takes the next case)");
  }
  const std::int64_t id = next_id_++;
  args["id"] = id;  // small: the same in every version
  args["op"] = op;
  if (!releases_.empty()) args["release"] = std::exchange(releases_, {});
  if (!release_regions_.empty()) args["release_regions"] = std::exchange(release_regions_, {});
  Json sync = Json::array();
  for (auto& [rid, r] : regions_) {
    if (Json s = r.SyncOut(rid, protocol_); !s.is_null()) sync.push_back(std::move(s));
  }
  if (!sync.empty()) args["sync"] = sync;
  const std::string line = args.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string answer;
  bool too_long = false;
  const auto sent = std::chrono::steady_clock::now();
  const std::size_t cap = handshake_ ? kMaxHandshakeLine : TesteePipe::kMaxLine;
  Trace("send", line);
  const bool answered = pipe_.WriteLine(line) && pipe_.ReadLine(&answer, &too_long, cap);
  if (answered) Trace("recv", answer);
  waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  if (!answered) {
    const std::string why = too_long ? "its answer ran past " + std::to_string(cap >> 20) +
                                           " MiB without a newline; the testee was stopped"
                                     : "";
    if (handshake_) {
      died_in_handshake_ = why.empty();
      return Error{ErrorKind::kInternal, why.empty() ? "no answer (" + pipe_.Reap(2.0) + ")" : why};
    }
    Died(op, id, why);
  }
  // nlohmann's parser, copies and dump recurse: a deep answer is refused before any of them.
  if (wire::NestingDepth(answer) > kMaxAnswerDepth) {
    return Fault(Where(op) + "the answer nests lists and objects deeper than " + std::to_string(kMaxAnswerDepth) +
                 " levels");
  }
  if (!pipe_.cut().invalid().empty()) {  // the error message's dropped bytes: no JSON string (wire::MessageCut)
    return Broken("testee protocol: the answer to '" + std::string(op) + "' (request " + std::to_string(id) +
                  ") is not JSON (" + pipe_.cut().invalid() + "): " + answer.substr(0, 200));
  }
  Json v;
  try {
    v = ok_scalars != nullptr ? wire::ParseAnswer(answer, ok_scalars) : Json::parse(answer);
  } catch (const Json::exception& e) {
    return Broken("testee protocol: the answer to '" + std::string(op) + "' (request " + std::to_string(id) +
                  ") is not JSON (" + e.what() + "): " + answer.substr(0, 200));
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
      return Error{kind, wire::BoundMessage(wire::GetString(e, "message"), &pipe_.cut())};  // cut as read
    }
    if (!v.contains("ok")) throw ProtocolError("ok", "\"ok\" or \"error\"", "neither");
    if (protocol_ >= 3 && v.contains("facts")) {  // version 3: only with a new tensor (PROTOCOL.md)
      if (facts == nullptr) throw ProtocolError("facts", "no facts (the answer is not a new tensor)", v["facts"].dump().substr(0, 200));
      *facts = std::move(v["facts"]);
    }
    return std::move(v["ok"]);
  } catch (const ProtocolError& e) {
    return Broken(Where(op) + e.what_for());
  }
}

Error TesteeSession::Broken(const std::string& message) {
  if (broken_.empty()) {
    broken_ = message;
    RequestFreshProcess(message);
  }
  return Fault(message);
}

Error TesteeSession::Fault(const std::string& message) {
  ++protocol_errors_;
  return Error{ErrorKind::kInternal, message};
}

// What the testee reports besides the answer: region bytes it changed, DLPack deleters its
// library ran, regions its objects no longer use.
void TesteeSession::Absorb(const Json& v) {
  if (v.contains("sync")) {
    for (const Json& s : wire::Get(v, "sync", Json::value_t::array)) {
      auto it = regions_.find(wire::GetInt(s, "id"));
      if (it == regions_.end()) continue;  // released meanwhile
      it->second.SyncIn(wire::Get(s, "bytes"), "sync.bytes");
    }
  }
  if (v.contains("deleted")) {
    for (const Json& d : wire::Get(v, "deleted", Json::value_t::array)) {
      auto it = regions_.find(wire::IntOf(d, "deleted"));
      if (it == regions_.end() || it->second.import == nullptr) continue;  // gone, or never the testee's
      if (!it->second.import_owned) {  // during the import's own call: forwarded once it succeeded
        it->second.deleted_early = true;
        continue;
      }
      DLManagedTensor* m = it->second.import;
      regions_.erase(it);  // at most once: a second "deleted" finds nothing
      ForwardDeleter(m);
    }
  }
  if (v.contains("released")) {
    for (const Json& d : wire::Get(v, "released", Json::value_t::array)) {
      auto it = regions_.find(wire::IntOf(d, "released"));
      if (it != regions_.end() && it->second.import == nullptr && it->second.owned.empty()) regions_.erase(it);
    }
  }
}

void TesteeSession::ForwardDeleter(DLManagedTensor* m) {
  if (m->deleter != nullptr) m->deleter(m);  // the library's one call, forwarded
}

TesteeSession::Pin TesteeSession::PinRegion(std::int64_t region) {
  return Pin(nullptr, [this, region](void*) { Unpin(region); });
}

// The last tensor that may use a lent region's bytes is gone here: the caller may free them.
void TesteeSession::Unpin(std::int64_t region) {
  if (!alive_) return;
  auto it = regions_.find(region);
  if (it != regions_.end() && it->second.owned.empty()) regions_.erase(it);
}

void TesteeSession::Died(const char* op, std::int64_t id, const std::string& why) {
  if (!why.empty()) {
    std::cerr << "tcts: the testee '" << command_ << "' broke the protocol on request " << id << " ('" << op
              << "'): " << why << "\n";
    std::cerr.flush();
    pipe_.Reap(0);  // killed now; its stderr's tail is written
    std::_Exit(kExitTesteeDied);  // the process group goes with us (the runner kills it)
  }
  // Its stdout ended, or it exited: a testee still running 2 s later (it closed its stdout)
  // is killed, so the case is a CRASH at once, not a TIMEOUT.
  std::string how = pipe_.Reap(2.0);
  std::cerr << "tcts: the testee '" << command_ << "' died while answering request " << id << " ('" << op
            << "'): " << how << "\n";
  std::cerr.flush();
  std::_Exit(kExitTesteeDied);
}

std::int64_t TesteeSession::Lend(std::byte* data, std::size_t size, Json* src) {
  const std::int64_t id = next_region_++;
  Region& r = regions_[id];
  r.Assign(data, size);
  (*src)["region"] = r.Offer(id, protocol_);
  return id;
}

std::int64_t TesteeSession::LendImport(DLManagedTensor* m, Json* src) {
  const DLTensor& dl = m->dl_tensor;
  std::vector<std::int64_t> shape, strides;
  if (dl.ndim > 0 && dl.shape != nullptr) shape.assign(dl.shape, dl.shape + dl.ndim);
  if (dl.strides != nullptr && dl.ndim > 0) strides.assign(dl.strides, dl.strides + dl.ndim);
  // Exactly the bytes the producer's DLTensor claims (DLPack's rules: bits x lanes per element).
  std::int64_t lo = 0, hi = 0;
  if (!wire::DLByteExtent(dl.dtype, shape, dl.strides == nullptr ? nullptr : &strides, dl.byte_offset, &lo, &hi)) {
    return -1;
  }
  // The region, relative to dl.data: the elements, and the bytes from dl.data itself on (a
  // library that ignores byte_offset reads there, in this process's memory as in the producer's).
  const std::int64_t first = std::min<std::int64_t>(0, lo);
  const std::int64_t end = std::max<std::int64_t>(0, hi);
  std::byte* base = static_cast<std::byte*>(dl.data);
  const std::int64_t id = Lend(base == nullptr ? nullptr : base + first, base == nullptr ? 0 : static_cast<std::size_t>(end - first), src);
  regions_[id].import = m;
  (*src)["kind"] = "dlpack";
  src->update(wire::ToJson(wire::Describe(dl, -first), protocol_));  // dl.data at -first in the region
  return id;
}

void TesteeSession::ImportAnswered(std::int64_t id, bool ok, bool consumed_on_error) {
  auto it = regions_.find(id);
  if (it == regions_.end()) return;
  if (!ok && !(consumed_on_error && it->second.deleted_early)) {
    // Still the caller's, who may free it at once: no deleter call is ever forwarded, and no
    // later sync reads its bytes.
    regions_.erase(it);
    return;
  }
  if (it->second.deleted_early) {  // the library took it and let go within the call (a copy)
    DLManagedTensor* m = it->second.import;
    regions_.erase(it);
    ForwardDeleter(m);
    return;
  }
  it->second.import_owned = true;  // the deleter is the testee's to call from now on
}

// A testee's DLPack export: mirrored in memory of ours, released when our consumer's
// deleter runs.
struct TesteeSession::Export {
  DLManagedTensor managed{};
  DLPackDescriptor descriptor;  // the shape and strides the DLTensor points into
  TesteeSession* owner = nullptr;
  std::int64_t region = -1;
};
void TesteeSession::ExportDeleter(DLManagedTensor* m) {
  auto* e = static_cast<Export*>(m->manager_ctx);
  if (e->owner != nullptr && e->owner->alive_) {
    e->owner->regions_.erase(e->region);
    e->owner->release_regions_.push_back(e->region);
  }
  delete e;
}

DLManagedTensor* TesteeSession::Borrow(const Json& v) {
  auto e = std::make_unique<Export>();
  e->owner = this;
  const Json& reg = wire::Get(v, "region", Json::value_t::object);
  e->region = wire::GetInt(reg, "id");
  if (e->region >= 0 || regions_.count(e->region) != 0) {
    throw ProtocolError("region.id", "a negative id no live region has", wire::Shown(reg["id"]));
  }
  const std::vector<std::byte> bytes = wire::Unbase64(wire::GetString(reg, "bytes"), "region.bytes");
  DLPackDescriptor& d = e->descriptor;
  wire::FromJson(v, "ok", &d);
  // Where dl.data points, relative to the region (before it when byte_offset skips bytes).
  if (d.data_offset < -(std::int64_t{1} << 62) || d.data_offset > static_cast<std::int64_t>(bytes.size())) {
    throw ProtocolError("data_offset", "an integer in [-2^62, " + std::to_string(bytes.size()) + "]", std::to_string(d.data_offset));
  }
  if (d.device.type < 0) throw ProtocolError("device.type", "a DLDeviceType (>= 0)", std::to_string(d.device.type));
  if (d.shape.size() > kMaxExportDims) throw ProtocolError("shape", "at most 1024 dimensions", std::to_string(d.shape.size()));
  if (d.strides && d.strides->size() != d.shape.size()) throw ProtocolError("strides", "one per dimension", wire::Shown(v["strides"]));
  const DLDataType dl_dtype{d.dtype.code, d.dtype.bits, d.dtype.lanes};
  // Host memory is read where the description says: every element inside the mirrored bytes.
  std::int64_t lo = 0, hi = 0;
  if (!wire::DLByteExtent(dl_dtype, d.shape, d.strides ? &*d.strides : nullptr, d.byte_offset, &lo, &hi)) {
    throw ProtocolError("shape, strides, byte_offset", "an extent within int64", wire::Shown(v["shape"]));
  }
  const std::int64_t device_type = d.device.type;
  const bool host = device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost ||
                    device_type == kDLCUDAManaged;
  std::int64_t first = 0, end = 0;
  if (host && hi > lo &&
      (__builtin_add_overflow(d.data_offset, lo, &first) || __builtin_add_overflow(d.data_offset, hi, &end) || first < 0 ||
       end > static_cast<std::int64_t>(bytes.size()))) {
    throw ProtocolError("data_offset, shape, strides, byte_offset", "elements inside the region's " +
                        std::to_string(bytes.size()) + " bytes", "bytes [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + ") from data_offset " + std::to_string(d.data_offset));
  }
  Region& r = regions_[e->region];
  r.owned = bytes;
  r.Assign(r.owned.data(), r.owned.size());
  d.null_data = false;  // an export's data is where data_offset says, over this side's mirror
  e->managed.dl_tensor = wire::DLTensorOver(r.data, d);
  e->managed.manager_ctx = e.get();
  e->managed.deleter = &ExportDeleter;
  return &e.release()->managed;
}

// An address the testee reported: a raw integer, or a place in a region ({"region", "offset"}),
// which is the same place in this side's copy.
std::uintptr_t TesteeSession::Address(const Json& a, const char* field) {
  if (a.is_object()) {
    const std::int64_t id = wire::GetInt(a, "region");
    auto it = regions_.find(id);
    if (it == regions_.end()) throw ProtocolError(std::string(field) + ".region", "a live region", wire::Shown(a));
    const std::int64_t offset = wire::GetIntIn(a, "offset", 0, static_cast<std::int64_t>(it->second.size));
    return reinterpret_cast<std::uintptr_t>(it->second.data) + static_cast<std::uintptr_t>(offset);
  }
  return static_cast<std::uintptr_t>(wire::IntOf(a, field));
}

// A box's handle went away: the testee may free it (sent with the next request).
// While this side lends memory (a DLPack import waiting for its deleter, an asarray array or
// buffer), releases go at once: when the last tensor using it goes, the library's deleter
// call must be seen before the next check, and the caller may free the memory right away,
// which the next request's sync must no longer read.
void TesteeSession::Released(std::int64_t handle) {
  facts_.erase(handle);  // the testee may give its number to a new tensor
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

}  // namespace tcts
