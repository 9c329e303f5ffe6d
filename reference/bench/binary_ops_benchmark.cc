// Elementwise add: the reference CPU kernels against libtorch, single-threaded, in one
// run, with the machine's memcpy bandwidth as the limit.
//
//   bazel run -c opt //reference/bench:binary_ops_benchmark
//
// Every case writes into a preallocated output (out=), so the figure is the kernel's, not
// the allocator's. Throughput counts the bytes an ideal kernel must move: both inputs read
// once (a broadcast row once, not per row) and the output written once; memcpy moves
// 2 x 64 MiB (read + write). After the runs a table gives each case as a ratio to libtorch
// and to the memcpy bandwidth (medians over --benchmark_repetitions; 5 by default).
#include <benchmark/benchmark.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "reference/binary_ops.h"
#include "reference/strided.h"

namespace {

using tcts::ref::ScalarType;
namespace ref = tcts::ref;

// ---------------------------------------------------------------- the cases
struct Operand {
  std::vector<std::int64_t> sizes;
  ref::MemoryFormat format;
  ScalarType dtype;
};
struct Case {
  const char* name;
  Operand a, b, out;
};

const std::vector<std::int64_t> kVector = {1 << 24};
const std::vector<std::int64_t> kImage = {16, 64, 128, 128};
const std::vector<std::int64_t> kMatrix = {4096, 4096};
const std::vector<std::int64_t> kRow = {4096};

const Case kCases[] = {
    {"contiguous_f32_f32", {kVector, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kVector, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kVector, ref::MemoryFormat::kContiguous, ScalarType::kFloat32}},
    {"mixed_i32_f32", {kVector, ref::MemoryFormat::kContiguous, ScalarType::kInt32},
     {kVector, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kVector, ref::MemoryFormat::kContiguous, ScalarType::kFloat32}},
    {"channels_last_plus_contiguous", {kImage, ref::MemoryFormat::kChannelsLast, ScalarType::kFloat32},
     {kImage, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kImage, ref::MemoryFormat::kChannelsLast, ScalarType::kFloat32}},
    {"broadcast_row_plus_matrix", {kRow, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kMatrix, ref::MemoryFormat::kContiguous, ScalarType::kFloat32},
     {kMatrix, ref::MemoryFormat::kContiguous, ScalarType::kFloat32}},
};

std::int64_t Numel(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) n *= s;
  return n;
}

std::int64_t Bytes(const Case& c) {
  const auto bytes = [](const Operand& o) { return Numel(o.sizes) * ref::Info(o.dtype).itemsize; };
  return bytes(c.a) + bytes(c.b) + bytes(c.out);
}

// Inputs hold small integers (exact in every dtype), so both libraries compute the same.
ref::Tensor RefTensor(const Operand& o, int seed) {
  ref::Tensor t = ref::Empty(o.sizes, o.dtype, o.format);
  ref::Dispatch(o.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = reinterpret_cast<T*>(t.storage()->data());
    for (std::int64_t k = 0, n = t.StorageNumel(); k < n; ++k) p[k] = ref::Convert<T>((k * 7 + seed) % 251);
  });
  return t;
}

at::Tensor TorchTensor(const Operand& o, int seed) {
  const at::ScalarType st = o.dtype == ScalarType::kInt32 ? at::kInt : at::kFloat;
  const at::MemoryFormat mf =
      o.format == ref::MemoryFormat::kChannelsLast ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  at::Tensor t = at::empty(o.sizes, at::TensorOptions().dtype(st), mf);
  at::Tensor flat = at::arange(t.numel(), at::TensorOptions().dtype(at::kLong)).mul_(7).add_(seed).remainder_(251);
  t.as_strided({t.numel()}, {1}).copy_(flat);
  return t;
}

void BM_Reference(benchmark::State& state, const Case& c) {
  const ref::Tensor a = RefTensor(c.a, 1), b = RefTensor(c.b, 2);
  ref::Tensor out = RefTensor(c.out, 3);
  for (auto _ : state) {
    ref::BinaryOut(ref::BinaryOp::kAdd, a, b, ref::Scalar::Int(1), out);
    benchmark::DoNotOptimize(out.storage()->data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * Bytes(c));
}

void BM_Libtorch(benchmark::State& state, const Case& c) {
  const at::Tensor a = TorchTensor(c.a, 1), b = TorchTensor(c.b, 2);
  at::Tensor out = TorchTensor(c.out, 3);
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::DoNotOptimize(out.data_ptr());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * Bytes(c));
}

constexpr std::size_t kMemcpyBytes = std::size_t{64} << 20;

void BM_Memcpy(benchmark::State& state) {
  std::vector<char> src(kMemcpyBytes, 1), dst(kMemcpyBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kMemcpyBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * kMemcpyBytes));
}

// ---------------------------------------------------------------- ratios
// Console output as usual, plus bytes/s of every repetition for the summary table.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      const auto it = r.counters.find("bytes_per_second");
      if (it != r.counters.end()) samples[r.run_name.function_name].push_back(it->second.value);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // The median repetition of a benchmark (0 when it did not run).
  double Median(const std::string& name) const {
    const auto it = samples.find(name);
    if (it == samples.end() || it->second.empty()) return 0;
    std::vector<double> v = it->second;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }
  std::map<std::string, std::vector<double>> samples;
};

}  // namespace

int main(int argc, char** argv) {
  at::set_num_threads(1);  // both sides single-threaded
  benchmark::RegisterBenchmark("memcpy", BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (const Case& c : kCases) {
    benchmark::RegisterBenchmark((std::string("reference/") + c.name).c_str(), BM_Reference, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("libtorch/") + c.name).c_str(), BM_Libtorch, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  std::vector<char*> args(argv, argv + argc);
  std::string repetitions = "--benchmark_repetitions=5";
  args.insert(args.begin() + 1, repetitions.data());  // a later flag on the command line wins
  argc = static_cast<int>(args.size());
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);

  const auto rate = [&](const std::string& name) { return collector.Median(name); };
  const double limit = rate("memcpy");
  std::printf("\nmemcpy bandwidth (the limit): %.2f GB/s; libtorch threads: %d\n", limit / 1e9, at::get_num_threads());
  std::printf("%-32s %12s %12s %14s %14s %14s\n", "case", "ref GB/s", "torch GB/s", "ref/libtorch", "ref/memcpy",
              "torch/memcpy");
  for (const Case& c : kCases) {
    const double r = rate(std::string("reference/") + c.name), t = rate(std::string("libtorch/") + c.name);
    if (r == 0 || t == 0) continue;  // filtered out
    std::printf("%-32s %12.2f %12.2f %14.2f %14.2f %14.2f\n", c.name, r / 1e9, t / 1e9, r / t, r / limit, t / limit);
  }
  benchmark::Shutdown();
  return 0;
}
