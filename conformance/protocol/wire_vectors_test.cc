// The C++ codecs (wire.h, shared by the suite's end and the C++ kit) replay the protocol's value
// vectors (//spec:interface_vectors.json, generators/vectors.py): each value's version-2 form and
// its version-1 form (retired: no end writes it, readers still read it) decode, and the value
// encodes back under versions 2 and 3 equal to the version-2 form — floats compared by the
// double they denote, everything else exactly (an integer's JSON kind included: a number within
// ±(2^53 - 1), a string beyond). And the C++ kit
// replays the vectors' sessions: a candidate whose every op answers what the step says (its
// overrides generated from spec/interface.toml, spec/interface_echo.inc) behind a TesteeServer
// answers every request as the vector does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "conformance/protocol/cxx/tcts_testee.h"
#include "conformance/protocol/wire.h"
#include "gtest/gtest.h"

namespace tcts {
namespace {

using wire::Json;

Json LoadVectors() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string path = std::string(srcdir ? srcdir : ".") + "/tensor_cts/spec/interface_vectors.json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) ADD_FAILURE() << "cannot read " << path;
  return Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// The double a {"float": text} denotes (hex or decimal; "nan", "inf", "-inf").
bool FloatText(const Json& v, double* out) {
  if (!v.is_string()) return false;
  try {
    *out = wire::FloatOf(Json{{"float", v}}, "float");
    return true;
  } catch (const wire::ProtocolError&) {
    return false;
  }
}

bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;  // -0.0 is not 0.0
}

// Equal as wire values: a float's text by the double it denotes, the rest exactly.
bool SameWire(const Json& a, const Json& b) {
  if (a.is_object() && b.is_object() && a.size() == 1 && b.size() == 1 && a.contains("float") && b.contains("float")) {
    double x = 0, y = 0;
    return FloatText(a["float"], &x) && FloatText(b["float"], &y) && SameDouble(x, y);
  }
  if (a.is_object() && b.is_object() && a.size() == 1 && b.size() == 1 && a.contains("complex") && b.contains("complex")) {
    const Json& p = a["complex"];
    const Json& q = b["complex"];
    if (!p.is_array() || !q.is_array() || p.size() != 2 || q.size() != 2) return false;
    double x = 0, y = 0, u = 0, w = 0;
    return FloatText(p[0], &x) && FloatText(q[0], &y) && FloatText(p[1], &u) && FloatText(q[1], &w) &&
           SameDouble(x, y) && SameDouble(u, w);
  }
  if (a.type() != b.type()) {
    // An integer JSON number of either signedness is one kind.
    return a.is_number_integer() && b.is_number_integer() && a == b;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!SameWire(a[k], b[k])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !SameWire(it.value(), b[it.key()])) return false;
    }
    return true;
  }
  return a == b;
}

// Decodes `form` as T and encodes it under `protocol`.
template <class T>
Json RoundTrip(const Json& form, int protocol) {
  T value{};
  wire::FromJson(form, "value", &value);
  return wire::ToJson(value, protocol);
}

Json PyValueRoundTrip(const Json& form, int protocol) {
  return wire::PyValueJson(wire::PyValueOf(form, "value"), protocol);
}

using RoundTripFn = std::function<Json(const Json&, int)>;

const std::map<std::string, RoundTripFn>& Codecs() {
  static const std::map<std::string, RoundTripFn> codecs = [] {
    std::map<std::string, RoundTripFn> m = {
        {"int", RoundTrip<std::int64_t>},
        {"int?", RoundTrip<std::optional<std::int64_t>>},
        {"int32", RoundTrip<int>},
        {"uint64", RoundTrip<std::uint64_t>},
        {"uintptr", RoundTrip<std::uintptr_t>},
        {"ints", RoundTrip<std::vector<std::int64_t>>},
        {"float", RoundTrip<double>},
        {"scalar", RoundTrip<Scalar>},
        {"scalars", RoundTrip<std::vector<Scalar>>},
        {"device_arg", RoundTrip<DeviceArg>},
        {"python_value", PyValueRoundTrip},
    };
#define TCTS_RECORD_CODEC(r) m[#r] = RoundTrip<r>;
    TCTS_FORALL_RECORDS(TCTS_RECORD_CODEC)
#undef TCTS_RECORD_CODEC
    return m;
  }();
  return codecs;
}

// A dtype outside the spec's vocabulary is an observation with its name (issue 47: torch 2.x
// answers "float8_e4m3fn" and "bcomplex32"), equal to no spec dtype, the same dtype each time it
// is named; what is not a dtype's name at all stays a protocol error naming the field. (uint16,
// once the example here, is a spec dtype now: spec/dtypes.toml.)
TEST(WireVectors, ADTypeOutsideTheSpecIsObservedByItsName) {
  const DType f8 = wire::DTypeOf(Json("float8_e4m3fn"), "ok");
  EXPECT_TRUE(DTypeIsForeign(f8));
  EXPECT_STREQ(DTypeName(f8), "float8_e4m3fn");
  EXPECT_EQ(wire::DTypeOf(Json("float8_e4m3fn"), "ok"), f8);
  EXPECT_NE(wire::DTypeOf(Json("bcomplex32"), "ok"), f8);
  for (DType d : AllDTypes()) {
    EXPECT_NE(d, f8) << DTypeName(d);
    EXPECT_FALSE(DTypeIsForeign(d)) << DTypeName(d);
    EXPECT_EQ(wire::DTypeOf(Json(DTypeName(d)), "ok"), d);
  }
  EXPECT_STREQ(CategoryName(DTypeCategory(f8)), "?");
  EXPECT_EQ(DTypeItemsize(f8), 0);
  EXPECT_FALSE(DTypeFromName("float8_e4m3fn").has_value());  // the suite never asks for one
  EXPECT_TRUE(DTypeFromName("uint16").has_value());
  for (const Json& bad : {Json("Float"), Json("torch.uint16"), Json(""), Json(std::string(65, 'u')), Json(3)}) {
    try {
      wire::DTypeOf(bad, "ok");
      ADD_FAILURE() << bad.dump() << " was taken for a dtype";
    } catch (const wire::ProtocolError& e) {
      EXPECT_NE(e.what_for().find("field 'ok'"), std::string::npos) << e.what_for();
    }
  }
}

TEST(WireVectors, EveryValueRoundTripsExactlyUnderTheSpokenVersions) {
  const Json vectors = LoadVectors();
  ASSERT_TRUE(vectors.is_object() && vectors.contains("values")) << "not a vectors file";
  std::map<std::string, int> seen;
  for (const Json& v : vectors["values"]) {
    const std::string type = v["type"].get<std::string>();
    auto it = Codecs().find(type);
    ASSERT_NE(it, Codecs().end()) << "no C++ codec for the vectors' type " << type;
    ++seen[type];
    const std::string what = type + " (" + v.value("note", "") + ")";
    for (const char* from : {"v1", "v2"}) {
#define TCTS_VECTOR_PROTOCOL(p) p,
      for (int protocol : {TCTS_FORALL_PROTOCOL_VERSIONS(TCTS_VECTOR_PROTOCOL)}) {
#undef TCTS_VECTOR_PROTOCOL
        const Json& want = v["v2"];
        Json got;
        try {
          got = it->second(v[from], protocol);
        } catch (const wire::ProtocolError& e) {
          ADD_FAILURE() << what << ": decoding " << from << " " << v[from].dump() << ": " << e.what_for();
          continue;
        }
        EXPECT_TRUE(SameWire(got, want)) << what << ": decoded from " << from << " " << v[from].dump()
                                         << ", encoded under version " << protocol << ": " << got.dump()
                                         << "; the vector says " << want.dump();
      }
    }
  }
  // Every record of the interface has vectors.
#define TCTS_RECORD_SEEN(r) EXPECT_GT(seen[#r], 0) << "no vector of the record " #r;
  TCTS_FORALL_RECORDS(TCTS_RECORD_SEEN)
#undef TCTS_RECORD_SEEN
}

// Under version 2 every JSON number of a value is an integer within ±(2^53 - 1): a parser whose
// numbers are doubles (JavaScript's) reads each exactly.
void ExpectDoubleSafe(const Json& v, const std::string& where) {
  if (v.is_number_float()) ADD_FAILURE() << where << ": a JSON float " << v.dump();
  if (v.is_number_integer()) {
    const double d = v.is_number_unsigned() ? static_cast<double>(v.get<std::uint64_t>()) : static_cast<double>(v.get<std::int64_t>());
    EXPECT_LE(std::fabs(d), 9007199254740991.0) << where << ": " << v.dump();
  }
  if (v.is_array() || v.is_object()) {
    for (const Json& x : v) ExpectDoubleSafe(x, where);
  }
}

TEST(WireVectors, VersionTwoFormsAreExactInDoubles) {
  const Json vectors = LoadVectors();
  ASSERT_TRUE(vectors.is_object() && vectors.contains("values"));
  for (const Json& v : vectors["values"]) {
    const std::string what = v["type"].get<std::string>() + " (" + v.value("note", "") + ")";
    ExpectDoubleSafe(v["v2"], what);
    // And what this side writes under version 2 is too.
    auto it = Codecs().find(v["type"].get<std::string>());
    if (it != Codecs().end()) ExpectDoubleSafe(it->second(v["v2"], 2), what + ", as written");
  }
}

// ---------------------------------------------------------------- the C++ kit's sessions
class EchoBox : public TensorBox {
 public:
  explicit EchoBox(std::string label) : label(std::move(label)) {}
  std::string label;
};

// Every op answers the current step's "returns" (decoded with the kit's own codecs) or raises its
// "raises"; declarations follow the session's testee: the features of the ops it does not lack
// (and its answer features, and those declared by default), its dtypes.
class Echo : public Candidate {
 public:
  Echo(const Json& testee, const Json& interface) : testee_(testee) {
    for (const Json& op : interface["ops"]) {
      const std::string feature = op["feature"].get<std::string>();
      const bool lacked = std::find(testee["lacks"].begin(), testee["lacks"].end(), op["name"]) != testee["lacks"].end();
      if (!declared_.count(feature)) declared_[feature] = true;
      if (lacked) declared_[feature] = false;
    }
    for (const Json& f : testee["also_supports"]) declared_[f.get<std::string>()] = true;
    for (const Json& f : interface.value("declared_by_default", Json::array())) declared_[f.get<std::string>()] = true;
  }
  const Json* step = nullptr;
  std::vector<std::string> calls;

  std::string name() const override { return testee_["name"].get<std::string>(); }
  std::string version() const override { return testee_["version"].get<std::string>(); }
  std::string build() const override { return testee_["build"].get<std::string>(); }
  bool supports(Feature f) const override {
    auto it = declared_.find(FeatureName(f));
    return it != declared_.end() && it->second;
  }
  bool supports_op(std::string_view op) const override {
    const Json& lacks = testee_["lacks"];
    return FeatureOfOp(op) && std::find(lacks.begin(), lacks.end(), Json(std::string(op))) == lacks.end();
  }
  bool supports_dtype(DType d) const override {
    const Json& dtypes = testee_["dtypes"];
    return dtypes.is_null() || std::find(dtypes.begin(), dtypes.end(), Json(DTypeName(d))) != dtypes.end();
  }

#include "spec/interface_echo.inc"

 private:
  Error Raised(const std::string& op) const {
    if (step == nullptr || !step->contains("raises")) return NotSupported(op);  // a step the kit should refuse itself
    ErrorKind kind = ErrorKind::kInternal;
    ParseErrorKind((*step)["raises"]["kind"].get<std::string>(), &kind);
    return Error{kind, (*step)["raises"]["message"].get<std::string>()};
  }
  template <class T>
  Result<T> Reply(const char* op) {
    calls.push_back(op);
    if (step == nullptr || !step->contains("returns")) return Raised(op);
    const Json& r = (*step)["returns"];
    if constexpr (std::is_same_v<T, TensorHandle>) {
      return TensorHandle(std::make_shared<EchoBox>(r["new_tensor"].get<std::string>()));
    } else if constexpr (std::is_same_v<T, DLManagedTensor*>) {
      return NotSupported(op);  // the vectors export nothing
    } else {
      T out{};
      wire::FromJson(r, "returns", &out);
      return out;
    }
  }
  Status ReplyStatus(const char* op) {
    calls.push_back(op);
    if (step == nullptr || !step->contains("returns")) return Raised(op);
    return Status();
  }

  Json testee_;
  std::map<std::string, bool> declared_;
};

// The hello answer's lists as sets (the kits may order them differently).
Json Sorted(Json v) {
  for (const char* key : {"features", "dtypes"}) {
    if (v.is_object() && v.contains("ok") && v["ok"].is_object() && v["ok"].contains(key)) {
      std::vector<std::string> items = v["ok"][key].get<std::vector<std::string>>();
      std::sort(items.begin(), items.end());
      v["ok"][key] = items;
    }
  }
  return v;
}

TEST(WireVectors, TheCxxKitAnswersEverySessionAsTheVectorsSay) {
  const Json vectors = LoadVectors();
  ASSERT_TRUE(vectors.is_object() && vectors.contains("sessions"));
  for (const Json& session : vectors["sessions"]) {
    const Json& steps = session["steps"];
    Echo echo(session["testee"], steps[0]["request"]["interface"]);
    TesteeServer server(echo);
    std::set<std::string> called;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Json& st = steps[k];
      const std::string where = "v" + std::to_string(session["protocol"].get<int>()) + " session, step " +
                                std::to_string(k) + " (" + st["request"]["op"].get<std::string>() + ")";
      echo.step = &st;
      echo.calls.clear();
      const Json answer = Json::parse(server.Answer(st["request"].dump()));
      Json want = st["answer"];
      Json got = answer;
      if (st["request"]["op"] == "hello") {
        want = Sorted(want);
        got = Sorted(got);
      }
      if (st.contains("returns") || st.contains("raises")) {
        EXPECT_TRUE(SameWire(got, want)) << where << ": the kit answered " << got.dump() << "; the vector says " << want.dump();
        EXPECT_EQ(echo.calls.size(), 1u) << where;
        for (const std::string& c : echo.calls) called.insert(c);
      } else if (want.contains("error")) {
        // Refused before the candidate answers: the kind is the protocol's, the words the kit's.
        ASSERT_TRUE(got.contains("error")) << where << ": " << got.dump();
        EXPECT_EQ(got["error"]["kind"], want["error"]["kind"]) << where << ": " << got.dump();
      } else {
        EXPECT_TRUE(SameWire(got, want)) << where << ": the kit answered " << got.dump() << "; the vector says " << want.dump();
      }
    }
    for (const Json& op : steps[0]["request"]["interface"]["ops"]) {
      const std::string name = op["name"].get<std::string>();
      const Json& lacks = session["testee"]["lacks"];
      if (std::find(lacks.begin(), lacks.end(), Json(name)) == lacks.end()) {
        EXPECT_TRUE(called.count(name)) << "session v" << session["protocol"] << ": " << name << " never called";
      }
    }
  }
}

}  // namespace
}  // namespace tcts
