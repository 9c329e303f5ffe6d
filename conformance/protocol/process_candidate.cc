#include "conformance/protocol/process_candidate.h"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/harness/exit_codes.h"
#include "conformance/protocol/testee_session.h"
#include "conformance/protocol/wire.h"
#include "gtest/gtest.h"

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
  ProcessCandidate(std::vector<std::string> argv, std::string trace_dir, std::uint64_t seed)
      : session_(std::move(argv), std::move(trace_dir)), seed_(seed) {}

  bool Start(const std::string& cwd, const std::string& device, std::string* error) {
    return session_.Start(cwd, device, error);
  }
  bool died_in_handshake() const { return session_.died_in_handshake(); }
  Placement placement() const override { return session_.placement(); }
  FactCounts fact_counts() const override { return facts_; }
  std::int64_t protocol_errors() const override { return session_.protocol_errors(); }

  std::string name() const override { return session_.name(); }
  std::string version() const override { return session_.version(); }
  std::string build() const override { return session_.build(); }
  bool supports(Feature feature) const override { return session_.supports(feature); }
  bool supports_op(std::string_view op) const override { return session_.supports_op(op); }
  bool supports_dtype(DType dtype) const override { return session_.supports_dtype(dtype); }

  // Every op that is not `custom` in spec/interface.toml: encode the arguments, ask, decode the answer.
#include "spec/interface_suite.inc"

  // -- the custom ops: they move host memory (regions) or name it (addresses).
  Result<std::uintptr_t> data_ptr(const TensorHandle& t) override {
    Json args;
    if (!Tensor(t, "t", &args)) return Foreign();
    return Ask<std::uintptr_t>("data_ptr", args, [this](const Json& v) { return session_.Address(v, "ok"); });
  }

  // -- asarray
  Result<TensorHandle> asarray(const AsarraySource& source, const AsarrayOptions& options) override {
    Json src = {{"kind", AsarraySourceKindName(source.kind)}};
    Json args = {{"dtype", wire::ToJson(options.dtype, protocol())},
                 {"device", wire::ToJson(options.device, protocol())},
                 {"copy", wire::ToJson(options.copy, protocol())},
                 {"requires_grad", wire::ToJson(options.requires_grad, protocol())}};
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
        src["offset"] = wire::IntJson(-lo, protocol());  // the first element, in the region
        src["dtype"] = DTypeName(a.dtype);
        src["shape"] = wire::ToJson(a.sizes, protocol());
        src["byte_strides"] = wire::ToJson(a.byte_strides, protocol());
        break;
      }
      case AsarraySource::Kind::kBuffer:
        region = session_.Lend(source.buffer, source.buffer_bytes, &src);
        break;
      case AsarraySource::Kind::kDLPack:
        return from_dlpack_impl(source.dlpack, "asarray", &src, args);
      case AsarraySource::Kind::kSequence:
        src["value"] = wire::PyValueJson(source.value, protocol());
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
  int protocol() const { return session_.protocol(); }

  Error Foreign() {
    pins_.clear();
    return Error{ErrorKind::kInternal, "a tensor handle of another candidate"};
  }
  bool Tensor(const TensorHandle& t, const char* key, Json* args) {
    auto* box = dynamic_cast<const ProcessBox*>(t.get());
    if (box == nullptr || box->session() != &session_) return false;
    (*args)[key] = wire::IntJson(box->handle(), protocol());
    pins_.insert(pins_.end(), box->pins().begin(), box->pins().end());
    return true;
  }
  bool OperandJson(const Operand& o, const char* key, Json* args) {
    if (const Scalar* s = std::get_if<Scalar>(&o)) {
      (*args)[key] = {{"scalar", wire::ScalarJson(*s, protocol())}};
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
  // A list of scalars (values, storage_values): decoded while the answer is read, its elements
  // never a JSON tree (an answer costs memory in proportion to its scalars).
  Result<std::vector<Scalar>> AskScalars(const char* op, Json args) {
    pins_.clear();
    wire::OkScalars ok;
    Result<Json> r = session_.Call(op, std::move(args), &ok);
    if (!r.ok()) return r.error();
    try {
      if (!ok.decoded) return wire::ScalarsOf(r.value(), "ok");  // not a list: ScalarsOf says so
      if (ok.error) throw *ok.error;
      return std::move(ok.values);
    } catch (const ProtocolError& e) {
      return session_.Broken(session_.Where(op) + e.what_for());
    }
  }
  // An op asked for its effect (its result is "none": a write, an in-place or out= op, which
  // may resize) may change any tensor's metadata: every fact is forgotten first (version 3).
  Status AskStatus(const char* op, Json args) {
    pins_.clear();
    session_.ForgetFacts();
    Result<Json> r = session_.Call(op, std::move(args));
    if (!r.ok()) return r.error();
    return Status();
  }
  // A tensor answer; one that may alias its inputs' memory (a view, asarray, an import)
  // keeps the lent regions they pin.
  // Version 3: the answer's facts about the new tensor are decoded (a malformed one FAILs this
  // call, as a malformed answer does) and kept for its handle.
  Result<TensorHandle> AskTensor(const char* op, Json args, bool may_alias = false) {
    std::vector<TesteeSession::Pin> pins = std::exchange(pins_, {});
    if (!may_alias) pins.clear();
    Json facts;
    Result<Json> r = session_.Call(op, std::move(args), nullptr, &facts);
    if (!r.ok()) return r.error();
    try {
      const std::int64_t handle = wire::IntOf(r.value(), "ok");
      if (!facts.is_null()) {
        if (!facts.is_object()) throw ProtocolError("facts", "an object of answers by op", facts.dump().substr(0, 200));
        for (const auto& [fact_op, v] : facts.items()) {
          const std::string field = "facts." + fact_op.substr(0, 200);
          bool known = false;
          try {
            known = DecodeFact(fact_op, v, "ok");
          } catch (const ProtocolError& e) {  // named as the fact it is in
            return session_.Broken(session_.Where(op) + field + ": " + e.what_for());
          }
          if (!known) throw ProtocolError(field, "an op of spec/interface.toml with fact = true", "'" + fact_op.substr(0, 200) + "'");
        }
      }
      TensorHandle t(std::make_shared<ProcessBox>(&session_, handle, pins));
      if (!facts.is_null()) session_.KeepFacts(handle, std::move(facts));
      return t;
    } catch (const ProtocolError& e) {
      return session_.Broken(session_.Where(op) + e.what_for());
    }
  }
  // A fact op (spec/interface.toml `fact`): answered from the fact kept for t when there is one
  // (traced as a request and its answer), asked otherwise.
  template <class T, class F>
  Result<T> AskFact(const char* op, const TensorHandle& t, Json args, F decode) {
    auto* box = static_cast<const ProcessBox*>(t.get());  // Tensor() has checked it is ours
    if (const Json* fact = session_.Fact(box->handle(), op)) {
      ++facts_.used;
      pins_.clear();
      if (CheckThisFact()) {  // asked anyway, and compared (PROTOCOL.md "Version 3")
        ++facts_.checked;
        const Json kept = *fact;  // the call may release handles, and their facts
        const std::int64_t errors_before = session_.protocol_errors();
        Result<Json> r = session_.Call(op, args);
        if (r.ok() && r.value() == kept) return T(decode(kept));
        // A protocol error (the testee out of step, a malformed answer) is said as it is, counted
        // once; any other answer (a testee's own Internal error too) contradicts the fact.
        if (!r.ok() && session_.protocol_errors() > errors_before) return r.error();
        return session_.Fault(session_.Where(op) + "the fact sent with tensor " + std::to_string(box->handle()) + " (" +
                              kept.dump().substr(0, 300) + ") contradicts the answer to the request itself (" +
                              (r.ok() ? r.value().dump() : ErrorKindName(r.error().kind) + (": " + r.error().message))
                                  .substr(0, 300) +
                              ")");
      }
      session_.Served(op, std::move(args), *fact);
      try {
        // Checked when it was kept (DecodeFact), decoded here at each use: so this cannot fail
        // for a kept fact, but the decoding's error path stays the protocol's.
        return T(decode(*fact));
      } catch (const ProtocolError& e) {
        return session_.Broken(session_.Where(op) + e.what_for());
      }
    }
    return Ask<T>(op, std::move(args), decode);
  }
  // Whether this use of a fact is checked: one in 8 (what the check costs is an eighth of what
  // facts save), drawn from the run's seed and the case (its GoogleTest name), afresh for each
  // case, so that a case checks the same facts whatever ran before it in its process (a rerun of
  // the case alone, --jobs, a fresh process).
  bool CheckThisFact() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
    if (drawing_for_ != test) {
      draw_.seed(wire::Fnv1a64(test) ^ seed_);  // the case's name, mixed with the seed
      drawing_for_ = test;
    }
    return draw_() % kCheckOneFactIn == 0;
  }
  static constexpr std::uint64_t kCheckOneFactIn = 8;
  TesteeSession session_;
  std::vector<TesteeSession::Pin> pins_;  // the lent regions the call being made uses (Tensor)
  std::uint64_t seed_;                    // the run's
  std::mt19937_64 draw_;                  // which facts are checked (CheckThisFact)
  std::optional<std::string> drawing_for_;  // the case draw_ was seeded for (none yet)
  FactCounts facts_;
};

// testee_argv's value: a JSON array of strings; false with *error. (An empty program is
// TesteePipe::Start's to refuse.)
bool ParseArgv(const std::string& value, std::vector<std::string>* argv, std::string* error) {
  const Json j = Json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) {
    *error = "is not a JSON array of strings (the program, then its arguments)";
    return false;
  }
  for (const Json& word : j) {
    if (!word.is_string()) {
      *error = "holds " + wire::Shown(word) + ", not a string";
      return false;
    }
    argv->push_back(word.get<std::string>());
  }
  return true;
}

// The candidate options the runner passes (--candidate_option=KEY=VALUE): testee_argv (the
// program and its arguments), testee_cwd (where it runs) and trace_dir (--trace: where the
// session writes its raw trace).
std::unique_ptr<Candidate> MakeTestee(const CandidateConfig& config) {
  const std::string value = config.Take("testee_argv");
  std::vector<std::string> argv;
  std::string error;
  if (value.empty()) {
    std::cerr << "tcts: the candidate 'testee' runs the program given by --candidate_option=testee_argv='[\"PROGRAM\", "
                 "\"ARG\", ...]', which is not given (bazel run //conformance:run -- --testee='CMD ARGS' passes it)\n";
    std::exit(kExitUsage);
  }
  if (!ParseArgv(value, &argv, &error)) {
    std::cerr << "tcts: --candidate_option=testee_argv=" << value << " " << error << "\n";
    std::exit(kExitUsage);
  }
  std::unique_ptr<Candidate> c =
      StartTestee(argv, config.Take("testee_cwd"), &error, config.Take("trace_dir"), config.device(), config.seed());
  if (!c) {
    std::cerr << "tcts: the testee '" << TesteePipe::Shown(argv) << "' did not start: " << error << "\n";
    std::exit(kExitUsage);
  }
  return c;
}

TCTS_REGISTER_CANDIDATE("testee", MakeTestee);

}  // namespace

std::unique_ptr<Candidate> StartTestee(const std::vector<std::string>& argv, const std::string& cwd, std::string* error,
                                       const std::string& trace_dir, const std::string& device, std::uint64_t seed) {
  // A testee that dies in its handshake is tried once more in a fresh process (a flaky one
  // costs no case for it); a second death, or an answer it refused, ends the run (exit 2).
  for (int attempt = 1;; ++attempt) {
    auto c = std::make_unique<ProcessCandidate>(argv, trace_dir, seed);
    if (c->Start(cwd, device, error)) return c;
    if (!c->died_in_handshake() || attempt == 2) {
      if (attempt == 2 && c->died_in_handshake()) *error += " (a second process died there too)";
      return nullptr;
    }
    std::cerr << "tcts: the testee died in its handshake (" << *error << "); trying a fresh process once\n";
  }
}

}  // namespace tcts
