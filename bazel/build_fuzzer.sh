#!/usr/bin/env bash
# Builds the libFuzzer binary of one fuzz target with clang, outside Bazel (whose autodetected
# toolchain is gcc, which has no libFuzzer):
#
#   bazel/build_fuzzer.sh TARGET   -> out/fuzz/TARGET_fuzzer (ASan + UBSan + libFuzzer)
#
# TARGET        fuzz target                                   what it feeds
# device_string reference/fuzz/device_string_fuzzer.cc        the reference's device grammar
# view          reference/fuzz/view_fuzzer.cc                 the reference's view geometry
# dlpack        reference/fuzz/dlpack_fuzzer.cc               the reference's DLPack import
# wire          conformance/protocol/fuzz/wire_fuzzer.cc      the reader of testee answers
# session       conformance/protocol/fuzz/session_fuzzer.cc   the testee session, through real checks
# replay        conformance/replay/fuzz/replay_fuzzer.cc      the replay case-file reader
#
# Each is compiled with the sources its Bazel target links (listed below) and the spec's
# X-macro headers and the exit statuses' header, generated as //spec's and
# //conformance/harness's genrules do. How to run one: reference/fuzz/README.md.
# Environment: CXX (default clang++), OUT (default out/fuzz), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-}
reference_sources=$(ls reference/*.cc | grep -v '_test\.cc$')
candidate_sources="conformance/candidate/candidate.cc"
case "$target" in
  device_string|view|dlpack)
    sources="reference/fuzz/${target}_fuzzer.cc $reference_sources"; libs="" ;;
  wire)
    sources="conformance/protocol/fuzz/wire_fuzzer.cc conformance/protocol/wire.cc $candidate_sources"; libs="" ;;
  session)
    sources="conformance/protocol/fuzz/session_fuzzer.cc conformance/protocol/process_candidate.cc
             conformance/protocol/testee_session.cc conformance/protocol/testee_pipe.cc conformance/protocol/wire.cc
             conformance/candidate/fresh_process.cc conformance/checks/dlpack.cc conformance/checks/common.cc
             conformance/checks/exchange.cc conformance/checks/strided.cc conformance/checks/binary.cc
             conformance/harness/harness.cc $candidate_sources"
    libs="-lgtest -lpthread" ;;
  replay)
    sources="conformance/replay/fuzz/replay_fuzzer.cc conformance/replay/case_file.cc conformance/checks/common.cc
             conformance/checks/strided.cc conformance/harness/harness.cc $candidate_sources"
    libs="-lgtest -lpthread" ;;  # the checks' helpers sit on GoogleTest
  *)
    echo "usage: $0 TARGET, one of: device_string view dlpack wire session replay" >&2
    exit 2 ;;
esac
cxx=${CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then
  echo "$cxx not found: libFuzzer needs clang (apt-get install clang)" >&2
  exit 2
fi
out=${OUT:-out/fuzz}
mkdir -p "$out/gen/spec"
for suite in dtypes devices device_types binary_ops layouts memory_formats view_ops; do
  "${PYTHON:-python3}" generators/emit_cxx.py --suite "$suite" --out "$out/gen/spec/$suite.inc" spec/*.toml
done
# Every .inc of spec/BUILD's INTERFACE_OUTS (candidate.h's, harness.h's call helpers, wire.h's, the
# suite's end, the kits'), so that a header's new generated include needs no edit here.
for suite in enums records virtuals codecs suite kit calls overrides echo; do
  out_file=$(case $suite in enums) echo interface.inc ;; *) echo "interface_$suite.inc" ;; esac)
  "${PYTHON:-python3}" generators/emit_interface.py --suite "$suite" --out "$out/gen/spec/$out_file" \
    spec/interface.toml spec/features.toml spec/promotion.toml
done
# The exit statuses of the stream contract (//conformance/harness:exit_codes_gen).
mkdir -p "$out/gen/conformance/harness"
"${PYTHON:-python3}" generators/exit_codes_header.py --out "$out/gen/conformance/harness/exit_codes.h" \
  conformance/harness/stream.schema.json
set -x
# shellcheck disable=SC2086  # word splitting of the source and library lists is meant
"$cxx" -std=c++17 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I. -I"$out/gen" $sources -o "$out/${target}_fuzzer" $libs
