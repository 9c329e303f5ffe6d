// The reference's `cuda` device: a DeviceBackend (reference/device_backend.h) over the CUDA
// runtime and the element kernels. Linking this library in registers it.
#include "reference/device_backend.h"

#include "cuda/launch_args.h"
#include "cuda/runtime.h"
#include "reference/error.h"

namespace tcts::cuda {
namespace {

// CUDA failures reach the reference's users as RuntimeErrors (as PyTorch's "CUDA error: ...").
template <class F>
auto Translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const CudaError& e) {
    throw ref::RuntimeError(std::string("CUDA error: ") + e.what());
  }
}

CopyKind Kind(ref::DeviceBackend::Direction d) {
  switch (d) {
    case ref::DeviceBackend::Direction::kHostToDevice: return CopyKind::kHostToDevice;
    case ref::DeviceBackend::Direction::kDeviceToHost: return CopyKind::kDeviceToHost;
    case ref::DeviceBackend::Direction::kDeviceToDevice: return CopyKind::kDeviceToDevice;
  }
  return CopyKind::kDeviceToDevice;
}

class CudaBackend final : public ref::DeviceBackend {
 public:
  int DeviceCount(std::string* why) override { return cuda::DeviceCount(why); }
  std::byte* Allocate(std::size_t nbytes, bool zero, int index) override {
    return Translated([&] {
      if (nbytes == 0) return static_cast<std::byte*>(nullptr);
      auto* p = static_cast<std::byte*>(Malloc(nbytes, index));
      if (zero) Zero(p, nbytes, index);
      return p;
    });
  }
  void Free(std::byte* data, int index) noexcept override { cuda::Free(data, index); }
  void Memcpy(void* dst, const void* src, std::size_t nbytes, Direction direction, int index) override {
    Translated([&] { cuda::Memcpy(dst, src, nbytes, Kind(direction), index); });
  }
  void Copy(const std::vector<std::int64_t>& shape, const ref::LoopOperand& dst, const ref::LoopOperand& src,
            int index) override {
    Translated([&] { LaunchCopy(MakeCopyArgs(shape, dst, src), index); });
  }
  void Binary(ref::BinaryOp op, ScalarType common, const ref::Scalar& alpha, const std::vector<std::int64_t>& shape,
              const ref::LoopOperand& out, const ref::LoopOperand& a, const ref::LoopOperand& b, int index) override {
    Translated([&] { LaunchBinary(MakeBinaryArgs(op, common, alpha, shape, out, a, b), index); });
  }
};

CudaBackend backend;
const bool registered = ref::RegisterDeviceBackend("cuda", &backend);

}  // namespace
}  // namespace tcts::cuda
