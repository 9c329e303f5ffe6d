// torch.device for the reference: parsing (the grammar of spec/devices.toml), equality,
// hashing, str/repr, and the default device (set_default_device and device contexts).
#ifndef TCTS_REFERENCE_DEVICE_H_
#define TCTS_REFERENCE_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spec/device_types.inc"
#include "spec/devices.inc"

namespace tcts::ref {

// The device types a device string may name (spec/device_types.inc, documented ones first).
enum class DeviceType : std::uint8_t {
#define TCTS_REF_DEVICE_TYPE(e, ...) e,
  TCTS_FORALL_DEVICE_TYPE_INFO(TCTS_REF_DEVICE_TYPE)
#undef TCTS_REF_DEVICE_TYPE
};
const char* DeviceTypeName(DeviceType t);  // "cuda"
const std::vector<std::string>& DeviceTypeNames();

// torch.device as a value, in the spirit of c10::Device: a type and an optional index,
// valid by construction (every constructor checks the index against the type).
class Device {
 public:
  static constexpr std::int64_t kMaxIndex = TCTS_DEVICE_MAX_INDEX;  // spec/devices.toml [grammar]

  // A device of `type` with `index` (-1: none, "the current device" of the type).
  // RuntimeError naming the input when the index is out of range or not allowed for the type.
  explicit Device(DeviceType type, std::int64_t index = -1);
  // torch.device("type[:index]"). Errors (RuntimeError) echo the input and list the types.
  static Device Parse(const std::string& text);
  // torch.device("type", index).
  static Device FromTypeIndex(const std::string& type, std::int64_t index);
  // torch.device(index): the legacy form, a cuda device.
  static Device FromOrdinal(std::int64_t index);
  static Device Cpu() { return Device(DeviceType::kCpu); }

  DeviceType type() const { return type_; }
  const char* type_name() const { return DeviceTypeName(type_); }
  std::int64_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == DeviceType::kCpu; }
  bool is_meta() const { return type_ == DeviceType::kMeta; }
  bool is_cuda() const { return type_ == DeviceType::kCuda; }
  std::string str() const;   // "cuda:1"
  std::string repr() const;  // "device(type='cuda', index=1)"
  std::size_t hash() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  std::int64_t index_;
};

// The device a factory allocates on when given none: the innermost device context, else
// set_default_device's, else cpu (spec/devices.toml [default_device]).
Device DefaultDevice();
void SetDefaultDevice(const Device& d);
// torch.set_default_device(None): none set, as a process starts (factories then use cpu).
void ResetDefaultDevice();
void EnterDeviceContext(const Device& d);
void ExitDeviceContext();  // RuntimeError when no context is open
// `device` when given, else the default; an index-less cuda becomes the current device.
Device ResolveDevice(const Device* device);

}  // namespace tcts::ref

template <>
struct std::hash<tcts::ref::Device> {
  std::size_t operator()(const tcts::ref::Device& d) const { return d.hash(); }
};

#endif  // TCTS_REFERENCE_DEVICE_H_
