// One conversation with a testee program (conformance/protocol/PROTOCOL.md): the handshake,
// each request and its answer, the host memory mirrored both ways as regions, DLPack deleter
// calls forwarded one for one, and handles released. The process candidate
// (process_candidate.cc) turns each Candidate method into a request through it.
#ifndef TCTS_CONFORMANCE_PROTOCOL_TESTEE_SESSION_H_
#define TCTS_CONFORMANCE_PROTOCOL_TESTEE_SESSION_H_

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/candidate/candidate.h"
#include "conformance/protocol/testee_pipe.h"
#include "conformance/protocol/wire.h"

namespace tcts {

// The protocol versions this client speaks (PROTOCOL.md "Versions"; spec/interface.toml).
constexpr int kProtocolVersions[] = {
#define TCTS_PROTOCOL_VERSION_ITEM(v) v,
    TCTS_FORALL_PROTOCOL_VERSIONS(TCTS_PROTOCOL_VERSION_ITEM)
#undef TCTS_PROTOCOL_VERSION_ITEM
};

// Host memory the suite lends (an array, a buffer, a DLPack producer's bytes) or borrows (a
// testee's DLPack export) is mirrored across the pipe: the testee holds a real object over
// its copy, and each side's writes reach the other before the next call is answered
// (PROTOCOL.md "Regions").
// A lent region's bytes are the caller's: this side reads and writes them only while a tensor
// that may use them lives here (the answer to the call that lent them, and views of it: each
// holds a Pin). When the last goes the region is dropped, whatever the testee says, since the
// caller may free the memory at once; a testee's later sync, "released" or "deleted" for it is
// ignored.
struct Region : wire::Mirror {  // this side's memory, and the bytes both sides last agreed on
  DLManagedTensor* import = nullptr;  // from_dlpack: the producer, whose deleter the testee's call forwards
  bool import_owned = false;          // the import succeeded: the deleter is the testee's to call
  bool deleted_early = false;         // "deleted" came before the import's answer: forwarded if it succeeded
  std::vector<std::byte> owned;       // an export's mirror (this side owns the memory)
};

class TesteeSession {
 public:
  using Json = nlohmann::json;

  // Keeps a lent region's bytes in use (see Region); the region goes with the last copy.
  using Pin = std::shared_ptr<void>;

  // With a `trace_dir`, every line both ways is written to a file of this session there (--trace).
  // The testee is argv (its program and arguments, no shell between).
  TesteeSession(std::vector<std::string> argv, std::string trace_dir = "")
      : argv_(std::move(argv)), command_(TesteePipe::Shown(argv_)), trace_dir_(std::move(trace_dir)) {}
  TesteeSession(const TesteeSession&) = delete;
  TesteeSession& operator=(const TesteeSession&) = delete;
  ~TesteeSession();  // ends the testee; logs the requests made and the time spent waiting

  // Starts the testee in `cwd` and shakes hands, asking for its tensors on `device` ("" for
  // its default); false with *error saying why (died_in_handshake() says whether it died).
  bool Start(const std::string& cwd, const std::string& device, std::string* error);
  bool died_in_handshake() const { return died_in_handshake_; }
  // What the hello answer said of where the testee's tensors are (Candidate::placement).
  const Candidate::Placement& placement() const { return placement_; }
  const std::string& name() const { return name_; }
  // The version the testee chose in the handshake (values are encoded for it).
  int protocol() const { return protocol_; }
  const std::string& version() const { return version_; }
  const std::string& build() const { return build_; }
  bool supports(Feature feature) const { return supported_.count(feature) > 0; }
  // The hello answer's "ops" (without it, every op of a declared feature).
  bool supports_op(std::string_view op) const;
  // The hello answer's "dtypes" (every dtype when it has none).
  bool supports_dtype(DType dtype) const { return !dtypes_declared_ || dtypes_.count(dtype) > 0; }

  // One request and its answer: {"ok": value} or an Error (the testee's, or a protocol error
  // naming the request and the field). A testee that dies or floods ends this process.
  // After a protocol error the testee is out of step (a stray line puts every later answer
  // one behind): no further request is sent, each call answers an error saying so, and the
  // suite process ends after the running case (fresh_process.h), so that a fresh testee
  // takes the next case.
  // With `ok_scalars`, an "ok" that is a list is decoded into it while the answer is parsed
  // (wire::ParseAnswer: no JSON tree of its elements) and answers null here.
  // With `facts` (a call whose answer is a new tensor), version 3's "facts" of the answer are
  // moved there (null when it has none); without it, an answer with "facts" is a protocol error.
  Result<Json> Call(const char* op, Json args, wire::OkScalars* ok_scalars = nullptr, Json* facts = nullptr);

  // Version 3's facts (PROTOCOL.md "Version 3"): the answers to the `fact` ops of
  // spec/interface.toml for a tensor, sent with the answer that made it and decoded before they
  // are kept. A fact is answered for its handle with no round trip until the handle is released
  // or ForgetFacts (an op asked for its effect, which may change any tensor's metadata).
  void KeepFacts(std::int64_t handle, Json facts) { facts_[handle] = std::move(facts); }
  // The kept answer of `op` for `handle`, or null.
  const Json* Fact(std::int64_t handle, const char* op) const;
  // A request answered from a fact: it takes the next id and is traced as asked and answered
  // (marked "served": "fact"), so that a trace replays every request the suite made.
  void Served(const char* op, Json args, const Json& fact);
  void ForgetFacts() { facts_.clear(); }
  // A protocol error in an answer (`message` names the request and the field): the testee is
  // out of step from now on, as above. Returns the error for the call to answer.
  Error Broken(const std::string& message);
  // A protocol error that leaves the testee in step (an answer nested too deeply, a fact that
  // contradicts the answer), or a call refused because of an earlier one: counted, returned.
  Error Fault(const std::string& message);
  // The protocol errors so far (Broken and Fault): Candidate::protocol_errors.
  std::int64_t protocol_errors() const { return protocol_errors_; }
  // "testee protocol: the answer to 'op' (request N): ", for errors in decoding an answer.
  std::string Where(const std::string& op) const;

  // Lends `size` bytes at `data` as a new region; writes {"region": {id, bytes}} into src.
  std::int64_t Lend(std::byte* data, std::size_t size, Json* src);
  Pin PinRegion(std::int64_t region);
  // Lends a DLPack producer's tensor (its elements, and dl.data on) and describes it in src;
  // ImportAnswered then records whether the testee's library took it (its deleter is then
  // forwarded when the library calls it) or not (never forwarded: still the caller's). -1
  // when the tensor's extent does not fit in int64 (nothing lent). With consumed_on_error (an
  // asarray: torch.asarray consumes the capsule before it can fail), a deleter call the failed
  // answer lists is forwarded, once.
  std::int64_t LendImport(DLManagedTensor* m, Json* src);
  void ImportAnswered(std::int64_t region, bool ok, bool consumed_on_error = false);
  // A testee's DLPack export (an answer's "ok"), mirrored in memory of this side; a
  // ProtocolError unless its elements lie inside the mirrored bytes (a host device's).
  DLManagedTensor* Borrow(const Json& v);
  // An address the testee reported: a raw integer, or a place in a region.
  std::uintptr_t Address(const Json& a, const char* field);
  // A handle this side no longer uses: the testee may free it.
  void Released(std::int64_t handle);

 private:
  struct Export;
  static void ExportDeleter(DLManagedTensor* m);
  void Absorb(const Json& v);
  void Unpin(std::int64_t region);
  static void ForwardDeleter(DLManagedTensor* m);
  [[noreturn]] void Died(const char* op, std::int64_t id, const std::string& why = "");
  void Trace(const char* direction, const std::string& line, bool served = false);

  std::vector<std::string> argv_;
  std::string command_;  // argv_ as messages show it
  std::string trace_dir_;        // --trace: the runner's folder of raw traces
  std::FILE* trace_ = nullptr;  // this session's file there
  TesteePipe pipe_;
  std::string name_, version_, build_;
  int protocol_ = TCTS_PROTOCOL_MAX_VERSION;  // the version the testee answered in hello
  std::set<Feature> supported_;
  bool ops_declared_ = false;
  std::set<std::string, std::less<>> ops_;
  Candidate::Placement placement_;
  bool died_in_handshake_ = false;
  bool dtypes_declared_ = false;
  std::set<DType> dtypes_;
  std::int64_t next_id_ = 1;
  std::int64_t next_region_ = 1;
  std::map<std::int64_t, Region> regions_;
  std::vector<std::int64_t> releases_, release_regions_;
  bool alive_ = true;
  bool in_call_ = false;
  bool handshake_ = false;  // Start's hello: a broken answer is an error, not the end of the process
  std::string broken_;  // the first protocol error; "" while the testee is in step
  double waited_s_ = 0;
  std::map<std::int64_t, Json> facts_;  // handle -> {op: its answer} (version 3)
  std::int64_t served_ = 0;             // requests answered from facts
  std::int64_t protocol_errors_ = 0;    // Broken and Fault
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_TESTEE_SESSION_H_
