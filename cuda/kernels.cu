// Device memory, copies and the element kernels of the reference's cuda backend. Each kernel
// is a loop over element_ops.h bodies (tested on the CPU against the reference); compiled
// with --fmad=false so products and sums round as the CPU reference's do.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "cuda/runtime.h"

namespace tcts::cuda {
namespace {

void Check(cudaError_t e, const std::string& call) {
  if (e != cudaSuccess) {
    throw CudaError(call + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }
}

void Use(int device) { Check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")"); }

// After a kernel launch: launch errors, then errors the kernel raised.
void CheckLaunch(const char* kernel) {
  Check(cudaGetLastError(), std::string("launching ") + kernel);
  Check(cudaDeviceSynchronize(), std::string("running ") + kernel);
}

constexpr int kThreads = 256;
constexpr int kWork = 4;  // elements per thread: independent loads in flight

unsigned Blocks(std::int64_t n, std::int64_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

__global__ void CopyKernel(CopyArgs p) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kThreads * kWork + threadIdx.x;
#pragma unroll
  for (int j = 0; j < kWork; ++j) {
    const std::int64_t i = base + j * kThreads;
    if (i < p.numel) CopyElement(p, i);
  }
}

template <class C>
__global__ void BinaryKernel(BinaryArgs p) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kThreads * kWork + threadIdx.x;
#pragma unroll
  for (int j = 0; j < kWork; ++j) {
    const std::int64_t i = base + j * kThreads;
    if (i < p.numel) BinaryElement<C>(p, i);
  }
}

template <class C>
__global__ void BinaryVecKernel(BinaryArgs p, std::int64_t chunks) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k < chunks) BinaryVecChunk<C>(p, k);
}

}  // namespace

int DeviceCount(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device";
  return n;
}

void* Malloc(std::size_t bytes, int device) {
  Use(device);
  void* p = nullptr;
  Check(cudaMalloc(&p, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes) on cuda:" + std::to_string(device));
  return p;
}

void Free(void* p, int device) noexcept {
  cudaSetDevice(device);
  const cudaError_t e = cudaFree(p);
  // At process exit the runtime may be unloaded before the last storage dies: nothing to free.
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) std::fprintf(stderr, "tcts cuda: cudaFree: %s\n", cudaGetErrorString(e));
}

void Zero(void* p, std::size_t bytes, int device) {
  Use(device);
  Check(cudaMemset(p, 0, bytes), "cudaMemset(" + std::to_string(bytes) + " bytes)");
}

void Memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind, int device) {
  Use(device);
  const cudaMemcpyKind k = kind == CopyKind::kHostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::kDeviceToHost ? cudaMemcpyDeviceToHost
                                                             : cudaMemcpyDeviceToDevice;
  const char* name = kind == CopyKind::kHostToDevice   ? "host->device"
                     : kind == CopyKind::kDeviceToHost ? "device->host"
                                                       : "device->device";
  Check(cudaMemcpy(dst, src, bytes, k), std::string("cudaMemcpy ") + name + " (" + std::to_string(bytes) + " bytes)");
}

void LaunchCopy(const CopyArgs& args, int device) {
  if (args.numel == 0) return;
  Use(device);
  CopyKernel<<<Blocks(args.numel, kThreads * kWork), kThreads>>>(args);
  CheckLaunch("CopyKernel");
}

namespace {
template <class C>
void LaunchBinaryAs(const BinaryArgs& args) {
  if constexpr (std::is_same_v<C, typename DevOpMath<C>::type>) {
    if (args.vectorizable) {
      const std::int64_t chunks = (args.numel + Vec<C>::kN - 1) / Vec<C>::kN;
      BinaryVecKernel<C><<<Blocks(chunks, kThreads), kThreads>>>(args, chunks);
      return;
    }
  }
  BinaryKernel<C><<<Blocks(args.numel, kThreads * kWork), kThreads>>>(args);
}
}  // namespace

void LaunchBinary(const BinaryArgs& args, int device) {
  if (args.numel == 0) return;
  Use(device);
  switch (args.common) {
#define TCTS_CUDA_LAUNCH(e, ...)                                 \
  case ScalarType::e:                                            \
    LaunchBinaryAs<typename DevType<ScalarType::e>::type>(args); \
    break;
    TCTS_REF_FORALL_SCALAR_TYPES(TCTS_CUDA_LAUNCH)
#undef TCTS_CUDA_LAUNCH
    default:  // uint16/32/64: the host's ref::Dispatch refuses them before any launch
      throw ref::InternalError(std::string("LaunchBinary: no kernel for ") + ref::Name(args.common));
  }
  CheckLaunch("BinaryKernel");
}

EventTimer::EventTimer(int device) {
  Use(device);
  cudaEvent_t a, b;
  Check(cudaEventCreate(&a), "cudaEventCreate");
  Check(cudaEventCreate(&b), "cudaEventCreate");
  start_ = a;
  stop_ = b;
}

EventTimer::~EventTimer() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

void EventTimer::Start() { Check(cudaEventRecord(static_cast<cudaEvent_t>(start_)), "cudaEventRecord"); }

double EventTimer::StopSeconds() {
  Check(cudaEventRecord(static_cast<cudaEvent_t>(stop_)), "cudaEventRecord");
  Check(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize");
  float ms = 0;
  Check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)),
        "cudaEventElapsedTime");
  return ms / 1e3;
}

}  // namespace tcts::cuda
