// The C++ codecs (wire.h, shared by the suite's end and the C++ kit) replay the protocol's value
// vectors (//spec:interface_vectors.json, generators/vectors.py): each value's version-1 and
// version-2 forms decode, and the value encodes back under each version equal to that version's
// form — floats compared by the double they denote, everything else exactly (an integer's JSON
// kind included: a number within ±(2^53 - 1) under version 2, a string beyond).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

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

TEST(WireVectors, EveryValueRoundTripsExactlyUnderBothVersions) {
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
      for (int protocol : {1, 2}) {
        const Json& want = v[protocol == 1 ? "v1" : "v2"];
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

}  // namespace
}  // namespace tcts
