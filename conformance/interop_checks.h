// Row types and checks of the devices, asarray and dlpack suites (spec/devices.toml,
// spec/asarray.toml, spec/dlpack.toml).
//
// The suite plays the other side of every exchange itself: it owns the host arrays and
// buffers asarray wraps, produces DLPack tensors with a deleter that counts its calls, and
// reads exported DLPack memory directly, so sharing, lifetime and layout are observed, not
// taken on the candidate's word.
#ifndef TCTS_CONFORMANCE_INTEROP_CHECKS_H_
#define TCTS_CONFORMANCE_INTEROP_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "conformance/candidate.h"
#include "conformance/checks.h"
#include "conformance/harness.h"
#include "conformance/strided_checks.h"

namespace tcts {

// ---------------------------------------------------------------- devices.toml
struct DeviceArgLit {
  DeviceArg::Form form;
  const char* text;
  std::int64_t index;
  DeviceArg arg() const { return DeviceArg{form, text, index}; }
};

// torch.device(arg): its type, index (-1: none), str and repr, or the error. lists_types:
// the error message must also name every documented device type.
struct DeviceRow {
  RowMeta meta;
  DeviceArgLit arg;
  ExpectedError error;
  bool lists_types;
  const char* type;
  std::int64_t index;
  const char* str;
  const char* repr;
};

// a == b (and then hash(a) == hash(b)).
struct DeviceEqualityRow {
  RowMeta meta;
  DeviceArgLit a, b;
  bool equal;
};

// One step of a default-device case: set_default_device(device), entering/leaving a device
// context, a factory (empty) or asarray call and the device its result must be on, or
// get_default_device() and what it must say.
enum class DeviceStepKind { kSet, kEnter, kExit, kFactory, kGet, kAsarray, kAsarrayTensor };
struct DeviceStep {
  DeviceStepKind kind;
  const char* device;  // set/enter: the device; factory: the explicit device ("" = none)
  const char* expect;  // factory/get/asarray: the expected device ("" = nothing to check)
};
struct DefaultDeviceRow {
  RowMeta meta;
  int nsteps;
  DeviceStep steps[10];
};

// ---------------------------------------------------------------- asarray.toml
enum class SourceKind { kTensor, kArray, kDLPack, kArrayScalar, kBuffer, kSequence, kScalar };

// asarray(source, dtype, device, copy) and what it must give. `values` is a Python literal:
// the source's elements in row-major order (tensor, array, DLPack, array scalar) or the
// source itself (sequence, scalar). A buffer is `buffer_bytes` zero bytes.
struct AsarrayRow {
  RowMeta meta;
  SourceKind source;
  DType source_dtype;
  Dims sizes;
  Dims byte_strides;  // array: strides in bytes
  const char* values;
  int dl_code;  // DLPack: the source dtype's type code (spec/dlpack.toml)
  std::int64_t buffer_bytes;
  bool has_dtype;
  DType dtype;
  const char* device;  // "" = not given
  int copy;            // -1 None, 0 False, 1 True
  DType default_dtype;
  ExpectedError error;
  DType result_dtype;
  Dims result_sizes;
  const char* result_device;
  bool shares;  // the result shares the source's memory (a write to either shows in the other)
};

// ---------------------------------------------------------------- dlpack.toml
// to_dlpack of a view (steps) of make_tensor(base, dtype) (or of empty_on(base, device) when
// device is not cpu): the DLTensor's fields, or the error.
struct DLPackExportRow {
  RowMeta meta;
  DType dtype;
  Dims base;
  int nsteps;
  ViewStep steps[2];
  const char* device;
  ExpectedError error;
  int code, bits;
  Dims shape, strides;
  int device_type, device_id;
};

// from_dlpack of a DLTensor the suite produces over its own buffer.
struct DLPackImportRow {
  RowMeta meta;
  DType dtype;  // what a valid row imports as
  int code, bits, lanes, device_type;
  Dims sizes, strides;
  bool null_strides;
  std::int64_t byte_offset;
  ExpectedError error;
};

// A tensor exported by one side and imported by the other (the peer is a second candidate
// linked into the suite binary).
struct DLPackRoundTripRow {
  RowMeta meta;
  DType dtype;
  Dims base;
  int nsteps;
  ViewStep steps[2];
  bool from_peer;
  const char* peer;
  Dims sizes, strides;
};

inline void PrintTo(const DeviceRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DeviceEqualityRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DefaultDeviceRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const AsarrayRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DLPackExportRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DLPackImportRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DLPackRoundTripRow& r, std::ostream* os) { *os << r.meta.id; }

void Check(const DeviceRow& row);
void Check(const DeviceEqualityRow& row);
void Check(const DefaultDeviceRow& row);
void Check(const AsarrayRow& row);
void Check(const DLPackExportRow& row);
void Check(const DLPackImportRow& row);
void Check(const DLPackRoundTripRow& row);

// ---------------------------------------------------------------- shared helpers (tested in harness_test)
// Parses a Python literal: numbers (ints, floats, complex with j), True/False, nested lists.
std::optional<PyValue> ParsePyValue(const std::string& text, std::string* error);
// One element of `dtype` in host memory, read as the candidate interface reports values,
// and written from a value as a cast would (float16/bfloat16 rounded to nearest even).
Scalar ReadHost(DType dtype, const std::byte* p);
void WriteHost(DType dtype, std::byte* p, const Scalar& value);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_INTEROP_CHECKS_H_
