// Tests of the harness itself: expectations parsing and matching, and how a case's
// outcome is decided (FAIL, XFAIL, XPASS, NOT_SUPPORTED and false capability claims).
#include "conformance/harness/harness.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace tcts {
namespace {

// A candidate that declares only promote_types supported.
class FakeCandidate final : public Candidate {
 public:
  std::string name() const override { return "fake"; }
  std::string version() const override { return "0"; }
  bool supports(Feature f) const override { return f == Feature::kPromoteTypes; }
};

class HarnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetCurrentCandidate(std::make_unique<FakeCandidate>());
    RunConfig config;
    config.candidate = "fake";
    config.expectations = "fake.txt";
    config.target = "//conformance:x_fake";
    SetConfig(config);
    Result<Expectations> e = Expectations::Parse("fake.txt",
                                                 "# comment\n"
                                                 "promote_types.int8.*  FAIL  listed deviation  # trailing comment\n");
    ASSERT_TRUE(e.ok()) << e.error().message;
    SetCurrentExpectations(e.value());
  }
  void TearDown() override { SetCurrentExpectations(Expectations()); }
};

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("binary.???.s_float.s_float", "binary.add.s_float.s_float"));
  EXPECT_FALSE(GlobMatch("binary.???.s_float.s_float", "binary.default_float64.add.s_float.s_float"));
  EXPECT_TRUE(GlobMatch("binary*.div.*", "binary.default_float64.div.t_int8.t_int8"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("a*b", "a"));
  EXPECT_TRUE(GlobMatch("a*b*c", "axxbyyc"));
}

TEST(ExpectationsParse, RejectsEntriesWithoutOutcomeOrReason) {
  Result<Expectations> no_reason = Expectations::Parse("x.txt", "\n\ncase.id FAIL\n");
  ASSERT_FALSE(no_reason.ok());
  EXPECT_NE(no_reason.error().message.find("x.txt:3"), std::string::npos) << no_reason.error().message;
  EXPECT_NE(no_reason.error().message.find("needs a reason"), std::string::npos);
  Result<Expectations> bad_outcome = Expectations::Parse("x.txt", "case.id PASSES because\n");
  ASSERT_FALSE(bad_outcome.ok());
  EXPECT_NE(bad_outcome.error().message.find("unknown outcome 'PASSES'"), std::string::npos);
  Result<Expectations> no_outcome = Expectations::Parse("x.txt", "case.id\n");
  ASSERT_FALSE(no_outcome.ok());
}

TEST(ExpectationsParse, KeepsPatternOutcomeReasonAndLine) {
  Result<Expectations> e = Expectations::Parse("x.txt", "# header\na.* FAIL  the reason, in words\n");
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e.value().entries().size(), 1u);
  EXPECT_EQ(e.value().entries()[0].pattern, "a.*");
  EXPECT_EQ(e.value().entries()[0].reason, "the reason, in words");
  EXPECT_EQ(e.value().entries()[0].line, 2);
  EXPECT_NE(e.value().Match("a.b"), nullptr);
  EXPECT_EQ(e.value().Match("b.a"), nullptr);
}

const RowMeta kUnlisted{"promote_types.uint8.bool", "002#type-promotion", "doc", "promote_types(uint8, bool) = uint8"};
const RowMeta kListed{"promote_types.int8.bool", "002#type-promotion", "doc", "promote_types(int8, bool) = int8"};

TEST_F(HarnessTest, UnlistedMismatchFailsWithRowClauseExpectedObservedAndRerun) {
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kUnlisted);
        c.Mismatch("promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "[tcts] FAIL case promote_types.uint8.bool");
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kUnlisted);
        c.Mismatch("promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "rerun:    bazel test //conformance:x_fake --test_filter=");
}

TEST_F(HarnessTest, ListedMismatchIsAnExpectedFailure) {
  Case c(kListed);
  c.Mismatch("promote_types(int8, bool)", "int8", "int16");
  c.Finish();  // no failure: XFAIL
  EXPECT_TRUE(c.failed());
}

TEST_F(HarnessTest, ListedCaseThatPassesIsAnUnexpectedPass) {
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kListed);
        c.Finish();
      },
      "[tcts] XPASS promote_types.int8.bool: listed in fake.txt:2");
}

TEST_F(HarnessTest, DeclaredUnsupportedAndAnsweredSoIsNotSupported) {
  Case c(kUnlisted);
  const Error e = NotSupported("can_cast");
  EXPECT_FALSE(c.Usable(Feature::kCanCast, &e, "can_cast(uint8, bool)"));
  EXPECT_TRUE(c.not_supported());
  EXPECT_FALSE(c.failed());
}

TEST_F(HarnessTest, DeclaredUnsupportedButWorkingIsFlagged) {
  Case c(kUnlisted);
  EXPECT_FALSE(c.Usable(Feature::kCanCast, nullptr, "can_cast(uint8, bool)"));
  EXPECT_TRUE(c.failed());
}

TEST_F(HarnessTest, DeclaredSupportedButAnsweringNotSupportedIsAMismatch) {
  Case c(kUnlisted);
  const Error e = NotSupported("promote_types");
  EXPECT_FALSE(c.Usable(Feature::kPromoteTypes, &e, "promote_types(uint8, bool)"));
  EXPECT_TRUE(c.failed());
  EXPECT_FALSE(c.not_supported());
}

// Properties: RapidCheck passes a property whose draws all ended before its checks; the
// harness does not.
TEST_F(HarnessTest, PropertyWithoutACheckedDrawFails) {
  StartProperty();
  EXPECT_NONFATAL_FAILURE(FinishProperty(), "no draw reached its checks");
  const std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "FAIL");
  EXPECT_EQ(r->draws, 0);
}

TEST_F(HarnessTest, PropertyRecordsItsCheckedDraws) {
  StartProperty();
  for (int i = 0; i < 3; ++i) PropertyDrawChecked();
  FinishProperty();
  const std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "PASS");
  EXPECT_EQ(r->draws, 3);
}

TEST_F(HarnessTest, OtherErrorsOfASupportedFeatureGoOnToTheCheck) {
  Case c(kUnlisted);
  const Error e{ErrorKind::kRuntimeError, "boom"};
  EXPECT_TRUE(c.Usable(Feature::kPromoteTypes, &e, "promote_types(uint8, bool)"));
  EXPECT_FALSE(c.failed());
}


}  // namespace
}  // namespace tcts
