#include "conformance/candidate/fresh_process.h"

namespace tcts {
namespace {
std::string& Reason() {
  static std::string reason;
  return reason;
}
}  // namespace

void RequestFreshProcess(const std::string& why) {
  if (Reason().empty()) Reason() = why.empty() ? "(no reason given)" : why;
}

const std::string& FreshProcessRequested() { return Reason(); }

}  // namespace tcts
