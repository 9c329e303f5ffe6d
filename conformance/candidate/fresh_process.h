// A candidate whose state can no longer be trusted mid-run (a testee out of step with its
// answers: conformance/protocol/testee_session.cc) asks for a fresh process. The running case
// still ends and is reported (it saw the fault and says so); then the suite process ends
// (conformance/harness/stream.cc), and the runner resumes with a new process, and a new
// candidate, from the next case: one fault costs one case.
// Apart from the candidate library: a change here rebuilds only the testee's session and the
// result stream, not every adapter.
#ifndef TCTS_CONFORMANCE_CANDIDATE_FRESH_PROCESS_H_
#define TCTS_CONFORMANCE_CANDIDATE_FRESH_PROCESS_H_

#include <string>

namespace tcts {

// Asks that this process end after the running case, for `why` (the first request is kept).
void RequestFreshProcess(const std::string& why);
// The same, for a case that changed process-wide state the candidate cannot undo (the default
// device of a candidate without reset_default_device): no fault, so the runner does not count the process as isolated (exit status
// clean_process instead of fresh_process). Honoured only when the process was started with
// --tcts_clean_process (the runner, which resumes after it); otherwise it is forgotten after the
// case (a direct run of a suite binary keeps going).
void RequestCleanProcess(const std::string& why);
void EnableCleanProcess();
// The reason the process must end after this case, "" when none: a fault's (RequestFreshProcess)
// first, else a clean request's when enabled.
const std::string& FreshProcessRequested();
// True when the process ends for a clean request alone (no fault was seen).
bool CleanProcessOnly();
// Forgets a clean request that is not honoured (after each case).
void ForgetCleanRequest();

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CANDIDATE_FRESH_PROCESS_H_
