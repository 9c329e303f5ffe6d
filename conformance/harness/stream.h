// The runner protocol of a suite binary: listing its cases, running a chosen subset, and
// streaming each case's record as it finishes.
//
// The runner (conformance/runner/run.py) isolates candidates: it runs suite binaries as child
// processes and reads their result stream, one JSON object per line, flushed as written,
// so that when a process dies or hangs it knows which case was running:
//   {"event":"begin","candidate":{"name":..,"version":..,"build":..},
//    "features":[{"name":"promote_types","supported":true}, ...],   (every Feature and the
//        candidate's declaration; only when asked, --tcts_announce_features: asking may be
//        costly — the reference starts the CUDA runtime to answer cuda_tensors)
//    "dtypes":[{"name":"bfloat16","required":true,"supported":false}, ...],   (every dtype,
//        whether the doc lists it and the candidate's declaration)
//    "seed":"..","pid":N,
//    "cases":[{"test":..,"id":..,"kind":"case"|"property","clause":..,"basis":..,"statement":..,
//              "rerun":..,"answer":..,"suite":..,"spec_row":..}, ...]}   (suite: the
//        conformance suite the test belongs to, RegisterSuiteSource, "" when unregistered;
//        spec_row: the spec row the case comes from, RowMeta::spec_row)
//   {"event":"start","test":"Spec/PromoteTypes.Case/promote_types_int8_uint8"}
//   {"event":"end","test":..,"outcome":"PASS"|"FAIL"|"NOT_SUPPORTED",
//    "not_supported":<the call>,"feature":<its FeatureName, for NOT_SUPPORTED>,
//    "dtype":<the dtype the row needs and the candidate does not declare, for NOT_SUPPORTED>,
//    "features":[<features the case's checks used>],"unclassified":<a failure outside the
//    case's checks: an exception, an assertion, or a table case that never decided>,
//    "mismatches":[{"check":..,"kind":..,"expected":..,"observed":..}],"skipped_checks":[..],
//    "checks":{"dtype":"PASS","values":"NOT_SUPPORTED",..},"message":..,
//    "ms":N[,"draws":N]}   (kind: the check a mismatch belongs to, spec/interface.toml [[check]];
//    checks: each check's verdict, harness.h CaseRecord::checks; skipped_checks: sub-checks a
//    declared-unsupported feature skipped; draws: a property's checked draws)
//   {"event":"done"}
// Outcomes are raw: the runner applies the candidate's expectations (XFAIL, XPASS) and
// decides CRASH and TIMEOUT. A table case that ends without Case::Finish (and was not
// skipped) is a FAIL ("no verdict"), never a PASS. A start without its end is the case that
// crashed or hung; no "done" means the process did not finish its list. Readers ignore
// fields they do not know (the stream may grow).
#ifndef TCTS_CONFORMANCE_STREAM_H_
#define TCTS_CONFORMANCE_STREAM_H_

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/harness/exit_codes.h"  // kExitFreshProcess, kExitCleanProcess (stream.schema.json)

namespace tcts {

// The case id of a test: its row id (the parameter, which prints as the row id) for table
// cases, its registered id for properties, else "Suite.Name".
std::string CaseId(const ::testing::TestInfo& info);

// Writes one JSON object a line, each chosen test (SelectCases) as the begin event lists it
// (stream.schema.json listed_case: test, id, kind, clause, basis, statement, rerun, answer, suite,
// spec_row, order), in run order. Returns false with `error` set when the file
// cannot be written.
bool WriteCaseList(const std::string& path, const std::vector<std::string>& chosen, std::string* error);

// Which tests this process runs: those named in `cases_file` (one full test name per line;
// an unknown name is an error, a stale list being a runner bug), or else every test whose
// index is `shard` modulo `shards` when every test weighs the same (round-robin, so that slow
// tables spread over the processes). Case-id globs (--filter) are the runner's: it lists, selects and passes
// `cases_file`.
// `suites`, when not empty, first narrows the binary to those suites' tests (a binary may
// hold every suite: RegisterSuiteSource); naming a suite the binary lacks is an error.
// The shares are dealt by work: the heaviest tests first, each to the share with the least work
// so far, then the rest in order the same way (longest processing time first, so no share runs
// two long properties while another has nothing left). A test's work is its time in `weights_file`
// (--tcts_weights, the runner's record of an earlier run: one "MS<TAB>TEST" a line, in
// milliseconds); a test it does not time is 1 ms, and a property `property_draws` ms (a property
// of N draws weighs N table cases: dealt without times, the properties are at least spread).
// Every process of a run computes the same shares from the same tests, weights and draws. (The
// runner deals by times only; a first run, with none, has its processes take the tests as they
// go: UseClaims.)
struct Selection {
  std::string cases_file;
  int shard = 0, shards = 1;
  std::set<std::string> suites;
  std::string weights_file;
  long property_draws = 1;
};
// Parses "I/K" (0 <= I < K) into `s`.
bool ParseShard(const std::string& text, Selection* s);
// Applies the selection (as GoogleTest's filter) and returns the chosen tests' full names.
bool SelectCases(const Selection& selection, std::vector<std::string>* chosen, std::string* error);

// --tcts_claims=FILE: the processes of one group (a run's --jobs processes, when no earlier run's
// case times deal the tests) are each given the group's whole list and run each test only if they
// take it first. FILE holds the group's counter (8 bytes, native-endian, 0 at the start: the index
// in `chosen` of the next test nobody has taken), mapped by each process; every process walks the
// list in the same order and takes a test by moving the counter past it (an atomic compare and
// swap). A test another process took is skipped unseen (GoogleTest runs none of it; no stream
// event, no log line), so the processes share the work as it comes, whatever each test costs: a
// first run has no case times to deal by. Installs the claims' gate around GoogleTest's printer
// (its test suites' lines and end-of-run summary, which count every test of the group, are left
// out). False with `error` set when FILE cannot be mapped, or when GoogleTest is asked to shuffle
// or repeat the tests (the processes must walk one list once, in one order).
bool UseClaims(const std::string& path, const std::vector<std::string>& chosen, std::string* error);
// Whether this process runs `info`: without claims, true; with them, whether it took it (asked
// once per test: the first ask takes it, or records GoogleTest's skip when another process has it).
bool Mine(const ::testing::TestInfo& info);

// The listener that writes the stream to `path` (appending); its begin event lists
// `chosen`, and every feature with the candidate's declaration when `announce_features`.
// nullptr with `error` set when the file cannot be opened.
std::unique_ptr<::testing::TestEventListener> MakeStreamListener(const std::string& path,
                                                                 std::vector<std::string> chosen,
                                                                 bool announce_features, std::string* error);

// Streams the tests `not_run` of the chosen ones as not run — NOT_SUPPORTED for lack of
// `feature`, for `why` — without running any (the suite cannot run where it was asked to:
// --device names a device the candidate cannot use here). A process of a claims group passes
// none: it takes no test, and the group's others, or the runner's resume, answer for them.
bool StreamNotRun(const std::string& path, const std::vector<std::string>& chosen,
                  const std::vector<std::string>& not_run, const std::string& why, Feature feature,
                  bool announce_features, std::string* error);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_STREAM_H_
