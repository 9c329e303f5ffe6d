// The libtorch testee: the in-process adapter conformance/adapters/libtorch.cc, unchanged (it
// registers the candidate "libtorch"), served over the testee protocol by the C++ kit.
#include "conformance/candidate/candidate.h"
#include "conformance/protocol/cxx/tcts_testee.h"

int main() {
  const std::unique_ptr<tcts::Candidate> candidate = tcts::MakeCandidate("libtorch");
  return tcts::ServeStdio(*candidate);
}
