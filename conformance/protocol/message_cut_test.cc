// wire::MessageCut (issue 42): an answer line's top-level error.message cut while the line is
// read agrees with Json::parse of the whole line: the same answer (the message its head), the
// message's length and FNV-1a 64 digest in all, the same refusals, whatever the chunks it came
// in; and BoundMessage of a cut message is the same text as BoundMessage of the whole one.
#include <cstdint>
#include <string>
#include <vector>

#include "conformance/protocol/wire.h"
#include "gtest/gtest.h"

namespace tcts {
namespace {

using wire::Json;

std::uint64_t Fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string Cut(const std::string& line, std::size_t keep, std::size_t chunk, wire::MessageCut* cut) {
  std::string out;
  cut->Reset();
  for (std::size_t at = 0; at < line.size(); at += chunk) cut->Feed(line.data() + at, std::min(chunk, line.size() - at), &out);
  return out;
}

// Checks the cut of `line` (keeping `keep` bytes) against Json::parse, fed in chunks of 1, 3
// and all bytes; returns whether the message was cut.
bool Agrees(const std::string& line, std::size_t keep) {
  const Json whole = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  bool was_cut = false;
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, line.size() + 1}) {
    wire::MessageCut cut(keep);
    const std::string out = Cut(line, keep, chunk, &cut);
    const Json got = Json::parse(out, nullptr, /*allow_exceptions=*/false);
    SCOPED_TRACE(line + " (chunks of " + std::to_string(chunk) + ") -> " + out);
    if (whole.is_discarded()) {
      EXPECT_TRUE(got.is_discarded() || !cut.invalid().empty()) << "a refused line reads once cut";
      continue;
    }
    EXPECT_EQ(cut.invalid(), "");
    EXPECT_FALSE(got.is_discarded());
    was_cut = cut.cut();
    if (!cut.cut()) {  // (an earlier message of the line may have been cut: not the answer's)
      EXPECT_EQ(got, whole);
      continue;
    }
    EXPECT_LT(out.size(), line.size());
    const std::string message = whole["error"]["message"];
    const std::string head = got["error"]["message"];
    EXPECT_GE(head.size(), keep);
    EXPECT_EQ(message.substr(0, head.size()), head);
    EXPECT_EQ(cut.total(), message.size());
    EXPECT_EQ(cut.digest(), Fnv(message));
    Json expected = whole;
    expected["error"]["message"] = head;
    EXPECT_EQ(got, expected);
  }
  return was_cut;
}

std::string ErrorLine(const std::string& message_json) {
  return R"({"id":3,"error":{"kind":"ValueError","message":)" + message_json + "}}";
}

TEST(MessageCut, ALongMessageIsCutAndSummed) {
  EXPECT_TRUE(Agrees(ErrorLine("\"" + std::string(100, 'm') + "\""), 8));
  EXPECT_TRUE(Agrees(R"({"error" : { "message" : "0123456789abcdef", "kind":"ValueError"} , "id":1})", 8));
  // Escapes, surrogate pairs and UTF-8 are decoded as Json::parse decodes them, and never split.
  EXPECT_TRUE(Agrees(ErrorLine(R"("ab\n\t\"\\\/\b\f\r\u00e9\u20ac\ud83d\ude00\u0000xyz0123456789")"), 4));
  EXPECT_TRUE(Agrees(ErrorLine("\"abc\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" + std::string(20, 'z') + "\""), 4));
  for (std::size_t keep = 0; keep < 14; ++keep) {
    EXPECT_TRUE(Agrees(ErrorLine(R"("\ud83d\ude00\u00e9)" "\xe2\x82\xac\xf0\x9f\x98\x80" R"(\n0123456789")"), keep));
  }
  // The last "error" and the last "message" are the answer's (Json::parse: the last key wins).
  EXPECT_TRUE(Agrees(R"({"error":{"message":"short"},"error":{"message":"0123456789abcdef"}})", 8));
  EXPECT_FALSE(Agrees(R"({"error":{"message":"0123456789abcdef","message":"short"}})", 8));
  EXPECT_FALSE(Agrees(ErrorLine(R"("01234567")"), 8));  // no longer than kept: whole
  // A key written with escapes is the same key.
  EXPECT_TRUE(Agrees(R"({"\u0065rror":{"m\u0065ssage":"0123456789abcdef"}})", 8));
}

TEST(MessageCut, NothingElseIsCut) {
  for (const char* line : {R"({"ok":{"message":"0123456789abcdef"}})", R"({"message":"0123456789abcdef"})",
                           R"({"error":{"kind":"0123456789abcdef"}})", R"({"error":[{"message":"0123456789abcdef"}]})",
                           R"({"error":{"x":{"message":"0123456789abcdef"}}})", R"([{"error":{"message":"0123456789abcdef"}}])",
                           R"({"error":{"message":["0123456789abcdef"]}})", R"({"errors":{"message":"0123456789abcdef"}})",
                           R"({"x":"\"error\":{\"message\":\"0123456789abcdef\"}"})", R"({"sync":[{"bytes":"AAAAAAAAAAAAAAAAAAAA"}]})"}) {
    EXPECT_FALSE(Agrees(line, 8)) << line;
  }
}

TEST(MessageCut, WhatJsonRefusesStaysRefused) {
  // Each is refused by Json::parse only for what lies in the message past the bytes kept.
  for (const std::string tail : {"\x01", "\\x", "\\u12g4", "\\ud800", "\\ud800x", "\\ud800\\u0041", "\\udc00", "\xc3",
                                 "\xc3(", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\x80", "\xf0\x9f\x98"}) {
    const std::string line = ErrorLine("\"0123456789" + tail + "\"");
    ASSERT_TRUE(Json::parse(line, nullptr, false).is_discarded()) << line;
    Agrees(line, 4);
    wire::MessageCut cut(4);
    Cut(line, 4, line.size(), &cut);
    EXPECT_NE(cut.invalid(), "") << line;
  }
  // Json::parse reads no further than a NUL byte outside strings (its lexer's end of input):
  // nothing after it is cut or refused (found by the wire fuzz target).
  EXPECT_FALSE(Agrees(std::string("3709\0", 5) + ErrorLine("\"0123456789\\ud,\"") , 4));
  EXPECT_FALSE(Agrees(ErrorLine("\"0123\"") + std::string("\0", 1) + ErrorLine("\"0123456789abcdef\""), 4));
  // A line that ends inside the message: its head is no JSON either.
  Agrees(ErrorLine("\"0123456789"), 4);
  Agrees(R"({"error":{"message":"0123456789abcdef"})", 4);
}

TEST(MessageCut, BoundMessageIsTheSameAsFromTheWholeMessage) {
  const std::string big = std::string(wire::kMaxErrorMessage - 1, 'a') + "\xe2\x82\xac" + std::string(200000, 'b') + "\\u00e9";
  const std::string line = ErrorLine("\"" + big + "\"");
  const Json whole = Json::parse(line);
  wire::MessageCut cut;
  const std::string out = Cut(line, 0, 65536, &cut);
  ASSERT_TRUE(cut.cut());
  EXPECT_LT(out.size(), wire::kMaxErrorMessage + 1024);
  const std::string from_whole = wire::BoundMessage(whole["error"]["message"]);
  EXPECT_EQ(wire::BoundMessage(Json::parse(out)["error"]["message"], &cut), from_whole);
  EXPECT_NE(from_whole.find("bytes in all, fnv1a64"), std::string::npos);
  EXPECT_EQ(from_whole.substr(wire::kMaxErrorMessage - 1, 3), "...");  // the euro sign is not split
  EXPECT_EQ(wire::BoundMessage("short"), "short");
}

}  // namespace
}  // namespace tcts
