// torch.asarray and DLPack for the reference (spec/asarray.toml, spec/dlpack.toml).
//
// asarray follows PyTorch's order of decisions (torch/csrc/utils/tensor_new.cpp asarray):
// a source that can alias (tensor, array, DLPack, buffer) is wrapped first and then copied
// only when copy=True, or when copy=None and the dtype or device differ; copy=False with a
// difference is a ValueError. A NumPy-style scalar is always copied; sequences and scalars
// are always built anew, with inferred dtype, on the default device.
#ifndef TCTS_REFERENCE_INTEROP_H_
#define TCTS_REFERENCE_INTEROP_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "dlpack/dlpack.h"
#include "reference/device.h"
#include "reference/tensor.h"

namespace tcts::ref {

struct AsarrayOptions {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  std::optional<bool> copy;
  // Not given is False (003's signature, and torch 1.13). The result's flag, set last: a leaf
  // (the source itself when it aliases a tensor) gets requires_grad; a result with history
  // (a non-leaf source, or a copy of a source that requires grad) keeps it when True and is
  // detached from it when False.
  bool requires_grad = false;
};

// A Python number or a (nested) list of them. Copying and destroying one never recurse, so
// a nesting of any depth costs heap, never the call stack.
struct PyValue {
  bool is_list = false;
  Scalar scalar;
  std::vector<PyValue> items;

  PyValue() = default;
  PyValue(const PyValue& other);
  PyValue(PyValue&& other) noexcept = default;
  PyValue& operator=(const PyValue& other);
  PyValue& operator=(PyValue&& other) noexcept;
  ~PyValue();
};

Tensor AsarrayTensor(const Tensor& t, const AsarrayOptions& o);
// An array-interface object: elements of dtype at data + sum(byte_strides[k] * i[k]), borrowed
// (the caller keeps them alive). is_scalar: a NumPy-style scalar (0-dim, always copied).
Tensor AsarrayArray(std::byte* data, ScalarType dtype, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::int64_t>& byte_strides, bool is_scalar, const AsarrayOptions& o);
// The buffer protocol: nbytes borrowed bytes grouped by the dtype (default: the default dtype).
Tensor AsarrayBuffer(std::byte* data, std::size_t nbytes, const AsarrayOptions& o);
// A DLPack capsule: imported (taking ownership), then treated as a tensor. Once imported the
// tensor owns m, also when a later asarray check fails (a used capsule, as in PyTorch).
Tensor AsarrayDLPack(DLManagedTensor* m, const AsarrayOptions& o);
// A Python number or nested list. Its sizes are read along the first items and every item is
// checked against them (ValueError naming the first ragged dimension; TypeError for a list
// where a number belongs); more than kMaxSequenceDims levels of nesting is a ValueError.
Tensor AsarrayValue(const PyValue& v, const AsarrayOptions& o);
// torch.tensor's limit (tensor_new.cpp MAX_DIMS): nothing deeper is walked, and no walk of a
// PyValue recurses, so hostile nesting cannot exhaust the stack.
constexpr std::size_t kMaxSequenceDims = 128;

// The dtype asarray infers for a Python value (bool < int64 < default float < default complex).
ScalarType InferScalarType(const PyValue& v);

// DLPack export: a new DLManagedTensor viewing t's memory (kept alive until its deleter runs).
// RuntimeError for a device DLPack cannot describe (meta).
DLManagedTensor* ToDLPack(const Tensor& t);
// DLPack import: takes ownership of m on success (its deleter runs once, when the last tensor
// using the memory dies); on an error m is untouched and still the caller's, its deleter not
// called. Every header field is validated (RuntimeError naming it): null shape with ndim > 0,
// negative sizes or strides, a byte count that overflows int64, null data for a non-empty
// tensor or with a byte_offset, an address range that wraps.
Tensor FromDLPack(DLManagedTensor* m);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_INTEROP_H_
