#include "reference/device.h"

#include <functional>

#include "reference/error.h"

namespace tcts::ref {

const char* DeviceTypeName(DeviceType t) {
  switch (t) {
#define TCTS_REF_DEVICE_TYPE_NAME(e, name, ...) \
  case DeviceType::e:                         \
    return name;
    TCTS_FORALL_DEVICE_TYPE_INFO(TCTS_REF_DEVICE_TYPE_NAME)
#undef TCTS_REF_DEVICE_TYPE_NAME
  }
  return "?";
}

const std::vector<std::string>& DeviceTypeNames() {
  static const std::vector<std::string> kNames = {
#define TCTS_REF_DEVICE_NAME(e, name, ...) name,
      TCTS_FORALL_DEVICE_TYPE_INFO(TCTS_REF_DEVICE_NAME)
#undef TCTS_REF_DEVICE_NAME
  };
  return kNames;
}

namespace {

std::string TypeList() {
  std::string out;
  for (const std::string& t : DeviceTypeNames()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

// Every device error names what was given (Printable: whole, control bytes escaped) and what
// is accepted.
Error DeviceError(const std::string& what, const std::string& input) {
  return RuntimeError(Printable(what + " (torch.device accepts type[:index] with type one of " + TypeList() +
                                " and index 0 or a decimal number without a leading zero; got '" + input + "')"));
}

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Validates an index against the type: range, and CPU's only index 0.
void CheckIndex(DeviceType type, std::int64_t index, const std::string& input) {
  if (index > Device::kMaxIndex) {
    throw DeviceError("Device index must be between -1 and " + std::to_string(Device::kMaxIndex) +
                          " inclusively, got " + std::to_string(index),
                      input);
  }
  if (index < -1) throw DeviceError("Device index must be -1 or non-negative, got " + std::to_string(index), input);
  if (type == DeviceType::kCpu && index > 0) {
    throw DeviceError("CPU device index must be -1 or zero, got " + std::to_string(index), input);
  }
}

DeviceType CheckType(const std::string& type, const std::string& input) {
#define TCTS_REF_DEVICE_TYPE_FROM_NAME(e, name, ...) \
  if (type == name) return DeviceType::e;
  TCTS_FORALL_DEVICE_TYPE_INFO(TCTS_REF_DEVICE_TYPE_FROM_NAME)
#undef TCTS_REF_DEVICE_TYPE_FROM_NAME
  throw RuntimeError(Printable("Expected one of " + TypeList() + " device type at start of device string: " + type +
                               " (got '" + input + "')"));
}

}  // namespace

// type[:index]: ([a-zA-Z_]+)(?::([1-9][0-9]*|0))?, nothing else.
Device Device::Parse(const std::string& text) {
  if (text.empty()) throw DeviceError("Device string must not be empty", text);
  std::size_t k = 0;
  while (k < text.size() && (IsAsciiLetter(text[k]) || text[k] == '_')) ++k;
  const std::string type = text.substr(0, k);
  std::string digits;
  bool ok = !type.empty();
  if (ok && k < text.size()) {
    ok = text[k] == ':' && k + 1 < text.size();
    digits = ok ? text.substr(k + 1) : "";
    for (char c : digits) ok = ok && IsDigit(c);
    ok = ok && (digits.size() == 1 || digits[0] != '0');
  }
  if (!ok) throw DeviceError("Invalid device string: '" + text + "'", text);
  std::int64_t index = -1;
  if (!digits.empty()) {
    // PyTorch reads the index with std::stoi: more than an int holds cannot be parsed.
    if (digits.size() > 10 || std::stoll(digits) > 2147483647LL) {
      throw DeviceError("Could not parse device index '" + digits + "' in device string '" + text + "'", text);
    }
    index = std::stoll(digits);
  }
  const DeviceType t = CheckType(type, text);
  CheckIndex(t, index, text);
  return Device(t, index);
}

Device::Device(DeviceType type, std::int64_t index) : type_(type), index_(index) {
  CheckIndex(type, index, str());
}

Device Device::FromTypeIndex(const std::string& type, std::int64_t index) {
  const Device d = Parse(type);
  if (d.has_index()) {
    throw DeviceError("type (string) must not include an index because index was passed explicitly: " + type, type);
  }
  if (index < 0) throw DeviceError("Device index must not be negative, got " + std::to_string(index), type);
  CheckIndex(d.type(), index, type + ", " + std::to_string(index));
  return Device(d.type(), index);
}

Device Device::FromOrdinal(std::int64_t index) {
  if (index < 0) {
    throw DeviceError("Device index must not be negative, got " + std::to_string(index), std::to_string(index));
  }
  CheckIndex(DeviceType::kCuda, index, std::to_string(index));
  return Device(DeviceType::kCuda, index);
}

std::string Device::str() const {
  return has_index() ? type_name() + (":" + std::to_string(index_)) : std::string(type_name());
}

std::string Device::repr() const {
  return std::string("device(type='") + type_name() + "'" +
         (has_index() ? ", index=" + std::to_string(index_) : std::string()) + ")";
}

std::size_t Device::hash() const {
  return static_cast<std::size_t>(type_) * 1000003u ^ std::hash<std::int64_t>()(index_);
}

// ---------------------------------------------------------------- the default device
namespace {
struct DefaultDeviceState {
  Device set = Device::Cpu();
  std::vector<Device> contexts;
};
DefaultDeviceState& State() {
  static DefaultDeviceState state;
  return state;
}
}  // namespace

Device DefaultDevice() {
  const DefaultDeviceState& s = State();
  return s.contexts.empty() ? s.set : s.contexts.back();
}
void SetDefaultDevice(const Device& d) { State().set = d; }
void ResetDefaultDevice() { State().set = DefaultDeviceState{}.set; }
void EnterDeviceContext(const Device& d) { State().contexts.push_back(d); }
void ExitDeviceContext() {
  if (State().contexts.empty()) throw RuntimeError("exit_device: no `with torch.device(...)` block is open");
  State().contexts.pop_back();
}

Device ResolveDevice(const Device* device) {
  Device d = device ? *device : DefaultDevice();
  if (d.is_cuda() && !d.has_index()) d = Device(DeviceType::kCuda, 0);  // the current device: the reference never changes it
  return d;
}

}  // namespace tcts::ref
