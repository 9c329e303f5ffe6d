#!/usr/bin/env bash
# Runs a stdlib-only Python test script under Bazel: run_python_test.sh path/to/test.py
set -euo pipefail
exec python3 "$@"
