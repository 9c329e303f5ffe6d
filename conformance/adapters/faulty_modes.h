// The faults the test-only candidate "faulty" (faulty.cc, which documents every mode)
// injects: which mode the running case gets (its faults option), and the perturbations of the
// reference's real answers that the wrong-answer modes return.
#ifndef TCTS_CONFORMANCE_ADAPTERS_FAULTY_MODES_H_
#define TCTS_CONFORMANCE_ADAPTERS_FAULTY_MODES_H_

#include <optional>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"

namespace tcts::faulty {

// One item of the faults option: MODE=GLOB.
struct Fault {
  std::string mode, glob;
};
// The candidate option faults=MODE=GLOB;MODE=GLOB... parsed; a bad item ends the process (exit 2)
// naming it.
std::vector<Fault> ParseFaults(const std::string& spec);
// The mode of the first fault whose glob matches case `id` ("" for none).
std::string ModeFor(const std::vector<Fault>& faults, const std::string& id);

// to_dlpack's export wrapped so its deleter fills the exported memory with 0xA5 before the
// exporter's deleter runs (a deleter that frees memory still in use, seen without a crash).
DLManagedTensor* PoisoningExport(DLManagedTensor* inner);
// Writes t's first element (row-major) back 1 ulp off, through `base`.
std::optional<Error> OneUlpOff(Candidate& base, const TensorHandle& t);
// view_geometry: the view with one stride changed (in bounds); view_copies: the same
// geometry over a copy of the storage; any other mode: r.
Result<TensorHandle> PerturbView(Candidate& base, const std::string& mode, Result<TensorHandle> r);
// float64 for float32, float32 otherwise.
DType OtherFloat(DType d);
// "cuda:1" -> "cuda", "cpu" -> "cpu:0".
std::string ToggleIndex(const std::string& device);
// channels_last and channels_last_3d as contiguous_format.
MemoryFormat NoChannelsLast(MemoryFormat f);
// Value-based promotion, which PyTorch does not do: a Python int or float of a magnitude `d`
// cannot hold widens it to int64 or float64.
DType ValueBased(DType d, const Operand& a, const Operand& b);

}  // namespace tcts::faulty

#endif  // TCTS_CONFORMANCE_ADAPTERS_FAULTY_MODES_H_
