// Test-only candidate "faulty": the reference, with faults injected on chosen cases, to
// prove that the runner (conformance/run.py) isolates a candidate that crashes or hangs.
//
// TCTS_FAULTS (environment) lists MODE=GLOB pairs separated by ';', e.g.
//   TCTS_FAULTS='abort=promote_types.int8.uint8;hang=can_cast.*.bool'
// Whenever a case whose id matches GLOB calls the candidate, the call does MODE:
//   abort  std::abort() (SIGABRT)          segv  raise(SIGSEGV)
//   exit   _exit(0): a silent early exit   hang  sleeps forever
//   wrong  promote_types answers its first operand (a wrong answer, not a crash)
// and these answer wrongly too, to show that checks and properties can fail:
//   unsupported    every call answers NotSupported, though every feature is declared supported
//   undeclared     the candidate declares no feature, and every call answers NotSupported
//                  (an honest candidate without them: NOT_SUPPORTED, not a failure)
//   broken         every call answers a RuntimeError (nothing can be built)
//   valuebased     result_type inspects values, as NumPy 1.x did beyond a dtype's range: a Python
//                  int or float of a magnitude the answer's dtype cannot hold widens it to int64
//                  or float64 (uint8 tensor + 300 -> int64, float16 tensor + 1e5 -> float64)
//   ignore_format  channels_last and channels_last_3d laid out as contiguous_format, consistently:
//                  empty and contiguous allocate contiguous strides for them, and is_contiguous
//                  of a rank-4 (rank-5) tensor checks for the strides empty allocates
// Case ids are the runner's (tcts::CaseId: the row id, or the property's id).
//
// TCTS_FAULTY_SUPPORTS=none makes it a candidate that declares every feature unsupported and
// answers NotSupported to every call (honestly: the declaration matches), for the runner's
// verdict test: such a candidate must not CONFORM.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
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
      static const char* const kModes[] = {"abort", "segv", "exit", "hang", "wrong", "unsupported",
                                           "undeclared", "broken", "valuebased", "ignore_format"};
      if (eq == std::string::npos || std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
        std::fprintf(stderr,
                     "faulty: bad TCTS_FAULTS item '%s' (expected abort|segv|exit|hang|wrong|unsupported|undeclared|"
                     "broken|valuebased|ignore_format=GLOB)\n",
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
  bool supports(Feature f) const override { return !none_ && Mode() != "undeclared" && base_->supports(f); }

  Result<DType> promote_types(DType a, DType b) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "promote_types")) return *e;
    if (mode == "wrong") return a;
    return base_->promote_types(a, b);
  }

  Result<DType> result_type(const Operand& a, const Operand& b) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "result_type")) return *e;
    Result<DType> r = base_->result_type(a, b);
    if (mode == "valuebased" && r.ok()) return ValueBased(r.value(), a, b);
    return r;
  }

  Result<TensorHandle> empty(const std::vector<std::int64_t>& s, DType d, Layout l, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "empty")) return *e;
    return base_->empty(s, d, l, mode == "ignore_format" ? NoChannelsLast(f) : f);
  }
  Result<bool> is_contiguous(const TensorHandle& t, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "is_contiguous")) return *e;
    if (mode == "ignore_format" && NoChannelsLast(f) != f) {  // the strides empty(sizes, f) gives, size-1 dims aside
      const Result<TensorMeta> m = base_->meta(t);
      if (!m.ok()) return m.error();
      const std::vector<std::int64_t>& sizes = m.value().sizes;
      if (sizes.size() != (f == MemoryFormat::kChannelsLast ? 4u : 5u)) return false;
      const Result<TensorHandle> fresh = base_->empty(sizes, DType::kInt64, Layout::kStrided, MemoryFormat::kContiguous);
      if (!fresh.ok()) return fresh.error();
      const std::vector<std::int64_t> want = base_->meta(fresh.value()).value().strides;
      for (std::size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] != 1 && m.value().strides[d] != want[d]) return false;
      return true;
    }
    return base_->is_contiguous(t, f);
  }
  Result<TensorHandle> contiguous(const TensorHandle& t, MemoryFormat f) override {
    const std::string mode = Inject();
    if (auto e = WrongError(mode, "contiguous")) return *e;
    return base_->contiguous(t, mode == "ignore_format" ? NoChannelsLast(f) : f);
  }

#define TCTS_FORWARD(Ret, method, params, args)            \
  Ret method params override {                             \
    if (auto e = WrongError(Inject(), #method)) return *e; \
    return base_->method args;                             \
  }
  TCTS_FORWARD(Result<DType>, dtype_from_name, (std::string_view n), (n))
  TCTS_FORWARD(Result<DTypeInfo>, dtype_info, (DType d), (d))
  TCTS_FORWARD(Result<FloatInfo>, finfo, (DType d), (d))
  TCTS_FORWARD(Result<std::string>, legacy_constructor, (DType d), (d))
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
  TCTS_FORWARD(Result<TensorHandle>, empty_strided,
               (const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& st, DType d), (s, st, d))
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
  TCTS_FORWARD(Result<TensorHandle>, clone, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<TensorHandle>, empty_like, (const TensorHandle& x, MemoryFormat f), (x, f))
  TCTS_FORWARD(Result<StorageInfo>, storage, (const TensorHandle& x), (x))
  TCTS_FORWARD(Result<std::vector<Scalar>>, storage_values, (const TensorHandle& x), (x))
  TCTS_FORWARD(Status, write_storage, (const TensorHandle& x, std::int64_t i, const Scalar& v), (x, i, v))
  TCTS_FORWARD(Status, write_element, (const TensorHandle& x, const std::vector<std::int64_t>& i, const Scalar& v),
               (x, i, v))
#undef TCTS_FORWARD

 private:
  // The fault chosen for the current case, if any ("" for none).
  std::string Mode() const {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return "";
    const std::string id = CaseId(*info);
    for (const Fault& f : faults_)
      if (GlobMatch(f.glob, id)) return f.mode;
    return "";
  }
  // Carries out the fault chosen for the current case, if any; returns a wrong-answer mode or "".
  std::string Inject() const {
    const std::string mode = Mode();
    if (mode == "abort") std::abort();
    if (mode == "segv") std::raise(SIGSEGV);
    if (mode == "exit") _exit(0);
    if (mode == "hang") {
      for (;;) pause();
    }
    return mode;
  }
  // The error every call answers in the modes that answer each call with one.
  // TCTS_FAULTY_SUPPORTS=none: every feature declared unsupported, every call answers so.
  std::optional<Error> WrongError(const std::string& mode, const char* call) const {
    if (none_ || mode == "unsupported" || mode == "undeclared") return NotSupported(std::string("faulty: ") + call);
    if (mode == "broken") return Error{ErrorKind::kRuntimeError, std::string("faulty: ") + call + " is broken"};
    return std::nullopt;
  }
  static MemoryFormat NoChannelsLast(MemoryFormat f) {
    return f == MemoryFormat::kChannelsLast || f == MemoryFormat::kChannelsLast3d ? MemoryFormat::kContiguous : f;
  }
  // Value-based promotion, which PyTorch does not do: a Python int or float of a magnitude
  // `d` cannot hold widens it to int64 or float64.
  static DType ValueBased(DType d, const Operand& a, const Operand& b) {
    for (const Operand* o : {&a, &b}) {
      const Scalar* s = std::get_if<Scalar>(o);
      if (!s) continue;
      if (DTypeCategory(d) == Category::kIntegral && s->kind == Scalar::Kind::kInt) {
        const int bits = 8 * DTypeItemsize(d) - (d == DType::kUint8 ? 0 : 1);  // magnitude bits
        if (std::fabs(static_cast<double>(s->i)) >= std::ldexp(1.0, bits)) d = DType::kInt64;
      }
      if (DTypeCategory(d) == Category::kFloating && s->kind == Scalar::Kind::kFloat && std::isfinite(s->f)) {
        const double max = d == DType::kFloat16    ? 65504.0
                           : d == DType::kBfloat16 ? 3.3895313892515355e38
                           : d == DType::kFloat32  ? 3.4028234663852886e38
                                                   : HUGE_VAL;
        if (std::fabs(s->f) > max) d = DType::kFloat64;
      }
    }
    return d;
  }

  std::unique_ptr<Candidate> base_;
  std::vector<Fault> faults_;
  bool none_ = false;  // TCTS_FAULTY_SUPPORTS=none
};

TCTS_REGISTER_CANDIDATE("faulty", [] { return std::unique_ptr<Candidate>(std::make_unique<FaultyCandidate>()); });

}  // namespace
}  // namespace tcts
