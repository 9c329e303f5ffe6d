#!/usr/bin/env bash
# Prints the spec export (spec.json, built from spec/*.toml) to stdout.
set -euo pipefail
for candidate in "${RUNFILES_DIR:-$0.runfiles}/tensor_cts/spec/spec.json" "spec/spec.json"; do
  if [[ -f "$candidate" ]]; then
    cat "$candidate"
    exit 0
  fi
done
echo "spec.json not found in the runfiles of $0" >&2
exit 1
