// What the asarray and dlpack suites exchange with a candidate: host memory the suite owns
// (an element codec, strided reads, a DLPack producer whose deleter counts its calls) and
// the values they put there.
#ifndef TCTS_CONFORMANCE_CHECKS_EXCHANGE_H_
#define TCTS_CONFORMANCE_CHECKS_EXCHANGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/binary.h"
#include "conformance/checks/common.h"
#include "conformance/checks/strided.h"
#include "conformance/harness/harness.h"

namespace tcts {

// One element of `dtype` in host memory, read as the candidate interface reports values,
// and written from a value as a cast would (float16/bfloat16 rounded to nearest even).
Scalar ReadHost(DType dtype, const std::byte* p);
void WriteHost(DType dtype, std::byte* p, const Scalar& value);

// Bytes from the first element to one past the last one a geometry reaches (0 when empty).
std::int64_t ByteExtent(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& byte_strides,
                        std::int64_t itemsize);
// The values at each index of a strided geometry over host memory (strides in bytes).
std::vector<Scalar> ReadStrided(DType dtype, const std::byte* data, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& byte_strides);

// Each value as a tensor of `dtype` holds it (CastTo).
std::vector<Scalar> CastAll(DType dtype, const std::vector<Scalar>& values);
// 0 1 0 1 ...: values that differ between neighbours in every dtype.
std::vector<Scalar> Alternating(std::int64_t n);
// The value that differs from `v` in every dtype (0 <-> 1).
Scalar Flipped(const Scalar& v);

// A DLPack tensor the suite produces over memory it owns; its deleter only counts calls.
struct Produced {
  std::vector<std::byte> bytes;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor managed{};
  int deleted = 0;

  static void Deleter(DLManagedTensor* self) { ++static_cast<Produced*>(self->manager_ctx)->deleted; }
};
// Lays `values` (row-major) out in a new producer's buffer with the given geometry.
std::unique_ptr<Produced> Produce(DType dtype, int code, int bits, int lanes, int device_type,
                                  const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                  bool null_strides, std::int64_t byte_offset, const std::vector<Scalar>& values);

// Builds a view of make_tensor(base, dtype, 0 1 0 1 ...) through `steps` on a candidate.
std::optional<TensorHandle> MakeView(Case& c, Candidate& cand, DType dtype, const Dims& base, int nsteps,
                                     const ViewStep* steps, const std::string& who);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_EXCHANGE_H_
