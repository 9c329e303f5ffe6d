#!/usr/bin/env bash
# Bazel's workspace status (.bazelrc --workspace_status_command): the commit the suite bundle is
# built from (conformance/bundle, a stamped genrule), "-dirty" when the tree has changes.
commit=$(git rev-parse HEAD 2>/dev/null) || commit=unknown
if [[ $commit != unknown ]] && ! git diff --quiet HEAD -- 2>/dev/null; then
  commit="$commit-dirty"
fi
echo "STABLE_TCTS_COMMIT $commit"
