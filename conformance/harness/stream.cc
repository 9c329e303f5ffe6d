#include "conformance/harness/stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/candidate/fresh_process.h"
#include "conformance/harness/harness.h"

namespace tcts {

namespace {

std::string FullName(const ::testing::TestInfo& info) {
  return std::string(info.test_suite_name()) + "." + info.name();
}

template <class F>
void ForEachTest(F f) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(j);
      if (std::string(info.name()).rfind("DISABLED_", 0) != 0) f(info);
    }
  }
}

using Json = nlohmann::ordered_json;

// One line of the stream. Bytes that are not UTF-8 (a candidate's message may hold any)
// are replaced, never dropped silently into invalid JSON.
std::string Line(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string FailureText(const ::testing::TestResult& result) {
  std::string text;
  for (int i = 0; i < result.total_part_count(); ++i) {
    const ::testing::TestPartResult& part = result.GetTestPartResult(i);
    if (part.failed()) text += std::string(part.message()) + "\n";
  }
  return text;
}

// What a runner needs to name a case that never finished: its id, kind, row and rerun command.
struct ListedCase {
  std::string test, id, kind, clause, basis, statement, rerun, answer, suite, spec_row, inputs;
};
ListedCase ListCase(const ::testing::TestInfo& info);

Json CaseListJson(const std::vector<std::string>& tests) {
  std::map<std::string, std::pair<const ::testing::TestInfo*, int>> by_name;  // and its place in the binary
  int place = 0;
  ForEachTest([&](const ::testing::TestInfo& info) { by_name[FullName(info)] = {&info, place++}; });
  Json list = Json::array();
  for (const std::string& test : tests) {
    const auto& [info, order] = by_name.at(test);
    const ListedCase c = ListCase(*info);
    list.push_back({{"test", c.test},
                    {"id", c.id},
                    {"kind", c.kind},
                    {"clause", c.clause},
                    {"basis", c.basis},
                    {"statement", c.statement},
                    {"rerun", c.rerun},
                    {"answer", c.answer},
                    {"suite", c.suite},
                    {"spec_row", c.spec_row},
                    {"inputs", c.inputs},
                    {"order", order}});
  }
  return list;
}

class StreamListener : public ::testing::EmptyTestEventListener {
 public:
  StreamListener(std::FILE* f, std::vector<std::string> chosen, bool announce_features)
      : f_(f), chosen_(std::move(chosen)), announce_features_(announce_features) {}
  ~StreamListener() override { std::fclose(f_); }

  void OnTestProgramStart(const ::testing::UnitTest&) override {
    const Candidate& c = CurrentCandidate();
    Json begin = {{"event", "begin"}, {"candidate", {{"name", c.name()}, {"version", c.version()}, {"build", c.build()}}}};
    if (announce_features_) {
      Json features = Json::array();
      for (Feature f : AllFeatures()) features.push_back({{"name", FeatureName(f)}, {"supported", c.supports(f)}});
      begin["features"] = features;
    }
    // Every dtype, whether the doc lists it (the twelve are required) and the declaration:
    // cheap, so always.
    Json dtypes = Json::array();
    for (DType d : AllDTypes()) {
      dtypes.push_back({{"name", DTypeName(d)}, {"required", DTypeDocumented(d)}, {"supported", c.supports_dtype(d)}});
    }
    begin["dtypes"] = dtypes;
    begin["seed"] = Config().seed;
    begin["device"] = Config().resolved_device;  // the device the candidate's tensors claim
    begin["pid"] = getpid();
    begin["cases"] = CaseListJson(chosen_);
    Write(begin);
  }
  void OnTestStart(const ::testing::TestInfo& info) override {
    if (!Mine(info)) return;  // another process of the group runs it
    TakeCaseRecord();  // nothing of an earlier test carries over
    facts_at_start_ = CurrentCandidate().fact_counts();
    protocol_errors_at_start_ = CurrentCandidate().protocol_errors();
    Write({{"event", "start"}, {"test", FullName(info)}});
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!Mine(info)) return;
    const ::testing::TestResult& result = *info.result();
    std::optional<CaseRecord> record = TakeCaseRecord();
    std::string message = FailureText(result);
    // Failures beyond the one Finish() reports: an exception, an assertion in the check.
    int failures = 0;
    for (int i = 0; i < result.total_part_count(); ++i) failures += result.GetTestPartResult(i).failed();
    bool unclassified = false;
    if (!record) {
      // A test that stopped before Finish() or FinishProperty(): it decided nothing, so it
      // did not pass.
      record = CaseRecord{};
      if (result.Skipped() && !result.Failed()) {
        record->outcome = "NOT_SUPPORTED";
      } else {
        record->outcome = "FAIL";
        unclassified = result.Failed();
        if (!result.Failed()) message = "no verdict: the case ended without deciding its outcome (no Case::Finish)\n" + message;
      }
    } else if (!FindProperty(FullName(info)) && failures > (record->reported_failure ? 1 : 0)) {
      record->outcome = "FAIL";  // a failure the harness did not classify
      unclassified = true;
    }
    Json mismatches = Json::array();
    for (const CaseRecord::Diff& d : record->mismatches) {
      mismatches.push_back({{"check", d.check}, {"kind", d.kind}, {"expected", d.expected}, {"observed", d.observed}});
    }
    Json checks = Json::object();
    for (const CaseRecord::Verdict& v : record->checks) checks[v.check] = v.outcome;
    Json end = {{"event", "end"},
                {"test", FullName(info)},
                {"outcome", record->outcome},
                {"not_supported", record->not_supported},
                {"feature", record->feature},
                {"dtype", record->dtype},
                {"features", record->features},
                {"unclassified", unclassified},
                {"protocol_error", CurrentCandidate().protocol_errors() > protocol_errors_at_start_},
                {"mismatches", mismatches},
                {"skipped_checks", record->skipped_checks},
                {"checks", checks},
                {"message", message},
                {"ms", result.elapsed_time()}};
    if (record->draws >= 0) end["draws"] = record->draws;  // properties
    const Candidate::FactCounts facts = CurrentCandidate().fact_counts();
    if (facts.used > facts_at_start_.used) {  // version 3: the requests facts answered, and those checked
      end["facts"] = {{"used", facts.used - facts_at_start_.used}, {"checked", facts.checked - facts_at_start_.checked}};
    }
    Write(end);
    if (!FreshProcessRequested().empty()) {
      // The candidate cannot be trusted past this case (fresh_process.h): the runner resumes
      // with a new process from the next case.
      std::fprintf(stderr, "tcts: ending this process after '%s': %s\n", FullName(info).c_str(),
                   FreshProcessRequested().c_str());
      std::fflush(stderr);
      std::_Exit(CleanProcessOnly() ? kExitCleanProcess : kExitFreshProcess);
    }
    ForgetCleanRequest();  // not honoured without --tcts_clean_process
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override { Write({{"event", "done"}}); }

  // A chosen test that is not run at all: NOT_SUPPORTED for lack of `feature`, with the reason.
  void NotRun(const std::string& test, const std::string& why, const std::string& feature) {
    Write({{"event", "start"}, {"test", test}});
    Write({{"event", "end"},
           {"test", test},
           {"outcome", "NOT_SUPPORTED"},
           {"not_supported", why},
           {"feature", feature},
           {"features", Json::array()},
           {"unclassified", false},
           {"mismatches", Json::array()},
           {"message", why},
           {"ms", 0}});
  }

 private:
  void Write(const Json& event) {
    const std::string line = Line(event);
    std::fputs(line.c_str(), f_);
    std::fputc('\n', f_);
    std::fflush(f_);  // the runner reads it even if the next case kills the process
  }
  std::FILE* f_;
  std::vector<std::string> chosen_;
  Candidate::FactCounts facts_at_start_;
  std::int64_t protocol_errors_at_start_ = 0;
  bool announce_features_;
};

}  // namespace

std::string CaseId(const ::testing::TestInfo& info) {
  const std::string test = FullName(info);
  if (const RowMeta* p = FindProperty(test)) return p->id;
  if (info.value_param() != nullptr) return info.value_param();
  return test;
}

namespace {
ListedCase ListCase(const ::testing::TestInfo& info) {
  ListedCase c;
  c.test = FullName(info);
  c.id = CaseId(info);
  c.kind = FindProperty(c.test) ? "property" : "case";
  if (const RowMeta* row = FindRow(c.id)) {
    c.clause = row->clause;
    c.basis = row->basis;
    c.statement = row->text;
    c.answer = row->answer;
    c.spec_row = row->spec_row ? row->spec_row : "";
    c.inputs = row->inputs ? row->inputs : "";
  }
  c.rerun = RerunCommand(info);
  c.suite = SuiteOfSource(info.file());
  return c;
}
}  // namespace

bool WriteCaseList(const std::string& path, const std::vector<std::string>& chosen, std::string* error) {
  std::ofstream out(path);
  if (!out) {
    *error = "cannot write the case list '" + path + "'";
    return false;
  }
  // One JSON object a line, each as the begin event lists a case (stream.schema.json listed_case),
  // in the binary's order.
  std::set<std::string> wanted(chosen.begin(), chosen.end());
  std::vector<std::string> tests;
  ForEachTest([&](const ::testing::TestInfo& info) {
    if (wanted.count(FullName(info))) tests.push_back(FullName(info));
  });
  for (const Json& c : CaseListJson(tests)) out << c.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
  out.flush();
  if (!out) *error = "cannot write the case list '" + path + "'";
  return static_cast<bool>(out);
}

bool ParseShard(const std::string& text, Selection* s) {
  int i = 0, k = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &i, &slash, &k, &extra) != 3 || slash != '/' || k < 1 || i < 0 || i >= k) {
    return false;
  }
  s->shard = i;
  s->shards = k;
  return true;
}

namespace {
// A --tcts_weights file: "MS<TAB>TEST" lines (Selection). A line it cannot read is an error naming
// the file and the line (the runner wrote it: a bad one is a runner bug, not a reason to guess).
bool ReadWeights(const std::string& path, std::map<std::string, long>* weights, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read the weights '" + path + "'";
    return false;
  }
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab = line.find('\t');
    char* end = nullptr;
    errno = 0;
    const long ms = tab == std::string::npos ? -1 : std::strtol(line.c_str(), &end, 10);
    // At most a year a test (the shares' sums stay far from overflowing).
    constexpr long kMaxMs = 366L * 24 * 3600 * 1000;
    if (tab == std::string::npos || tab == 0 || end != line.c_str() + tab || errno != 0 || ms < 0 || ms > kMaxMs ||
        tab + 1 == line.size()) {
      *error = path + ":" + std::to_string(n) + ": expected MS<TAB>TEST, got '" + line.substr(0, 200) + "'";
      return false;
    }
    (*weights)[line.substr(tab + 1)] = ms;
  }
  return true;
}

// The share of each test of `work` (Selection: longest processing time first; round-robin when
// all weigh the same). Ties go to the lower share, then the earlier test.
std::vector<int> Shares(const std::vector<long>& work, int shards) {
  std::vector<std::size_t> by_work(work.size());
  for (std::size_t i = 0; i < by_work.size(); ++i) by_work[i] = i;
  // Heaviest first; equal work (all of it, without weights) in the tests' order.
  std::stable_sort(by_work.begin(), by_work.end(), [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  std::vector<int> share(work.size(), 0);
  std::vector<long> load(static_cast<std::size_t>(shards), 0);
  for (std::size_t i : by_work) {
    const int s = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    share[i] = s;
    load[static_cast<std::size_t>(s)] += work[i];
  }
  return share;
}

// Puts GoogleTest's filter back once GoogleTest has chosen the tests with it (FilterTests runs
// before OnTestProgramStart). GoogleTest copies every flag into each test object and back
// (GTestFlagSaver): a filter naming each chosen test (15,000 names, about 750 KB) cost every
// test two copies of it, a third of a suite process's time, and printed it whole into the log.
class PutFilterBack : public ::testing::EmptyTestEventListener {
 public:
  explicit PutFilterBack(std::string filter) : filter_(std::move(filter)) {}
  void OnTestProgramStart(const ::testing::UnitTest&) override { GTEST_FLAG_SET(filter, filter_); }

 private:
  std::string filter_;
};
}  // namespace

namespace {
// The claims of this process's group (UseClaims): the group's counter (the index in `chosen` of the
// next test nobody has taken, shared through the file's mapping), each chosen test's index, and
// the answer for the test asked last.
struct Claims {
  long long* next = nullptr;
  std::map<std::string, std::size_t> index;
  const ::testing::TestInfo* asked = nullptr;
  bool mine = true;
};
Claims& TheClaims() {
  static Claims claims;
  return claims;
}

// GoogleTest's printer, told only of the tests this process runs (the claims' gate).
class ClaimGate : public ::testing::EmptyTestEventListener {
 public:
  explicit ClaimGate(::testing::TestEventListener* inner) : inner_(inner) {}
  void OnTestProgramStart(const ::testing::UnitTest& u) override { inner_->OnTestProgramStart(u); }
  void OnTestIterationStart(const ::testing::UnitTest& u, int i) override { inner_->OnTestIterationStart(u, i); }
  void OnEnvironmentsSetUpStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpStart(u); }
  void OnEnvironmentsSetUpEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpEnd(u); }
  // Installed before the stream's listener, so that its OnTestStart claims each test first.
  void OnTestStart(const ::testing::TestInfo& info) override {
    current_ = &info;
    if (Mine(info)) inner_->OnTestStart(info);
  }
  // (GoogleTest holds its lock here: UnitTest::current_test_info() would wait for ever.)
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (current_ == nullptr || Mine(*current_)) inner_->OnTestPartResult(r);
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (Mine(info)) inner_->OnTestEnd(info);
    current_ = nullptr;
  }
  void OnEnvironmentsTearDownStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownStart(u); }
  void OnEnvironmentsTearDownEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownEnd(u); }
  // Left out: a test suite's lines and the run's summary, which count and list every test of the
  // group (OnTestSuiteStart/End, OnTestCaseStart/End, OnTestIterationEnd).
  void OnTestProgramEnd(const ::testing::UnitTest& u) override { inner_->OnTestProgramEnd(u); }

 private:
  std::unique_ptr<::testing::TestEventListener> inner_;
  const ::testing::TestInfo* current_ = nullptr;
};
}  // namespace

bool UseClaims(const std::string& path, const std::vector<std::string>& chosen, std::string* error) {
  if (GTEST_FLAG_GET(shuffle) || GTEST_FLAG_GET(repeat) != 1) {
    *error = "--tcts_claims: the group's processes walk one list once, in one order: not with GoogleTest's "
             "shuffle or repeat (--gtest_shuffle, --gtest_repeat, GTEST_SHUFFLE, GTEST_REPEAT)";
    return false;
  }
  const int fd = ::open(path.c_str(), O_RDWR);
  struct stat st;
  void* map = MAP_FAILED;
  if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(long long))) {
    map = ::mmap(nullptr, sizeof(long long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  if (fd >= 0) ::close(fd);  // the mapping stays
  if (map == MAP_FAILED) {
    *error = "--tcts_claims: cannot map the claims file '" + path + "' (a file of 8 bytes, read and written)";
    return false;
  }
  Claims& claims = TheClaims();
  claims.next = static_cast<long long*>(map);
  for (std::size_t i = 0; i < chosen.size(); ++i) claims.index.emplace(chosen[i], i);
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (::testing::TestEventListener* printer = listeners.Release(listeners.default_result_printer())) {
    listeners.Append(new ClaimGate(printer));
  }
  return true;
}

bool Mine(const ::testing::TestInfo& info) {
  Claims& claims = TheClaims();
  if (claims.next == nullptr) return true;
  if (claims.asked == &info) return claims.mine;
  claims.asked = &info;
  const auto it = claims.index.find(FullName(info));
  if (it == claims.index.end()) return claims.mine = true;  // not in the group's list: the filter keeps it out
  // Every process walks the list in the same order, so the test is taken (the counter is past it)
  // or the next to take: take it by moving the counter past it, atomically across the processes.
  const long long index = static_cast<long long>(it->second);
  long long next = __atomic_load_n(claims.next, __ATOMIC_SEQ_CST);
  claims.mine = false;
  while (next <= index && !claims.mine) {
    claims.mine = __atomic_compare_exchange_n(claims.next, &next, index + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
  if (!claims.mine) {
    // A test skipped before its fixture's SetUp (TestInfo::Run checks after constructing the
    // fixture, an empty class here) runs neither SetUp nor its body.
    GTEST_MESSAGE_AT_(__FILE__, __LINE__, "claimed by another process of the group",
                      ::testing::TestPartResult::kSkip);
  }
  return claims.mine;
}

bool SelectCases(const Selection& selection, std::vector<std::string>* chosen, std::string* error) {
  std::vector<const ::testing::TestInfo*> all;
  std::set<std::string> suites_seen;
  ForEachTest([&](const ::testing::TestInfo& info) {
    const std::string suite = SuiteOfSource(info.file());
    suites_seen.insert(suite);
    if (selection.suites.empty() || selection.suites.count(suite)) all.push_back(&info);
  });
  for (const std::string& suite : selection.suites) {
    if (!suites_seen.count(suite)) {
      std::string known;
      for (const std::string& k : suites_seen) known += (known.empty() ? "" : ", ") + (k.empty() ? "(unregistered)" : k);
      *error = "--tcts_suites: no suite '" + suite + "' in this binary; it holds " + known;
      return false;
    }
  }
  if (!selection.cases_file.empty()) {
    std::ifstream in(selection.cases_file);
    if (!in) {
      *error = "cannot read the case selection '" + selection.cases_file + "'";
      return false;
    }
    std::set<std::string> known;
    for (const ::testing::TestInfo* info : all) known.insert(FullName(*info));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      if (!known.count(line)) {
        *error = selection.cases_file + ":" + std::to_string(n) + ": no test named '" + line + "' in this binary";
        return false;
      }
      chosen->push_back(line);
    }
  } else {
    std::map<std::string, long> weights;
    if (!selection.weights_file.empty() && !ReadWeights(selection.weights_file, &weights, error)) return false;
    std::vector<std::string> names;
    std::vector<long> work;
    for (const ::testing::TestInfo* info : all) {
      names.push_back(FullName(*info));
      const auto w = weights.find(names.back());
      work.push_back(std::max(1L, w != weights.end()           ? w->second
                                  : FindProperty(names.back()) ? selection.property_draws
                                                               : 1L));
    }
    const std::vector<int> share = Shares(work, selection.shards);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (share[i] == selection.shard) chosen->push_back(names[i]);
    }
  }
  std::string filter;
  for (const std::string& test : *chosen) filter += (filter.empty() ? "" : ":") + test;
  ::testing::UnitTest::GetInstance()->listeners().Append(new PutFilterBack(GTEST_FLAG_GET(filter)));
  GTEST_FLAG_SET(filter, filter.empty() ? std::string("-*") : filter);  // "-*": nothing
  return true;
}

std::unique_ptr<::testing::TestEventListener> MakeStreamListener(const std::string& path,
                                                                 std::vector<std::string> chosen,
                                                                 bool announce_features, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    *error = "cannot open the result stream '" + path + "'";
    return nullptr;
  }
  return std::make_unique<StreamListener>(f, std::move(chosen), announce_features);
}

bool StreamNotRun(const std::string& path, const std::vector<std::string>& chosen,
                  const std::vector<std::string>& not_run, const std::string& why, Feature feature,
                  bool announce_features, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    *error = "cannot open the result stream '" + path + "'";
    return false;
  }
  StreamListener listener(f, chosen, announce_features);
  listener.OnTestProgramStart(*::testing::UnitTest::GetInstance());
  for (const std::string& test : not_run) listener.NotRun(test, why, FeatureName(feature));
  listener.OnTestProgramEnd(*::testing::UnitTest::GetInstance());
  return true;
}

}  // namespace tcts
