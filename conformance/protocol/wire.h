// The testee protocol's value encodings (PROTOCOL.md "Values"), shared by the suite's side
// (process_candidate.cc) and the C++ testee kit: dtypes by canonical name, scalars exactly,
// host bytes as base64, and decoders that name the field and what they expected when a
// message is malformed. Encoders take the protocol version the session speaks (2 or 3, which
// write values alike: floats as shortest round-trip decimals, integers past ±(2^53 - 1) as
// decimal strings, readable by a JSON parser whose numbers are doubles; a later version that
// writes them otherwise branches there). Decoders also read a float as C99 hex and an integer
// past 2^53 as a JSON number, version 1's forms (retired: no end writes them). ToJson / FromJson are overloaded per type; the records' pairs are
// generated from spec/interface.toml (spec/interface_codecs.inc, included at the end).
#ifndef TCTS_CONFORMANCE_PROTOCOL_WIRE_H_
#define TCTS_CONFORMANCE_PROTOCOL_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/candidate/candidate.h"

namespace tcts {
namespace wire {

using Json = nlohmann::json;

// A message that breaks the protocol: which field, what was expected, what came.
class ProtocolError {
 public:
  ProtocolError(std::string field, std::string expected, std::string got)
      : field_(std::move(field)), expected_(std::move(expected)), got_(std::move(got)) {}
  // "field 'sizes': expected a list of integers, got \"x\""
  std::string what_for() const;

 private:
  std::string field_, expected_, got_;
};

// A value as a ProtocolError quotes it: JSON, at most 120 characters.
std::string Shown(const Json& v);

// v[key], which must exist (and have `type`, when given).
const Json& Get(const Json& v, const char* key);
const Json& Get(const Json& v, const char* key, Json::value_t type);
std::string GetString(const Json& v, const char* key);
std::int64_t GetInt(const Json& v, const char* key);
// An integer field that must lie in [lo, hi] (its C++ field's type): 2^32 + 4 is not an int's 4.
std::int64_t GetIntIn(const Json& v, const char* key, std::int64_t lo, std::int64_t hi);
bool GetBool(const Json& v, const char* key);
double GetFloat(const Json& v, const char* key);
std::vector<std::int64_t> Ints(const Json& v, const char* key);

// A value that is itself the field `field`.
std::int64_t IntOf(const Json& v, const char* field);
std::string StringOf(const Json& v, const char* field);
bool BoolOf(const Json& v, const char* field);
double FloatOf(const Json& v, const char* field);
// A spec dtype's canonical name, or a name outside the spec's vocabulary (ForeignDType: an
// observation, shown by its name; lower-case letters, digits and '_', 64 at most).
DType DTypeOf(const Json& v, const char* field);
// A spec dtype's canonical name only (what a testee declares in hello: a name outside the spec
// there is a typo or a dtype the suite never asks for, and refused).
DType SpecDTypeOf(const Json& v, const char* field);
Layout LayoutOf(const Json& v, const char* field);
MemoryFormat MemoryFormatOf(const Json& v, const char* field);
Scalar ScalarOf(const Json& v, const char* field);
std::vector<Scalar> ScalarsOf(const Json& v, const char* field);
PyValue PyValueOf(const Json& v, const char* field, int depth = 0);
DeviceArg DeviceArgOf(const Json& v, const char* field);

// Encoders, for the session's protocol version.
Json IntJson(std::int64_t v, int protocol);  // a decimal string past ±(2^53 - 1)
Json FloatJson(double f, int protocol);  // {"float": "3"}, {"float": "0.1"}; "inf", "-inf", "nan"
Json ScalarJson(const Scalar& s, int protocol);
Json Scalars(const std::vector<Scalar>& values, int protocol);
Json PyValueJson(const PyValue& v, int protocol);
Json DeviceArgJson(const DeviceArg& a, int protocol);

// ---- ToJson / FromJson: one pair per wire type (PROTOCOL.md "Values"), the records' generated.
inline Json ToJson(DType d, int) { return DTypeName(d); }
inline Json ToJson(std::int64_t v, int protocol) { return IntJson(v, protocol); }
inline Json ToJson(int v, int) { return v; }
inline Json ToJson(std::uint8_t v, int) { return v; }
inline Json ToJson(std::uint16_t v, int) { return v; }
Json ToJson(std::uint64_t v, int protocol);
inline Json ToJson(bool v, int) { return v; }
inline Json ToJson(const std::string& v, int) { return v; }
inline Json ToJson(std::string_view v, int) { return std::string(v); }
inline Json ToJson(double v, int protocol) { return FloatJson(v, protocol); }
Json ToJson(const std::vector<std::int64_t>& v, int protocol);
inline Json ToJson(const Scalar& v, int protocol) { return ScalarJson(v, protocol); }
inline Json ToJson(const std::vector<Scalar>& v, int protocol) { return Scalars(v, protocol); }
inline Json ToJson(Layout v, int) { return LayoutName(v); }
inline Json ToJson(MemoryFormat v, int) { return MemoryFormatName(v); }
inline Json ToJson(BinaryOp v, int) { return BinaryOpName(v); }
inline Json ToJson(const DeviceArg& v, int protocol) { return DeviceArgJson(v, protocol); }
template <class T>
Json ToJson(const std::optional<T>& v, int protocol) {
  return v ? ToJson(*v, protocol) : Json(nullptr);
}

void FromJson(const Json& v, const char* field, DType* out);
void FromJson(const Json& v, const char* field, std::int64_t* out);
void FromJson(const Json& v, const char* field, int* out);
void FromJson(const Json& v, const char* field, std::uint8_t* out);
void FromJson(const Json& v, const char* field, std::uint16_t* out);
void FromJson(const Json& v, const char* field, std::uint64_t* out);  // 0 ... 2^64 - 1
void FromJson(const Json& v, const char* field, bool* out);
void FromJson(const Json& v, const char* field, std::string* out);
void FromJson(const Json& v, const char* field, double* out);
void FromJson(const Json& v, const char* field, std::vector<std::int64_t>* out);
void FromJson(const Json& v, const char* field, Scalar* out);
void FromJson(const Json& v, const char* field, std::vector<Scalar>* out);
void FromJson(const Json& v, const char* field, Layout* out);
void FromJson(const Json& v, const char* field, MemoryFormat* out);
void FromJson(const Json& v, const char* field, BinaryOp* out);
void FromJson(const Json& v, const char* field, DeviceArg* out);
template <class T>
void FromJson(const Json& v, const char* field, std::optional<T>* out) {
  if (v.is_null()) {
    out->reset();
    return;
  }
  T x{};
  FromJson(v, field, &x);
  *out = std::move(x);
}

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// The argument `key` of a request: required, or (an optional type) null when absent.
template <class T>
T Arg(const Json& q, const char* key) {
  T out{};
  if constexpr (IsOptional<T>::value) {
    if (!q.is_object()) throw ProtocolError(key, "an object holding it", Shown(q));
    auto it = q.find(key);
    FromJson(it == q.end() ? Json(nullptr) : *it, key, &out);
  } else {
    FromJson(Get(q, key), key, &out);
  }
  return out;
}

// Bytes mirrored across the pipe (PROTOCOL.md "Regions"): this side's memory and the bytes both
// sides last agreed on. Both ends' regions are Mirrors (the suite's in testee_session.h, the
// C++ kit's in tcts_testee_state.h), so lending, syncing and naming addresses are written once.
struct Mirror {
  std::byte* data = nullptr;  // this side's memory (size bytes)
  std::size_t size = 0;
  std::vector<std::byte> seen;  // the bytes both sides last agreed on

  // Mirrors `n` bytes at `d`, as they are now.
  void Assign(std::byte* d, std::size_t n) {
    data = d;
    size = n;
    seen.assign(d, d + (d == nullptr ? 0 : n));
  }
  // {"id", "bytes"}: the region as a request or answer lends or exports it (its bytes as agreed).
  Json Offer(std::int64_t id, int protocol) const;
  // {"id", "bytes"} when this side's bytes changed since both last agreed (they agree again
  // from now); null when they did not.
  Json SyncOut(std::int64_t id, int protocol);
  // The other side's bytes (a "sync" entry's "bytes"): written here, and agreed on.
  void SyncIn(const Json& bytes_field, const char* field);
  // Whether address `a` lies in [data, data + size] (one past the end included: an empty
  // tensor's data_ptr), and {"region", "offset"} naming it.
  bool Holds(std::uintptr_t a) const;
  Json AddressJson(std::int64_t id, std::uintptr_t a, int protocol) const;
};

// Regions (PROTOCOL.md "Regions"), computed alike at both ends of the pipe.
// Bytes per element of a DLPack dtype (at least 1).
std::int64_t DLItemsize(const DLDataType& dtype);
// Row-major strides, in elements, of a compact tensor of `shape` (a DLTensor whose strides are NULL).
std::vector<std::int64_t> CompactStrides(const std::vector<std::int64_t>& shape);
// The bytes a strided geometry reaches, relative to its first element: [*lo, *hi) (both 0 when
// it has no elements).
void ByteExtent(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& byte_strides,
                std::int64_t itemsize, std::int64_t* lo, std::int64_t* hi);
// The bytes a DLTensor reaches, relative to dl.data, with the DLPack rules: an element is
// ceil(bits x lanes / 8) bytes (at least 1), strides in elements (nullptr: compact),
// byte_offset added: [*lo, *hi) (both byte_offset when it has no elements). Checked
// arithmetic: false when a size is negative or a product or sum leaves int64.
bool DLByteExtent(const DLDataType& dtype, const std::vector<std::int64_t>& shape,
                  const std::vector<std::int64_t>* strides, std::uint64_t byte_offset, std::int64_t* lo,
                  std::int64_t* hi);
// The DLPack descriptor of a DLTensor whose data pointer lies `data_offset` bytes from the first
// byte of the region that mirrors it (PROTOCOL.md "Regions"), and the DLTensor such a descriptor
// describes over a region at `base` (its shape and strides point into `d`, which must outlive it).
DLPackDescriptor Describe(const DLTensor& t, std::int64_t data_offset);
DLTensor DLTensorOver(std::byte* base, DLPackDescriptor& d);

// Writes all of `data` to `fd` (retrying short writes and EINTR); false when the pipe is gone.
bool WriteAll(int fd, const std::string& data);

// How deeply a JSON text nests lists and objects (brackets inside strings not counted), in
// one linear pass that walks nothing recursively: checked before a parser that recurses.
std::size_t NestingDepth(const std::string& text);

// An answer's top-level "ok" when it is a list, decoded into scalars while the answer is
// parsed (no JSON tree of its elements: memory in proportion to the scalars, not ~16-250 bytes
// of tree per element). `decoded` says whether it was (a list); the first element that is no
// scalar is `error`, ScalarsOf's, raised by whoever reads `values`.
// A list of scalars holds at most kMaxScalars elements (PROTOCOL.md's bounds): past it the list
// is an error and no further element is kept, so that an answer costs the suite at most
// kMaxScalars * sizeof(Scalar) (640 MiB) however its line is written. The suites' largest
// tensors hold thousands of elements.
constexpr std::size_t kMaxScalars = std::size_t{1} << 24;
struct OkScalars {
  bool decoded = false;
  std::vector<Scalar> values;
  std::optional<ProtocolError> error;
};
// Json::parse(text) (the same parse errors), except that a top-level "ok" that is a list is
// decoded into *ok and stands as null in the result. The text must nest at most a few hundred
// levels (NestingDepth): element values are built recursively.
Json ParseAnswer(const std::string& text, OkScalars* ok);

// An error answer's message as the suite keeps it (PROTOCOL.md "Bounds", issue 42): the first
// kMaxErrorMessage bytes (cut at a UTF-8 character boundary), then its length and FNV-1a 64
// digest, so that a 200 MB message is not copied on into the case's check, its record and the
// result stream, and two long messages that differ past the head still differ. The runner
// bounds it again (conformance/runner/records.py: 2,048 characters).
constexpr std::size_t kMaxErrorMessage = std::size_t{64} << 10;

// Cuts an answer's top-level error.message while its line is read, so that neither the line
// nor its JSON tree ever holds a long message: the bytes of that string past its first `keep`
// bytes (as decoded: escapes unescaped) are dropped, its closing quote kept, and what is dropped
// is summed up as it streams by: the whole message's length and FNV-1a 64 digest (of the
// decoded bytes, as BoundMessage computes them from a whole message) and whether the dropped
// text is a valid JSON string's (nlohmann's rules: no raw control character, known escapes,
// paired surrogates, well-formed UTF-8), so an answer Json::parse refuses is still refused.
// A string is cut only at a character boundary (never inside an escape, a surrogate pair or a
// UTF-8 sequence). Every other byte of the line is kept: one pass, a few states, no tree.
class MessageCut {
 public:
  // The default keeps 4 bytes past kMaxErrorMessage: BoundMessage's head is then the same as
  // from the whole message.
  explicit MessageCut(std::size_t keep = kMaxErrorMessage + 4) : keep_(keep) {}
  // A new line.
  void Reset();
  // The line's next `n` bytes (no newline among them): those kept are appended to *out.
  void Feed(const char* p, std::size_t n, std::string* out);
  // Whether the line's (last) error.message was cut; its decoded length and digest in all.
  bool cut() const { return cut_; }
  std::size_t total() const { return length_; }
  std::uint64_t digest() const { return digest_; }
  // "" or why the dropped bytes are no JSON string text (the line is then no JSON).
  const std::string& invalid() const { return invalid_; }

 private:
  enum class Role : std::uint8_t { kSkip, kKey, kMessage };
  void StartString();
  void EndString();
  void Decoded(std::uint32_t code_point);  // an escaped character of a key or of the message
  void Raw(unsigned char c);  // one decoded byte of a key or of the message
  void Byte(unsigned char c);  // one decoded byte of the message
  void Invalid(const char* why);

  std::size_t keep_;
  // Structure outside strings: the depth, and at depths 1 and 2 whether the container is an
  // object (deeper containers matter only for coming back up).
  std::size_t depth_ = 0;
  bool object_[3] = {false, false, false};
  bool expect_key_ = false;
  bool ended_ = false;  // a NUL byte outside strings: Json::parse reads no further
  bool error_key_ = false;    // the last key at depth 1 is "error"
  bool message_key_ = false;  // the last key at depth 2 is "message" (inside "error")
  // Inside a string.
  bool in_string_ = false;
  Role role_ = Role::kSkip;
  int escape_ = 0;  // 0: none; 1: after '\'; 2-5: that many hex digits of \uXXXX read plus 1
  std::uint32_t hex_ = 0;
  std::uint32_t high_ = 0;  // a high surrogate waiting for its low one
  int utf8_need_ = 0;  // continuation bytes still due
  unsigned char utf8_lo_ = 0x80, utf8_hi_ = 0xBF;  // the range of the next continuation byte
  char key_[8];
  std::size_t key_size_ = 0;
  // The message.
  bool cutting_ = false;  // past `keep`: bytes are dropped
  bool cut_ = false;
  std::size_t length_ = 0;
  std::uint64_t digest_ = 0;
  std::string invalid_;
};

// FNV-1a 64: the digest a cut message carries (MessageCut, BoundMessage), and what the suite
// mixes with the run's seed to draw a case's fact checks. Fnv1a64Step adds one byte to `h`.
inline constexpr std::uint64_t kFnv1a64Offset = 1469598103934665603ull;
constexpr std::uint64_t Fnv1a64Step(std::uint64_t h, unsigned char c) { return (h ^ c) * 1099511628211ull; }
std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t h = kFnv1a64Offset);

// `text` (an error answer's message) as the suite keeps it; with the MessageCut of the line it
// came from, when that cut it (`text` is then its head, and the length and digest are the cut's).
std::string BoundMessage(std::string text, const MessageCut* cut = nullptr);

std::string Base64(const std::byte* data, std::size_t size);
std::vector<std::byte> Unbase64(const std::string& text, const char* field);

#include "spec/interface_codecs.inc"

}  // namespace wire
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_WIRE_H_
