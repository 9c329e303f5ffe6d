// Memory formats, contiguity and view operations of the reference (spec/strided.toml).
//
// Views return a Tensor sharing the input's Storage with new sizes/strides/offset; copies
// (contiguous when needed, clone, reshape when no view exists) allocate a new Storage.
// Dimensions wrap as PyTorch's do: d in [-n, n-1], a 0-dim tensor accepting -1 and 0.
#ifndef TCTS_REFERENCE_STRIDED_H_
#define TCTS_REFERENCE_STRIDED_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "reference/tensor.h"

namespace tcts::ref {

enum class MemoryFormat { kContiguous, kChannelsLast, kChannelsLast3d, kPreserve };
const char* MemoryFormatName(MemoryFormat format);

// The strides empty(sizes, memory_format=format) allocates (RuntimeError for a rank the
// format does not support, or for preserve_format).
std::vector<std::int64_t> FormatStrides(const std::vector<std::int64_t>& sizes, MemoryFormat format);
Tensor Empty(const std::vector<std::int64_t>& sizes, ScalarType dtype, MemoryFormat format,
             const Device& device = Device::Cpu());

bool IsContiguous(const Tensor& t, MemoryFormat format);
bool IsContiguous(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                  MemoryFormat format);
// Some permutation of the dimensions is contiguous (size-0/1 dimensions aside).
bool IsNonOverlappingAndDense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides);
// TensorImpl::is_non_overlapping_and_dense: contiguous in some memory format (so every
// empty tensor) or dense under some permutation of the dimensions.
bool IsDense(const Tensor& t);
bool IsDense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides);
// The strides preserve_format keeps for t: its own when IsDense(t), else InferDenseStrides.
std::vector<std::int64_t> PreserveStrides(const Tensor& t);
// TensorIterator's dimension order, innermost first: an insertion sort over the reversed
// dimensions (n-1, ..., 0) in which should_swap(d0, d1) > 0 moves d1 inside d0, < 0 stops
// the scan and 0 passes over d0.
template <class ShouldSwap>
std::vector<std::size_t> TensorIteratorOrder(std::size_t n, ShouldSwap should_swap) {
  std::vector<std::size_t> perm(n);
  for (std::size_t k = 0; k < n; ++k) perm[k] = n - 1 - k;
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t d1 = i;
    for (std::size_t d0 = i; d0-- > 0;) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

// Dense strides in the order the input's strides give its dimensions (preserve_format).
std::vector<std::int64_t> InferDenseStrides(const std::vector<std::int64_t>& sizes,
                                            const std::vector<std::int64_t>& strides);

// Wraps a possibly negative dimension for a tensor of `rank` (IndexError when out of range).
std::int64_t WrapDim(std::int64_t dim, std::int64_t rank);

// ---------------------------------------------------------------- views
Tensor T(const Tensor& t);
Tensor Transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1);
Tensor Permute(const Tensor& t, const std::vector<std::int64_t>& dims);
Tensor Narrow(const Tensor& t, std::int64_t dim, std::int64_t start, std::int64_t length);
Tensor Select(const Tensor& t, std::int64_t dim, std::int64_t index);
Tensor Slice(const Tensor& t, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step);
Tensor Expand(const Tensor& t, const std::vector<std::int64_t>& sizes);
Tensor Unsqueeze(const Tensor& t, std::int64_t dim);
Tensor Squeeze(const Tensor& t, std::optional<std::int64_t> dim);
Tensor View(const Tensor& t, const std::vector<std::int64_t>& sizes);
Tensor Reshape(const Tensor& t, const std::vector<std::int64_t>& sizes);

// ---------------------------------------------------------------- copies
Tensor EmptyLike(const Tensor& t, MemoryFormat format);
// empty_like with another dtype and device.
Tensor EmptyLike(const Tensor& t, MemoryFormat format, ScalarType dtype, const Device& device);
// A copy; of a tensor that requires grad, a non-leaf with grad_fn CloneBackward0.
Tensor Clone(const Tensor& t, MemoryFormat format);
Tensor Contiguous(const Tensor& t, MemoryFormat format);
// dst[i...] = src[i...] for every index (same sizes), cast to dst's dtype.
void CopyInto(const Tensor& dst, const Tensor& src);
// t.to(device, dtype, copy=True): a new tensor (strides as clone's), each element cast; of a
// tensor that requires grad, a non-leaf with grad_fn ToCopyBackward0.
Tensor To(const Tensor& t, ScalarType dtype, const Device& device);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_STRIDED_H_
