#!/usr/bin/env bash
# Builds the libFuzzer binary of the testee-answer reader (wire_fuzzer.cc) with clang, outside
# Bazel (whose autodetected toolchain is gcc, which has no libFuzzer):
#   conformance/protocol/fuzz/build_fuzzer.sh   -> out/fuzz/wire_fuzzer (ASan + UBSan + libFuzzer)
#   out/fuzz/wire_fuzzer -max_total_time=60 -max_len=4096 conformance/protocol/fuzz/corpus/wire
# Environment: CXX (default clang++), OUT (default out/fuzz), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../../.."
cxx=${CXX:-clang++}
command -v "$cxx" >/dev/null || { echo "$cxx not found: libFuzzer needs clang (apt-get install clang)" >&2; exit 2; }
out=${OUT:-out/fuzz}
mkdir -p "$out/gen/spec"
for suite in dtypes binary_ops layouts memory_formats; do
  "${PYTHON:-python3}" generators/emit_cxx.py --suite "$suite" --out "$out/gen/spec/$suite.inc" spec/*.toml
done
set -x
"$cxx" -std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I. -I"$out/gen" conformance/protocol/fuzz/wire_fuzzer.cc conformance/protocol/wire.cc \
  conformance/candidate/candidate.cc -o "$out/wire_fuzzer"
