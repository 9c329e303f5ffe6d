#!/usr/bin/env bash
# Launcher of the Node.js testees' suite tests (conformance/testees.bzl NODE_TESTEES): runs the
# runner (the rest of the arguments, through system_python.sh: under Debian's /usr/bin/python3, as
# its module)
# when node is on PATH and the testee's pinned packages are installed next to it (its directory's
# node_modules: sudo bash .ci/setup runs npm ci there); otherwise the test passes, saying
# SKIPPED and why (skipped_candidate.sh). With --node, it runs a Node.js test script of the
# testee's directory instead (node SCRIPT ARGS...), under the same conditions.
#   node_testee_test.sh TEST_NAME TESTEE_JS PACKAGE SKIPPED_SH RUNNER_ARGS...
#   node_testee_test.sh TEST_NAME TESTEE_JS PACKAGE SKIPPED_SH --node SCRIPT ARGS...
# PACKAGE: a package of the testee's package.json whose presence says the install happened.
set -euo pipefail
name="$1" testee="$2" package="$3" skipped="$4"
shift 4
if ! command -v node >/dev/null 2>&1; then
  exec bash "$skipped" "$name" "node (Node.js 20) is not on PATH; install it and run: sudo bash .ci/setup"
fi
# The packages live beside the testee's real file (the runfile is a link to it); node resolves
# require() from there too.
dir="$(dirname "$(readlink -f "$testee")")"
if [[ ! -f "$dir/node_modules/$package/package.json" ]]; then
  exec bash "$skipped" "$name" "$package is not installed in $dir/node_modules; run: sudo bash .ci/setup (npm ci there)"
fi
if [[ "${1:-}" == "--node" ]]; then
  shift
  exec node "$@"
fi
exec conformance/runner/system_python.sh "$@"
