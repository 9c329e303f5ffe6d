// The testee protocol's value encodings (PROTOCOL.md "Values"), shared by the suite's side
// (process_candidate.cc) and the C++ testee kit: dtypes by canonical name, scalars exactly
// (floats as C99 hex strings), host bytes as base64, and decoders that name the field and
// what they expected when a message is malformed.
#ifndef TCTS_CONFORMANCE_PROTOCOL_WIRE_H_
#define TCTS_CONFORMANCE_PROTOCOL_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
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
DType DTypeOf(const Json& v, const char* field);  // canonical names only
Layout LayoutOf(const Json& v, const char* field);
MemoryFormat MemoryFormatOf(const Json& v, const char* field);
Scalar ScalarOf(const Json& v, const char* field);
std::vector<Scalar> ScalarsOf(const Json& v, const char* field);
PyValue PyValueOf(const Json& v, const char* field, int depth = 0);
DeviceArg DeviceArgOf(const Json& v, const char* field);

// Encoders.
Json FloatJson(double f);  // {"float": "0x1.8p+1"} ("inf", "-inf", "nan")
Json ScalarJson(const Scalar& s);
Json Scalars(const std::vector<Scalar>& values);
Json PyValueJson(const PyValue& v);
Json DeviceArgJson(const DeviceArg& a);

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
// Writes all of `data` to `fd` (retrying short writes and EINTR); false when the pipe is gone.
bool WriteAll(int fd, const std::string& data);

// How deeply a JSON text nests lists and objects (brackets inside strings not counted), in
// one linear pass that walks nothing recursively: checked before a parser that recurses.
std::size_t NestingDepth(const std::string& text);

std::string Base64(const std::byte* data, std::size_t size);
std::vector<std::byte> Unbase64(const std::string& text, const char* field);

}  // namespace wire
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_WIRE_H_
