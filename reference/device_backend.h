// The seam between the reference and a device it does not compute on itself (cuda): the
// device's memory and its kernels. The reference decides everything else — shapes, dtypes,
// promotion, checks, output layout — and hands a backend only the element loops, described
// by the same LoopOperands the CPU loop runs (elementwise.h).
//
// A backend registers itself at static-initialisation time (cuda/backend.cc does, when the
// build has CUDA); without one, a tensor on that device type is a RuntimeError naming it.
#ifndef TCTS_REFERENCE_DEVICE_BACKEND_H_
#define TCTS_REFERENCE_DEVICE_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/device.h"
#include "reference/elementwise.h"

namespace tcts::ref {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  // Devices of this type the process can use; 0, and the reason in *why, when none.
  virtual int DeviceCount(std::string* why) = 0;
  // Device memory on device `index`, zero-filled when `zero` (RuntimeError when it cannot be
  // had).
  virtual std::byte* Allocate(std::size_t nbytes, bool zero, int index) = 0;
  virtual void Free(std::byte* data, int index) noexcept = 0;
  enum class Direction { kHostToDevice, kDeviceToHost, kDeviceToDevice };
  virtual void Memcpy(void* dst, const void* src, std::size_t nbytes, Direction direction, int index) = 0;

  // dst[i] = src[i] cast to dst's dtype, for every index of `shape` (element loops as
  // elementwise.h describes them; src may be a host_value).
  virtual void Copy(const std::vector<std::int64_t>& shape, const LoopOperand& dst, const LoopOperand& src,
                    int index) = 0;
  // RunBinary (elementwise.h) on the device: out, a and b live on device `index`, except
  // inputs that are host_values.
  virtual void Binary(BinaryOp op, ScalarType common, const Scalar& alpha, const std::vector<std::int64_t>& shape,
                      const LoopOperand& out, const LoopOperand& a, const LoopOperand& b, int index) = 0;
};

// Registers the backend of device type `type` ("cuda"); the backend lives for the process.
bool RegisterDeviceBackend(const std::string& type, DeviceBackend* backend);
// The backend of `type`, or nullptr when this build has none.
DeviceBackend* FindDeviceBackend(const std::string& type);
// The backend of d's type, with d's index checked against DeviceCount; RuntimeError naming
// the device when the build has no backend, no such device exists, or no device is usable.
DeviceBackend& BackendFor(const Device& d);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_DEVICE_BACKEND_H_
