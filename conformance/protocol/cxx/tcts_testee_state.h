// Internal to the C++ testee kit (tcts_testee.h): the server's state, TesteeServer::State, shared
// by the kit's files. Here: what the state holds (the handle table, the regions of host memory
// mirrored with the suite, the DLPack imports) and its members' declarations, with the request
// fields' helpers. The members are defined in tcts_testee.cc (the request loop: one request
// decoded, answered and its extras added; the servers over file descriptors and streams),
// tcts_testee_regions.cc (host memory: lent blocks, DLPack imports and exports, addresses) and
// tcts_testee_ops.cc (arguments, answers and the per-operation handlers, by request name).
#ifndef TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_STATE_H_
#define TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_STATE_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "conformance/protocol/cxx/tcts_testee.h"
#include "conformance/protocol/wire.h"

namespace tcts {

using Json = wire::Json;
using wire::ProtocolError;
using wire::Shown;

// ---------------------------------------------------------------- the server's state
class TesteeServer::State {
 public:
  explicit State(Candidate& c);
  ~State();

  std::string Answer(std::string_view line);

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
  struct Region : wire::Mirror {  // this side's memory, and the bytes both sides last agreed on
    std::int64_t id = 0;
    DLManagedTensor* export_tensor = nullptr;  // an export, not yet consumed: its deleter runs on release
    Keeps keeps;  // what the exported tensor may use
  };

  // A DLPack tensor the suite lent: a real DLManagedTensor over a block, whose deleter tells the suite.
  struct Imported {
    DLManagedTensor managed{};
    DLPackDescriptor descriptor;  // the shape and strides the DLTensor points into
    std::shared_ptr<Block> block;
    State* server = nullptr;
  };

  struct Entry {
    TensorHandle tensor;
    Keeps keeps;  // lent memory the tensor may use
  };

  using Handler = Result<Json> (*)(State&, const Json&);

  // ---- request fields
  // `key` of `v`, or `fallback` when absent (the Python kit's req.get(key, fallback)).
  static const Json& Opt(const Json& v, const char* key, const Json& fallback) {
    auto it = v.find(key);
    return it == v.end() ? fallback : *it;
  }

  static inline const Json kNull = nullptr;
  static inline const Json kZero = 0;
  static inline const Json kFalse = false;
  static inline const Json kEmptyObject = Json::object();

  // v[key] as a list of integers; none when absent.
  static std::vector<std::int64_t> IntsOr(const Json& v, const char* key) {
    return v.contains(key) ? wire::Ints(v, key) : std::vector<std::int64_t>{};
  }

  static Error Internal(std::string message) { return Error{ErrorKind::kInternal, std::move(message)}; }

  // ---- one request (tcts_testee.cc)
  Result<Json> Handle(const Json& req);
  void Extras(Json* answer);
  Result<Json> Hello(const Json& req);

  // ---- arguments (tcts_testee_ops.cc; the others: wire::Arg)
  const TensorHandle& Tensor(const Json& req, const char* key);
  Operand OperandOf(const Json& req, const char* key);

  // ---- answers (tcts_testee_ops.cc)
  Result<Json> NewTensor(const Result<TensorHandle>& r);
  // Version 3: the answers of the interface's fact ops for tensor `h` (PROTOCOL.md "Version 3").
  Json Facts(std::int64_t h);
  static Result<Json> Done(const Status& s);
  // A value, encoded for the protocol version the suite chose.
  template <class T>
  Result<Json> Encode(const Result<T>& r) const {
    if (!r.ok()) return r.error();
    return wire::ToJson(r.value(), protocol_);
  }

  // ---- host memory (tcts_testee_regions.cc)
  Region* Find(std::int64_t id);
  void Forget(std::int64_t id, const std::byte* data);
  void ReleaseRegion(std::int64_t id);
  std::shared_ptr<Block> Lend(const Json& src);
  static void ImportDeleter(DLManagedTensor* m);
  std::int64_t ImportDLPack(const Json& src);
  Json Export(DLManagedTensor* m);
  Json Address(std::uintptr_t a) const;

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

  // ---- the operations (candidate.h), by request name (tcts_testee_ops.cc): the table is
  // generated from spec/interface.toml (spec/interface_kit.inc); the custom ops' handlers:
  static const std::unordered_map<std::string, Handler>& Ops();
  Result<Json> OnDataPtr(const Json& q);
  Result<Json> OnAsarray(const Json& q);
  Result<Json> OnToDlpack(const Json& q);
  Result<Json> OnFromDlpack(const Json& q);

  Candidate& c_;
  int protocol_ = TCTS_PROTOCOL_MAX_VERSION;  // the version this kit answered in hello
  Json facts_;        // version 3: the facts of the tensor this request made (null: none)
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

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_STATE_H_
