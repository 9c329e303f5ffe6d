#!/usr/bin/env bash
# //conformance/testees:onnxruntime_model_test: runs onnx_model_test.js (the ONNX protobuf writer
# against the protobuf guide's bytes and against onnxruntime-node loading its models) when node is
# on PATH and onnxruntime-node is installed beside it (sudo bash .ci/setup: npm ci there);
# otherwise passes, saying SKIPPED and why (skipped_candidate.sh).
#   onnx_model_test.sh TEST_JS SKIPPED_SH
set -euo pipefail
test_js="$1" skipped="$2"
if ! command -v node >/dev/null 2>&1; then
  exec bash "$skipped" onnxruntime_model_test "node (Node.js 20) is not on PATH; install it and run: sudo bash .ci/setup"
fi
# node resolves require() from the real file's directory, where npm ci put node_modules.
dir="$(dirname "$(readlink -f "$test_js")")"
if [[ ! -f "$dir/node_modules/onnxruntime-node/package.json" ]]; then
  exec bash "$skipped" onnxruntime_model_test "onnxruntime-node is not installed in $dir/node_modules; run: sudo bash .ci/setup (npm ci there)"
fi
exec node "$dir/onnx_model_test.js"
