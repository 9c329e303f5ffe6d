// Row type and check of the asarray suite (spec/asarray.toml).
//
// The suite plays the other side of every exchange itself: it owns the host arrays and
// buffers asarray wraps, so sharing is observed, not taken on the candidate's word.
#ifndef TCTS_CONFORMANCE_CHECKS_ASARRAY_H_
#define TCTS_CONFORMANCE_CHECKS_ASARRAY_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "conformance/checks/strided.h"

namespace tcts {

enum class SourceKind { kTensor, kArray, kDLPack, kArrayScalar, kBuffer, kSequence, kScalar };

// asarray(source, dtype, device, copy) and what it must give. `values` is a Python value: the
// source's elements in row-major order (tensor, array, DLPack, array scalar) or the source
// itself (sequence, scalar). A buffer is `buffer_bytes` zero bytes (no values).
struct AsarrayRow {
  RowMeta meta;
  SourceKind source;
  DType source_dtype;
  Dims sizes;
  Dims byte_strides;  // array: strides in bytes
  const PyNode* values;     // the value's nodes (common.h), nullptr for a buffer
  int n_values;             // how many
  const char* values_text;  // how the call names it, as the spec writes it ("[1, 2j]")
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
  // requires_grad and autograd history (spec/asarray.toml [autograd], Feature::kAutograd); the
  // defaults are a row that checks none of it. Sharing is then judged by data_ptr alone (a leaf
  // that requires grad refuses in-place writes).
  bool grad = false;
  int requires_grad = -1;  // asarray's requires_grad: -1 not given, 0 False, 1 True
  int history = 0;         // a tensor source: 0 plain, 1 a leaf that requires grad, 2 that leaf + 2
  bool want_requires_grad = false;  // the result's requires_grad, is_leaf and grad_fn ("" = None)
  bool want_is_leaf = true;
  const char* want_grad_fn = "";
  const char* source_grad_fn = "";    // history 2: the source's grad_fn
  int source_requires_grad_after = -1;  // the source's requires_grad after the call: -1 not checked
  bool source_only = false;  // make the source (history > 0) and check it; no asarray call
};

inline void PrintTo(const AsarrayRow& r, std::ostream* os) { *os << r.meta.id; }

void CheckAsarray(Case& c, const AsarrayRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_ASARRAY_H_
