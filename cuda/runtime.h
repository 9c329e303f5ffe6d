// The CUDA side of the reference: device memory, copies, and the elementwise kernels the
// reference's `cuda` device runs. Host-callable; every CUDA error becomes a CudaError that
// names the call, never a silent wrong result.
#ifndef TCTS_CUDA_RUNTIME_H_
#define TCTS_CUDA_RUNTIME_H_

#include <cstddef>
#include <stdexcept>
#include <string>

#include "cuda/index_math.h"

namespace tcts::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The element types the kernels handle so far (the reference's ScalarType numbering is not
// assumed: callers translate).
enum class Elem { kBool, kUint8, kInt8, kInt16, kInt32, kInt64, kFloat32, kFloat64 };

// GPUs visible to this process; 0 (and why, in *why) when there is no driver or device.
int DeviceCount(std::string* why);

void* Malloc(std::size_t bytes, int device);  // cudaMalloc on `device`
void Free(void* p) noexcept;                  // cudaFree; errors are reported to stderr
void CopyToDevice(void* dst, const void* src, std::size_t bytes);
void CopyToHost(void* dst, const void* src, std::size_t bytes);
void CopyOnDevice(void* dst, const void* src, std::size_t bytes);

// dst[i] = value for every element of the geometry (value converted as a cast would).
void Fill(void* dst, Elem type, const StridedIndexer& geometry, double value);
// dst[i] = src[i] element by element (same sizes), converted from src's type to dst's.
void CopyCast(void* dst, Elem dst_type, const StridedIndexer& dst_geometry, const void* src, Elem src_type,
              const StridedIndexer& src_geometry);

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_RUNTIME_H_
