// The C++ testee kit, one request at a time, serving the reference candidate: the handshake,
// the handle table, errors and protocol errors, and host memory (lent asarray sources, DLPack
// imports with their deleter, DLPack exports) kept in step both ways, as the Python kit does.
#include "conformance/protocol/cxx/tcts_testee.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "conformance/protocol/wire.h"

namespace tcts {
namespace {

using Json = wire::Json;

std::string B64(std::initializer_list<int> bytes) {
  std::vector<std::byte> v;
  for (int b : bytes) v.push_back(static_cast<std::byte>(b));
  return wire::Base64(v.data(), v.size());
}

class KitTest : public ::testing::Test {
 protected:
  KitTest() : candidate_(MakeCandidate("reference")), server_(*candidate_) {}

  // Sends `request` (an id added) and returns the answer.
  Json Ask(Json request) {
    request["id"] = ++id_;
    const Json answer = Json::parse(server_.Answer(request.dump()));
    EXPECT_EQ(answer["id"], id_) << answer.dump();
    return answer;
  }
  // The answer's value, which must be there.
  Json Ok(Json request) {
    const Json answer = Ask(std::move(request));
    EXPECT_TRUE(answer.contains("ok")) << answer.dump();
    return answer.value("ok", Json());
  }
  std::vector<Scalar> Values(std::int64_t handle) { return wire::ScalarsOf(Ok({{"op", "values"}, {"t", handle}}), "values"); }

  std::unique_ptr<Candidate> candidate_;
  TesteeServer server_;
  std::int64_t id_ = 0;
};

TEST_F(KitTest, HelloDeclaresWhatTheCandidateSupports) {
  const Json hello = Ok({{"op", "hello"}, {"protocol", 2}, {"protocols", {2}}});
  EXPECT_EQ(hello["name"], candidate_->name());
  EXPECT_EQ(hello["version"], candidate_->version());
  EXPECT_EQ(hello["protocol"], 2);
  std::vector<std::string> want;
  for (Feature f : AllFeatures()) {
    if (candidate_->supports(f)) want.push_back(FeatureName(f));
  }
  EXPECT_EQ(hello["features"].get<std::vector<std::string>>(), want);
  // The highest version both speak; where the suite offers none the kit speaks (version 1 alone,
  // retired, or no list), the kit's newest, which such a suite refuses by name.
  EXPECT_EQ(Ok({{"op", "hello"}, {"protocol", 2}, {"protocols", {1, 2}}})["protocol"], 2);
  EXPECT_EQ(Ok({{"op", "hello"}, {"protocol", 3}, {"protocols", {2, 3}}})["protocol"], 3);
  EXPECT_EQ(Ok({{"op", "hello"}, {"protocol", 1}, {"protocols", {1}}})["protocol"], TCTS_PROTOCOL_MAX_VERSION);
  EXPECT_EQ(Ok({{"op", "hello"}, {"protocol", 1}})["protocol"], TCTS_PROTOCOL_MAX_VERSION);
  // A suite that does not know a declared feature is told which.
  const Json old = Ask({{"op", "hello"}, {"features", {"tensors"}}});
  EXPECT_EQ(old["error"]["kind"], "Internal");
  EXPECT_NE(old["error"]["message"].get<std::string>().find("promote_types"), std::string::npos) << old.dump();
}

TEST_F(KitTest, SpeaksVersionTwoWhenOffered) {
  // Version 2: integers past ±(2^53 - 1) as decimal strings, floats as shortest decimals; the
  // kit reads either form (a C99 hex float text too: version 1's, which readers still accept).
  Ok({{"op", "hello"}, {"protocol", 2}, {"protocols", {2}}});
  const Json t = Ok({{"op", "make_tensor"}, {"sizes", {3}}, {"dtype", "int64"},
                     {"values", {"9223372036854775807", -5, "-9007199254740993"}}});
  EXPECT_EQ(Ok({{"op", "values"}, {"t", t}}), Json({"9223372036854775807", -5, "-9007199254740993"}));
  const Json f = Ok({{"op", "make_tensor"}, {"sizes", {3}}, {"dtype", "float64"},
                     {"values", {{{"float", "0.1"}}, {{"float", "0x1.8p+1"}}, {{"float", "-0"}}}}});
  EXPECT_EQ(Ok({{"op", "values"}, {"t", f}}), Json({{{"float", "0.1"}}, {{"float", "3"}}, {{"float", "-0"}}}));
}

TEST_F(KitTest, VersionThreeSendsANewTensorsFacts) {
  // Version 3: an answer that is a new tensor carries the fact ops' answers for it (meta and
  // storage: spec/interface.toml), equal to the requests' own answers; version 2 has none.
  EXPECT_EQ(Ok({{"op", "hello"}, {"protocol", 3}, {"protocols", {2, 3}}})["protocol"], 3);
  const Json made = Ask({{"op", "make_tensor"}, {"sizes", {2, 3}}, {"dtype", "int16"}, {"values", {1, 2, 3, 4, 5, 6}}});
  ASSERT_TRUE(made.contains("facts")) << made.dump();
  const Json view = Ask({{"op", "t"}, {"t", made["ok"]}});
  ASSERT_TRUE(view.contains("facts")) << view.dump();
  EXPECT_EQ(view["facts"]["meta"], Ok({{"op", "meta"}, {"t", view["ok"]}}));
  EXPECT_EQ(view["facts"]["storage"], Ok({{"op", "storage"}, {"t", view["ok"]}}));
  EXPECT_EQ(view["facts"]["meta"]["strides"], Json({1, 3}));
  EXPECT_FALSE(Ask({{"op", "meta"}, {"t", view["ok"]}}).contains("facts")) << "only with a new tensor";
  Ok({{"op", "hello"}, {"protocol", 2}, {"protocols", {1, 2}}});
  EXPECT_FALSE(Ask({{"op", "t"}, {"t", made["ok"]}}).contains("facts"));
}

TEST_F(KitTest, AnswersValuesAndErrorsInTheWireEncodings) {
  EXPECT_EQ(Ok({{"op", "promote_types"}, {"a", "int8"}, {"b", "uint8"}}), "int16");
  EXPECT_EQ(Ok({{"op", "can_cast"}, {"from", "float32"}, {"to", "int8"}}), false);
  const Json finfo = Ok({{"op", "finfo"}, {"dtype", "float32"}});
  EXPECT_EQ(wire::GetFloat(finfo, "eps"), 0x1p-23);
  EXPECT_EQ(finfo["bits"], 32);
  EXPECT_EQ(Ok({{"op", "result_type"}, {"a", {{"scalar", 1}}}, {"b", {{"scalar", wire::FloatJson(0.5, 1)}}}}), "float32");
  const Json dev = Ok({{"op", "device"}, {"arg", {{"form", "string"}, {"text", "cuda"}}}});
  EXPECT_TRUE(dev["index"].is_null()) << dev.dump();
  EXPECT_EQ(dev["str"], "cuda");
  // The candidate's own error, by kind.
  const Json bad = Ask({{"op", "device"}, {"arg", {{"form", "string"}, {"text", "nope"}}}});
  EXPECT_EQ(bad["error"]["kind"], "RuntimeError") << bad.dump();
  EXPECT_FALSE(bad.contains("ok"));
}

TEST_F(KitTest, HandlesNameTensorsUntilReleased) {
  const Json t = Ok({{"op", "make_tensor"}, {"sizes", {2, 3}}, {"dtype", "int16"}, {"values", {1, 2, 3, 4, 5, 6}}});
  ASSERT_TRUE(t.is_number_integer());
  const Json view = Ok({{"op", "t"}, {"t", t}});
  EXPECT_NE(view, t);
  const Json meta = Ok({{"op", "meta"}, {"t", view}});
  EXPECT_EQ(meta["sizes"], Json({3, 2}));
  EXPECT_EQ(meta["strides"], Json({1, 3}));
  EXPECT_EQ(meta["dtype"], "int16");
  EXPECT_EQ(meta["layout"], "strided");
  const Json sum = Ok({{"op", "binary"}, {"binary_op", "add"}, {"a", {{"tensor", t}}}, {"b", {{"scalar", 10}}}, {"alpha", 2}});
  EXPECT_EQ(Values(sum.get<std::int64_t>()), std::vector<Scalar>({Scalar::Int(21), Scalar::Int(22), Scalar::Int(23),
                                                                   Scalar::Int(24), Scalar::Int(25), Scalar::Int(26)}));
  EXPECT_TRUE(Ok({{"op", "release"}, {"release", {t}}}).is_null());
  const Json gone = Ask({{"op", "values"}, {"t", t}});
  EXPECT_EQ(gone["error"]["kind"], "Internal");
  EXPECT_EQ(gone["error"]["message"], "testee kit: bad request: field 't': expected the handle of a live tensor, got " + t.dump());
  EXPECT_EQ(Values(view.get<std::int64_t>()).size(), 6u);  // a view outlives its base's handle
}

TEST_F(KitTest, ProtocolViolationsNameTheField) {
  const Json missing = Ask({{"op", "promote_types"}, {"a", "int8"}});
  EXPECT_EQ(missing["error"]["message"], "testee kit: bad request: field 'b': expected the field, got nothing (missing)");
  const Json dtype = Ask({{"op", "promote_types"}, {"a", "int8"}, {"b", "Float"}});
  EXPECT_EQ(dtype["error"]["kind"], "Internal");
  EXPECT_NE(dtype["error"]["message"].get<std::string>().find("field 'b': expected a dtype's name"), std::string::npos);
  const Json op = Ask({{"op", "binary"}, {"binary_op", "pow"}, {"a", {{"scalar", 1}}}, {"b", {{"scalar", 1}}}, {"alpha", 1}});
  EXPECT_NE(op["error"]["message"].get<std::string>().find("field 'binary_op'"), std::string::npos) << op.dump();
  const Json unknown = Ask({{"op", "frobnicate"}});
  EXPECT_EQ(unknown["error"]["kind"], "NotSupported");
  const Json not_json = Json::parse(server_.Answer("{\"id\": 1, \"op\""));
  EXPECT_TRUE(not_json["id"].is_null());
  EXPECT_EQ(not_json["error"]["kind"], "Internal");
  const Json not_object = Json::parse(server_.Answer("[1]"));
  EXPECT_EQ(not_object["error"]["kind"], "Internal");
}

// An asarray buffer is a region: the library's tensor is over the kit's copy, each side's writes
// reach the other, data_ptr names the place in the region, and the region is released with the
// last tensor made from it.
TEST_F(KitTest, LentBufferIsMirroredBothWaysAndReleasedWithItsTensors) {
  const Json t = Ok({{"op", "asarray"}, {"dtype", "uint8"}, {"device", nullptr}, {"copy", false},
                     {"source", {{"kind", "buffer"}, {"region", {{"id", 7}, {"bytes", B64({1, 2, 3, 4})}}}}}});
  EXPECT_EQ(Values(t.get<std::int64_t>()), std::vector<Scalar>({Scalar::Int(1), Scalar::Int(2), Scalar::Int(3), Scalar::Int(4)}));
  const Json view = Ok({{"op", "narrow"}, {"t", t}, {"dim", 0}, {"start", 1}, {"length", 2}});
  EXPECT_EQ(Ok({{"op", "data_ptr"}, {"t", view}}), Json({{"region", 7}, {"offset", 1}}));
  // The library writes: the answer carries the region's new bytes.
  const Json written = Ask({{"op", "write_element"}, {"t", t}, {"index", {0}}, {"value", 9}});
  EXPECT_EQ(written["sync"], Json::array({{{"id", 7}, {"bytes", B64({9, 2, 3, 4})}}})) << written.dump();
  // The suite writes: the library sees it.
  EXPECT_EQ(Ok({{"op", "values"}, {"t", view}, {"sync", {{{"id", 7}, {"bytes", B64({9, 5, 6, 4})}}}}}),
            wire::Scalars({Scalar::Int(5), Scalar::Int(6)}, 1));
  const Json wrong = Ask({{"op", "values"}, {"t", view}, {"sync", {{{"id", 7}, {"bytes", B64({1})}}}}});
  EXPECT_NE(wrong["error"]["message"].get<std::string>().find("field 'sync.bytes'"), std::string::npos) << wrong.dump();
  // Released with the last tensor made from it (the view too), not before.
  EXPECT_FALSE(Ask({{"op", "release"}, {"release", {t}}}).contains("released"));
  EXPECT_EQ(Ask({{"op", "release"}, {"release", {view}}})["released"], Json({7}));
}

TEST_F(KitTest, LentArrayIsAHostArrayOverTheRegion) {
  // float32 [2] with byte stride 8 at offset 4: elements at bytes 4 and 12 of the region.
  const float a = 1.5f, b = -2.0f;
  std::vector<std::byte> bytes(16, std::byte{0});
  std::memcpy(bytes.data() + 4, &a, 4);
  std::memcpy(bytes.data() + 12, &b, 4);
  const Json t = Ok({{"op", "asarray"}, {"dtype", nullptr}, {"device", nullptr}, {"copy", nullptr},
                     {"source", {{"kind", "array"}, {"region", {{"id", 3}, {"bytes", wire::Base64(bytes.data(), bytes.size())}}},
                                 {"offset", 4}, {"dtype", "float32"}, {"shape", {2}}, {"byte_strides", {8}}}}});
  EXPECT_EQ(Values(t.get<std::int64_t>()), std::vector<Scalar>({Scalar::Float(1.5), Scalar::Float(-2.0)}));
  // A failed call releases what it lent in its own answer: 3 bytes are no float32 buffer.
  const Json failed = Ask({{"op", "asarray"}, {"dtype", "float32"}, {"device", nullptr}, {"copy", nullptr},
                           {"source", {{"kind", "buffer"}, {"region", {{"id", 4}, {"bytes", B64({0, 0, 0})}}}}}});
  EXPECT_EQ(failed["error"]["kind"], "ValueError") << failed.dump();
  EXPECT_EQ(failed["released"], Json({4}));
}

// from_dlpack: a real DLManagedTensor over the kit's copy; the library's deleter call is reported
// ("deleted") and the copy released after it; a failed import is the caller's again (no deleter).
TEST_F(KitTest, DLPackImportReportsItsDeleter) {
  const Json src = {{"kind", "dlpack"}, {"region", {{"id", 5}, {"bytes", B64({0, 0, 1, 2, 3, 4})}}},
                    {"data_offset", 0}, {"null_data", false}, {"dtype", {{"code", 1}, {"bits", 8}, {"lanes", 1}}},
                    {"device", {{"type", 1}, {"id", 0}}}, {"shape", {2, 2}}, {"strides", nullptr}, {"byte_offset", 2}};
  Json request = src;
  request["op"] = "from_dlpack";
  const Json t = Ok(request);
  EXPECT_EQ(Values(t.get<std::int64_t>()), std::vector<Scalar>({Scalar::Int(1), Scalar::Int(2), Scalar::Int(3), Scalar::Int(4)}));
  EXPECT_EQ(Ok({{"op", "data_ptr"}, {"t", t}}), Json({{"region", 5}, {"offset", 2}}));
  const Json released = Ask({{"op", "release"}, {"release", {t}}});
  EXPECT_EQ(released["deleted"], Json({5})) << released.dump();
  EXPECT_EQ(Ask({{"op", "release"}})["released"], Json({5}));  // freed once the deleter had returned

  request["region"]["id"] = 6;
  request["device"]["type"] = 99;  // no such device: the reference refuses it
  const Json refused = Ask(request);
  EXPECT_TRUE(refused.contains("error")) << refused.dump();
  EXPECT_FALSE(refused.contains("deleted"));
  EXPECT_EQ(refused["released"], Json({6}));
}

// to_dlpack: the library's export, mirrored as a negative region; its deleter runs when the suite
// releases the region.
TEST_F(KitTest, DLPackExportIsMirroredUntilReleased) {
  const Json t = Ok({{"op", "make_tensor"}, {"sizes", {2}}, {"dtype", "int8"}, {"values", {1, 2}}});
  const Json e = Ok({{"op", "to_dlpack"}, {"t", t}});
  EXPECT_EQ(e["region"]["id"], -1);
  EXPECT_EQ(e["region"]["bytes"], B64({1, 2}));
  EXPECT_EQ(e["data_offset"], 0);
  EXPECT_EQ(e["dtype"], Json({{"code", 0}, {"bits", 8}, {"lanes", 1}}));
  EXPECT_EQ(e["shape"], Json({2}));
  EXPECT_EQ(Ok({{"op", "data_ptr"}, {"t", t}}), Json({{"region", -1}, {"offset", 0}}));
  EXPECT_EQ(Ask({{"op", "write_element"}, {"t", t}, {"index", {1}}, {"value", 7}})["sync"],
            Json::array({{{"id", -1}, {"bytes", B64({1, 7})}}}));
  EXPECT_EQ(Ok({{"op", "values"}, {"t", t}, {"sync", {{{"id", -1}, {"bytes", B64({4, 7})}}}}}), wire::Scalars({Scalar::Int(4), Scalar::Int(7)}, 1));
  EXPECT_TRUE(Ok({{"op", "data_ptr"}, {"t", t}, {"release_regions", {-1}}}).is_number_integer());  // no region any more
  EXPECT_EQ(Ok({{"op", "to_dlpack"}, {"t", t}})["region"]["id"], -2);
}

// A candidate that throws (it must not) answers Internal with what it threw.
class Throwing : public Candidate {
 public:
  std::string name() const override { return "throwing"; }
  std::string version() const override { return "0"; }
  bool supports(Feature) const override { return true; }
  Result<DType> promote_types(DType, DType) override { throw std::runtime_error("boom"); }
};

TEST(KitStreams, ServesLinesUntilTheInputEnds) {
  Throwing c;
  std::istringstream in("{\"id\":1,\"op\":\"promote_types\",\"a\":\"int8\",\"b\":\"int8\"}\n\n  \n{\"id\":2,\"op\":\"can_cast\",\"from\":\"int8\",\"to\":\"int8\"}\n");
  std::ostringstream out;
  EXPECT_EQ(ServeCandidate(c, in, out), 0);
  std::istringstream lines(out.str());
  std::string first, second, rest;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, rest));
  EXPECT_EQ(Json::parse(first), Json::parse(R"({"id":1,"error":{"kind":"Internal","message":"testee kit: uncaught exception: boom"}})"));
  EXPECT_EQ(Json::parse(second)["error"]["kind"], "NotSupported");  // the interface's default
}

}  // namespace
}  // namespace tcts
