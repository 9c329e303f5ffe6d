#!/usr/bin/env bash
# Placeholder test for a candidate whose library was not found at configure time.
# Usage: skipped_candidate.sh TARGET_NAME MESSAGE
set -euo pipefail
name="${1:-}"
message="${2:-}"
if [[ -z "$name" || "$name" == --* ]]; then  # run directly (e.g. by conformance/runner/run.sh), not by bazel test
  name="$(basename "$0")"
  message="this candidate's library was not found when Bazel configured the build (bazel/libtorch.bzl); install it with: sudo bash .ci/setup"
fi
echo "SKIPPED ${name}: ${message}"
if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
  esc=$(printf '%s' "$message" | sed -e 's/&/\&amp;/g' -e 's/"/\&quot;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')
  cat > "$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" disabled="0" errors="0">
  <testsuite name="${name}" tests="1" failures="0" skipped="1">
    <testcase name="${name}" status="notrun" result="skipped"><skipped message="${esc}"/></testcase>
  </testsuite>
</testsuites>
XML
fi
