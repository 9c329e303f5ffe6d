#include "conformance/candidate/fresh_process.h"

namespace tcts {
namespace {
struct Requests {
  std::string fault;  // RequestFreshProcess's first reason
  std::string clean;  // RequestCleanProcess's first reason
  bool clean_enabled = false;
};
Requests& State() {
  static Requests r;
  return r;
}
void Keep(std::string* slot, const std::string& why) {
  if (slot->empty()) *slot = why.empty() ? "(no reason given)" : why;
}
const std::string kNone;
}  // namespace

void RequestFreshProcess(const std::string& why) { Keep(&State().fault, why); }
void RequestCleanProcess(const std::string& why) { Keep(&State().clean, why); }
void EnableCleanProcess() { State().clean_enabled = true; }

const std::string& FreshProcessRequested() {
  const Requests& r = State();
  if (!r.fault.empty()) return r.fault;
  return r.clean_enabled ? r.clean : kNone;
}
bool CleanProcessOnly() { return State().fault.empty() && !FreshProcessRequested().empty(); }
void ForgetCleanRequest() { State().clean.clear(); }

}  // namespace tcts
