// The conformance runner: a GoogleTest main that runs the linked suite against one
// candidate.
//
//   <suite>_<candidate> [--candidate=NAME] [--expectations=FILE] [--target=LABEL] [gtest flags]
//
// --candidate    which registered candidate to run (default: the only one linked in)
// --expectations the candidate's expectations file (conformance/expectations/NAME.txt)
// --target       the Bazel label of this test, used in the rerun command of a failure
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "conformance/harness.h"

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

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tcts::RunConfig config;
  for (int i = 1; i < argc; ++i) {
    if (TakeFlag(argv[i], "--candidate", &config.candidate) || TakeFlag(argv[i], "--expectations", &config.expectations) ||
        TakeFlag(argv[i], "--target", &config.target)) {
      continue;
    }
    std::cerr << "tcts: unknown argument '" << argv[i] << "' (expected --candidate=, --expectations=, --target= or gtest flags)\n";
    return 2;
  }
  const std::vector<std::string> registered = tcts::RegisteredCandidates();
  if (config.candidate.empty()) {
    if (registered.size() != 1) {
      std::cerr << "tcts: choose a candidate with --candidate=NAME; linked in: " << Join(registered) << "\n";
      return 2;
    }
    config.candidate = registered.front();
  }
  std::unique_ptr<tcts::Candidate> candidate = tcts::MakeCandidate(config.candidate);
  if (!candidate) {
    std::cerr << "tcts: unknown candidate '" << config.candidate << "'; linked in: " << Join(registered) << "\n";
    return 2;
  }
  if (!config.expectations.empty()) {
    tcts::Result<tcts::Expectations> e = tcts::Expectations::Load(config.expectations);
    if (!e.ok()) {
      std::cerr << "tcts: " << e.error().message << "\n";
      return 2;
    }
    std::cout << "[tcts] expectations: " << config.expectations << " (" << e.value().entries().size() << " entries)\n";
    tcts::SetCurrentExpectations(std::move(e.value()));
  }
  // RapidCheck properties: 1000 cases each unless RC_PARAMS says otherwise.
  if (!std::getenv("RC_PARAMS")) setenv("RC_PARAMS", "max_success=1000 verbose_progress=0", 1);
  std::cout << "[tcts] candidate: " << candidate->name() << " " << candidate->version() << "\n";
  tcts::SetCurrentCandidate(std::move(candidate));
  tcts::SetConfig(config);
  return RUN_ALL_TESTS();
}
