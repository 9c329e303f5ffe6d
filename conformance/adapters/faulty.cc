// Test-only candidate "faulty": the reference, with faults injected on chosen cases, to
// prove that the runner (conformance/run.py) isolates a candidate that crashes or hangs.
//
// TCTS_FAULTS (environment) lists MODE=GLOB pairs separated by ';', e.g.
//   TCTS_FAULTS='abort=promote_types.int8.uint8;hang=can_cast.*.bool'
// Whenever a case whose id matches GLOB calls the candidate, the call does MODE:
//   abort  std::abort() (SIGABRT)          segv  raise(SIGSEGV)
//   exit   _exit(0): a silent early exit   hang  sleeps forever
//   wrong  promote_types answers its first operand (a wrong answer, not a crash)
// Case ids are the runner's (tcts::CaseId: the row id, or the property's id).
//
// TCTS_FAULTY_SUPPORTS=none makes it a candidate that declares every feature unsupported and
// answers NotSupported to every call (honestly: the declaration matches), for the runner's
// verdict test: such a candidate must not CONFORM.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/harness/harness.h"
#include "conformance/harness/stream.h"

namespace tcts {
namespace {

struct Fault {
  std::string mode, glob;
};

std::vector<Fault> FaultsFromEnvironment() {
  std::vector<Fault> faults;
  const char* env = std::getenv("TCTS_FAULTS");
  std::string spec = env ? env : "";
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(';', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (!item.empty()) {
      const std::string mode = item.substr(0, eq);
      if (eq == std::string::npos ||
          (mode != "abort" && mode != "segv" && mode != "exit" && mode != "hang" && mode != "wrong")) {
        std::fprintf(stderr, "faulty: bad TCTS_FAULTS item '%s' (expected abort|segv|exit|hang|wrong=GLOB)\n",
                     item.c_str());
        std::exit(2);
      }
      faults.push_back({mode, item.substr(eq + 1)});
    }
    start = end + 1;
  }
  return faults;
}

class FaultyCandidate final : public Candidate {
 public:
  FaultyCandidate() : base_(MakeCandidate("reference")), faults_(FaultsFromEnvironment()) {
    const char* supports = std::getenv("TCTS_FAULTY_SUPPORTS");
    none_ = supports && std::string(supports) == "none";
  }

  std::string name() const override { return "faulty"; }
  std::string version() const override { return "reference with TCTS_FAULTS"; }
  std::string build() const override { return base_->build(); }
  bool supports(Feature f) const override { return !none_ && base_->supports(f); }

  Result<DType> promote_types(DType a, DType b) override {
    if (none_) return NotSupported("promote_types");
    if (Inject() == "wrong") return a;
    return base_->promote_types(a, b);
  }

#define TCTS_FORWARD(Ret, method, params, args) \
  Ret method params override {                  \
    if (none_) return NotSupported(#method);    \
    Inject();                                   \
    return base_->method args;                  \
  }
  TCTS_FORWARD(Result<DType>, dtype_from_name, (std::string_view n), (n))
  TCTS_FORWARD(Result<DTypeInfo>, dtype_info, (DType d), (d))
  TCTS_FORWARD(Result<FloatInfo>, finfo, (DType d), (d))
  TCTS_FORWARD(Result<std::string>, legacy_constructor, (DType d), (d))
  TCTS_FORWARD(Result<DType>, result_type, (const Operand& a, const Operand& b), (a, b))
  TCTS_FORWARD(Result<bool>, can_cast, (DType from, DType to), (from, to))
  TCTS_FORWARD(Result<DType>, default_dtype, (), ())
  TCTS_FORWARD(Status, set_default_dtype, (DType d), (d))
  TCTS_FORWARD(Result<TensorHandle>, make_tensor,
               (const std::vector<std::int64_t>& s, DType d, const std::vector<Scalar>& v), (s, d, v))
  TCTS_FORWARD(Result<TensorMeta>, meta, (const TensorHandle& t), (t))
  TCTS_FORWARD(Result<std::vector<Scalar>>, values, (const TensorHandle& t), (t))
  TCTS_FORWARD(Result<TensorHandle>, binary, (BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha),
               (op, a, b, alpha))
  TCTS_FORWARD(Status, binary_out,
               (BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, const TensorHandle& out),
               (op, a, b, alpha, out))
  TCTS_FORWARD(Status, binary_inplace, (BinaryOp op, const TensorHandle& s, const Operand& o, const Scalar& alpha),
               (op, s, o, alpha))
  TCTS_FORWARD(Result<TensorHandle>, empty,
               (const std::vector<std::int64_t>& s, DType d, Layout l, MemoryFormat f), (s, d, l, f))
  TCTS_FORWARD(Result<TensorHandle>, empty_strided,
               (const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& st, DType d), (s, st, d))
  TCTS_FORWARD(Result<bool>, is_contiguous, (const TensorHandle& t, MemoryFormat f), (t, f))
  TCTS_FORWARD(Result<TensorHandle>, as_strided,
               (const TensorHandle& t, const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& st,
                std::int64_t o),
               (t, s, st, o))
  TCTS_FORWARD(Result<TensorHandle>, t, (const TensorHandle& x), (x))
  TCTS_FORWARD(Result<TensorHandle>, transpose, (const TensorHandle& x, std::int64_t a, std::int64_t b), (x, a, b))
  TCTS_FORWARD(Result<TensorHandle>, permute, (const TensorHandle& x, const std::vector<std::int64_t>& d), (x, d))
  TCTS_FORWARD(Result<TensorHandle>, narrow, (const TensorHandle& x, std::int64_t d, std::int64_t s, std::int64_t l),
               (x, d, s, l))
  TCTS_FORWARD(Result<TensorHandle>, select, (const TensorHandle& x, std::int64_t d, std::int64_t i), (x, d, i))
  TCTS_FORWARD(Result<TensorHandle>, slice,
               (const TensorHandle& x, std::int64_t d, std::int64_t s, std::int64_t e, std::int64_t st),
               (x, d, s, e, st))
  TCTS_FORWARD(Result<TensorHandle>, expand, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
  TCTS_FORWARD(Result<TensorHandle>, unsqueeze, (const TensorHandle& x, std::int64_t d), (x, d))
  TCTS_FORWARD(Result<TensorHandle>, squeeze, (const TensorHandle& x, std::optional<std::int64_t> d), (x, d))
  TCTS_FORWARD(Result<TensorHandle>, view, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
  TCTS_FORWARD(Result<TensorHandle>, reshape, (const TensorHandle& x, const std::vector<std::int64_t>& s), (x, s))
  TCTS_FORWARD(Result<TensorHandle>, contiguous, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<TensorHandle>, clone, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<TensorHandle>, empty_like, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<StorageInfo>, storage, (const TensorHandle& x), (x))
  TCTS_FORWARD(Result<std::vector<Scalar>>, storage_values, (const TensorHandle& x), (x))
  TCTS_FORWARD(Status, write_storage, (const TensorHandle& x, std::int64_t i, const Scalar& v), (x, i, v))
  TCTS_FORWARD(Status, write_element, (const TensorHandle& x, const std::vector<std::int64_t>& i, const Scalar& v),
               (x, i, v))
#undef TCTS_FORWARD

 private:
  // Carries out the fault chosen for the current case, if any; returns "wrong" or "".
  std::string Inject() const {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return "";
    const std::string id = CaseId(*info);
    for (const Fault& f : faults_) {
      if (!GlobMatch(f.glob, id)) continue;
      if (f.mode == "abort") std::abort();
      if (f.mode == "segv") std::raise(SIGSEGV);
      if (f.mode == "exit") _exit(0);
      if (f.mode == "hang") {
        for (;;) pause();
      }
      return f.mode;
    }
    return "";
  }

  std::unique_ptr<Candidate> base_;
  std::vector<Fault> faults_;
  bool none_ = false;  // TCTS_FAULTY_SUPPORTS=none
};

TCTS_REGISTER_CANDIDATE("faulty", [] { return std::unique_ptr<Candidate>(std::make_unique<FaultyCandidate>()); });

}  // namespace
}  // namespace tcts
