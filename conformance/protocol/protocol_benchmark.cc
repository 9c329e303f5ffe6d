// The testee protocol's cost, next to the in-process call, in one run:
//   bazel run -c opt //conformance/protocol:protocol_benchmark [-- --benchmark_repetitions=5]
// Each benchmark makes the same candidate-interface calls on
//   in_process/<name>   a candidate linked into this binary (reference, libtorch), and
//   testee/<name>       a testee process over the protocol: PyTorch's Python API
//                       (conformance/testees/torch/torch_testee.py) and, where it is linked,
//                       the reference served by the C++ kit.
// Round trips per second are items_per_second. Two calls: a trivial one (promote_types) and
// make_tensor of 1,000 float32 elements followed by values() of them.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/protocol/process_candidate.h"

namespace tcts {
namespace {

// The torch testee, by its program and arguments.
const std::vector<std::string> kTorchTestee = {"/usr/bin/python3", "conformance/testees/torch/torch_testee.py"};

std::unique_ptr<Candidate> Make(const std::string& which) {
  if (which == "testee:torch_python") {
    std::string error;
    auto c = StartTestee(kTorchTestee, "", &error);
    if (!c) std::fprintf(stderr, "protocol_benchmark: %s\n", error.c_str());
    return c;
  }
  return MakeCandidate(which);
}

void PromoteTypes(benchmark::State& state, const std::string& which) {
  auto c = Make(which);
  if (!c) return state.SkipWithError("candidate unavailable");
  for (auto _ : state) {
    auto r = c->promote_types(DType::kInt8, DType::kUint8);
    if (!r.ok()) return state.SkipWithError(r.error().message.c_str());
    benchmark::DoNotOptimize(r.value());
  }
  state.SetItemsProcessed(state.iterations());
}

void MakeTensorValues(benchmark::State& state, const std::string& which) {
  auto c = Make(which);
  if (!c) return state.SkipWithError("candidate unavailable");
  std::vector<Scalar> values;
  for (int i = 0; i < 1000; ++i) values.push_back(Scalar::Float(i * 0.5));
  for (auto _ : state) {
    auto t = c->make_tensor({1000}, DType::kFloat32, values);
    if (!t.ok()) return state.SkipWithError(t.error().message.c_str());
    auto v = c->values(t.value());
    if (!v.ok() || v.value().size() != 1000) return state.SkipWithError("values");
  }
  state.SetItemsProcessed(state.iterations());
}

// Wall-clock time: a testee's work happens in another process.
BENCHMARK_CAPTURE(PromoteTypes, in_process/reference, std::string("reference"))->UseRealTime();
BENCHMARK_CAPTURE(PromoteTypes, in_process/libtorch, std::string("libtorch"))->UseRealTime();
BENCHMARK_CAPTURE(PromoteTypes, testee/torch_python, std::string("testee:torch_python"))->UseRealTime();
BENCHMARK_CAPTURE(MakeTensorValues, in_process/reference, std::string("reference"))->UseRealTime();
BENCHMARK_CAPTURE(MakeTensorValues, in_process/libtorch, std::string("libtorch"))->UseRealTime();
BENCHMARK_CAPTURE(MakeTensorValues, testee/torch_python, std::string("testee:torch_python"))->UseRealTime();

}  // namespace
}  // namespace tcts

BENCHMARK_MAIN();
