// A binary op added to the spec (spec/promotion.toml [[op]]) meets every in-process adapter's
// switch: an adapter that translates binary ops answers each op of the spec (issue 51 item 4),
// or lists it below with the reason its library has no such operation. The adapters' switches
// end in `default:` so that a new op compiles everywhere; this test is the guard that
// `default:` gave up: it fails, naming the adapter, the op and the call, for an adapter that
// translates the other ops and not the new one. It asks only whether the op is translated (the
// answer is not NotSupported); what the op computes is the suites' to judge.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/candidate/candidate.h"

namespace tcts {
namespace {

// The in-process adapters linked into this test (conformance/adapters/BUILD), by registered name.
std::vector<std::string> Adapters() {
  std::vector<std::string> names;
  for (const char* name : {"reference", "libtorch", "eigen", "xtensor"}) {
    for (const std::string& registered : RegisteredCandidates()) {
      if (registered == name) names.push_back(registered);
    }
  }
  return names;
}

// Ops an adapter's library does not have, with the reason (an op listed here is NotSupported by
// design: declared, never forgotten). None today: every adapter translates add, sub, mul, div.
const std::vector<std::pair<std::string, std::string>> kNotInLibrary = {};

bool NotInLibrary(const std::string& adapter, const std::string& op) {
  for (const auto& [a, o] : kNotInLibrary) {
    if (a == adapter && o == op) return true;
  }
  return false;
}

std::vector<BinaryOp> SpecOps() {
  return {
#define TCTS_BINARY_OP_VALUE(e, ...) BinaryOp::e,
      TCTS_FORALL_BINARY_OPS(TCTS_BINARY_OP_VALUE)
#undef TCTS_BINARY_OP_VALUE
  };
}

// A one-element float32 tensor of `value`, made by the adapter itself.
TensorHandle Tensor(Candidate& c, double value) {
  Result<TensorHandle> t = c.make_tensor({1}, DType::kFloat32, {Scalar::Float(value)});
  EXPECT_TRUE(t.ok()) << "make_tensor: " << (t.ok() ? "" : t.error().message);
  return t.ok() ? t.value() : nullptr;
}

// Where a translation is missing: "" when the answer is no NotSupported.
std::string Missing(const char* call, const Status& s) {
  return s.ok() || s.error().kind != ErrorKind::kNotSupported ? "" : std::string(call) + ": " + s.error().message;
}
template <class T>
std::string Missing(const char* call, const Result<T>& r) {
  return r.ok() || r.error().kind != ErrorKind::kNotSupported ? "" : std::string(call) + ": " + r.error().message;
}

TEST(BinaryOpsTranslated, TheFourInProcessAdaptersAreLinked) {
  // The test must not pass by judging no adapter (libtorch is linked where the build has it).
  EXPECT_GE(Adapters().size(), 3u);
}

TEST(BinaryOpsTranslated, EveryAdapterThatTranslatesBinaryOpsTranslatesEveryOpOfTheSpec) {
  for (const std::string& name : Adapters()) {
    std::unique_ptr<Candidate> c = MakeCandidate(name);
    ASSERT_NE(c, nullptr) << name;
    for (BinaryOp op : SpecOps()) {
      const std::string op_name = BinaryOpName(op);
      if (NotInLibrary(name, op_name)) continue;
      const Scalar alpha = Scalar::Int(1);
      std::vector<std::string> missing;
      if (c->supports(Feature::kBinaryOps)) {
        missing.push_back(Missing("binary", c->binary(op, Tensor(*c, 6), Tensor(*c, 3), alpha)));
      }
      if (c->supports(Feature::kBinaryOut)) {
        TensorHandle out = Tensor(*c, 0);
        missing.push_back(Missing("binary_out", c->binary_out(op, Tensor(*c, 6), Tensor(*c, 3), alpha, out)));
      }
      if (c->supports(Feature::kBinaryInplace)) {
        missing.push_back(Missing("binary_inplace", c->binary_inplace(op, Tensor(*c, 6), Tensor(*c, 3), alpha)));
      }
      for (const std::string& m : missing) {
        EXPECT_EQ(m, "") << "adapter '" << name << "' declares the feature but does not translate the spec's binary op '"
                         << op_name << "': translate it in conformance/adapters/ (or, where its library has no such "
                         << "operation, list it in kNotInLibrary with the reason)";
      }
    }
  }
}

}  // namespace
}  // namespace tcts
