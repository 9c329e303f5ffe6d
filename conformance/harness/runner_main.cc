// The conformance runner: a GoogleTest main that runs the linked suite against one
// candidate.
//
//   <candidate>_bin [--candidate=NAME] [--candidate_option=KEY=VALUE ...] [--target=LABEL | --rerun=CMD] [--seed=N] [--device=DEVICE]
//                           [--tcts_suites=A,B] [--tcts_list=FILE]
//                           [--tcts_stream=FILE [--tcts_cases=FILE | --tcts_shard=I/K]
//                           [--tcts_announce_features] [--tcts_clean_process]] [gtest flags]
//
// The binary reports raw outcomes (PASS, FAIL, NOT_SUPPORTED). It never reads the
// candidate's expectations file: conformance/runner/run.py does, for `bazel run
// //conformance:run` and for the `bazel test` targets alike.
//
// --candidate    which registered candidate to run (default: the only one linked in)
// --candidate_option=KEY=VALUE  (repeated) what the candidate's factory takes: a testee's
//                `testee`, `testee_cwd`, `trace_dir`; faulty's `faults`, `supports`,
//                `missing_dtypes`; an option the candidate does not take is refused
// --target       the Bazel label of this suite's test, used in the rerun command of a failure
// --rerun        instead, a command that reruns a case given --filter='<case id>' (the runner's
//                `bazel run //conformance:run -- --testee=...`: a testee has no suite target)
// --seed         the RapidCheck seed (default: RC_PARAMS's, else a random one, printed and
//                recorded so that a property failure can be rerun)
// --device       run the suite with its tensors on DEVICE ("cuda", "cuda:1", "meta"): a testee is
//                asked in its handshake (hello's "device"), an in-process candidate (or a testee
//                that does not answer for it) is moved there by its default device; when the
//                candidate cannot (no GPU, no backend), every test is skipped with the reason
// The runner protocol (conformance/harness/stream.h): --tcts_suites narrows a binary that holds
// several suites to the named ones (before any other selection); --tcts_list writes the case list and exits;
// --tcts_stream streams each case's record; --tcts_cases runs only the listed tests, else
// --tcts_shard (share I of K, Selection) chooses them; --tcts_claims=FILE runs of them only the
// tests this process takes first among its group's (UseClaims); --tcts_announce_features adds every
// feature and the candidate's declaration to the stream's begin event; --tcts_clean_process lets
// a case that changed process-wide state end the process after it (exit status clean_process).
// --tcts_mutant=N  the live mutant of a mutant-schema build (conformance/mutation/schemata.py:
//                its switches read the flag from the command line themselves); accepted and
//                checked here, and nothing in an unmutated build reads it
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

#include "conformance/candidate/fresh_process.h"
#include "conformance/harness/harness.h"
#include "conformance/harness/stream.h"

namespace {

bool TakeFlag(const char* arg, const char* name, std::string* value) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) == 0 && arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none)" : s;
}

// The draws of each property unless RC_PARAMS says otherwise (its max_success).
constexpr long kMaxSuccess = 1000;

// The draws each property makes: RC_PARAMS's max_success, else kMaxSuccess (what the dealing of
// the tests to a run's processes weighs a property by, Selection::property_draws).
long PropertyDraws() {
  const char* env = std::getenv("RC_PARAMS");
  std::istringstream in(env ? env : "");
  long draws = kMaxSuccess;
  for (std::string token; in >> token;) {
    if (token.rfind("max_success=", 0) == 0) draws = std::strtol(token.c_str() + 12, nullptr, 10);
  }
  return std::max(1L, draws);
}

// RapidCheck's parameters for this run: RC_PARAMS as given, with kMaxSuccess cases per property
// and quiet progress unless it says otherwise, and an explicit seed (`seed`, else
// RC_PARAMS's, else a random one). Returns false when --seed is not a number.
bool ConfigureRapidCheck(std::string seed, std::string* seed_out) {
  const char* env = std::getenv("RC_PARAMS");
  std::istringstream in(env ? env : "");
  std::string params, token;
  bool has_max_success = false, has_progress = false;
  while (in >> token) {
    if (token.rfind("seed=", 0) == 0) {
      if (seed.empty()) seed = token.substr(5);
      continue;
    }
    has_max_success = has_max_success || token.rfind("max_success=", 0) == 0;
    has_progress = has_progress || token.rfind("verbose_progress=", 0) == 0;
    params += token + " ";
  }
  if (!has_max_success) params += "max_success=" + std::to_string(kMaxSuccess) + " ";
  if (!has_progress) params += "verbose_progress=0 ";
  if (seed.empty()) {
    std::random_device rd;
    seed = std::to_string((static_cast<unsigned long long>(rd()) << 32) ^ rd());
  }
  if (seed.find_first_not_of("0123456789") != std::string::npos) return false;
  setenv("RC_PARAMS", (params + "seed=" + seed).c_str(), 1);
  *seed_out = seed;
  return true;
}

}  // namespace

// Skips every test with one reason: the suite cannot run where it was asked to.
class SkipEverything : public ::testing::Environment {
 public:
  explicit SkipEverything(std::string why) : why_(std::move(why)) {}
  void SetUp() override { GTEST_SKIP() << why_; }

 private:
  std::string why_;
};

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tcts::RunConfig config;
  std::string seed, list, stream, shard, suites, claims;
  bool announce_features = false;
  tcts::Selection selection;
  tcts::CandidateConfig candidate_config;
  std::string error;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tcts_announce_features") == 0) {
      announce_features = true;
      continue;
    }
    if (std::strcmp(argv[i], "--tcts_clean_process") == 0) {
      tcts::EnableCleanProcess();  // the runner resumes after exit status clean_process
      continue;
    }
    if (std::string option; TakeFlag(argv[i], "--candidate_option", &option)) {
      if (!candidate_config.Add(option, &error)) {
        std::cerr << "tcts: " << error << "\n";
        return tcts::kExitUsage;
      }
      continue;
    }
    if (TakeFlag(argv[i], "--candidate", &config.candidate) || TakeFlag(argv[i], "--target", &config.target) ||
        TakeFlag(argv[i], "--rerun", &config.rerun) ||
        TakeFlag(argv[i], "--seed", &seed) || TakeFlag(argv[i], "--replay", &config.replay) ||
        TakeFlag(argv[i], "--device", &config.device) || TakeFlag(argv[i], "--tcts_list", &list) ||
        TakeFlag(argv[i], "--tcts_cases", &selection.cases_file) || TakeFlag(argv[i], "--tcts_stream", &stream) ||
        TakeFlag(argv[i], "--tcts_shard", &shard) || TakeFlag(argv[i], "--tcts_suites", &suites) ||
        TakeFlag(argv[i], "--tcts_weights", &selection.weights_file) || TakeFlag(argv[i], "--tcts_claims", &claims)) {
      continue;
    }
    if (std::string mutant; TakeFlag(argv[i], "--tcts_mutant", &mutant)) {
      if (mutant.empty() || mutant.find_first_not_of("0123456789") != std::string::npos) {
        std::cerr << "tcts: --tcts_mutant=" << mutant << ": expected a mutant's number (0 for none)\n";
        return tcts::kExitUsage;
      }
      continue;
    }
    std::cerr << "tcts: unknown argument '" << argv[i]
              << "' (expected --candidate=, --candidate_option=KEY=VALUE, --target=, --rerun=, --seed=, --replay=, --device=, --tcts_list=, "
                 "--tcts_stream=, --tcts_cases=, --tcts_shard=, --tcts_weights=, --tcts_suites=, --tcts_mutant=, --tcts_announce_features, --tcts_clean_process or gtest flags; expectations are applied by "
                 "conformance/runner/run.py)\n";
    return tcts::kExitUsage;
  }
  if (!shard.empty() && !tcts::ParseShard(shard, &selection)) {
    std::cerr << "tcts: --tcts_shard=" << shard << ": expected I/K with 0 <= I < K\n";
    return tcts::kExitUsage;
  }
  for (std::size_t start = 0; start < suites.size();) {
    std::size_t comma = suites.find(',', start);
    if (comma == std::string::npos) comma = suites.size();
    if (comma > start) selection.suites.insert(suites.substr(start, comma - start));
    start = comma + 1;
  }
  if (!tcts::LoadCaseFile(config.replay, &error)) {
    std::cerr << "tcts: " << error << "\n";
    return tcts::kExitUsage;
  }
  // The runner protocol chooses the tests itself (GoogleTest's --gtest_filter is replaced).
  selection.property_draws = PropertyDraws();
  std::vector<std::string> chosen;
  const bool selects = !selection.cases_file.empty() || selection.shards > 1 || !selection.suites.empty();
  if ((selects || !list.empty() || !stream.empty()) && !tcts::SelectCases(selection, &chosen, &error)) {
    std::cerr << "tcts: " << error << "\n";
    return tcts::kExitUsage;
  }
  if (!list.empty()) {
    if (!tcts::WriteCaseList(list, chosen, &error)) {
      std::cerr << "tcts: " << error << "\n";
      return tcts::kExitUsage;
    }
    return 0;
  }
  const std::vector<std::string> registered = tcts::RegisteredCandidates();
  if (config.candidate.empty()) {
    if (registered.size() != 1) {
      std::cerr << "tcts: choose a candidate with --candidate=NAME; linked in: " << Join(registered) << "\n";
      return tcts::kExitUsage;
    }
    config.candidate = registered.front();
  }
  if (!ConfigureRapidCheck(seed, &config.seed)) {
    std::cerr << "tcts: --seed must be a non-negative integer, got '" << seed << "'\n";
    return tcts::kExitUsage;
  }
  candidate_config.set_device(config.device == "cpu" ? "" : config.device);  // a testee's hello asks for it
  candidate_config.set_seed(std::strtoull(config.seed.c_str(), nullptr, 10));  // a testee's facts checked
  std::unique_ptr<tcts::Candidate> candidate = tcts::MakeCandidate(config.candidate, candidate_config);
  if (!candidate) {
    std::cerr << "tcts: unknown candidate '" << config.candidate << "'; linked in: " << Join(registered) << "\n";
    return tcts::kExitUsage;
  }
  if (const std::vector<std::string> untaken = candidate_config.Untaken(); !untaken.empty()) {
    std::cerr << "tcts: the candidate '" << config.candidate << "' takes no option " << Join(untaken)
              << " (--candidate_option)\n";
    return tcts::kExitUsage;
  }
  std::cout << "[tcts] candidate: " << candidate->name() << " " << candidate->version() << "\n"
            << "[tcts] RapidCheck seed: " << config.seed << "\n";
  std::string unusable;
  tcts::Feature missing = tcts::Feature::kDefaultDevice;
  const bool usable = tcts::UseDeviceForTensors(*candidate, &config, &unusable, &missing);
  if (usable) std::cout << "[tcts] tensors on: " << config.resolved_device << "\n";
  tcts::SetCurrentCandidate(std::move(candidate));
  tcts::SetConfig(config);
  if (!usable) {
    // Every test is skipped, saying why (no GPU, no backend, no default device): to the
    // runner as NOT_SUPPORTED records, to GoogleTest (bazel test) as skipped.
    std::cout << "[tcts] SKIPPED: " << unusable << "\n";
    if (!stream.empty()) {
      // A process of a claims group takes nothing (another may find the device usable); the
      // runner resumes, unclaimed, what no process of the group ran.
      const std::vector<std::string> not_run = claims.empty() ? chosen : std::vector<std::string>{};
      if (!tcts::StreamNotRun(stream, chosen, not_run, unusable, missing, announce_features, &error)) {
        std::cerr << "tcts: " << error << "\n";
        return tcts::kExitUsage;
      }
      return 0;
    }
    ::testing::AddGlobalTestEnvironment(new SkipEverything(unusable));
  }
  if (!claims.empty() && !tcts::UseClaims(claims, chosen, &error)) {
    std::cerr << "tcts: " << error << "\n";
    return tcts::kExitUsage;
  }
  if (!stream.empty()) {
    std::unique_ptr<::testing::TestEventListener> listener = tcts::MakeStreamListener(stream, chosen, announce_features, &error);
    if (!listener) {
      std::cerr << "tcts: " << error << "\n";
      return tcts::kExitUsage;
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(listener.release());
  }
  return RUN_ALL_TESTS();
}
