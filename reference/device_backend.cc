#include "reference/device_backend.h"

#include <map>

#include "reference/error.h"

namespace tcts::ref {
namespace {
std::map<std::string, DeviceBackend*>& Registry() {
  static std::map<std::string, DeviceBackend*> registry;
  return registry;
}
}  // namespace

bool RegisterDeviceBackend(const std::string& type, DeviceBackend* backend) {
  Registry()[type] = backend;
  return true;
}

DeviceBackend* FindDeviceBackend(const std::string& type) {
  const auto it = Registry().find(type);
  return it == Registry().end() ? nullptr : it->second;
}

DeviceBackend& BackendFor(const Device& d) {
  DeviceBackend* backend = FindDeviceBackend(d.type_name());
  if (!backend) {
    throw RuntimeError("the reference cannot put tensors on device '" + d.str() + "': this build has no " + d.type_name() +
                       " backend (cpu and meta are built in; cuda needs the cuda/ backend, built when Bazel finds "
                       "a CUDA toolkit)");
  }
  std::string why;
  const int count = backend->DeviceCount(&why);
  if (count == 0) {
    throw RuntimeError("device '" + d.str() + "' is not available: " + why);
  }
  if (d.index() >= count) {
    throw RuntimeError("device '" + d.str() + "' does not exist: this process sees " + std::to_string(count) + " " +
                       d.type_name() + std::string(" device") + (count == 1 ? "" : "s") + " (" + d.type_name() + ":0 .. " + d.type_name() + ":" +
                       std::to_string(count - 1) + ")");
  }
  return *backend;
}

}  // namespace tcts::ref
