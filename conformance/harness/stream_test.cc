// Tests of the result stream (stream.h): raw outcomes, the feature that made a case
// NOT_SUPPORTED, the features a case used, every declared feature in the begin event, and a
// table case that ends without a verdict (no Case::Finish) streamed as FAIL, never PASS.
//
// The sample cases run in a child process (this binary with --sample_stream=FILE), so that
// their deliberate failures stay out of this test's own result and XML.
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/harness/harness.h"
#include "conformance/harness/stream.h"

namespace tcts {
namespace {

class FakeCandidate final : public Candidate {
 public:
  std::string name() const override { return "fake"; }
  std::string version() const override { return "0"; }
  bool supports(Feature f) const override { return f == Feature::kPromoteTypes; }
};

const RowMeta kRow{"sample.row", "002#type-promotion", "doc", "a sample row", "", "sample.rule"};

// ---------------------------------------------------------------- the samples (child only)
TEST(Sample, Passes) {
  Case c(kRow, CurrentCandidate());
  EXPECT_TRUE(c.Usable(Feature::kPromoteTypes, nullptr, "promote_types(int8, bool)"));
  // SelectCases' filter (every chosen test by name) is put back once GoogleTest has chosen the
  // tests: each test object copies every flag twice, which made a long filter quadratic.
  EXPECT_EQ(GTEST_FLAG_GET(filter), "*");
  c.Finish();
}

TEST(Sample, Fails) {
  Case c(kRow, CurrentCandidate());
  c.Mismatch(Check::kAnswer, "promote_types(int8, bool)", "int8", "int16");
  c.Finish();
}

TEST(Sample, NotSupported) {
  Case c(kRow, CurrentCandidate());
  const Error e = NotSupported("can_cast");
  c.Usable(Feature::kCanCast, &e, "can_cast(int8, bool)");
  c.Finish();
}

TEST(Sample, NoVerdict) {  // returns without Case::Finish: decided nothing
  Case c(kRow, CurrentCandidate());
  c.Usable(Feature::kPromoteTypes, nullptr, "promote_types(int8, bool)");
}

TEST(Sample, Throws) {
  Case c(kRow, CurrentCandidate());
  throw std::runtime_error("boom");
}

const std::vector<std::string> kSamples = {"Sample.Passes", "Sample.Fails", "Sample.NotSupported", "Sample.NoVerdict",
                                           "Sample.Throws"};

// The row the case list gives Sample.Passes (a plain test's case id is its name).
const RowMeta kListedRow{"Sample.Passes", "002#type-promotion", "doc", "a listed sample", "int8", "sample.rule"};

int RunSamples(const std::string& stream) {
  SetCurrentCandidate(std::make_unique<FakeCandidate>());
  RunConfig config;
  config.candidate = "fake";
  SetConfig(config);
  RegisterRow(kListedRow);
  std::string error;
  // The samples chosen as the runner chooses tests: by name, in a case file.
  Selection selection;
  selection.cases_file = stream + ".cases";
  {
    std::ofstream cases(selection.cases_file);
    for (const std::string& test : kSamples) cases << test << "\n";
  }
  std::vector<std::string> chosen;
  if (!SelectCases(selection, &chosen, &error) || chosen != kSamples) {
    std::fprintf(stderr, "SelectCases: %s\n", error.c_str());
    return 2;
  }
  if (!WriteCaseList(stream + ".list", kSamples, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  auto listener = MakeStreamListener(stream, kSamples, /*announce_features=*/true, &error);
  if (!listener) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  ::testing::UnitTest::GetInstance()->listeners().Append(listener.release());
  const int failed = RUN_ALL_TESTS();  // some samples fail by design
  return failed == 1 ? 0 : 3;
}

// ---------------------------------------------------------------- the test
using Json = nlohmann::json;

TEST(Stream, RawOutcomesFeaturesAndNoVerdict) {
  char self[PATH_MAX] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp ? tmp : "/tmp";
  const std::string stream = dir + "/stream_test." + std::to_string(getpid()) + ".jsonl";
  std::remove(stream.c_str());
  const std::string command =
      "env -u XML_OUTPUT_FILE -u GTEST_OUTPUT -u TESTBRIDGE_TEST_ONLY -u TEST_SHARD_STATUS_FILE -u TEST_TOTAL_SHARDS "
      "-u TEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX '" +
      std::string(self) + "' --sample_stream='" + stream + "' > '" + stream + ".log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  std::ifstream in(stream);
  ASSERT_TRUE(in) << stream;
  Json begin;
  std::map<std::string, Json> end;
  bool done = false;
  for (std::string line; std::getline(in, line);) {
    const Json event = Json::parse(line);
    if (event["event"] == "begin") begin = event;
    if (event["event"] == "end") end[event["test"].get<std::string>()] = event;
    if (event["event"] == "done") done = true;
  }
  EXPECT_TRUE(done);

  // The case list (the begin event's and the file's) carries each row's fields.
  ASSERT_EQ(begin["cases"].size(), kSamples.size());
  EXPECT_EQ(begin["cases"][0]["test"], "Sample.Passes");
  EXPECT_EQ(begin["cases"][0]["answer"], "int8");
  EXPECT_EQ(begin["cases"][0]["spec_row"], "sample.rule");
  EXPECT_EQ(begin["cases"][1]["spec_row"], "");  // no row registered
  std::ifstream list(stream + ".list");
  std::string first;
  ASSERT_TRUE(std::getline(list, first)) << stream << ".list";
  // The file's lines are the begin event's cases, one JSON object a line, in order.
  EXPECT_EQ(Json::parse(first), begin["cases"][0]) << first;
  std::string second;
  ASSERT_TRUE(std::getline(list, second)) << stream << ".list";
  EXPECT_EQ(Json::parse(second), begin["cases"][1]) << second;

  ASSERT_TRUE(begin.contains("features"));
  EXPECT_EQ(begin["features"].size(), AllFeatures().size());
  for (const Json& f : begin["features"]) {
    EXPECT_EQ(f["supported"].get<bool>(), f["name"] == "promote_types") << f.dump();
  }
  // Every dtype, whether the doc lists it, and the declaration (this candidate: every dtype).
  ASSERT_TRUE(begin.contains("dtypes"));
  EXPECT_EQ(begin["dtypes"].size(), AllDTypes().size());
  for (const Json& d : begin["dtypes"]) {
    EXPECT_TRUE(d["supported"].get<bool>()) << d.dump();
    // Required: the documents' twelve (spec/dtypes.toml documented); complex32 and uint16/32/64 not.
    const std::string name = d["name"].get<std::string>();
    const bool extended = name == "complex32" || name == "uint16" || name == "uint32" || name == "uint64";
    EXPECT_EQ(d["required"].get<bool>(), !extended) << d.dump();
  }

  ASSERT_EQ(end.size(), kSamples.size());
  EXPECT_EQ(end["Sample.Passes"]["outcome"], "PASS");
  EXPECT_EQ(end["Sample.Passes"]["features"], Json::array({"promote_types"}));
  EXPECT_EQ(end["Sample.Passes"]["unclassified"], false);

  EXPECT_EQ(end["Sample.Fails"]["outcome"], "FAIL");
  EXPECT_EQ(end["Sample.Fails"]["mismatches"].size(), 1u);
  EXPECT_EQ(end["Sample.Fails"]["unclassified"], false);

  EXPECT_EQ(end["Sample.NotSupported"]["outcome"], "NOT_SUPPORTED");
  EXPECT_EQ(end["Sample.NotSupported"]["feature"], "can_cast");
  EXPECT_EQ(end["Sample.NotSupported"]["not_supported"], "can_cast(int8, bool)");

  EXPECT_EQ(end["Sample.NoVerdict"]["outcome"], "FAIL");  // was PASS: a case that decided nothing
  EXPECT_NE(end["Sample.NoVerdict"]["message"].get<std::string>().find("no verdict"), std::string::npos);

  EXPECT_EQ(end["Sample.Throws"]["outcome"], "FAIL");
  EXPECT_EQ(end["Sample.Throws"]["unclassified"], true);
}

}  // namespace
}  // namespace tcts

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--sample_stream=", 16) == 0) return tcts::RunSamples(argv[i] + 16);
  }
  if (GTEST_FLAG_GET(filter) == "*") GTEST_FLAG_SET(filter, "-Sample.*");
  return RUN_ALL_TESTS();
}
