// The C++ testee kit's request loop (tcts_testee.h): TesteeServer::State's construction and
// teardown, one request decoded (its release, release_regions and sync fields, then its op, by
// name, to a handler of tcts_testee_ops.cc) and answered with its extras (bytes this side changed,
// DLPack deleters run, regions released), the handshake; and the servers that feed it request
// lines from a file descriptor, a C++ stream or stdin. The state itself is declared in
// tcts_testee_state.h.
#include "conformance/protocol/cxx/tcts_testee.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <istream>
#include <ostream>
#include <utility>
#include <vector>

#include "conformance/protocol/cxx/tcts_testee_state.h"
#include "conformance/protocol/wire.h"

namespace tcts {

namespace {

// v[key], a list, or an empty one when absent.
const Json& ListOr(const Json& v, const char* key) {
  static const Json empty = Json::array();
  return v.contains(key) ? wire::Get(v, key, Json::value_t::array) : empty;
}

}  // namespace

// ---------------------------------------------------------------- the server's state
TesteeServer::State::State(Candidate& c) : c_(c) {
  for (Feature f : AllFeatures()) {
    if (c_.supports(f)) features_.push_back(FeatureName(f));
  }
}

TesteeServer::State::~State() {
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

std::string TesteeServer::State::Answer(std::string_view line) {
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
    facts_ = Json();
    Result<Json> r = Handle(req);
    if (r.ok()) {
      answer["ok"] = std::move(r.value());
      if (!facts_.is_null()) answer["facts"] = std::exchange(facts_, Json());
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

// ---- one request
Result<Json> TesteeServer::State::Handle(const Json& req) {
  graveyard_.clear();  // DLPack imports whose deleter ran during an earlier call
  for (const Json& h : ListOr(req, "release")) handles_.erase(wire::IntOf(h, "release"));
  for (const Json& id : ListOr(req, "release_regions")) ReleaseRegion(wire::IntOf(id, "release_regions"));
  for (const Json& s : ListOr(req, "sync")) {
    Region* r = Find(wire::GetInt(s, "id"));
    if (r == nullptr) continue;  // released meanwhile
    r->SyncIn(wire::Get(s, "bytes"), "sync.bytes");
  }
  const Json& op = wire::Get(req, "op");
  if (op.is_string()) {
    const std::string& name = op.get_ref<const std::string&>();
    if (name == "release") return Json(nullptr);  // nothing but the release fields above
    if (name == "hello") return Hello(req);
    const auto& ops = Ops();
    auto it = ops.find(name);
    if (it != ops.end()) return it->second(*this, req);
  }
  return NotSupported("unknown request " + Shown(op));
}

// What the answer carries besides the value: bytes this side changed, DLPack deleters the
// library ran, lent regions no object uses any more.
void TesteeServer::State::Extras(Json* answer) {
  Json sync = Json::array();
  for (Region& r : regions_) {
    if (Json s = r.SyncOut(r.id, protocol_); !s.is_null()) sync.push_back(std::move(s));
  }
  if (!sync.empty()) (*answer)["sync"] = std::move(sync);
  if (!deleted_.empty()) (*answer)["deleted"] = std::exchange(deleted_, {});
  if (!released_.empty()) (*answer)["released"] = std::exchange(released_, {});
}

Result<Json> TesteeServer::State::Hello(const Json& req) {
  const Json& known = Opt(req, "features", kNull);  // absent: the suite knows them all
  if (!known.is_null()) {
    if (!known.is_array()) throw ProtocolError("features", "a list of feature names", Shown(known));
    std::vector<std::string> unknown;
    for (const std::string& f : features_) {
      if (std::find(known.begin(), known.end(), Json(f)) == known.end()) unknown.push_back(f);
    }
    if (!unknown.empty()) throw ProtocolError("features", "every feature this testee declares", Json(unknown).dump() + " missing");
  }
  // The highest version both speak, of those the suite lists; where it lists none this kit speaks,
  // the kit's newest, for the suite to refuse by name (a suite of version 1 only: retired).
  int chosen = 0;
  const Json& offered = Opt(req, "protocols", kNull);
  if (!offered.is_null()) {
    if (!offered.is_array()) throw ProtocolError("protocols", "a list of protocol versions", Shown(offered));
    for (const Json& v : offered) {
      if (!v.is_number_integer()) continue;
      const std::int64_t version = v.get<std::int64_t>();
#define TCTS_KIT_SPEAKS(s) || version == (s)
      if (false TCTS_FORALL_PROTOCOL_VERSIONS(TCTS_KIT_SPEAKS)) chosen = std::max(chosen, static_cast<int>(version));
#undef TCTS_KIT_SPEAKS
    }
  }
  protocol_ = chosen != 0 ? chosen : TCTS_PROTOCOL_MAX_VERSION;
  // The ops one by one (PROTOCOL.md "Ops one by one"): the candidate's supports_op.
  Json ops = Json::array();
  for (std::string_view op : AllOps()) {
    if (c_.supports_op(op)) ops.push_back(std::string(op));
  }
  std::sort(ops.begin(), ops.end());
  Json answer = {{"name", c_.name()}, {"version", c_.version()}, {"build", c_.build()},
                 {"protocol", protocol_}, {"features", features_}, {"ops", ops}};
  // The dtypes the library has, when it lacks any (candidate.h supports_dtype).
  std::vector<std::string> dtypes;
  for (DType d : AllDTypes()) {
    if (c_.supports_dtype(d)) dtypes.push_back(DTypeName(d));
  }
  if (dtypes.size() != AllDTypes().size()) answer["dtypes"] = dtypes;
  return answer;
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
