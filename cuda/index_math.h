// Index math shared by host and device code: the storage offset (in elements) of the k-th
// element, in row-major order, of a strided geometry — seed 004's formula
// offset + sum_d stride[d] * i[d], with i the row-major unravelling of k.
//
// Plain C++ when compiled by the host compiler (and tested there, cuda/index_math_test.cc);
// __host__ __device__ under nvcc, where the kernels use the very same code.
#ifndef TCTS_CUDA_INDEX_MATH_H_
#define TCTS_CUDA_INDEX_MATH_H_

#include <cstdint>

#ifdef __CUDACC__
#define TCTS_HD __host__ __device__
#else
#define TCTS_HD
#endif

namespace tcts::cuda {

// The most dimensions a kernel geometry carries by value.
constexpr int kMaxDims = 16;

struct StridedIndexer {
  int ndim = 0;
  std::int64_t sizes[kMaxDims] = {};
  std::int64_t strides[kMaxDims] = {};  // in elements
  std::int64_t offset = 0;              // storage offset, in elements

  // The storage offset of the element at row-major position `linear` (0 <= linear < numel).
  TCTS_HD std::int64_t Offset(std::int64_t linear) const {
    std::int64_t at = offset;
    for (int d = ndim - 1; d >= 0; --d) {
      const std::int64_t size = sizes[d];
      at += (linear % size) * strides[d];
      linear /= size;
    }
    return at;
  }
  TCTS_HD std::int64_t Numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_INDEX_MATH_H_
