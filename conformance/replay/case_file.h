// A replay case file (format: conformance/replay/REPLAY.md) read into cases. Every field is
// checked and every bound enforced, so any file (hostile, corrupt or truncated) ends in its
// cases or in one error naming the case and the field; nothing escapes, nothing is cut short
// silently. Fuzzed by conformance/replay/fuzz/replay_fuzzer.cc.
#ifndef TCTS_CONFORMANCE_REPLAY_CASE_FILE_H_
#define TCTS_CONFORMANCE_REPLAY_CASE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/strided.h"

namespace tcts {

struct ReplayInput {
  bool scalar = false;
  Scalar value;  // scalar inputs
  std::vector<std::int64_t> sizes;
  DType dtype = DType::kFloat32;
  std::vector<Scalar> values;  // row-major, numel(sizes) of them
  std::vector<ViewStep> views;
};

struct ReplayCase {
  std::string id, clause, basis, statement;
  std::map<std::string, ReplayInput> inputs;
  bool binary = true;
  BinaryOp op = BinaryOp::kAdd;
  BinaryForm form = BinaryForm::kFunctional;
  std::string a, b, out;  // input names (binary: a, b; in-place: self, other; out=: out; a view op's t: a)
  Scalar alpha = Scalar::Int(1);
  ViewStep view{};
  // What is expected.
  bool error = false;
  ErrorKind error_kind = ErrorKind::kRuntimeError;
  std::string message;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> sizes, strides;
  std::optional<std::int64_t> offset;
  std::optional<std::vector<Scalar>> values;
  double rtol = 0;
};

// The version of the format this reader reads (REPLAY.md); version 1 is refused, naming its
// renamed fields.
constexpr std::int64_t kCaseFileVersion = 2;

// Bounds on what one file may ask for, so that a hostile or corrupt file gets an error
// instead of exhausting memory: the file's size, its case count, and the elements of all its
// inputs together (an "arange" or {"fill": x} input of a few bytes asks for numel(sizes)).
constexpr std::int64_t kMaxCaseFileBytes = std::int64_t{64} << 20;
constexpr std::size_t kMaxCases = 100000;
constexpr std::int64_t kMaxInputElements = std::int64_t{1} << 24;
// A case id or input name (they reach test names, messages and every field path of the case)
// and the file's "source" (every case's basis holds a copy).
constexpr std::size_t kMaxNameBytes = 256;
constexpr std::size_t kMaxSourceBytes = 1024;

// The cases of a case file's text; false with *error set ("NAME: cases[3] (id 'x'):
// inputs.a.tensor.dtype: unknown dtype 'float33'") on anything the format does not allow.
bool ParseCaseFile(const std::string& text, const std::string& name, std::vector<ReplayCase>* cases,
                   std::string* error);

// Reads `path` (at most kMaxCaseFileBytes) and parses it as ParseCaseFile does.
bool ReadCaseFile(const std::string& path, std::vector<ReplayCase>* cases, std::string* error);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_REPLAY_CASE_FILE_H_
