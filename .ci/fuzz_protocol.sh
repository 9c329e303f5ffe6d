#!/usr/bin/env bash
# CI's bounded fuzzing of the testee protocol's targets (issue 42): wire (the reader of a
# testee's answers) and session (the session through real checks), built with clang (libFuzzer +
# ASan + UBSan, bazel/build_fuzzer.sh) both at once, then each fuzzed from its checked-in corpus
# for TCTS_CI_FUZZ_SECONDS (default 30) s, both at once (the machine's two cores). Needs clang
# and libclang-rt-14-dev (.ci/setup). A finding is kept in out/fuzz/ci/artifacts/<target>/
# (reproduce it and check it in: reference/fuzz/README.md). The last line is
# "N passed, N failed, 0 skipped", one check per target.
#   bash .ci/fuzz_protocol.sh
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${TCTS_CI_FUZZ_SECONDS:-30}
targets=(wire session)
start=$(date +%s)
pids=()
for t in "${targets[@]}"; do
  rm -rf "out/fuzz/ci/$t" "out/fuzz/ci/work/$t"
  mkdir -p "out/fuzz/ci/$t" "out/fuzz/ci/artifacts/$t" "out/fuzz/ci/work/$t"
  OUT="out/fuzz/ci/$t" bash bazel/build_fuzzer.sh "$t" >"out/fuzz/ci/build-$t.log" 2>&1 &
  pids+=($!)
done
built=()
for k in "${!targets[@]}"; do
  if wait "${pids[$k]}"; then built+=(1); else built+=(0); fi
done
echo "fuzz_protocol: built ${targets[*]} in $(( $(date +%s) - start )) s"
start=$(date +%s)
pids=()
for k in "${!targets[@]}"; do
  t=${targets[$k]}
  pids+=("")
  ((built[k])) || continue
  "out/fuzz/ci/$t/${t}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="out/fuzz/ci/artifacts/$t/" "out/fuzz/ci/work/$t" "conformance/protocol/fuzz/corpus/$t" \
    >"out/fuzz/ci/fuzz-$t.log" 2>&1 &
  pids[k]=$!
done
passed=0
failed=0
for k in "${!targets[@]}"; do
  t=${targets[$k]}
  if ((built[k])) && wait "${pids[$k]}"; then
    passed=$((passed + 1))
    execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "out/fuzz/ci/fuzz-$t.log")
    echo "fuzz_protocol: $t: ${execs:-?} inputs in ${seconds} s, no finding"
  else
    failed=$((failed + 1))
    if ((built[k])); then
      echo "fuzz_protocol: $t: FAIL (a finding: out/fuzz/ci/artifacts/$t/)"
      tail -n 40 "out/fuzz/ci/fuzz-$t.log"
    else
      echo "fuzz_protocol: $t: FAIL (no build)"
      tail -n 40 "out/fuzz/ci/build-$t.log"
    fi
  fi
done
echo "fuzz_protocol: fuzzed in $(( $(date +%s) - start )) s"
echo "${passed} passed, ${failed} failed, 0 skipped"
