#include "conformance/replay/replay.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "conformance/checks/arithmetic.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"
#include "conformance/checks/strided.h"
#include "conformance/harness/harness.h"
#include "conformance/replay/case_file.h"

namespace tcts {
namespace {

// Cases live as long as the process: their strings back the RowMeta the harness keeps.
std::deque<ReplayCase>& Cases() {
  static std::deque<ReplayCase> cases;
  return cases;
}

// ---------------------------------------------------------------- running a case
std::optional<Operand> Build(Case& k, const ReplayCase& rc, const std::string& name) {
  const ReplayInput& in = rc.inputs.at(name);
  if (in.scalar) return Operand(in.value);
  std::string call = "make_tensor(" + Str(in.sizes) + ", " + DTypeName(in.dtype) + ")";
  std::optional<TensorHandle> t =
      Get(k, calls::make_tensor(k.candidate(), in.sizes, in.dtype, in.values), "input " + name + ": " + call);
  for (const ViewStep& step : in.views) {
    if (!t) return std::nullopt;
    call += "." + ToString(step);
    t = Get(k, Apply(k.candidate(), step, *t), "input " + name + ": " + call);
  }
  if (!t) return std::nullopt;
  return Operand(*t);
}

void RunCase(const ReplayCase& rc) {
  Case k(RowMeta{rc.id.c_str(), rc.clause.c_str(), rc.basis.c_str(), rc.statement.c_str(), "", ""}, CurrentCandidate());
  Candidate& cand = k.candidate();
  std::map<std::string, Operand> ops;
  for (const auto& [name, input] : rc.inputs) {
    std::optional<Operand> o = Build(k, rc, name);
    if (!o) return k.Finish();
    ops.emplace(name, *o);
  }
  const std::string call = rc.statement.substr(0, rc.statement.find(" -> "));
  const auto tensor = [&](const std::string& name) { return std::get<TensorHandle>(ops.at(name)); };
  // The result: out= and in-place calls answer their destination.
  const auto answering = [](const Called<void>& s, const TensorHandle& dest) {
    return Called<TensorHandle>(s.feature(), s.ok() ? Result<TensorHandle>(dest) : Result<TensorHandle>(s.error()));
  };
  const Called<TensorHandle> result =
      !rc.binary ? Apply(cand, rc.view, tensor(rc.a))
      : rc.form == BinaryForm::kFunctional ? calls::binary(cand, rc.op, ops.at(rc.a), ops.at(rc.b), rc.alpha)
      : rc.form == BinaryForm::kOut
          ? answering(calls::binary_out(cand, rc.op, ops.at(rc.a), ops.at(rc.b), rc.alpha, tensor(rc.out)), tensor(rc.out))
          : answering(calls::binary_inplace(cand, rc.op, tensor(rc.a), ops.at(rc.b), rc.alpha), tensor(rc.a));
  if (!k.Usable(result, call)) return k.Finish();
  const ExpectedError expected{rc.error, rc.error_kind, rc.message.c_str()};
  const std::string want = std::string(DTypeName(rc.dtype)) + " " + Str(rc.sizes);
  if (!CheckOutcome(k, expected, result, call, want)) return k.Finish();
  const std::optional<TensorMeta> m = Meta(k, result.value(), call);
  if (m) {
    ExpectEq(k, Check::kDType, call + " dtype", rc.dtype, m->dtype);
    ExpectGeometry(k, call, *m, rc.sizes, rc.strides, rc.offset.value_or(m->storage_offset));
  }
  if (rc.values && m && m->sizes == rc.sizes) {
    const std::optional<std::vector<Scalar>> got = ReadValues(k, result.value(), call);
    if (got) {
      bool same = got->size() == rc.values->size();
      for (std::size_t i = 0; same && i < got->size(); ++i) {
        same = rc.rtol > 0 ? WithinTolerance((*rc.values)[i], (*got)[i], 0, rc.rtol) : (*rc.values)[i] == (*got)[i];
      }
      k.Expect(Check::kValues, same, call + " values", Str(*rc.values), Str(*got));
    }
  }
  k.Finish();
}

class ReplayTest : public ::testing::Test {
 public:
  explicit ReplayTest(const ReplayCase* c) : c_(c) {}
  void TestBody() override { RunCase(*c_); }

 private:
  const ReplayCase* c_;
};

bool Loader(const std::string& path, std::string* error) { return LoadReplayFile(path, error); }
const bool kRegistered = RegisterCaseFileLoader(&Loader);

}  // namespace

bool LoadReplayFile(const std::string& path, std::string* error) {
  std::vector<ReplayCase> parsed;
  if (!ReadCaseFile(path, &parsed, error)) return false;
  for (ReplayCase& c : parsed) {
    Cases().push_back(std::move(c));
    const ReplayCase* rc = &Cases().back();
    RegisterRow(RowMeta{rc->id.c_str(), rc->clause.c_str(), rc->basis.c_str(), rc->statement.c_str(), "", ""});
    ::testing::RegisterTest("Replay", RowIdentifier(rc->id.c_str()).c_str(), nullptr, rc->id.c_str(), __FILE__,
                            __LINE__, [rc]() -> ::testing::Test* { return new ReplayTest(rc); });
  }
  (void)kRegistered;
  return true;
}

}  // namespace tcts
