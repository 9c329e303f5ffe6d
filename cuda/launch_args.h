// Kernel arguments from the reference's description of an element loop (elementwise.h):
// host code, built and tested with or without CUDA.
#ifndef TCTS_CUDA_LAUNCH_ARGS_H_
#define TCTS_CUDA_LAUNCH_ARGS_H_

#include <cstdint>
#include <vector>

#include "cuda/element_ops.h"
#include "reference/elementwise.h"

namespace tcts::cuda {

// dst[i] = cast(src[i]) over `shape`. The loop is the reference's Plan (size-1 dimensions
// dropped, dimensions ordered and merged); more than kMaxDims dimensions after merging is a
// RuntimeError naming the geometry.
CopyArgs MakeCopyArgs(const std::vector<std::int64_t>& shape, const ref::LoopOperand& dst,
                      const ref::LoopOperand& src);
// out = op(a, b, alpha) in result type `common`, as ref::RunBinary computes it.
BinaryArgs MakeBinaryArgs(ref::BinaryOp op, ScalarType common, const ref::Scalar& alpha,
                          const std::vector<std::int64_t>& shape, const ref::LoopOperand& out,
                          const ref::LoopOperand& a, const ref::LoopOperand& b);

// The kernels' grids as host loops over the same element bodies (the vectorised body where
// the cuda backend would launch it): for tests, and the emulated device.
void RunOnHost(const CopyArgs& args);
void RunOnHost(const BinaryArgs& args);

}  // namespace tcts::cuda

#endif  // TCTS_CUDA_LAUNCH_ARGS_H_
