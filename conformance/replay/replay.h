// The replay suite: cases read from a JSON case file (format: conformance/replay/REPLAY.md) and run
// against any candidate like a generated suite, one GoogleTest test per case, named
// "Replay.<case id>" with the case id as its parameter.
//
//   bazel run //conformance:replay -- FILE [--candidate=NAME]
//
// Linking this library registers the file loader the runner calls with --replay=FILE
// (harness.h RegisterCaseFileLoader). A malformed file is an error naming the case and the
// field; nothing of it runs.
#ifndef TCTS_CONFORMANCE_REPLAY_H_
#define TCTS_CONFORMANCE_REPLAY_H_

#include <string>

namespace tcts {

// Parses `path` and registers its cases as tests. False with `error` set on bad input.
bool LoadReplayFile(const std::string& path, std::string* error);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_REPLAY_H_
