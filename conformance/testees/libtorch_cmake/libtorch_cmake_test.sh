#!/usr/bin/env bash
# //conformance/testees:libtorch_cmake_test — the C++ testee kit, proven by a testee built
# without Bazel:
#   1. configures and builds conformance/testees/libtorch_cmake with CMake and Ninja (one job)
#      into TEST_TMPDIR, from the sources in this test's runfiles;
#   2. runs SUITES against the built program through the runner (--testee), started as
#      `bazel run //conformance:run` would be from a directory outside the repository (the
#      testee runs there);
#   3. runs the same suites on the in-process libtorch candidate (//conformance:libtorch_bin);
#   4. passes when neither run has an unexpected outcome (exit 0 or 3) and every case has the
#      same outcome in both (reports/diff.py).
# Both reports, the build log and the diff are in the test's undeclared outputs.
#   libtorch_cmake_test.sh SUITES        (e.g. dtypes,promotion,strided,dlpack)
set -euo pipefail

suites="${1:?usage: libtorch_cmake_test.sh SUITES}"
root="${TEST_SRCDIR:?run by bazel test}/${TEST_WORKSPACE:-tensor_cts}"
python="${TCTS_PYTHON:-/usr/bin/python3}"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR}/outputs}"
build="${TEST_TMPDIR}/build"
elsewhere="${TEST_TMPDIR}/elsewhere"
mkdir -p "$out" "$elsewhere"

for tool in cmake ninja; do
  command -v "$tool" > /dev/null || { echo "FAIL: $tool is not on PATH (Debian: cmake, ninja-build; sudo bash .ci/setup)"; exit 1; }
done

# 1. The build: CMake alone.
start=$(date +%s)
if ! { cmake -S "$root/conformance/testees/libtorch_cmake" -B "$build" -G Ninja &&
       cmake --build "$build" -j1; } > "$out/cmake_build.log" 2>&1; then
  tail -n 40 "$out/cmake_build.log"
  echo "FAIL: the CMake build of conformance/testees/libtorch_cmake failed (log above: cmake_build.log)"
  exit 1
fi
testee="$build/tcts_libtorch_testee"
echo "built $testee with CMake in $(( $(date +%s) - start )) s"

# The runner as `bazel run //conformance:run` started from $elsewhere runs it: as its module, in its
# runfiles (RUNFILES_DIR, the package root), starting the testee in the directory the user ran it
# from (BUILD_WORKING_DIRECTORY). The enclosing test's own XML, filter and shards are not theirs.
run() {
  local name="$1"
  shift
  local status=0
  local start
  start=$(date +%s)
  (cd "$root" &&
   env -u XML_OUTPUT_FILE -u TESTBRIDGE_TEST_ONLY -u TEST_TOTAL_SHARDS -u TEST_SHARD_INDEX -u TEST_SHARD_STATUS_FILE \
     RUNFILES_DIR="$TEST_SRCDIR" BUILD_WORKING_DIRECTORY="$elsewhere" \
     "$python" -m conformance.runner.run --suites="$suites" \
       --expectations="$root/conformance/expectations/libtorch.txt" --no-stale-check --out="$out/$name" "$@") \
    > "$out/$name.log" 2>&1 || status=$?
  tail -n 3 "$out/$name.log"
  echo "$name: exit $status after $(( $(date +%s) - start )) s"
  if [[ $status -ne 0 && $status -ne 3 ]]; then  # 0 CONFORMS, 3 CONFORMS PARTIALLY: nothing unexpected
    tail -n 40 "$out/$name.log"
    echo "FAIL: the $name run had unexpected outcomes or did not run (exit $status; $name.log)"
    exit 1
  fi
}

# 2. and 3.
run cmake_testee --testee="$testee" --candidate=libtorch_cmake
run in_process --candidate=libtorch

# 4. The same outcome for every case.
if ! (cd "$root" && "$python" -m reports.diff "$out/in_process/report.json" "$out/cmake_testee/report.json") > "$out/diff.txt" 2>&1; then
  cat "$out/diff.txt"
  echo "FAIL: the CMake-built testee and the in-process libtorch candidate differ (diff.txt)"
  exit 1
fi
tail -n 1 "$out/diff.txt"
echo "PASS: the CMake-built libtorch testee answers every case of $suites as the in-process adapter does"
