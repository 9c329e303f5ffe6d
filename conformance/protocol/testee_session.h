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
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/candidate/candidate.h"
#include "conformance/protocol/testee_pipe.h"

namespace tcts {

// The protocol version this client speaks (PROTOCOL.md "Versions").
constexpr int kProtocolVersion = 1;

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

class TesteeSession {
 public:
  using Json = nlohmann::json;

  explicit TesteeSession(std::string command) : command_(std::move(command)) {}
  TesteeSession(const TesteeSession&) = delete;
  TesteeSession& operator=(const TesteeSession&) = delete;
  ~TesteeSession();  // ends the testee; logs the requests made and the time spent waiting

  // Starts the command in `cwd` and shakes hands; false with *error saying why.
  bool Start(const std::string& cwd, std::string* error);
  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& build() const { return build_; }
  bool supports(Feature feature) const { return supported_.count(feature) > 0; }
  // The hello answer's "dtypes" (every dtype when it has none).
  bool supports_dtype(DType dtype) const { return !dtypes_declared_ || dtypes_.count(dtype) > 0; }

  // One request and its answer: {"ok": value} or an Error (the testee's, or a protocol error
  // naming the request and the field). A testee that dies or floods ends this process.
  // After a protocol error the testee is out of step (a stray line puts every later answer
  // one behind): no further request is sent, each call answers an error saying so, and the
  // suite process ends after the running case (fresh_process.h), so that a fresh testee
  // takes the next case.
  Result<Json> Call(const char* op, Json args);
  // A protocol error in an answer (`message` names the request and the field): the testee is
  // out of step from now on, as above. Returns the error for the call to answer.
  Error Broken(const std::string& message);
  // "testee protocol: the answer to 'op' (request N): ", for errors in decoding an answer.
  std::string Where(const std::string& op) const;

  // Lends `size` bytes at `data` as a new region; writes {"region": {id, bytes}} into src.
  std::int64_t Lend(std::byte* data, std::size_t size, Json* src);
  // Lends a DLPack producer's tensor (its elements, and dl.data on) and describes it in src;
  // ImportAnswered then records whether the testee's library took it (its deleter is then
  // forwarded when the library calls it) or not (never forwarded: still the caller's).
  std::int64_t LendImport(DLManagedTensor* m, Json* src);
  void ImportAnswered(std::int64_t region, bool ok);
  // A testee's DLPack export (an answer's "ok"), mirrored in memory of this side.
  DLManagedTensor* Borrow(const Json& v);
  // An address the testee reported: a raw integer, or a place in a region.
  std::uintptr_t Address(const Json& a, const char* field);
  // A handle this side no longer uses: the testee may free it.
  void Released(std::int64_t handle);

 private:
  struct Export;
  static void ExportDeleter(DLManagedTensor* m);
  static const std::vector<Feature>& AllFeaturesList();
  void Absorb(const Json& v);
  [[noreturn]] void Died(const char* op, std::int64_t id, const std::string& why = "");
  void Trace(const char* direction, const std::string& line);

  std::string command_;
  std::FILE* trace_ = nullptr;  // --trace: TCTS_TRACE_DIR's file of this session
  TesteePipe pipe_;
  std::string name_, version_, build_;
  std::set<Feature> supported_;
  bool dtypes_declared_ = false;
  std::set<DType> dtypes_;
  std::int64_t next_id_ = 1;
  std::int64_t next_region_ = 1;
  std::map<std::int64_t, Region> regions_;
  std::vector<std::int64_t> releases_, release_regions_, pending_drop_;
  bool alive_ = true;
  bool in_call_ = false;
  std::string broken_;  // the first protocol error; "" while the testee is in step
  double waited_s_ = 0;
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_TESTEE_SESSION_H_
