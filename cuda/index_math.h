// Index math shared by host and device code: where the k-th element (row-major over a loop
// shape) of each operand lives — seed 004's formula offset + sum_d stride[d] * i[d], with i
// the row-major unravelling of k.
//
// Plain C++ when compiled by the host compiler (and tested there, cuda/index_math_test.cc);
// __host__ __device__ under nvcc, where the kernels use the very same code.
#ifndef TCTS_CUDA_INDEX_MATH_H_
#define TCTS_CUDA_INDEX_MATH_H_

#include <cstdint>

#include "reference/hd.h"

namespace tcts::cuda {

// The most dimensions a kernel geometry carries by value (after merging, elementwise.h Plan).
constexpr int kMaxDims = 16;

// n / d and n % d for a fixed d by multiplication (Granlund and Montgomery; PyTorch's
// IntDivider does the same): for 1 <= d and n < 2^31,
//   n / d == (umulhi(n, magic) + n) >> shift.
// Division is the slowest integer operation on a GPU, and every strided element needs one
// per dimension.
struct IntDivider {
  std::uint32_t divisor = 1;
  std::uint32_t magic = 1;
  std::uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(std::uint32_t d) : divisor(d) {
    while (shift < 32 && (std::uint64_t{1} << shift) < d) ++shift;  // 2^shift >= d > 2^(shift-1)
    const std::uint64_t one = 1;
    magic = static_cast<std::uint32_t>(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  TCTS_HD std::uint32_t Div(std::uint32_t n) const {
#ifdef __CUDA_ARCH__
    const std::uint32_t t = __umulhi(n, magic);
#else
    const std::uint32_t t = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

// The byte offsets of N operands over one loop shape. Dimensions are stored innermost
// first; `narrow` (every index below 2^31) lets the walk use IntDivider instead of 64-bit
// division.
template <int N>
struct OffsetCalculator {
  int ndim = 0;
  bool narrow = true;
  std::int64_t sizes[kMaxDims] = {};
  IntDivider dividers[kMaxDims];
  std::int64_t strides[kMaxDims][N] = {};  // bytes

  // Byte offsets of the element at row-major position `linear` (0 <= linear < numel).
  TCTS_HD void Get(std::int64_t linear, std::int64_t (&offsets)[N]) const {
    for (int k = 0; k < N; ++k) offsets[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      std::int64_t index = linear;  // the outermost dimension needs no division
      if (d + 1 < ndim) {
        std::int64_t q;
        if (narrow) q = dividers[d].Div(static_cast<std::uint32_t>(linear));
        else q = linear / sizes[d];
        index = linear - q * sizes[d];
        linear = q;
      }
      for (int k = 0; k < N; ++k) offsets[k] += index * strides[d][k];
    }
  }
  TCTS_HD std::int64_t Numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_INDEX_MATH_H_
