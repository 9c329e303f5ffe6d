// Row types and checks of the devices suite (spec/devices.toml): the device-string
// grammar, str/repr, equality and hashing, the default device.
#ifndef TCTS_CONFORMANCE_CHECKS_DEVICES_H_
#define TCTS_CONFORMANCE_CHECKS_DEVICES_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"

namespace tcts {

struct DeviceArgLit {
  DeviceArg::Form form;
  const char* text;
  std::int64_t index;
  DeviceArg arg() const { return DeviceArg{form, text, index}; }
};

// torch.device(arg): its type, index (-1: none), str and repr, or the error. lists_types:
// the error message must also name every documented device type.
struct DeviceRow {
  RowMeta meta;
  DeviceArgLit arg;
  ExpectedError error;
  bool lists_types;
  const char* type;
  std::int64_t index;
  const char* str;
  const char* repr;
};

// a == b (and then hash(a) == hash(b)).
struct DeviceEqualityRow {
  RowMeta meta;
  DeviceArgLit a, b;
  bool equal;
};

// One step of a default-device case: set_default_device(device), entering/leaving a device
// context, a factory (empty) or asarray call and the device its result must be on, or
// get_default_device() and what it must say.
enum class DeviceStepKind { kSet, kEnter, kExit, kFactory, kGet, kAsarray, kAsarrayTensor };
struct DeviceStep {
  DeviceStepKind kind;
  const char* device;  // set/enter: the device; factory: the explicit device ("" = none)
  const char* expect;  // factory/get/asarray: the expected device ("" = nothing to check)
};
struct DefaultDeviceRow {
  RowMeta meta;
  int nsteps;
  DeviceStep steps[10];
};

inline void PrintTo(const DeviceRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DeviceEqualityRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const DefaultDeviceRow& r, std::ostream* os) { *os << r.meta.id; }

void CheckDevice(Case& c, const DeviceRow& row);
void CheckDeviceEquality(Case& c, const DeviceEqualityRow& row);
void CheckDefaultDevice(Case& c, const DefaultDeviceRow& row);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_DEVICES_H_
