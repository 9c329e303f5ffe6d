// Device memory, copies and the first elementwise kernels of the reference's cuda backend.
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

// After a kernel launch: launch errors, then errors the kernel raised.
void CheckLaunch(const char* kernel) {
  Check(cudaGetLastError(), std::string("launching ") + kernel);
  Check(cudaDeviceSynchronize(), std::string("running ") + kernel);
}

template <class To, class From>
__device__ To Cast(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return static_cast<To>(v);
  }
}

// Calls f(T{}) with T the C++ type of `type`.
template <class F>
__host__ void Dispatch(Elem type, F&& f) {
  switch (type) {
    case Elem::kBool: return f(bool{});
    case Elem::kUint8: return f(std::uint8_t{});
    case Elem::kInt8: return f(std::int8_t{});
    case Elem::kInt16: return f(std::int16_t{});
    case Elem::kInt32: return f(std::int32_t{});
    case Elem::kInt64: return f(std::int64_t{});
    case Elem::kFloat32: return f(float{});
    case Elem::kFloat64: return f(double{});
  }
  throw CudaError("unknown element type");
}

constexpr int kThreads = 256;

unsigned Blocks(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <class T>
__global__ void FillKernel(T* dst, StridedIndexer g, std::int64_t n, double value) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[g.Offset(i)] = Cast<T>(value);
}

template <class To, class From>
__global__ void CopyCastKernel(To* dst, StridedIndexer dg, const From* src, StridedIndexer sg, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[dg.Offset(i)] = Cast<To>(src[sg.Offset(i)]);
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
  Check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  void* p = nullptr;
  Check(cudaMalloc(&p, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes)");
  return p;
}

void Free(void* p) noexcept {
  const cudaError_t e = cudaFree(p);
  if (e != cudaSuccess) std::fprintf(stderr, "tcts cuda: cudaFree: %s\n", cudaGetErrorString(e));
}

void CopyToDevice(void* dst, const void* src, std::size_t bytes) {
  Check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy host->device (" + std::to_string(bytes) + " bytes)");
}
void CopyToHost(void* dst, const void* src, std::size_t bytes) {
  Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy device->host (" + std::to_string(bytes) + " bytes)");
}
void CopyOnDevice(void* dst, const void* src, std::size_t bytes) {
  Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice),
        "cudaMemcpy device->device (" + std::to_string(bytes) + " bytes)");
}

void Fill(void* dst, Elem type, const StridedIndexer& g, double value) {
  const std::int64_t n = g.Numel();
  if (n == 0) return;
  Dispatch(type, [&](auto tag) {
    using T = decltype(tag);
    FillKernel<T><<<Blocks(n), kThreads>>>(static_cast<T*>(dst), g, n, value);
  });
  CheckLaunch("Fill");
}

void CopyCast(void* dst, Elem dst_type, const StridedIndexer& dg, const void* src, Elem src_type,
              const StridedIndexer& sg) {
  const std::int64_t n = dg.Numel();
  if (n != sg.Numel()) throw CudaError("CopyCast: " + std::to_string(n) + " vs " + std::to_string(sg.Numel()) + " elements");
  if (n == 0) return;
  Dispatch(dst_type, [&](auto to_tag) {
    using To = decltype(to_tag);
    Dispatch(src_type, [&](auto from_tag) {
      using From = decltype(from_tag);
      CopyCastKernel<To, From><<<Blocks(n), kThreads>>>(static_cast<To*>(dst), dg, static_cast<const From*>(src), sg, n);
    });
  });
  CheckLaunch("CopyCast");
}

}  // namespace tcts::cuda
