// Fuzz target: the testee session itself (conformance/protocol/testee_session.cc and
// process_candidate.cc), driven through real checks. The fuzzer's bytes are a fake testee's
// answers, one a line: this binary, started again as the testee (TCTS_FAKE_TESTEE names the
// file of answers), answers the handshake validly and every later request with the next line,
// "@I" in it replaced by the request's id (a line without it keeps whatever id it says). Past
// the last line it answers a NotSupported error. The answers reach regions (values, syncs,
// "released", "deleted"), DLPack exports (offsets, shapes, strides, bytes) and addresses, so
// whatever the testee says must end in an outcome of the case: never a crash, an ASan or UBSan
// report, a leak, or the suite process ending.
//
// The checks driven, with the process candidate as the current candidate: a DLPack export
// (CheckDLPackExport: to_dlpack, the suite reading the exported bytes), a DLPack import
// (CheckDLPackImport: a region lent from the suite's producer, its deleter), an asarray of a
// host array (a lent region synced both ways) and values, storage_values, data_ptr.
//
//   //conformance/protocol/fuzz:session_fuzz_test   replays corpus/session/ (seeds and every crash found)
//   bazel/build_fuzzer.sh session                    builds the libFuzzer binary (clang, ASan, UBSan)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/dlpack.h"
#include "conformance/harness/harness.h"
#include "conformance/protocol/process_candidate.h"
#include "conformance/protocol/wire.h"
#include "reference/fuzz/fuzz_support.h"

namespace {

using nlohmann::json;

// ---- the fake testee (this binary, with TCTS_FAKE_TESTEE set)
[[noreturn]] void ServeFakeTestee(const char* answers_path) {
  std::ifstream f(answers_path, std::ios::binary);
  std::vector<std::string> answers;
  for (std::string line; std::getline(f, line);) answers.push_back(line);
  std::size_t next = 0;
  for (std::string request; std::getline(std::cin, request);) {
    const json q = json::parse(request, nullptr, /*allow_exceptions=*/false);
    const std::int64_t id = q.is_object() && q.contains("id") && q["id"].is_number_integer() ? q["id"].get<std::int64_t>() : 0;
    std::string answer;
    if (q.is_object() && q.value("op", "") == "hello") {
      json features = json::array(), dtypes = json::array();
      for (tcts::Feature feature : tcts::AllFeatures()) features.push_back(tcts::FeatureName(feature));
      for (tcts::DType d : tcts::AllDTypes()) dtypes.push_back(tcts::DTypeName(d));
      answer = json{{"id", id},
                    {"ok", {{"name", "fuzz"}, {"version", "0"}, {"protocol", 2}, {"features", features}, {"dtypes", dtypes}}}}
                   .dump();
    } else if (next < answers.size()) {
      answer = answers[next++];
      for (std::size_t at = answer.find("@I"); at != std::string::npos; at = answer.find("@I", at)) {
        answer.replace(at, 2, std::to_string(id));
      }
    } else {
      answer = json{{"id", id}, {"error", {{"kind", "NotSupported"}, {"message", "the fuzz input ended"}}}}.dump();
    }
    std::cout << answer << "\n" << std::flush;
  }
  std::_Exit(0);
}

// Before main (libFuzzer's or the corpus replay's): the child started as the testee serves.
const bool kServing = [] {
  if (const char* path = std::getenv("TCTS_FAKE_TESTEE")) ServeFakeTestee(path);
  return false;
}();

std::string SelfPath() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  TCTS_FUZZ_CHECK(n > 0, "readlink /proc/self/exe");
  return std::string(buf, static_cast<std::size_t>(n));
}

// ---- the checks, over the rows' shapes (as the generated tables write them)
const tcts::DLPackExportRow kExport = {
    {"fuzz.dlpack.export", "003#torch.asarray", "fuzz", "to_dlpack(make_tensor([2, 3], float32).t())", "", "dlpack.export",
     "float32"},
    tcts::DType::kFloat32, {2, {2, 3}}, 1, {{tcts::ViewKind::kT, {0, {}}, tcts::MemoryFormat::kContiguous}}, "cpu",
    {false, tcts::ErrorKind::kRuntimeError, ""}, 2, 32, {2, {3, 2}}, {2, {1, 3}}, 1, 0};
const tcts::DLPackImportRow kImport = {
    {"fuzz.dlpack.import", "003#torch.asarray", "fuzz", "from_dlpack(float32 [2, 3], byte_offset 8)", "", "dlpack.import",
     "float32"},
    tcts::DType::kFloat32, 2, 32, 1, 1, {2, {2, 3}}, {2, {3, 1}}, false, 8, {false, tcts::ErrorKind::kRuntimeError, ""}};

void Drive(tcts::Candidate& c) {
  tcts::RunTableCase(kExport, tcts::CheckDLPackExport);
  tcts::RunTableCase(kImport, tcts::CheckDLPackImport);
  // An asarray of a host array: a region lent, synced both ways while the tensor lives.
  std::vector<float> host = {1, 2, 3, 4, 5, 6};
  tcts::AsarraySource src;
  src.kind = tcts::AsarraySource::Kind::kArray;
  src.array = tcts::HostArray{reinterpret_cast<std::byte*>(host.data()), tcts::DType::kFloat32, {3, 2}, {4, 12}};
  tcts::Result<tcts::TensorHandle> t = c.asarray(src, tcts::AsarrayOptions{});
  if (t.ok()) {
    (void)c.values(t.value());
    host[0] = 7;  // synced out with the next request
    (void)c.storage_values(t.value());
    (void)c.data_ptr(t.value());
    (void)c.write_element(t.value(), {0, 0}, tcts::Scalar::Int(9));
    (void)c.meta(t.value());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string self = SelfPath();
  static const std::string answers = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/tcts_session_fuzz." + std::to_string(getpid());
  }();
  {
    std::ofstream f(answers, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  setenv("TCTS_FAKE_TESTEE", answers.c_str(), 1);
  std::string error;
  std::unique_ptr<tcts::Candidate> c = tcts::StartTestee({self}, "", &error);
  unsetenv("TCTS_FAKE_TESTEE");
  TCTS_FUZZ_CHECK(c != nullptr, "the fake testee's handshake: " + error);
  tcts::Candidate& cand = *c;
  tcts::SetCurrentCandidate(std::move(c));
  Drive(cand);
  tcts::SetCurrentCandidate(nullptr);  // the session ends: the fake testee exits
  return 0;
}
