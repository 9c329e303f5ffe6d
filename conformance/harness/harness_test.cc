// Tests of the harness itself: how a case's raw outcome is decided (PASS, FAIL,
// NOT_SUPPORTED with its feature, false capability claims) and what it records. Expectations
// (XFAIL, XPASS) are the runner's: conformance/runner/expectations_test.py.
#include "conformance/harness/harness.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

namespace tcts {
namespace {

// A candidate that declares only promote_types supported.
class FakeCandidate final : public Candidate {
 public:
  std::string name() const override { return "fake"; }
  std::string version() const override { return "0"; }
  bool supports(Feature f) const override { return f == Feature::kPromoteTypes; }
  bool supports_dtype(DType d) const override { return d != DType::kBfloat16; }  // as NumPy
};

class HarnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetCurrentCandidate(std::make_unique<FakeCandidate>());
    RunConfig config;
    config.candidate = "fake";
    config.target = "//conformance:x_fake";
    SetConfig(config);
    TakeCaseRecord();
  }
};

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("binary.???.s_float.s_float", "binary.add.s_float.s_float"));
  EXPECT_FALSE(GlobMatch("binary.???.s_float.s_float", "binary.default_float64.add.s_float.s_float"));
  EXPECT_TRUE(GlobMatch("binary*.div.*", "binary.default_float64.div.t_int8.t_int8"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("a*b", "a"));
  EXPECT_TRUE(GlobMatch("a*b*c", "axxbyyc"));
}

const RowMeta kRowA{"promote_types.uint8.bool", "002#type-promotion", "doc", "promote_types(uint8, bool) = uint8", "uint8",
                    "promote_types"};
const RowMeta kRowB{"promote_types.int8.bool", "002#type-promotion", "doc", "promote_types(int8, bool) = int8", "int8",
                    "promote_types"};

TEST_F(HarnessTest, UnlistedMismatchFailsWithRowClauseExpectedObservedAndRerun) {
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kRowA, CurrentCandidate());
        c.Mismatch(Check::kAnswer, "promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "[tcts] FAIL case promote_types.uint8.bool");
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kRowA, CurrentCandidate());
        c.Mismatch(Check::kAnswer, "promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "rerun:    bazel test //conformance:x_fake --test_filter=");
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kRowA, CurrentCandidate());
        c.Mismatch(Check::kAnswer, "promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "  basis:    doc\n  spec row: promote_types\n  row:      promote_types(uint8, bool) = uint8\n");
}

TEST_F(HarnessTest, AMismatchIsARawFailWhateverTheExpectationsSay) {
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kRowB, CurrentCandidate());
        c.Mismatch(Check::kAnswer, "promote_types(int8, bool)", "int8", "int16");
        c.Finish();
      },
      "[tcts] FAIL case promote_types.int8.bool");
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "FAIL");
  EXPECT_TRUE(r->reported_failure);
  ASSERT_EQ(r->mismatches.size(), 1u);
  EXPECT_EQ(r->mismatches[0].observed, "int16");
}

// The fake candidate declares values unsupported (as the meta device): a values check is
// NOT_SUPPORTED by itself, and the case is judged on the checks that ran.
TEST_F(HarnessTest, EachCheckHasItsOwnVerdict) {
  {
    Case c(kRowB, CurrentCandidate());
    c.Checked(Check::kDType);
    EXPECT_FALSE(c.Can(Check::kValues, "values of the result"));
    c.Mismatch(Check::kStrides, "add(a, b) strides", "[1]", "[2]");
    EXPECT_NONFATAL_FAILURE(c.Finish(), "[tcts] FAIL case promote_types.int8.bool");
  }
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "FAIL");
  ASSERT_EQ(r->checks.size(), 3u);
  EXPECT_EQ(r->checks[0].check, "dtype");
  EXPECT_EQ(r->checks[0].outcome, "PASS");
  EXPECT_EQ(r->checks[1].check, "values");
  EXPECT_EQ(r->checks[1].outcome, "NOT_SUPPORTED");
  EXPECT_EQ(r->checks[2].check, "strides");
  EXPECT_EQ(r->checks[2].outcome, "FAIL");
  EXPECT_EQ(r->mismatches[0].kind, "strides");
  EXPECT_EQ(r->skipped_checks, std::vector<std::string>{"values of the result (needs values)"});
}

TEST_F(HarnessTest, ACaseWhoseOnlyChecksNeedValuesIsNotSupported) {
  {
    Case c(kRowB, CurrentCandidate());
    EXPECT_FALSE(c.Can(Check::kValues, "values of the result"));
    c.Finish();
  }
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "NOT_SUPPORTED");
  EXPECT_EQ(r->feature, "values");
  {
    Case c(kRowB, CurrentCandidate());
    c.Checked(Check::kError);
    EXPECT_FALSE(c.Can(Check::kValues, "values of the result"));
    c.Finish();
  }
  r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "PASS");  // judged on its error check; values named as not supported
  EXPECT_EQ(r->checks.back().outcome, "NOT_SUPPORTED");
}

TEST_F(HarnessTest, NoMismatchIsARawPassAndNamesTheFeaturesUsed) {
  Case c(kRowB, CurrentCandidate());
  EXPECT_TRUE(c.Usable(Feature::kPromoteTypes, nullptr, "promote_types(int8, bool)"));
  EXPECT_TRUE(c.Usable(Feature::kPromoteTypes, nullptr, "promote_types(bool, int8)"));
  c.Finish();
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, "PASS");
  EXPECT_FALSE(r->reported_failure);
  EXPECT_EQ(r->features, std::vector<std::string>{"promote_types"});
  EXPECT_EQ(r->feature, "");
}

TEST(AllFeatures, ListsEveryFeatureInOrder) {
  // Generated from spec/features.toml: one per row, each named, none twice.
  const std::vector<Feature> all = AllFeatures();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kFeatureCount));
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(all[i]), i);
    EXPECT_STRNE(FeatureName(all[i]), "?");
    EXPECT_TRUE(names.insert(FeatureName(all[i])).second) << FeatureName(all[i]);
  }
}

TEST_F(HarnessTest, DeclaredUnsupportedAndAnsweredSoIsNotSupported) {
  Case c(kRowA, CurrentCandidate());
  const Error e = NotSupported("can_cast");
  EXPECT_FALSE(c.Usable(Feature::kCanCast, &e, "can_cast(uint8, bool)"));
  EXPECT_TRUE(c.not_supported());
  EXPECT_EQ(c.not_supported_feature(), Feature::kCanCast);
  EXPECT_TRUE(c.used_features().empty());
  EXPECT_FALSE(c.failed());
}

// A call helper carries its op's feature (spec/interface.toml), whatever the candidate declares:
// can_cast answers NotSupported from the fake, which does not declare can_cast, so the case is
// NOT_SUPPORTED naming can_cast; a helper of another op would name another feature.
TEST_F(HarnessTest, CallHelpersCarryTheirOpsFeature) {
  Candidate& cand = CurrentCandidate();
  EXPECT_EQ(calls::can_cast(cand, DType::kUint8, DType::kBool).feature(), Feature::kCanCast);
  EXPECT_EQ(calls::make_tensor(cand, {1}, DType::kInt8, {Scalar::Int(0)}).feature(), Feature::kTensors);
  EXPECT_EQ(calls::meta(cand, nullptr).feature(), Feature::kTensors);
  EXPECT_EQ(calls::binary_out(cand, BinaryOp::kAdd, Scalar::Int(1), Scalar::Int(1), Scalar::Int(1), nullptr).feature(),
            Feature::kBinaryOut);
  EXPECT_EQ(calls::set_default_dtype(cand, DType::kFloat64).feature(), Feature::kDefaultDType);
  EXPECT_EQ(calls::exit_device(cand).feature(), Feature::kDefaultDevice);
  // As(): the arguments ask for another feature (an answer's).
  EXPECT_EQ(calls::empty_on(cand, {1}, DType::kFloat32, std::string("cuda")).As(Feature::kCudaTensors).feature(),
            Feature::kCudaTensors);
  // status(): the outcome without the value, under the same feature.
  const Called<void> st = calls::binary(cand, BinaryOp::kMul, Scalar::Int(1), Scalar::Int(1), Scalar::Int(1)).status();
  EXPECT_EQ(st.feature(), Feature::kBinaryOps);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kNotSupported);

  Case c(kRowA, CurrentCandidate());
  EXPECT_FALSE(c.Usable(calls::can_cast(cand, DType::kUint8, DType::kBool), "can_cast(uint8, bool)"));
  EXPECT_TRUE(c.not_supported());
  EXPECT_EQ(c.not_supported_feature(), Feature::kCanCast);
  EXPECT_FALSE(c.failed());
}

// An adapter's declared features are derived from the ops it overrides (CandidateOf): both ops of
// tensors (make_tensor, meta), promote_types; of the answer features, what answers() says.
class DerivedCandidate final : public CandidateOf<DerivedCandidate> {
 public:
  std::string name() const override { return "derived"; }
  std::string version() const override { return "0"; }
  Result<DType> promote_types(DType a, DType) override { return a; }
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>&, DType, const std::vector<Scalar>&) override {
    return NotSupported("make_tensor");
  }
  Result<TensorMeta> meta(const TensorHandle&) override { return NotSupported("meta"); }

 protected:
  bool answers(Feature f) const override { return f == Feature::kDeviceRepr; }
};

TEST(CandidateOf, DeclaresTheFeaturesOfTheOpsItOverridesAndTheAnswersItHas) {
  const DerivedCandidate cand;
  std::set<std::string> declared;
  for (Feature f : AllFeatures())
    if (cand.supports(f)) declared.insert(FeatureName(f));
  EXPECT_EQ(declared, (std::set<std::string>{"promote_types", "tensors", "device_repr"}));
  EXPECT_TRUE(IsAnswerFeature(Feature::kSparseLayout));
  EXPECT_FALSE(IsAnswerFeature(Feature::kTensors));
}

TEST_F(HarnessTest, DeclaredUnsupportedButWorkingIsFlagged) {
  Case c(kRowA, CurrentCandidate());
  EXPECT_FALSE(c.Usable(Feature::kCanCast, nullptr, "can_cast(uint8, bool)"));
  EXPECT_TRUE(c.failed());
}

TEST_F(HarnessTest, DeclaredSupportedButAnsweringNotSupportedIsAMismatch) {
  Case c(kRowA, CurrentCandidate());
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

// A property with no declared dtype to draw is NOT_SUPPORTED naming the dtypes (counted under
// the first, as a table case under the dtype its row needs); later draws change nothing.
TEST_F(HarnessTest, APropertyWithNoDeclaredDTypeIsNotSupportedNamingThem) {
  StartProperty();
  PropertyUndeclaredDTypes({DType::kBfloat16, DType::kComplex32});
  EXPECT_EQ(PropertyNotSupportedCall(), "dtypes bfloat16, complex32 (not declared)");
  PropertyUndeclaredDTypes({DType::kInt8});
  PropertyNotSupported("promote_types(int8, int8)", Feature::kPromoteTypes);
  FinishProperty();
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->outcome, "NOT_SUPPORTED");
  EXPECT_EQ(r->dtype, "bfloat16");
  EXPECT_EQ(r->feature, "");
  EXPECT_EQ(r->not_supported, "dtypes bfloat16, complex32 (not declared)");
  EXPECT_EQ(r->draws, 0);

  StartProperty();  // one dtype: the text a table case gives
  PropertyUndeclaredDTypes({DType::kBfloat16});
  FinishProperty();
  r = TakeCaseRecord();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->not_supported, "dtype bfloat16 (not declared)");
}

TEST_F(HarnessTest, OtherErrorsOfASupportedFeatureGoOnToTheCheck) {
  Case c(kRowA, CurrentCandidate());
  const Error e{ErrorKind::kRuntimeError, "boom"};
  EXPECT_TRUE(c.Usable(Feature::kPromoteTypes, &e, "promote_types(uint8, bool)"));
  EXPECT_FALSE(c.failed());
}


// A row that needs a dtype the candidate does not declare is NOT_SUPPORTED, naming the dtype,
// and its check is not run; a row of declared dtypes runs.
TEST_F(HarnessTest, ARowNeedingAnUndeclaredDTypeIsNotSupportedNamingIt) {
  RowMeta needs = kRowA;
  needs.dtypes = "bfloat16 uint8";
  EXPECT_FALSE(DTypesDeclared(needs, CurrentCandidate()));
  std::optional<CaseRecord> r = TakeCaseRecord();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->outcome, "NOT_SUPPORTED");
  EXPECT_EQ(r->dtype, "bfloat16");
  EXPECT_EQ(r->feature, "");
  EXPECT_EQ(r->not_supported, "dtype bfloat16 (not declared)");
  needs.dtypes = "bool uint8";
  EXPECT_TRUE(DTypesDeclared(needs, CurrentCandidate()));
  EXPECT_FALSE(TakeCaseRecord());  // nothing decided: the check runs
}

// --rerun: a testee has no suite target; the rerun command is the runner's, narrowed to the case.
TEST_F(HarnessTest, RerunWithTheRunnersCommandNamesTheCaseId) {
  RunConfig config = Config();
  config.rerun = "bazel run //conformance:run -- --testee='./t' --candidate='t'";
  SetConfig(config);
  EXPECT_NONFATAL_FAILURE(
      {
        Case c(kRowA, CurrentCandidate());
        c.Mismatch(Check::kAnswer, "promote_types(uint8, bool)", "uint8", "int16");
        c.Finish();
      },
      "rerun:    bazel run //conformance:run -- --testee='./t' --candidate='t' --filter='HarnessTest.");
}

}  // namespace
}  // namespace tcts
