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
// The same, for a case that changed process-wide state the interface cannot undo (the default
// device): no fault, so the runner does not count the process as isolated (exit status
// clean_process instead of fresh_process).
void RequestCleanProcess(const std::string& why);
// The reason asked for, "" when none.
const std::string& FreshProcessRequested();
// True when the request was RequestCleanProcess's alone (no fault was seen).
bool CleanProcessOnly();

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CANDIDATE_FRESH_PROCESS_H_
