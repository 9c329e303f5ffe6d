// The CUDA side of the reference: device memory, copies, and launching the element kernels
// whose per-element bodies are element_ops.h. Host-callable; every CUDA error becomes a
// CudaError that names the call, never a silent wrong result.
#ifndef TCTS_CUDA_RUNTIME_H_
#define TCTS_CUDA_RUNTIME_H_

#include <cstddef>
#include <stdexcept>
#include <string>

#include "cuda/element_ops.h"

namespace tcts::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// GPUs visible to this process; 0 (and why, in *why) when there is no driver or device.
int DeviceCount(std::string* why);

void* Malloc(std::size_t bytes, int device);  // cudaMalloc on `device`
void Free(void* p, int device) noexcept;       // cudaFree; errors are reported to stderr
void Zero(void* p, std::size_t bytes, int device);
enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
void Memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind, int device);

// The kernels: one thread per element (or per 16-byte chunk on the vectorised path),
// synchronised before returning so errors surface here.
void LaunchCopy(const CopyArgs& args, int device);
void LaunchBinary(const BinaryArgs& args, int device);

// Device time of what runs between Start and Stop (cudaEvent), for benchmarks.
class EventTimer {
 public:
  explicit EventTimer(int device);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void Start();
  double StopSeconds();  // waits for the device

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_RUNTIME_H_
