// Fuzz target: the suite's reader of testee answers (conformance/protocol/wire.h). A testee is
// any program; whatever line it writes, decoding it must end in a value or a ProtocolError
// naming the field — never a crash, undefined behaviour, unbounded recursion or an escaped
// exception. The input is one answer line; every decoder the process candidate applies to an
// answer is tried on the line's JSON, on its "ok" value and on each member of it, and the
// readers that stream (ParseAnswer, MessageCut) agree with Json::parse.
//
//   //conformance/protocol/fuzz:wire_fuzz_test   replays corpus/wire/ (seeds and every crash found)
//   bazel/build_fuzzer.sh wire                   builds the libFuzzer binary (clang, ASan, UBSan)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <algorithm>

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

// The depth nlohmann sees, walked recursively: called only where NestingDepth says it is
// shallow (so the walk is bounded).
std::size_t Depth(const Json& v) {
  if (!v.is_array() && !v.is_object()) return 0;
  std::size_t d = 0;
  for (const Json& m : v) d = std::max(d, Depth(m));
  return d + 1;
}

// A DLPack geometry from an answer's fields (an export's): the checked extent either refuses
// it or gives an ordered range that contains the byte offset.
void Extent(const Json& v) {
  namespace w = tcts::wire;
  Try([&] {
    const std::vector<std::int64_t> shape = w::Ints(v, "shape");
    std::vector<std::int64_t> strides;
    const bool compact = !v.contains("strides") || v["strides"].is_null();
    if (!compact) strides = w::Ints(v, "strides");
    const Json& dtype = w::Get(v, "dtype", Json::value_t::object);
    const DLDataType dl{static_cast<std::uint8_t>(w::GetIntIn(dtype, "code", 0, 255)),
                        static_cast<std::uint8_t>(w::GetIntIn(dtype, "bits", 0, 255)),
                        static_cast<std::uint16_t>(w::GetIntIn(dtype, "lanes", 0, 65535))};
    const std::int64_t offset = w::GetIntIn(v, "byte_offset", 0, INT64_MAX);
    std::int64_t lo = 0, hi = 0;
    if (w::DLByteExtent(dl, shape, compact ? nullptr : &strides, static_cast<std::uint64_t>(offset), &lo, &hi)) {
      if (lo > hi || (lo != hi && (lo > offset || hi <= offset))) std::abort();
    }
  });
}

// wire::ParseAnswer (the session's parse of a values answer, no tree of the "ok" list) agrees
// with Json::parse followed by ScalarsOf: the same parse errors, the same answer with "ok" a
// null, the same scalars or the same error.
void ParseAnswerAgrees(const std::string& text, const Json& v, bool shallow) {
  namespace w = tcts::wire;
  w::OkScalars ok;
  Json root;
  try {
    root = w::ParseAnswer(text, &ok);
  } catch (const Json::exception&) {
    // Any of nlohmann's exceptions, as the session catches them (testee_session.cc: the answer
    // "is not JSON", one FAIL): a parse_error, or out_of_range 406 for a number past a double
    // (`1e400`), which Json::parse without exceptions also refuses.
    if (!v.is_discarded()) std::abort();  // refused what Json::parse reads
    return;
  }
  if (v.is_discarded()) std::abort();  // read what Json::parse refuses
  const bool list = v.is_object() && v.contains("ok") && v["ok"].is_array();
  if (ok.decoded != list) std::abort();
  if (!shallow) return;  // operator== recurses
  Json expected = v;
  if (list) expected["ok"] = nullptr;
  if (root != expected) std::abort();
  if (!list) return;
  try {
    const std::vector<tcts::Scalar> values = w::ScalarsOf(v["ok"], "ok");
    if (ok.error || ok.values != values) std::abort();
  } catch (const ProtocolError& e) {
    if (!ok.error || ok.error->what_for() != e.what_for()) std::abort();
  }
}

// wire::MessageCut (TesteePipe's cut of an answer's error.message while the line is read, here
// keeping 0-15 bytes, fed in two pieces) agrees with Json::parse of the whole text: what it
// refuses stays refused (or the cut says why), what it reads reads the same but for the
// message, which is the whole one's head, with the whole one's length and FNV-1a 64 digest.
void MessageCutAgrees(const std::string& text, const Json& v, bool shallow) {
  namespace w = tcts::wire;
  const std::size_t keep = text.empty() ? 0 : static_cast<unsigned char>(text.back()) % 16;
  w::MessageCut cut(keep);
  std::string out;
  const std::size_t half = text.size() / 2;
  cut.Feed(text.data(), half, &out);
  cut.Feed(text.data() + half, text.size() - half, &out);
  const Json got = Json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    if (!got.is_discarded() && cut.invalid().empty()) std::abort();  // reads what Json::parse refuses
    return;
  }
  if (!cut.invalid().empty() || got.is_discarded()) std::abort();  // refuses what Json::parse reads
  if (!shallow) return;  // operator== recurses
  if (!cut.cut()) {
    if (got != v) std::abort();
    return;
  }
  if (!v.is_object() || !v.contains("error") || !v["error"].is_object() || !v["error"].contains("message") ||
      !v["error"]["message"].is_string()) {
    std::abort();  // cut a string that is not the answer's error.message
  }
  const std::string message = v["error"]["message"];
  const std::string head = got["error"]["message"];
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : message) h = (h ^ c) * 1099511628211ull;
  if (head.size() < keep || message.compare(0, head.size(), head) != 0 || head.size() >= message.size() ||
      cut.total() != message.size() || cut.digest() != h) {
    std::abort();
  }
  Json expected = v;
  expected["error"]["message"] = head;
  if (got != expected) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // nlohmann's parser: a malformed line is "discarded", which the process candidate reports.
  // The session refuses an answer deeper than 100 levels before parsing it (copies and dump
  // recurse): the linear pre-scan must never see less depth than the parser does.
  const std::size_t depth = tcts::wire::NestingDepth(std::string(reinterpret_cast<const char*>(data), size));
  const Json v = Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  ParseAnswerAgrees(std::string(reinterpret_cast<const char*>(data), size), v, depth <= 100);
  MessageCutAgrees(std::string(reinterpret_cast<const char*>(data), size), v, depth <= 100);
  if (v.is_discarded()) return 0;
  if (depth <= 1000 && Depth(v) > depth) std::abort();
  Decode(v);
  Extent(v);
  if (v.is_object() && v.contains("ok")) Extent(v["ok"]);
  if (v.is_object() && v.contains("ok")) {
    Decode(v["ok"]);
    if (v["ok"].is_object() || v["ok"].is_array()) {
      for (const Json& member : v["ok"]) Decode(member);
    }
  }
  // Round trips of what the suite itself sends, in the versions it speaks: encode(decode(x))
  // decodes to the same scalar.
  try {
    const tcts::Scalar s = tcts::wire::ScalarOf(v, "v");
#define TCTS_FUZZ_PROTOCOL(p) p,
    for (int protocol : {TCTS_FORALL_PROTOCOL_VERSIONS(TCTS_FUZZ_PROTOCOL)}) {
#undef TCTS_FUZZ_PROTOCOL
      if (tcts::wire::ScalarOf(tcts::wire::ScalarJson(s, protocol), "v") != s) std::abort();
    }
  } catch (const ProtocolError&) {
  }
  return 0;
}
