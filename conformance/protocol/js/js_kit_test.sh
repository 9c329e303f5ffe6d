#!/usr/bin/env bash
# The Node.js testee kit's test (//conformance/protocol:js_kit_test):
#  1. node tcts_testee_test.js VECTORS: exact values through the kit's JSON reader/writer and
#     hex-float codec (+-(2^63-1), -2^63, 2^53+1, NaN, +-inf, -0.0, the smallest subnormals), and
#     the protocol's test vectors (//spec:interface_vectors.json) replayed: values, sessions;
#  2. end to end through //conformance:testee_bin on the dtypes suite: the fixture
#     testdata/ieee_testee.js answers finfo exactly (4 PASS, nothing FAILs), and its faulty mode
#     (eps one ulp off) makes those 4 cases FAIL: the comparison can fail.
# Without node on PATH it passes, saying SKIPPED and why (skipped_candidate.sh).
# Usage: js_kit_test.sh KIT_TEST TESTEE_BIN FIXTURE SKIPPED_SH VECTORS (from the runfiles root,
# where the runner runs as its module)
set -euo pipefail
kit_test="$1" testee_bin="$2" fixture="$3" skipped="$4" vectors="$5"
if ! command -v node >/dev/null 2>&1; then
  exec bash "$skipped" js_kit_test "node (Node.js 20) is not on PATH: install it (e.g. apt-get install nodejs) to test the Node.js kit"
fi
node "$kit_test" "$vectors"

out="${TEST_TMPDIR:-$(mktemp -d)}/js_kit"
mkdir -p "$out"
: > "$out/empty.txt"
run() {  # run NAME TESTEE_ARGS...: the dtypes suite against the fixture; prints its summary
  local name="$1"; shift
  set +e
  # The inner runs are not this test: Bazel's test variables (the JUnit file above all) stay out.
  env -u XML_OUTPUT_FILE -u TEST_TARGET -u TESTBRIDGE_TEST_ONLY -u TEST_TOTAL_SHARDS -u TEST_SHARD_INDEX \
    -u TEST_SHARD_STATUS_FILE -u TEST_UNDECLARED_OUTPUTS_DIR /usr/bin/python3 -m conformance.runner.run --binary="$testee_bin" --suites=dtypes --testee="node $fixture $*" \
    --expectations="$out/empty.txt" --jobs=1 --out="$out/$name" --partial-ok --no-stale-check > "$out/$name.log" 2>&1
  local rc=$?
  set -e
  /usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]["outcomes"]; print(s["PASS"], s["FAIL"], s["CRASH"] + s["TIMEOUT"], end=" ")' "$out/$name/report.json" || { cat "$out/$name.log" >&2; exit 1; }
  echo "rc=$rc"
}
got=$(run exact)
[[ "$got" == "4 0 0 rc=0" ]] || { echo "FAIL: the fixture through the kit: PASS FAIL CRASH+TIMEOUT exit = $got, want 4 0 0 rc=0 (the runner with --partial-ok)" >&2; cat "$out/exact.log" >&2; exit 1; }
got=$(run faulty --faulty=eps)
[[ "$got" == "0 4 0 rc=1" ]] || { echo "FAIL: the faulty fixture: PASS FAIL CRASH+TIMEOUT exit = $got, want 0 4 0 rc=1 (does not conform)" >&2; cat "$out/faulty.log" >&2; exit 1; }
echo "js_kit_test: kit checks pass; dtypes through testee_bin: 4 finfo cases PASS exactly, and FAIL with eps one ulp off"
