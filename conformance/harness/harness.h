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
};

// ---------------------------------------------------------------- run configuration
struct RunConfig {
  std::string candidate;     // --candidate=NAME
  std::string target;        // --target=LABEL (for rerun commands)
  std::string seed;          // the RapidCheck seed of this run (decimal), for rerun commands
  std::string replay;        // --replay=FILE when running a replay file (conformance/replay.h)
  // --device=DEVICE: the suite runs with every tensor it makes on DEVICE ("cuda", "cuda:1"),
  // through the candidate's default device (torch.set_default_device). Empty: the cpu.
  std::string device;
  // The device those tensors report (meta().device of a probe: "cuda:0" for "cuda").
  std::string resolved_device;
};
const RunConfig& Config();
void SetConfig(RunConfig config);
// Whether the suite's tensors live on the cpu (no --device, or --device=cpu).
bool TensorsOnCpu();

// Puts the suite's tensors on config->device: checks the candidate can make a tensor there,
// makes it the default device, and records the resolved device. Returns false with the
// reason (for skipping every test) and the feature that is missing when it cannot:
// default_device when the candidate has none, cuda_tensors for a cuda device it cannot
// use, device_factories for another device.
bool UseDeviceForTensors(Candidate& candidate, RunConfig* config, std::string* why, Feature* feature);

// Every feature of the candidate interface (Feature, in declaration order).
std::vector<Feature> AllFeatures();

// A suite that takes its cases from a file (the replay suite, conformance/replay.h)
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

// ---------------------------------------------------------------- case records
// What one finished case reports: its raw outcome and every mismatch.
// (The row itself is registered, below; the runner has it from the case list.)
struct CaseRecord {
  struct Diff {
    std::string check, expected, observed;
  };
  std::string outcome;        // PASS, FAIL, NOT_SUPPORTED
  std::string not_supported;  // the call the candidate declared unsupported
  std::string feature;        // its Feature (FeatureName), for NOT_SUPPORTED
  std::vector<std::string> features;  // the features the case's checks went on to use
  std::vector<Diff> mismatches;
  bool reported_failure = false;  // Finish() added the test's "[tcts] FAIL" failure
};
// The record of the case the current test finished (Case::Finish), once; nullopt when
// none finished (a property, or a test that stopped early).
std::optional<CaseRecord> TakeCaseRecord();

// Rows by id, as tests register them: RowName for table rows (when GoogleTest names the
// cases), TCTS_PROP for properties, the replay loader for replayed cases. A runner names
// a case that never finished (it crashed) from here.
void RegisterRow(const RowMeta& row);
const RowMeta* FindRow(const std::string& id);
// A RapidCheck property test ("Suite.Name") and its row; the row's basis is "property".
bool RegisterProperty(const char* test, const char* id, const char* clause, const char* text);
// The row of property test "Suite.Name", or nullptr when it is not a property.
const RowMeta* FindProperty(const std::string& test);

// A RapidCheck property test with its row (id, clause, statement):
//   TCTS_PROP(PromotionProperties, IsCommutative, "property.promote_types.commutative",
//             "002#type-promotion", "promote_types(a, b) == promote_types(b, a)") { ... }
#define TCTS_PROP(Suite, Name, id, clause, text)                                                  \
  static const bool tcts_property_##Suite##_##Name = ::tcts::RegisterProperty(#Suite "." #Name, id, \
                                                                               clause, text);     \
  RC_GTEST_PROP(Suite, Name, ())

// ---------------------------------------------------------------- a case
class Case {
 public:
  explicit Case(const RowMeta& row);
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;

  // Records a difference between the spec and the candidate.
  void Mismatch(const std::string& check, const std::string& expected, const std::string& observed);
  // Checks a call's answer against the candidate's declared capabilities. Returns true
  // when the check should go on to look at the answer; false when the candidate does not
  // support the feature (outcome NOT_SUPPORTED, or a mismatch if the claim was false).
  bool Usable(Feature feature, const Error* error, const std::string& call);
  template <class T>
  bool Usable(Feature feature, const Result<T>& r, const std::string& call) {
    return Usable(feature, r.ok() ? nullptr : &r.error(), call);
  }
  bool failed() const { return !mismatches_.empty(); }
  // The mismatches so far, one per line ("check: expected X, observed Y"); properties
  // use it as their failure message.
  std::string MismatchText() const;
  bool not_supported() const { return not_supported_; }
  // The feature that made the case NOT_SUPPORTED (valid when not_supported()).
  Feature not_supported_feature() const { return not_supported_feature_; }
  // The features the case's checks were allowed to go on with (Usable() returned true).
  const std::vector<Feature>& used_features() const { return used_; }
  const RowMeta& row() const { return row_; }

  // Decides and reports the outcome. Call once, at the end of the test body.
  void Finish();

 private:
  using Diff = CaseRecord::Diff;
  RowMeta row_;
  std::vector<Diff> mismatches_;
  bool not_supported_ = false;
  Feature not_supported_feature_ = Feature::kTensors;
  std::string not_supported_call_;
  std::vector<Feature> used_;
  bool finished_ = false;
};

// "RuntimeError: message" / "ok".
std::string Describe(const Error& e);
// The command that reruns only `test` (with this run's seed for a property; through the
// replay runner for a replayed case), or only the current test.
std::string RerunCommand(const ::testing::TestInfo& test);
std::string RerunCommand();

// Sets the candidate's default dtype for a scope and restores the previous one.
class DefaultDTypeScope {
 public:
  DefaultDTypeScope(Case& c, DType dtype);
  ~DefaultDTypeScope();
  bool ok() const { return ok_; }

 private:
  std::optional<DType> previous_;
  bool ok_ = true;
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_HARNESS_H_
