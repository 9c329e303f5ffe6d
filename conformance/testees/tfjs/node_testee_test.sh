#!/usr/bin/env bash
# Launcher of the TensorFlow.js candidates' suite tests (conformance/testees.bzl NODE_TESTEES): runs
# the runner (the rest of the arguments, under Debian's /usr/bin/python3 as system_python.sh
# does) when node is on PATH and the pinned packages are installed next to the testee
# (conformance/testees/tfjs/node_modules: sudo bash .ci/setup runs npm ci there); otherwise the
# test passes, saying SKIPPED and why (skipped_candidate.sh).
#   node_testee_test.sh TEST_NAME TESTEE_JS SKIPPED_SH RUNNER_ARGS...
set -euo pipefail
name="$1" testee="$2" skipped="$3"
shift 3
if ! command -v node >/dev/null 2>&1; then
  exec bash "$skipped" "$name" "node (Node.js 20) is not on PATH; install it and run: sudo bash .ci/setup"
fi
# The packages live beside the testee's real file (the runfile is a link to it); node resolves
# require() from there too.
dir="$(dirname "$(readlink -f "$testee")")"
if [[ ! -f "$dir/node_modules/@tensorflow/tfjs-core/package.json" ]]; then
  exec bash "$skipped" "$name" "the TensorFlow.js packages are not installed in $dir/node_modules; run: sudo bash .ci/setup (npm ci there)"
fi
exec "${TCTS_PYTHON:-/usr/bin/python3}" "$@"
