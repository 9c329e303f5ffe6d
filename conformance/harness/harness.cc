#include "conformance/harness/harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>
#include <sstream>

namespace tcts {

namespace {
RunConfig& MutableConfig() {
  static RunConfig config;
  return config;
}
std::unique_ptr<Candidate>& CandidateSlot() {
  static std::unique_ptr<Candidate> candidate;
  return candidate;
}
std::optional<CaseRecord>& RecordSlot() {
  static std::optional<CaseRecord> record;
  return record;
}
std::unordered_map<std::string, RowMeta>& RowRegistry() {
  static std::unordered_map<std::string, RowMeta> registry;
  return registry;
}
std::map<std::string, std::string>& PropertyRegistry() {  // test -> row id
  static std::map<std::string, std::string> registry;
  return registry;
}
CaseFileLoader& LoaderSlot() {
  static CaseFileLoader loader = nullptr;
  return loader;
}
// What the current property's draws reported.
struct PropertyTally {
  long checked = 0;
  bool failed = false;
  std::string not_supported;
  std::string feature;  // FeatureName of the feature that answered NotSupported
  std::string dtype;    // or the first dtype of PropertyUndeclaredDTypes
  std::vector<std::string> skipped;  // sub-checks skipped in some draw (PropertySkippedChecks)
  std::vector<CaseRecord::Verdict> checks;  // each check met in some draw, as a case records it
};
PropertyTally& TallySlot() {
  static PropertyTally tally;
  return tally;
}
}  // namespace

std::optional<CaseRecord> TakeCaseRecord() {
  std::optional<CaseRecord> r = std::move(RecordSlot());
  RecordSlot().reset();
  return r;
}

void RegisterRow(const RowMeta& row) { RowRegistry()[row.id] = row; }

const RowMeta* FindRow(const std::string& id) {
  auto it = RowRegistry().find(id);
  return it == RowRegistry().end() ? nullptr : &it->second;
}

bool RegisterProperty(const char* test, const RowMeta& row) {
  RegisterRow(row);
  PropertyRegistry()[test] = row.id;
  return true;
}

const RowMeta* FindProperty(const std::string& test) {
  auto it = PropertyRegistry().find(test);
  return it == PropertyRegistry().end() ? nullptr : FindRow(it->second);
}

namespace {
std::map<std::string, std::string>& SuiteSources() {
  static auto* sources = new std::map<std::string, std::string>();
  return *sources;
}
}  // namespace

bool RegisterSuiteSource(const char* file, const char* suite) {
  SuiteSources()[file] = suite;
  return true;
}

std::string SuiteOfSource(const char* file) {
  auto it = SuiteSources().find(file ? file : "");
  return it == SuiteSources().end() ? "" : it->second;
}

bool RegisterCaseFileLoader(CaseFileLoader loader) {
  LoaderSlot() = loader;
  return true;
}

bool LoadCaseFile(const std::string& path, std::string* error) {
  if (path.empty()) return true;
  if (!LoaderSlot()) {
    *error = "--replay=" + path + ": this binary has no replay suite (use bazel run //conformance:replay)";
    return false;
  }
  return LoaderSlot()(path, error);
}

const RunConfig& Config() { return MutableConfig(); }
void SetConfig(RunConfig config) { MutableConfig() = std::move(config); }
bool TensorsOnCpu() {
  const std::string& d = Config().resolved_device;
  return d.empty() || d.substr(0, d.find(':')) == "cpu";
}

namespace {
// The device the candidate's tensors claim: meta().device of a tensor it makes, as every check
// then sees them (PyTorch's meta device says "meta"; FakeTensor says the device it fakes).
// "cpu", the documented initial default, when the candidate cannot make or describe one (its
// cases then say why themselves).
std::string ClaimedDevice(Candidate& candidate) {
  if (!candidate.supports(Feature::kTensors)) return "cpu";
  for (DType d : DocumentedDTypes()) {
    if (!candidate.supports_dtype(d)) continue;
    const Result<TensorHandle> t = candidate.make_tensor({1}, d, {Scalar::Int(0)});
    const Result<TensorMeta> m = t.ok() ? candidate.meta(t.value()) : Result<TensorMeta>(t.error());
    return m.ok() && !m.value().device.empty() ? m.value().device : "cpu";
  }
  return "cpu";
}
}  // namespace

bool UseDeviceForTensors(Candidate& candidate, RunConfig* config, std::string* why, Feature* feature) {
  const std::string& device = config->device;
  const bool asked = !device.empty() && device != "cpu";
  const std::string who = candidate.name() + " cannot run this suite on '" + device + "': ";
  *feature = device.rfind("cuda", 0) == 0 ? Feature::kCudaTensors : Feature::kDeviceFactories;
  // What the handshake said (a testee's hello): no call before the first case.
  const Candidate::Placement said = candidate.placement();
  if (!said.refused.empty()) {
    *why = who + said.refused;
    return false;
  }
  if (!said.device.empty() || said.unknown) {
    config->resolved_device = said.device.empty() ? "cpu" : said.device;
    return true;
  }
  if (!asked) {
    config->resolved_device = ClaimedDevice(candidate);
    return true;
  }
  if (!candidate.supports(Feature::kDefaultDevice)) {
    *why = who + "it declares no default device (the suite makes its tensors through torch.set_default_device)";
    *feature = Feature::kDefaultDevice;
    return false;
  }
  const Result<TensorHandle> probe = candidate.empty_on({1}, DType::kFloat32, device);
  if (!probe.ok()) {
    *why = who + "empty([1], device='" + device + "') gave " + Describe(probe.error());
    return false;
  }
  const Result<TensorMeta> meta = candidate.meta(probe.value());
  if (!meta.ok()) {
    *why = who + "meta() of a tensor on it gave " + Describe(meta.error());
    return false;
  }
  const Status set = candidate.set_default_device(device);
  if (!set.ok()) {
    *why = who + "set_default_device('" + device + "') gave " + Describe(set.error());
    return false;
  }
  config->resolved_device = meta.value().device;
  return true;
}

Candidate& CurrentCandidate() {
  if (!CandidateSlot()) {
    // A harness bug, not a candidate's: the runner installs the candidate before any test.
    std::fprintf(stderr, "tcts: no candidate installed (run through conformance/runner_main)\n");
    std::abort();
  }
  return *CandidateSlot();
}
void SetCurrentCandidate(std::unique_ptr<Candidate> candidate) { CandidateSlot() = std::move(candidate); }

// ---------------------------------------------------------------- globs
bool GlobMatch(const std::string& p, const std::string& t) {
  std::size_t pi = 0, ti = 0, star = std::string::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++, mark = ti;
    } else if (star != std::string::npos) {
      pi = star + 1, ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

// ---------------------------------------------------------------- cases
std::string Describe(const Error& e) { return std::string(ErrorKindName(e.kind)) + ": " + e.message; }

std::string RerunCommand() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? RerunCommand(*info) : "(no test is running)";
}

std::string RerunCommand(const ::testing::TestInfo& info) {
  const std::string filter = std::string(info.test_suite_name()) + "." + info.name();
  const bool property = FindProperty(filter) != nullptr;
  if (!Config().rerun.empty()) {
    const RowMeta* prop = FindProperty(filter);
    std::string id = prop ? prop->id : info.value_param() ? info.value_param() : filter;
    std::string quoted = "'";
    for (char ch : id) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return Config().rerun + " --filter=" + quoted + "'" + (property ? " --seed=" + Config().seed : "");
  }
  if (!Config().target.empty()) {
    // A target may name the test of the case's own suite: "//conformance:{suite}_libtorch".
    std::string target = Config().target;
    const std::size_t at = target.find("{suite}");
    if (at != std::string::npos) target.replace(at, 7, SuiteOfSource(info.file()));
    return "bazel test " + target + " --test_filter='" + filter + "' --test_output=errors" +
           (property ? " --test_arg=--seed=" + Config().seed : "");
  }
  if (!Config().replay.empty()) {  // the runner run by hand: replayed cases are named by their id (the parameter)
    return "bazel run //conformance:replay -- " + Config().replay + " --candidate=" + Config().candidate +
           " --filter='" + (info.value_param() ? info.value_param() : filter) + "'";
  }
  return "<test binary> --candidate=" + Config().candidate + " --gtest_filter='" + filter + "'" +
         (property ? " --seed=" + Config().seed : "") + (Config().device.empty() ? "" : " --device=" + Config().device);
}

// ---------------------------------------------------------------- checks
const char* CheckName(Check check) {
  switch (check) {
#define TCTS_CHECK_NAME(e, name, needs) \
  case Check::e:                        \
    return name;
    TCTS_FORALL_CHECKS(TCTS_CHECK_NAME)
#undef TCTS_CHECK_NAME
  }
  return "?";
}

std::optional<Feature> CheckNeeds(Check check) {
  switch (check) {
#define TCTS_CHECK_NEEDS(e, name, needs) \
  case Check::e:                         \
    return needs;
    TCTS_FORALL_CHECKS(TCTS_CHECK_NEEDS)
#undef TCTS_CHECK_NEEDS
  }
  return std::nullopt;
}

Case::Case(const RowMeta& row, Candidate& candidate) : row_(row), candidate_(candidate) {}

void Case::Verdict(Check kind, int verdict) {
  for (auto& [k, v] : verdicts_) {
    if (k == kind) {
      v = std::max(v, verdict);
      return;
    }
  }
  verdicts_.emplace_back(kind, verdict);
}

void Case::Mismatch(Check kind, const std::string& check, const std::string& expected, const std::string& observed) {
  mismatches_.push_back({check, expected, observed, CheckName(kind)});
  Verdict(kind, 2);
}

void Case::Checked(Check kind) { Verdict(kind, 1); }

CaseRecord Case::Verdicts() const {
  static const char* const kVerdictNames[] = {"NOT_SUPPORTED", "PASS", "FAIL"};
  CaseRecord record;
  record.skipped_checks = skipped_checks_;
  for (const auto& [kind, verdict] : verdicts_) record.checks.push_back({CheckName(kind), kVerdictNames[verdict]});
  return record;
}

bool Case::Expect(Check kind, bool ok, const std::string& check, const std::string& expected,
                  const std::string& observed) {
  if (!Can(kind, check)) return true;  // skipped: it needs a feature declared unsupported (strides)
  Checked(kind);
  if (!ok) Mismatch(kind, check, expected, observed);
  return ok;
}

bool Case::Can(Check kind, const std::string& what) {
  const std::optional<Feature> needs = CheckNeeds(kind);
  // Supports records the feature used when the check can be made (strides has no op of its own:
  // this is how a case says it exercised it), skipped when not.
  return !needs || Supports(*needs, kind, what);
}

std::string Case::MismatchText() const {
  std::string text;
  for (const Diff& d : mismatches_) text += d.check + ": expected " + d.expected + ", observed " + d.observed + "\n";
  return text;
}

// Records a feature a case's checks used, once (the report's feature table and score).
static void Use(std::vector<Feature>* used, Feature feature) {
  if (std::find(used->begin(), used->end(), feature) == used->end()) used->push_back(feature);
}

bool Case::Supports(Feature feature, Check kind, const std::string& check) {
  if (candidate_.supports(feature)) {
    Use(&used_, feature);  // the sub-check runs: the case uses the feature (feature table, score)
    return true;
  }
  Skipped(feature, FeatureName(feature), kind, check);
  return false;
}

bool Case::SupportsOp(const char* op, Check kind, const std::string& check) {
  const Feature feature = FeatureOfOp(op).value_or(Feature::kTensors);
  if (candidate_.supports_op(op)) {
    Use(&used_, feature);
    return true;
  }
  Skipped(feature, op, kind, check);
  return false;
}

void Case::Skipped(Feature feature, const std::string& needs, Check kind, const std::string& check) {
  const std::string skipped = check + " (needs " + needs + ")";
  if (std::find(skipped_checks_.begin(), skipped_checks_.end(), skipped) == skipped_checks_.end())
    skipped_checks_.push_back(skipped);
  if (!first_skipped_feature_) first_skipped_feature_ = feature;
  Verdict(kind, 0);
}

void Case::NotSupported(Feature feature, const std::string& call) {
  if (not_supported_) return;  // the first one stopped the case
  not_supported_ = true;
  not_supported_feature_ = feature;
  not_supported_call_ = call;
}

bool Case::Usable(Feature feature, const char* op, const Error* error, const std::string& call, bool setup) {
  const bool declared = op ? candidate_.supports_op(op) : candidate_.supports(feature);
  const bool answered_unsupported = error && error->kind == ErrorKind::kNotSupported;
  if (setup && (!declared || answered_unsupported)) {
    NotSupported(feature, call);
    return false;
  }
  if (answered_unsupported) {
    if (declared) {
      Mismatch(Check::kDeclaration, call, std::string("an answer (") + FeatureName(feature) + " is declared supported)", Describe(*error));
    } else {
      NotSupported(feature, call);
    }
    return false;
  }
  if (!declared) {
    Mismatch(Check::kDeclaration, call, std::string("NotSupported (") + FeatureName(feature) + " is declared unsupported)",
             error ? Describe(*error) : "a value: the operation works");
    return false;
  }
  Use(&used_, feature);
  return true;
}

void Case::UndeclaredDType(DType dtype) { undeclared_dtype_ = DTypeName(dtype); }

bool DTypesDeclared(const RowMeta& row, Candidate& candidate) {
  std::istringstream names(row.dtypes ? row.dtypes : "");
  std::string name;
  while (names >> name) {
    const std::optional<DType> d = DTypeFromName(name);
    if (!d) {  // a generator bug, never the candidate's
      ADD_FAILURE() << "[tcts] row " << row.id << " names an unknown dtype '" << name << "' (RowMeta::dtypes)";
      return false;
    }
    if (!candidate.supports_dtype(*d)) {
      Case c(row, candidate);
      c.UndeclaredDType(*d);
      c.Finish();
      return false;
    }
  }
  return true;
}

void Case::Finish() {
  if (finished_) return;
  finished_ = true;
  ::testing::Test::RecordProperty("row", row_.id);
  ::testing::Test::RecordProperty("clause", row_.clause);
  ::testing::Test::RecordProperty("basis", row_.basis);
  if (row_.spec_row && *row_.spec_row) ::testing::Test::RecordProperty("spec_row", row_.spec_row);
  ::testing::Test::RecordProperty("candidate", Config().candidate);

  CaseRecord record = Verdicts();
  record.mismatches = mismatches_;
  for (Feature f : used_) record.features.push_back(FeatureName(f));
  const bool any_ran =
      std::any_of(verdicts_.begin(), verdicts_.end(), [](const std::pair<Check, int>& v) { return v.second > 0; });
  std::ostringstream report;
  report << "case " << row_.id << "\n"
         << "  clause:   " << row_.clause << "\n"
         << "  basis:    " << row_.basis << "\n";
  if (row_.spec_row && *row_.spec_row) report << "  spec row: " << row_.spec_row << "\n";
  report << "  row:      " << row_.text << "\n";
  for (const Diff& d : mismatches_) {
    report << "  check:    " << d.check << "\n"
           << "  expected: " << d.expected << "\n"
           << "  observed: " << d.observed << "\n";
  }
  report << "  rerun:    " << RerunCommand() << "\n";
  if (!mismatches_.empty()) {
    ::testing::Test::RecordProperty("expected", mismatches_.front().expected);
    ::testing::Test::RecordProperty("observed", mismatches_.front().observed);
  }

  if (!undeclared_dtype_.empty()) {
    record.outcome = "NOT_SUPPORTED";
    record.not_supported = "dtype " + undeclared_dtype_ + " (not declared)";
    record.dtype = undeclared_dtype_;
    record.mismatches.clear();
  } else if (not_supported_ && mismatches_.empty()) {
    record.outcome = "NOT_SUPPORTED";
    record.not_supported = not_supported_call_;
    record.feature = FeatureName(not_supported_feature_);
  } else if (mismatches_.empty() && !any_ran && first_skipped_feature_) {
    // Every check the case would make needs a feature the candidate declares unsupported.
    not_supported_ = true;
    not_supported_feature_ = *first_skipped_feature_;
    not_supported_call_ = skipped_checks_.front();
    record.outcome = "NOT_SUPPORTED";
    record.not_supported = not_supported_call_;
    record.feature = FeatureName(not_supported_feature_);
  } else {
    record.outcome = mismatches_.empty() ? "PASS" : "FAIL";
    record.reported_failure = !mismatches_.empty();
  }
  ::testing::Test::RecordProperty("outcome", record.outcome);
  const std::string outcome = record.outcome;
  RecordSlot() = std::move(record);

  if (outcome == "NOT_SUPPORTED" && !undeclared_dtype_.empty()) {
    GTEST_SKIP() << "NOT_SUPPORTED: " << Config().candidate << " declares no dtype " << undeclared_dtype_ << " (row "
                 << row_.id << ")";
  } else if (outcome == "NOT_SUPPORTED") {
    GTEST_SKIP() << "NOT_SUPPORTED: " << Config().candidate << " declares no support for " << not_supported_call_
                 << " (feature " << FeatureName(not_supported_feature_) << ", row " << row_.id << ")";
  } else if (outcome == "FAIL") {
    ADD_FAILURE() << "[tcts] FAIL " << report.str();
  }
}

// ---------------------------------------------------------------- properties
void StartProperty() { TallySlot() = PropertyTally(); }

void PropertyDrawChecked() {
  if (!TallySlot().failed) ++TallySlot().checked;
}

void PropertyNotSupported(const std::string& call, Feature feature) {
  if (!TallySlot().not_supported.empty()) return;
  TallySlot().not_supported = call;
  TallySlot().feature = FeatureName(feature);
}

void PropertyUndeclaredDTypes(const std::vector<DType>& missing) {
  if (!TallySlot().not_supported.empty() || missing.empty()) return;
  std::string names;
  for (DType d : missing) names += std::string(names.empty() ? "" : ", ") + DTypeName(d);
  // The text a table case gives (Case::Finish: "dtype bfloat16 (not declared)"), or all of them.
  TallySlot().not_supported = (missing.size() == 1 ? "dtype " : "dtypes ") + names + " (not declared)";
  TallySlot().dtype = DTypeName(missing.front());
}

const std::string& PropertyNotSupportedCall() { return TallySlot().not_supported; }

void PropertyDrawFailed() { TallySlot().failed = true; }

void PropertyChecks(const CaseRecord& draw) {
  PropertyTally& t = TallySlot();
  for (const std::string& s : draw.skipped_checks)
    if (std::find(t.skipped.begin(), t.skipped.end(), s) == t.skipped.end()) t.skipped.push_back(s);
  static const std::vector<std::string> order = {"NOT_SUPPORTED", "PASS", "FAIL"};
  auto rank = [](const std::string& o) { return std::find(order.begin(), order.end(), o) - order.begin(); };
  for (const CaseRecord::Verdict& v : draw.checks) {
    auto it = std::find_if(t.checks.begin(), t.checks.end(), [&](const CaseRecord::Verdict& w) { return w.check == v.check; });
    if (it == t.checks.end()) t.checks.push_back(v);
    else if (rank(v.outcome) > rank(it->outcome)) it->outcome = v.outcome;
  }
}

void FinishProperty() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = std::string(info->test_suite_name()) + "." + info->name();
  const RowMeta* row = FindProperty(test);
  const PropertyTally tally = TallySlot();
  TallySlot() = PropertyTally();
  ::testing::Test::RecordProperty("row", row ? row->id : test.c_str());
  ::testing::Test::RecordProperty("candidate", Config().candidate);
  ::testing::Test::RecordProperty("draws", std::to_string(tally.checked));

  CaseRecord record;
  record.draws = tally.checked;
  record.skipped_checks = tally.skipped;
  record.checks = tally.checks;
  if (::testing::Test::HasFailure()) {
    record.outcome = "FAIL";  // RapidCheck reported the counterexample
  } else if (!tally.not_supported.empty()) {
    record.outcome = "NOT_SUPPORTED";
    record.not_supported = tally.not_supported;
    record.feature = tally.feature;
    record.dtype = tally.dtype;
  } else if (tally.checked == 0) {
    record.outcome = "FAIL";
    record.mismatches.push_back({"checked draws", "at least one", "none: every draw ended before the checks", "setup"});
    ADD_FAILURE() << "[tcts] FAIL property " << (row ? row->id : test) << ": no draw reached its checks, "
                  << "so it would hold vacuously\n  rerun:    " << RerunCommand() << "\n";
  } else {
    record.outcome = "PASS";
  }
  ::testing::Test::RecordProperty("outcome", record.outcome);
  const std::string outcome = record.outcome;
  RecordSlot() = std::move(record);
  if (outcome == "NOT_SUPPORTED" && !tally.dtype.empty()) {
    GTEST_SKIP() << "NOT_SUPPORTED: " << Config().candidate << " declares no dtype property " << (row ? row->id : test)
                 << " could draw: " << tally.not_supported;
  } else if (outcome == "NOT_SUPPORTED") {
    GTEST_SKIP() << "NOT_SUPPORTED: " << Config().candidate << " declares no support for " << tally.not_supported
                 << " (property " << (row ? row->id : test) << ", " << tally.checked << " draws checked before)";
  }
}

DefaultDTypeScope::DefaultDTypeScope(Case& c, DType dtype) : candidate_(c.candidate()) {
  Candidate& cand = candidate_;
  // Every scope restores what it changed, so a row under the initial default finds it in place.
  if (dtype == kInitialDefaultDType && !cand.supports(Feature::kDefaultDType)) return;
  const auto prev = calls::default_dtype(cand);
  if (!c.Usable(prev, "default_dtype()")) {
    ok_ = false;
    return;
  }
  if (!prev.ok()) {  // an error other than NotSupported from a declared feature
    c.Mismatch(Check::kSetup, "default_dtype()", "the default dtype", Describe(prev.error()));
    ok_ = false;
    return;
  }
  if (prev.value() == dtype) return;
  const auto s = calls::set_default_dtype(cand, dtype);
  if (!c.Usable(s, std::string("set_default_dtype(") + DTypeName(dtype) + ")")) {
    ok_ = false;
    return;
  }
  if (!s.ok()) {
    c.Mismatch(Check::kSetup, std::string("set_default_dtype(") + DTypeName(dtype) + ")", "ok", Describe(s.error()));
    ok_ = false;
    return;
  }
  previous_ = prev.value();
}

DefaultDTypeScope::~DefaultDTypeScope() {
  if (previous_) candidate_.set_default_dtype(*previous_);
}

}  // namespace tcts
