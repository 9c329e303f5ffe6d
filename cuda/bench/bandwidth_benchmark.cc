// The reference's cuda add against the GPU's own copy bandwidth, in one run:
//   bazel run -c opt //cuda/bench:bandwidth_benchmark
//
// Each benchmark times whole calls (the reference's checks, planning and the kernel) with
// CUDA events and reports bytes moved per second (reads + writes). The first benchmark
// measures cudaMemcpy device-to-device on the same buffers' size; every add reports
// `of_memcpy`, its bandwidth as a fraction of that one (targets: >= 0.90 contiguous, >= 0.75
// when layouts mix). Without a usable GPU the run reports the reason and exits 1.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <iostream>
#include <string>

#include "cuda/runtime.h"
#include "reference/binary_ops.h"
#include "reference/strided.h"

namespace {

using tcts::ref::BinaryOp;
using tcts::ref::MemoryFormat;
using tcts::ref::Scalar;
using tcts::ref::ScalarType;
using tcts::ref::Tensor;

constexpr std::int64_t kBytes = std::int64_t{256} << 20;  // per float32 operand
constexpr std::int64_t kElements = kBytes / 4;              // 64 Mi elements
const tcts::ref::Device kCuda = tcts::ref::Device::Parse("cuda:0");

double memcpy_bytes_per_second = 0;  // set by the first benchmark

void Report(benchmark::State& state, double bytes_per_iteration, double seconds) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes_per_iteration) * state.iterations());
  const double bandwidth = bytes_per_iteration * state.iterations() / seconds;
  state.counters["GB/s"] = bandwidth / 1e9;
  if (memcpy_bytes_per_second > 0) state.counters["of_memcpy"] = bandwidth / memcpy_bytes_per_second;
}

void BM_MemcpyDeviceToDevice(benchmark::State& state) {
  void* src = tcts::cuda::Malloc(kBytes, 0);
  void* dst = tcts::cuda::Malloc(kBytes, 0);
  tcts::cuda::EventTimer timer(0);
  double total = 0;
  for (auto _ : state) {
    timer.Start();
    tcts::cuda::Memcpy(dst, src, kBytes, tcts::cuda::CopyKind::kDeviceToDevice, 0);
    const double s = timer.StopSeconds();
    state.SetIterationTime(s);
    total += s;
  }
  memcpy_bytes_per_second = 2.0 * kBytes * state.iterations() / total;  // read + write
  Report(state, 2.0 * kBytes, total);
  tcts::cuda::Free(src, 0);
  tcts::cuda::Free(dst, 0);
}

// out = a + b through the reference (BinaryOut: checks, planning, kernel), timed on the GPU.
void TimeAdd(benchmark::State& state, const Tensor& a, const Tensor& b, Tensor out) {
  tcts::cuda::EventTimer timer(0);
  const std::int64_t bytes = a.numel() * (tcts::ref::Info(a.dtype()).itemsize + tcts::ref::Info(b.dtype()).itemsize +
                                          tcts::ref::Info(out.dtype()).itemsize);
  double total = 0;
  for (auto _ : state) {
    timer.Start();
    tcts::ref::BinaryOut(BinaryOp::kAdd, a, b, Scalar::Int(1), out);
    const double s = timer.StopSeconds();
    state.SetIterationTime(s);
    total += s;
  }
  Report(state, static_cast<double>(bytes), total);
}

void BM_AddContiguousFloat32(benchmark::State& state) {
  const Tensor a = Tensor::Empty({kElements}, ScalarType::kFloat32, kCuda);
  const Tensor b = Tensor::Empty({kElements}, ScalarType::kFloat32, kCuda);
  TimeAdd(state, a, b, Tensor::Empty({kElements}, ScalarType::kFloat32, kCuda));
}

void BM_AddInt32Float32(benchmark::State& state) {
  const Tensor a = Tensor::Empty({kElements}, ScalarType::kInt32, kCuda);
  const Tensor b = Tensor::Empty({kElements}, ScalarType::kFloat32, kCuda);
  TimeAdd(state, a, b, Tensor::Empty({kElements}, ScalarType::kFloat32, kCuda));
}

void BM_AddChannelsLastContiguous(benchmark::State& state) {
  const std::vector<std::int64_t> sizes = {64, 64, 128, 128};  // 64 Mi float32 elements
  const Tensor a = tcts::ref::Empty(sizes, ScalarType::kFloat32, MemoryFormat::kChannelsLast, kCuda);
  const Tensor b = tcts::ref::Empty(sizes, ScalarType::kFloat32, MemoryFormat::kContiguous, kCuda);
  TimeAdd(state, a, b, tcts::ref::Empty(sizes, ScalarType::kFloat32, MemoryFormat::kContiguous, kCuda));
}

BENCHMARK(BM_MemcpyDeviceToDevice)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(BM_AddContiguousFloat32)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(BM_AddInt32Float32)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(BM_AddChannelsLastContiguous)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (tcts::cuda::DeviceCount(&why) == 0) {
    std::cerr << "bandwidth_benchmark: no usable GPU (" << why << ")\n";
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();  // registration order: the memcpy baseline first
  benchmark::Shutdown();
  return 0;
}
