// The process candidate: the candidate interface spoken to a testee program over pipes
// (conformance/protocol/PROTOCOL.md). Every suite runs against any command that speaks the
// protocol, in any language, without being compiled into this repository.
//
// The command comes from the candidate options the runner passes to the suite binary
// (conformance/runner/run.py --testee; --candidate_option=KEY=VALUE, candidate.h CandidateConfig):
//   testee_argv  the program and its arguments, a JSON array of strings (required): run as that
//                argv, no shell between (the runner splits the command a person typed, once)
//   testee_cwd   the directory it runs in (default: the current one)
//   trace_dir    --trace: where the session writes every line both ways
// The testee starts when the candidate is made and stays for the whole process; a testee
// that dies ends this process with a message naming the request it was answering (the runner
// reports the running case as CRASH and resumes after it with a fresh testee); one that stops
// answering blocks the process until the runner's case timeout kills both (TIMEOUT). A
// response that breaks the protocol answers the call with ErrorKind::kInternal and a message
// naming the request and the field; the testee is then out of step (a stray line on its stdout
// puts every later answer one behind), so no further request goes to it and the process ends
// after the running case, which FAILs with that message: the runner resumes with a fresh
// testee from the next case (TesteeSession::Broken).
#ifndef TCTS_CONFORMANCE_PROTOCOL_PROCESS_CANDIDATE_H_
#define TCTS_CONFORMANCE_PROTOCOL_PROCESS_CANDIDATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"

namespace tcts {

// Starts argv (its program found on PATH as execvp does, no shell; in `cwd`, "" for the current
// directory) and shakes hands,
// asking for its tensors on `device` ("" for its default); with a `trace_dir`, the session
// writes its raw trace there (runner --trace); `seed` draws the facts it checks. A testee that
// dies in the handshake is tried once more in a fresh process. On failure returns nullptr with
// `error` saying why (the program that could not run, its exit, the bad field).
std::unique_ptr<Candidate> StartTestee(const std::vector<std::string>& argv, const std::string& cwd, std::string* error,
                                       const std::string& trace_dir = "", const std::string& device = "",
                                       std::uint64_t seed = 0);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_PROCESS_CANDIDATE_H_
