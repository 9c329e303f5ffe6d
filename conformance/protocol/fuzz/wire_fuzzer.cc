// Fuzz target: the suite's reader of testee answers (conformance/protocol/wire.h). A testee is
// any program; whatever line it writes, decoding it must end in a value or a ProtocolError
// naming the field — never a crash, undefined behaviour, unbounded recursion or an escaped
// exception. The input is one answer line; every decoder the process candidate applies to an
// answer is tried on the line's JSON, on its "ok" value and on each member of it.
//
//   //conformance/protocol/fuzz:wire_fuzz_test   replays corpus/wire/ (seeds and every crash found)
//   bazel/build_fuzzer.sh wire                   builds the libFuzzer binary (clang, ASan, UBSan)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "conformance/protocol/wire.h"

namespace {

using tcts::wire::Json;
using tcts::wire::ProtocolError;

template <class F>
void Try(F f) {
  try {
    f();
  } catch (const ProtocolError& e) {
    if (e.what_for().empty()) std::abort();  // every protocol error names something
  }
}

void Decode(const Json& v) {
  namespace w = tcts::wire;
  Try([&] { w::IntOf(v, "v"); });
  Try([&] { w::StringOf(v, "v"); });
  Try([&] { w::BoolOf(v, "v"); });
  Try([&] { w::FloatOf(v, "v"); });
  Try([&] { w::DTypeOf(v, "v"); });
  Try([&] { w::LayoutOf(v, "v"); });
  Try([&] { w::MemoryFormatOf(v, "v"); });
  Try([&] { w::ScalarOf(v, "v"); });
  Try([&] { w::ScalarsOf(v, "v"); });
  Try([&] { w::PyValueOf(v, "v"); });
  Try([&] { w::DeviceArgOf(v, "v"); });
  for (const char* key : {"id", "sizes", "strides", "bytes", "error", "kind", "message", "region", "offset"}) {
    Try([&] { w::Get(v, key); });
    Try([&] { w::GetInt(v, key); });
    Try([&] { w::GetString(v, key); });
    Try([&] { w::Ints(v, key); });
    Try([&] {
      const std::string s = w::GetString(v, key);
      const auto bytes = w::Unbase64(s, key);
      if (w::Base64(bytes.data(), bytes.size()).size() > s.size()) std::abort();  // decoding never grows
    });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // nlohmann's parser: a malformed line is "discarded", which the process candidate reports.
  const Json v = Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return 0;
  Decode(v);
  if (v.is_object() && v.contains("ok")) {
    Decode(v["ok"]);
    if (v["ok"].is_object() || v["ok"].is_array()) {
      for (const Json& member : v["ok"]) Decode(member);
    }
  }
  // Round trips of what the suite itself sends: encode(decode(x)) decodes to the same scalar.
  try {
    const tcts::Scalar s = tcts::wire::ScalarOf(v, "v");
    if (tcts::wire::ScalarOf(tcts::wire::ScalarJson(s), "v") != s) std::abort();
  } catch (const ProtocolError&) {
  }
  return 0;
}
