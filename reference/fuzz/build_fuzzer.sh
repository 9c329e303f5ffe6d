#!/usr/bin/env bash
# Builds the libFuzzer binary of one reference fuzz target with clang, outside Bazel (whose
# autodetected toolchain is gcc, which has no libFuzzer):
#
#   reference/fuzz/build_fuzzer.sh TARGET      # TARGET: device_string | dlpack | view
#   -> out/fuzz/TARGET_fuzzer (ASan + UBSan + libFuzzer); run it as reference/fuzz/README.md says.
#
# The target is compiled with every reference/*.cc that is not a test (the same sources as
# //reference) and the spec's X-macro headers, generated the way //spec's genrules do.
# Environment: CXX (default clang++), OUT (default out/fuzz), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${1:-}
src=reference/fuzz/${target}_fuzzer.cc
if [[ -z "$target" || ! -f "$src" ]]; then
  echo "usage: $0 TARGET, one of:" $(ls reference/fuzz/*_fuzzer.cc | sed 's|.*/||; s|_fuzzer.cc||') >&2
  exit 2
fi
cxx=${CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then
  echo "$cxx not found: libFuzzer needs clang (apt-get install clang)" >&2
  exit 2
fi
out=${OUT:-out/fuzz}
mkdir -p "$out/gen/spec"

for suite in dtypes devices device_types; do
  "${PYTHON:-python3}" generators/emit_cxx.py --suite "$suite" --out "$out/gen/spec/$suite.inc" spec/*.toml
done
sources=$(ls reference/*.cc | grep -v '_test\.cc$')
set -x
"$cxx" -std=c++17 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I. -I"$out/gen" "$src" $sources -o "$out/${target}_fuzzer"
