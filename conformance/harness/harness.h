// The conformance harness: how a generated case runs against the current candidate and
// how its raw outcome is decided and reported.
//
// A case (one spec row) collects mismatches instead of asserting, then Finish() decides:
//   PASS           no mismatch
//   FAIL           a mismatch                      -> test failure with the full report
//   NOT_SUPPORTED  the candidate declared the feature unsupported and answered so -> skipped
// These are raw outcomes: the suite binary knows nothing of the candidate's expectations
// file. The runner (conformance/runner/run.py, the only reader of that file) turns a listed
// FAIL into XFAIL and a listed PASS into XPASS, and decides CRASH and TIMEOUT, isolating the
// process. Each outcome is written to the test XML (RecordProperty) and, as a CaseRecord, to
// the runner's result stream (conformance/harness/stream.h).
// A RapidCheck property (conformance/properties/properties.h) is decided by FinishProperty().
#ifndef TCTS_CONFORMANCE_HARNESS_H_
#define TCTS_CONFORMANCE_HARNESS_H_

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"

namespace tcts {

// A spec row as the generated tables carry it.
struct RowMeta {
  const char* id;      // stable row id, e.g. "promote_types.int8.uint8"
  const char* clause;  // seed document and section, e.g. "002#type-promotion"
  const char* basis;   // "doc" or "pytorch: <source>"
  const char* text;    // the row in words, e.g. "promote_types(int8, uint8) = int16"
  // The row's expected answer as data, for reports: "int16" (promote_types), "true"/"false"
  // (can_cast), "ok"/"error" (in-place acceptance); "" when the row has no one-word answer.
  const char* answer;
  // The id of the spec/*.toml row the case comes from: the row itself for a literal row
  // ("output_casting.doc.float_mul_int"), the rule a sweep derives it from ("result_type.rules",
  // a swept table's id_prefix "promote_types"); "" for a case that is no spec row (replayed).
  const char* spec_row;
  // The dtypes the row needs, by canonical name, space-separated ("int8 uint8 int16"): its
  // operands', its fixtures' and its expected answer's (the generators list every dtype of the
  // row's fields). A candidate that does not declare one of them (Candidate::supports_dtype)
  // does not run the case: NOT_SUPPORTED, naming the dtype (DTypesDeclared).
  const char* dtypes = "";
  // The operands the case is about, in operand order, space-separated: a dtype alone ("int32
  // float16": promote_types) or an operand's kind and what it holds ("t_int32" a tensor, "z_int32"
  // a zero-dim tensor, "s_float" a Python scalar: spec_model.Operand.token). "" where the row has
  // no operands of that shape. The report's root causes compare them: a deviating row explains a
  // case below it only where it deviates on the same inputs (reports/report.py root_causes).
  const char* inputs = "";
};

// ---------------------------------------------------------------- run configuration
struct RunConfig {
  std::string candidate;     // --candidate=NAME
  std::string target;        // --target=LABEL (for rerun commands; "{suite}" stands for the case's suite)
  // --rerun=COMMAND: a rerun command is COMMAND --filter='<case id>' (and --seed=N for a
  // property): the runner's own command, where no suite target reruns the case (a testee's run).
  std::string rerun;
  std::string seed;          // the RapidCheck seed of this run (decimal), for rerun commands
  std::string replay;        // --replay=FILE when running a replay file (conformance/replay/replay.h)
  // --device=DEVICE: the suite runs with every tensor it makes on DEVICE ("cuda", "cuda:1"),
  // through the candidate's default device (torch.set_default_device). Empty: the cpu.
  std::string device;
  // The device the suite's tensors claim, which checks compare against: meta().device of a
  // tensor the candidate makes ("cuda:0" for --device=cuda; "meta" for a candidate whose
  // tensors live on PyTorch's meta device, with or without --device).
  std::string resolved_device;
};
const RunConfig& Config();
void SetConfig(RunConfig config);
// Whether the device the suite's tensors claim (resolved_device) is of type cpu: rows whose
// rule differs by device take their cpu column then, and their other devices' column otherwise.
bool TensorsOnCpu();

// Puts the suite's tensors on config->device: checks the candidate can make a tensor there,
// makes it the default device, and records the resolved device. Returns false with the
// reason (for skipping every test) and the feature that is missing when it cannot:
// default_device when the candidate has none, cuda_tensors for a cuda device it cannot
// use, device_factories for another device.
bool UseDeviceForTensors(Candidate& candidate, RunConfig* config, std::string* why, Feature* feature);

// A suite that takes its cases from a file (the replay suite, conformance/replay/replay.h)
// registers a loader; the runner calls it with --replay=FILE before it lists or runs tests.
using CaseFileLoader = bool (*)(const std::string& path, std::string* error);
bool RegisterCaseFileLoader(CaseFileLoader loader);
// Loads `path` with the registered loader. An empty path is nothing to load; a path with no
// loader linked in is an error.
bool LoadCaseFile(const std::string& path, std::string* error);

Candidate& CurrentCandidate();
void SetCurrentCandidate(std::unique_ptr<Candidate> candidate);

// Shell-style glob: '*' matches any run, '?' one byte. For the spec's error-message patterns
// (checks/binary.cc) and the test-only faulty candidate; case ids are selected and
// expectations matched by the runner alone (conformance/runner/expectations.py).
bool GlobMatch(const std::string& pattern, const std::string& text);

// ---------------------------------------------------------------- checks
// What a case's checks judge, one aspect each (spec/interface.toml [[check]], generated:
// TCTS_FORALL_CHECKS): a case's verdict is made of its checks' verdicts. A check that needs a
// feature the candidate declares unsupported (values, for the meta device) is NOT_SUPPORTED by
// itself, and the case is judged on the checks that ran.
enum class Check {
#define TCTS_CHECK_ENUMERATOR(e, name, needs) e,
  TCTS_FORALL_CHECKS(TCTS_CHECK_ENUMERATOR)
#undef TCTS_CHECK_ENUMERATOR
};
const char* CheckName(Check check);
// The feature the check needs, if any.
std::optional<Feature> CheckNeeds(Check check);

// ---------------------------------------------------------------- calls
// A call's answer and the feature it is judged under: what the call helpers (namespace calls,
// below) return, and what Get and Case::Usable check against the candidate's declaration. A
// check calls the interface only through them, so it never names an op's feature itself.
// It is judged by its op's own declaration (Candidate::supports_op): a library declares per op,
// and its features summarise them.
template <class T>
class Called : public Result<T> {
 public:
  Called(Feature feature, Result<T> result, const char* op = nullptr)
      : Result<T>(std::move(result)), feature_(feature), op_(op) {}
  Feature feature() const { return feature_; }
  // The op called ("as_strided"), or nullptr when the call is judged under its feature alone
  // (As, below).
  const char* op() const { return op_; }
  // The call, with these arguments, is judged under feature `f` instead of its op's: a feature of
  // the answer (spec/interface.toml answer_features: a sparse layout, a device form, cuda tensors)
  // or another op's feature that the arguments ask for (asarray(requires_grad=True): autograd).
  // A new value (so `r = std::move(r).As(f)` is no self-move).
  Called As(Feature f) && {
    Called out(std::move(*this));
    out.feature_ = f;
    out.op_ = nullptr;
    return out;
  }
  // The call's outcome without its value (ok, or its error), under the same feature.
  Called<void> status() const;

 private:
  Feature feature_;
  const char* op_;
};

template <class T>
Called<void> Called<T>::status() const {
  return Called<void>(feature_, this->ok() ? Status() : Status(this->error()), op_);
}

// One helper per op of spec/interface.toml: calls::binary(cand, op, a, b, alpha) calls
// cand.binary(...) and carries the op's feature (generated: spec/interface_calls.inc).
namespace calls {
#include "spec/interface_calls.inc"
}  // namespace calls

// ---------------------------------------------------------------- case records
// What one finished case reports: its raw outcome, each check's verdict and every mismatch.
// (The row itself is registered, below; the runner has it from the case list.)
struct CaseRecord {
  struct Diff {
    std::string check, expected, observed;
    std::string kind;  // the Check it belongs to (CheckName)
  };
  struct Verdict {
    std::string check;    // CheckName
    std::string outcome;  // PASS, FAIL, NOT_SUPPORTED
  };
  std::string outcome;        // PASS, FAIL, NOT_SUPPORTED
  std::string not_supported;  // the call the candidate declared unsupported
  std::string feature;        // its Feature (FeatureName), for NOT_SUPPORTED
  std::string dtype;          // or the dtype the row needs and the candidate does not declare
  std::vector<std::string> features;  // the features the case's checks went on to use
  std::vector<Diff> mismatches;
  // Each check the case made or skipped, in the order first met: FAIL when one of its
  // comparisons failed, else PASS when one ran, else NOT_SUPPORTED (every one was skipped).
  std::vector<Verdict> checks;
  // Sub-checks not made because they need a feature the candidate declares unsupported
  // ("storage identity (needs storage)"); the case's verdict covers the rest.
  std::vector<std::string> skipped_checks;
  long draws = -1;  // properties: the draws that reached the property's checks
  bool reported_failure = false;  // Finish() added the test's "[tcts] FAIL" failure
};
// The record of the case the current test finished (Case::Finish, FinishProperty), once;
// nullopt when none finished (a test that stopped early).
std::optional<CaseRecord> TakeCaseRecord();

// Rows by id, as tests register them: RowName for table rows (when GoogleTest names the
// cases), RegisterProperty for properties, the replay loader for replayed cases. A runner names
// a case that never finished (it crashed) from here.
void RegisterRow(const RowMeta& row);
const RowMeta* FindRow(const std::string& id);
// A RapidCheck property test ("Suite.Name") and its row, whose basis is "property" and whose
// spec_row is the rule the property states (TCTS_PROP registers it).
bool RegisterProperty(const char* test, const RowMeta& row);
// The row of property test "Suite.Name", or nullptr when it is not a property.
const RowMeta* FindProperty(const std::string& test);

// The conformance suite ("promotion") a test belongs to, by the source file that defines it:
// every file of a suite's tests registers itself (TCTS_SUITE_SOURCE), so that one binary can
// hold every suite and the runner still reports each case under its suite.
bool RegisterSuiteSource(const char* file, const char* suite);
// The suite of the test defined in `file` (TestInfo::file()), or "" when none registered it.
std::string SuiteOfSource(const char* file);
#define TCTS_SUITE_SOURCE_CONCAT2(a, b) a##b
#define TCTS_SUITE_SOURCE_CONCAT(a, b) TCTS_SUITE_SOURCE_CONCAT2(a, b)
#define TCTS_SUITE_SOURCE(suite)                                                        \
  static const bool TCTS_SUITE_SOURCE_CONCAT(tcts_suite_source_, __LINE__) = \
      ::tcts::RegisterSuiteSource(__FILE__, suite)

// ---------------------------------------------------------------- property outcomes
// A property test (TCTS_PROP in conformance/properties/properties.h) runs RapidCheck's draws,
// then FinishProperty() decides its outcome. RapidCheck counts every draw that did not fail
// as a success, whether or not it checked anything, so the draws report to the harness:
//   FAIL           a draw failed (RapidCheck's counterexample: a wrong answer, an error from a
//                  call that must succeed, or an answer that contradicts the candidate's
//                  declaration, checked as Case::Usable checks a table case), or no draw
//                  reached the property's checks (it would hold vacuously)
//   NOT_SUPPORTED  a draw called a feature the candidate declares unsupported, and the call
//                  answered NotSupported; or the property has no declared dtype to draw from
//                  (PropertyUndeclaredDTypes) -> skipped
//   PASS           otherwise
// The record carries the number of checked draws.
void StartProperty();
// A draw reached the end of the property's checks.
void PropertyDrawChecked();
// A draw met `call`, of a feature the candidate declares unsupported, answering NotSupported.
void PropertyNotSupported(const std::string& call, Feature feature);
// The property draws its dtypes from the candidate's declared ones (Candidate::supports_dtype)
// and has none to draw from: every dtype it could use, `missing` (in spec order, not empty), is
// undeclared. The property is NOT_SUPPORTED naming them, counted under the first (the report's
// dtype table), as a table case whose row needs an undeclared dtype (DTypesDeclared).
void PropertyUndeclaredDTypes(const std::vector<DType>& missing);
// The call recorded by PropertyNotSupported (or the dtypes by PropertyUndeclaredDTypes) in this
// property, or "": once it is set, no later draw can check more.
const std::string& PropertyNotSupportedCall();
// A draw failed: later draws (RapidCheck's shrinking) are not counted.
void PropertyDrawFailed();
// A draw's checks (a Case's verdicts and skipped sub-checks, Case::Record): the property's
// record lists each check met in any draw, with its worst verdict, and every sub-check skipped.
void PropertyChecks(const CaseRecord& draw);
// Decides and reports the property's outcome. Call once, after RapidCheck's verdict.
void FinishProperty();

// ---------------------------------------------------------------- a case
class Case {
 public:
  // A case of `row` judging `candidate` (the run's: RunTableCase binds a table case to it).
  Case(const RowMeta& row, Candidate& candidate);
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;

  // Records a difference between the spec and the candidate, found by a check of kind `kind`
  // (`check` says what was compared: "add(tensor:int8, scalar:int) result dtype").
  void Mismatch(Check kind, const std::string& check, const std::string& expected, const std::string& observed);
  // A check of kind `kind` ran (it passes unless a Mismatch of its kind is recorded).
  void Checked(Check kind);
  // Checked(kind), and a Mismatch when !ok. Returns ok. A check whose kind needs a feature the
  // candidate declares unsupported (CheckNeeds: strides and offset need strides) is skipped
  // instead, as Can records it, and returns true.
  bool Expect(Check kind, bool ok, const std::string& check, const std::string& expected, const std::string& observed);
  // Whether a check of kind `kind` can be made: false when it needs a feature the candidate
  // declares unsupported (CheckNeeds), after recording `what` as a sub-check skipped for it
  // ("values of the result (needs values)") and the check as NOT_SUPPORTED unless it ran.
  bool Can(Check kind, const std::string& what);
  // Checks a call's answer against the candidate's declared capabilities: its op's declaration
  // (Candidate::supports_op; `op` null: its feature's). Returns true when the check should go on
  // to look at the answer; false when the candidate does not support the op (outcome
  // NOT_SUPPORTED, or a mismatch if the claim was false).
  // A setup call (`setup`: one the case makes before the operation under test) is held to the
  // declaration instead of judging it, which that op's own cases do: an op declared unsupported,
  // or one that answers NotSupported, makes the case NOT_SUPPORTED naming the call, whatever it
  // answered; never a FAIL.
  bool Usable(Feature feature, const char* op, const Error* error, const std::string& call, bool setup = false);
  bool Usable(Feature feature, const Error* error, const std::string& call) {
    return Usable(feature, nullptr, error, call);
  }
  template <class T>
  bool Usable(const Called<T>& r, const std::string& call, bool setup = false) {
    return Usable(r.feature(), r.op(), r.ok() ? nullptr : &r.error(), call, setup);
  }
  // Whether the candidate declares `feature`. When it does not, records `check` (of kind
  // `kind`) as a sub-check skipped for it (named in the case record) and returns false: a check
  // calls this before a sub-check that needs a feature the rest of the case does not.
  bool Supports(Feature feature, Check kind, const std::string& check);
  // The same for an op ("write_element"): whether the candidate declares it
  // (Candidate::supports_op), recording the sub-check skipped "(needs write_element)" when not.
  bool SupportsOp(const char* op, Check kind, const std::string& check);
  bool failed() const { return !mismatches_.empty(); }
  // The mismatches so far, one per line ("check: expected X, observed Y"); properties
  // use it as their failure message.
  std::string MismatchText() const;
  bool not_supported() const { return not_supported_; }
  const std::string& not_supported_call() const { return not_supported_call_; }
  // The feature that made the case NOT_SUPPORTED (valid when not_supported()).
  Feature not_supported_feature() const { return not_supported_feature_; }
  // The features the case's checks were allowed to go on with (Usable() returned true).
  const std::vector<Feature>& used_features() const { return used_; }
  const RowMeta& row() const { return row_; }
  // The candidate the case judges: a check makes every call through it.
  Candidate& candidate() const { return candidate_; }
  // The checks' verdicts and skipped sub-checks so far, as Finish records them (for a property's
  // draw, which is no case of its own: PropertyChecks).
  CaseRecord Verdicts() const;

  // The case needs `dtype`, which the candidate does not declare: it is NOT_SUPPORTED, naming
  // the dtype (Finish), whatever else it recorded.
  void UndeclaredDType(DType dtype);

  // Decides and reports the outcome. Call once, at the end of the test body.
  void Finish();

 private:
  using Diff = CaseRecord::Diff;
  RowMeta row_;
  Candidate& candidate_;
  std::vector<Diff> mismatches_;
  bool not_supported_ = false;
  Feature not_supported_feature_ = Feature::kTensors;
  std::string not_supported_call_;
  std::vector<std::string> skipped_checks_;
  std::optional<Feature> first_skipped_feature_;  // the feature the first skipped sub-check needed
  std::vector<std::pair<Check, int>> verdicts_;   // 0 NOT_SUPPORTED, 1 PASS, 2 FAIL
  void Verdict(Check kind, int verdict);
  // `call`, of `feature`, is one the candidate does not support: the case is NOT_SUPPORTED,
  // naming the first such call.
  void NotSupported(Feature feature, const std::string& call);
  // Records `check` (of kind `kind`) as a sub-check skipped for `needs`, of `feature`.
  void Skipped(Feature feature, const std::string& needs, Check kind, const std::string& check);
  std::vector<Feature> used_;
  std::string undeclared_dtype_;
  bool finished_ = false;
};

// Whether `candidate` declares every dtype `row` needs (RowMeta::dtypes). When it does not,
// reports the case NOT_SUPPORTED, naming the first dtype missing, and returns false.
bool DTypesDeclared(const RowMeta& row, Candidate& candidate);

// Runs a table case (what a generated test body does): when the run's candidate declares the
// row's dtypes (DTypesDeclared), `check` judges it through a Case bound to that candidate, then
// the case decides its outcome (Case::Finish). The one place a table case meets the candidate:
// a check receives it with its case (Case::candidate).
template <class Row>
void RunTableCase(const Row& row, void (*check)(Case& c, const Row& row)) {
  Candidate& candidate = CurrentCandidate();
  if (!DTypesDeclared(row.meta, candidate)) return;
  Case c(row.meta, candidate);
  check(c, row);
  c.Finish();
}

// "RuntimeError: message" / "ok".
std::string Describe(const Error& e);
// The command that reruns only `test` (with this run's seed for a property; through the
// replay runner for a replayed case), or only the current test.
std::string RerunCommand(const ::testing::TestInfo& test);
std::string RerunCommand();

// Sets the candidate's default dtype for a scope and restores the previous one. A row under
// the documented initial default (kInitialDefaultDType) needs no default-dtype call at all,
// so a candidate without one still runs it.
class DefaultDTypeScope {
 public:
  DefaultDTypeScope(Case& c, DType dtype);
  ~DefaultDTypeScope();
  bool ok() const { return ok_; }

 private:
  Candidate& candidate_;
  std::optional<DType> previous_;
  bool ok_ = true;
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_HARNESS_H_
