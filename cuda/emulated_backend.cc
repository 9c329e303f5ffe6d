// Test-only: the cuda backend's element code on a pretend device, so that every path a
// device tensor takes through the reference and the conformance suites runs on any machine.
//
// Registered as device type `privateuseone` (a type the device grammar accepts and the
// reference has no other use for). Its memory is host memory handed out under a
// non-canonical address (XOR kTag): host code that dereferences "device" memory instead of
// going through the backend crashes at once. Copy and Binary build their arguments with
// launch_args.h, exactly as the cuda backend does, and run the kernels' element bodies
// (element_ops.h) for every index, as the grid would.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>

#include "cuda/element_ops.h"
#include "cuda/launch_args.h"
#include "reference/device_backend.h"
#include "reference/error.h"

namespace tcts::cuda {
namespace {

constexpr std::uintptr_t kTag = std::uintptr_t{0xa} << 60;

std::byte* Tagged(std::byte* p) { return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(p) ^ kTag); }
const std::byte* Tagged(const std::byte* p) {
  return reinterpret_cast<const std::byte*>(reinterpret_cast<std::uintptr_t>(p) ^ kTag);
}

void Untag(ElementOperand& e) {
  if (!e.by_value && e.data) e.data = Tagged(e.data);
}

class EmulatedBackend final : public ref::DeviceBackend {
 public:
  int DeviceCount(std::string*) override { return 1; }
  std::byte* Allocate(std::size_t nbytes, bool, int) override {
    if (nbytes == 0) return nullptr;
    auto block = std::make_unique<std::byte[]>(nbytes);  // zeroed: host memory is cheap to clear
    std::byte* p = block.get();
    blocks_[p] = std::move(block);
    return Tagged(p);
  }
  void Free(std::byte* data, int) noexcept override { blocks_.erase(Tagged(data)); }
  void Memcpy(void* dst, const void* src, std::size_t nbytes, Direction direction, int) override {
    const bool dst_device = direction != Direction::kDeviceToHost;
    const bool src_device = direction != Direction::kHostToDevice;
    std::memcpy(dst_device ? Tagged(static_cast<std::byte*>(dst)) : dst,
                src_device ? Tagged(static_cast<const std::byte*>(src)) : src, nbytes);
  }
  void Copy(const std::vector<std::int64_t>& shape, const ref::LoopOperand& dst, const ref::LoopOperand& src,
            int) override {
    CopyArgs args = MakeCopyArgs(shape, dst, src);
    Untag(args.dst);
    Untag(args.src);
    RunOnHost(args);
  }
  void Binary(ref::BinaryOp op, ScalarType common, const ref::Scalar& alpha, const std::vector<std::int64_t>& shape,
              const ref::LoopOperand& out, const ref::LoopOperand& a, const ref::LoopOperand& b, int) override {
    BinaryArgs args = MakeBinaryArgs(op, common, alpha, shape, out, a, b);
    for (ElementOperand* e : {&args.out, &args.a, &args.b}) Untag(*e);
    RunOnHost(args);
  }

 private:
  std::map<const std::byte*, std::unique_ptr<std::byte[]>> blocks_;
};

EmulatedBackend backend;
const bool registered = ref::RegisterDeviceBackend("privateuseone", &backend);

}  // namespace
}  // namespace tcts::cuda
