#!/usr/bin/env bash
# Packs the suite bundle (conformance/bundle/BUILD): make_bundle.sh OUT SUITES DEVICE_SUITES FILE...
# Every FILE keeps its repository path (a generated one loses its bazel-out/<config>/bin/
# prefix), the launcher `tcts` is written from tcts.in with the suites and the commit, and the
# tarball is deterministic (sorted names, owner 0, mtime 0, gzip -n).
set -euo pipefail
out=$1 suites=$2 device_suites=$3
shift 3
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/tensor-cts-suite
launcher=""
for f in "$@"; do
  rel=${f#bazel-out/*/bin/}
  case "$rel" in
    conformance/bundle/tcts.in) launcher=$f; continue ;;
    conformance/bundle/README.md) rel=README.md ;;
  esac
  mkdir -p "$root/$(dirname "$rel")"
  cp -L "$f" "$root/$rel"
done
[[ -n "$launcher" ]] || { echo "make_bundle.sh: no tcts.in among the inputs" >&2; exit 1; }
commit=$(sed -n 's/^STABLE_TCTS_COMMIT //p' bazel-out/stable-status.txt 2>/dev/null || true)
sed -e "s|@SUITES@|$suites|" -e "s|@DEVICE_SUITES@|$device_suites|" \
    -e "s|@COMMIT@|${commit}|" "$launcher" > "$root/tcts"
chmod 755 "$root/tcts" "$root/conformance/testee_bin"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - tensor-cts-suite |
  gzip -n > "$out"
