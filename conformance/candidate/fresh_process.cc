#include "conformance/candidate/fresh_process.h"

namespace tcts {
namespace {
std::string& Reason() {
  static std::string reason;
  return reason;
}

bool& Fault() {
  static bool fault = false;
  return fault;
}

void Request(const std::string& why) {
  if (Reason().empty()) Reason() = why.empty() ? "(no reason given)" : why;
}
}  // namespace

void RequestFreshProcess(const std::string& why) {
  Fault() = true;
  Request(why);
}

void RequestCleanProcess(const std::string& why) { Request(why); }

const std::string& FreshProcessRequested() { return Reason(); }
bool CleanProcessOnly() { return !Reason().empty() && !Fault(); }

}  // namespace tcts
