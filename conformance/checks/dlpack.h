// Row types and checks of the dlpack suite (spec/dlpack.toml).
//
// The suite produces DLPack tensors with a deleter that counts its calls and reads exported
// DLPack memory directly, so lifetime and layout are observed, not taken on the candidate's word.
#ifndef TCTS_CONFORMANCE_CHECKS_DLPACK_H_
#define TCTS_CONFORMANCE_CHECKS_DLPACK_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "conformance/checks/strided.h"

namespace tcts {

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

inline void PrintTo(const DLPackExportRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DLPackImportRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DLPackRoundTripRow& r, std::ostream* os) { *os << r.meta.id; }

void CheckDLPackExport(Case& c, const DLPackExportRow& row);
void CheckDLPackImport(Case& c, const DLPackImportRow& row);
void CheckDLPackRoundTrip(Case& c, const DLPackRoundTripRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_DLPACK_H_
