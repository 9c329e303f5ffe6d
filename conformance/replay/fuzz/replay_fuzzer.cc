// Fuzz target: the replay case-file reader (conformance/replay/case_file.h). A case file comes
// from anywhere (a recording, a bug report, an attacker); whatever its bytes, reading it must
// end in cases that keep the format's promises or in one error naming the file, never a
// crash, undefined behaviour, an escaped exception or an allocation past the file's bounds.
//
//   //conformance/replay/fuzz:replay_fuzz_test   replays corpus/replay/ (seeds and every crash found)
//   bazel/build_fuzzer.sh replay                 builds the libFuzzer binary (clang, ASan, UBSan)
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "conformance/checks/common.h"
#include "conformance/replay/case_file.h"
#include "reference/fuzz/fuzz_support.h"

namespace {

using tcts::ReplayCase;
using tcts::ReplayInput;

bool NamesAnInput(const ReplayCase& c, const std::string& name, bool tensor) {
  const auto it = c.inputs.find(name);
  return it != c.inputs.end() && (!tensor || !it->second.scalar);
}

// What a case read without error promises the code that runs it (replay.cc).
void CheckCase(const ReplayCase& c, std::int64_t* elements) {
  TCTS_FUZZ_CHECK(!c.statement.empty(), c.id);
  for (const auto& [name, in] : c.inputs) {
    if (in.scalar) continue;
    const std::optional<std::int64_t> numel = tcts::CheckedNumel(in.sizes);
    TCTS_FUZZ_CHECK(numel && static_cast<std::int64_t>(in.values.size()) == *numel, c.id + " input " + name);
    *elements += *numel;
  }
  TCTS_FUZZ_CHECK(NamesAnInput(c, c.a, !c.binary), c.id + ": a");
  if (c.binary) {
    TCTS_FUZZ_CHECK(NamesAnInput(c, c.b, false), c.id + ": b");
    if (c.form == tcts::BinaryForm::kOut) TCTS_FUZZ_CHECK(NamesAnInput(c, c.out, true), c.id + ": out");
    if (c.form == tcts::BinaryForm::kInplace) TCTS_FUZZ_CHECK(NamesAnInput(c, c.a, true), c.id + ": self");
  }
  if (!c.error) {
    TCTS_FUZZ_CHECK(c.strides.size() == c.sizes.size(), c.id + ": strides");
    if (c.values) {
      const std::optional<std::int64_t> numel = tcts::CheckedNumel(c.sizes);
      TCTS_FUZZ_CHECK(numel && static_cast<std::int64_t>(c.values->size()) == *numel, c.id + ": expected values");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<ReplayCase> cases;
  std::string error;
  if (!tcts::ParseCaseFile(text, "fuzz.json", &cases, &error)) {
    TCTS_FUZZ_CHECK(cases.empty(), error);
    TCTS_FUZZ_CHECK(error.rfind("fuzz.json: ", 0) == 0 && error.size() > 11, error);  // names the file, says what
    return 0;
  }
  TCTS_FUZZ_CHECK(!cases.empty() && cases.size() <= tcts::kMaxCases, std::to_string(cases.size()));
  std::int64_t elements = 0;
  std::set<std::string> names;
  for (const ReplayCase& c : cases) {
    CheckCase(c, &elements);
    TCTS_FUZZ_CHECK(names.insert(tcts::RowIdentifier(c.id.c_str())).second, "two cases named " + c.id);
  }
  TCTS_FUZZ_CHECK(elements <= tcts::kMaxInputElements, std::to_string(elements));
  return 0;
}
