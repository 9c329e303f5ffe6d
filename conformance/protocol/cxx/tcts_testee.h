// The C++ testee kit: judge a C++ tensor library with tensor-cts from a separate process,
// built however the library builds (CMake, Make, ...), without Bazel or this repository's build.
//
// A library author implements tcts::Candidate (conformance/candidate/candidate.h) — the same
// translation an in-process adapter is — and serves it:
//
//     #include "conformance/protocol/cxx/tcts_testee.h"
//     int main() {
//       MyCandidate candidate;
//       return tcts::ServeStdio(candidate);
//     }
//
// linking this kit (tcts_testee.cc, tcts_testee_ops.cc, tcts_testee_regions.cc; their shared
// tcts_testee_state.h), conformance/protocol/wire.cc and
// conformance/candidate/candidate.cc (nlohmann-json and dlpack headers; candidate.h includes
// the spec/*.inc that generators/emit_cxx.py writes). The suite runs it:
//     bazel run //conformance:run -- --testee=/path/to/my_testee --expectations=my_expectations.txt
// conformance/testees/libtorch_cmake is a complete example.
//
// What the kit does, exactly as the Python kit (conformance/protocol/python/tcts_testee.py):
//  * the protocol loop: one JSON request per line in, one answer per line out; the handshake
//    declares the features candidate.supports() says;
//  * the handle table: the suite names tensors by integer handles; the kit keeps each
//    TensorHandle until the suite releases it;
//  * values: wire.h's encodings both ways; errors as ErrorKindName; a request that breaks the
//    protocol answers an Internal error naming the field;
//  * host memory ("regions"): an asarray array or buffer, or a DLPack tensor the suite lends,
//    arrives as a HostArray / buffer pointer / real DLManagedTensor over memory of this process,
//    kept in step with the suite's copy before and after every call; the DLManagedTensor's
//    deleter, when the library calls it, is reported to the suite (which runs the producer's);
//    a DLPack tensor the library exports (to_dlpack) is mirrored to the suite, and its deleter
//    runs when the suite's consumer is done; data_ptr addresses inside such memory are answered
//    relative to it.
// Memory lent for asarray stays while any tensor made (directly or through further calls) from
// the tensor asarray answered lives: the kit cannot see whether the library copied.
#ifndef TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_H_
#define TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_H_

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "conformance/candidate/candidate.h"

namespace tcts {

// The protocol, one request at a time: for a transport of your own, or tests.
class TesteeServer {
 public:
  explicit TesteeServer(Candidate& candidate);  // the candidate outlives the server
  ~TesteeServer();
  TesteeServer(const TesteeServer&) = delete;
  TesteeServer& operator=(const TesteeServer&) = delete;

  // One request line (without its newline) -> its answer line (without one). Never throws
  // for anything the request or the candidate does.
  std::string Answer(std::string_view request);

 private:
  class State;
  std::unique_ptr<State> state_;
};

// Serves `candidate` until the input ends: requests from `in_fd`, answers to `out_fd`, each
// written whole before the next request is read. Returns 0 at the end of the input, 1 when an
// answer cannot be written (the suite is gone).
int ServeCandidate(Candidate& candidate, int in_fd, int out_fd);
// The same over C++ streams.
int ServeCandidate(Candidate& candidate, std::istream& in, std::ostream& out);
// A testee's main: serves on stdin and stdout. Whatever the library itself prints to stdout
// goes to stderr instead, so it cannot break the protocol.
int ServeStdio(Candidate& candidate);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_CXX_TCTS_TESTEE_H_
