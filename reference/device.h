// torch.device for the reference: parsing (the grammar of spec/devices.toml), equality,
// hashing, str/repr, and the default device (set_default_device and device contexts).
#ifndef TCTS_REFERENCE_DEVICE_H_
#define TCTS_REFERENCE_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/devices.inc"

namespace tcts::ref {

// The device types a device string may name (spec/devices.inc, documented ones first).
const std::vector<std::string>& DeviceTypeNames();

struct Device {
  std::string type;         // "cpu", "cuda", ...
  std::int64_t index = -1;  // -1: no index ("the current device" of the type)

  static constexpr std::int64_t kMaxIndex = TCTS_DEVICE_MAX_INDEX;  // spec/devices.toml [grammar]

  // torch.device("type[:index]"). Errors (RuntimeError) echo the input and list the types.
  static Device Parse(const std::string& text);
  // torch.device("type", index).
  static Device FromTypeIndex(const std::string& type, std::int64_t index);
  // torch.device(index): the legacy form, a cuda device.
  static Device FromOrdinal(std::int64_t index);
  static Device Cpu() { return Device{"cpu", -1}; }

  bool has_index() const { return index >= 0; }
  bool is_cpu() const { return type == "cpu"; }
  bool is_meta() const { return type == "meta"; }
  bool is_cuda() const { return type == "cuda"; }
  std::string str() const;   // "cuda:1"
  std::string repr() const;  // "device(type='cuda', index=1)"
  std::size_t hash() const;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

// The device a factory allocates on when given none: the innermost device context, else
// set_default_device's, else cpu (spec/devices.toml [default_device]).
Device DefaultDevice();
void SetDefaultDevice(const Device& d);
void EnterDeviceContext(const Device& d);
void ExitDeviceContext();  // RuntimeError when no context is open
// `device` when given, else the default; an index-less cuda becomes the current device.
Device ResolveDevice(const Device* device);

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_DEVICE_H_
