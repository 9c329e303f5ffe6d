#!/usr/bin/env bash
# The main job and the replay command; all the work is in the runner, conformance/runner (see
# main.py's --help text at the top of the file):
#   bazel run //conformance:run -- [--candidate=NAME] [--out=DIR] [--filter=GLOB] ...
#   bazel run //conformance:replay -- FILE [--candidate=NAME] ...
set -euo pipefail
# bazel run starts in the runfiles tree of this script: its root is the package root.
root="${RUNFILES_DIR:-$0.runfiles}/tensor_cts"
[[ -d "$root" ]] && cd "$root"
# Debian's interpreter: the report's schema check needs python3-jsonschema (TCTS_PYTHON overrides).
exec "${TCTS_PYTHON:-/usr/bin/python3}" -m conformance.runner.run "$@"
