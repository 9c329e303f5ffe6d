#!/usr/bin/env bash
# The shared cache, proven on loopback (issue 38 items 1 and 2):
#   1. a first output base fills the cache (bazel/remote_cache.sh: Debian's nginx with WebDAV), and
#      a fresh one tops it up with what the first had up to date (a warm base uploads only what it ran);
#   2. another clean output base (`bazel --output_base=…`) builds and tests TARGETS from it:
#      actions are "remote cache hit"s in Bazel's process summary and every test is "(cached)";
#   3. a changed library version (TCTS_VERSION_OVERRIDE_numpy, read by @tcts_versions,
#      bazel/versions.bzl) re-runs numpy's test only: the reference's tests stay "(cached)".
# Nothing it starts is left running: the Bazel servers of its output bases are shut down and a
# cache it started is stopped (trap), and its output bases are removed.
#
#   bash .ci/remote_cache_proof.sh [--url=http://127.0.0.1:PORT --dir=CACHE_DIR] [--output-base-root=DIR]
#
# With --url/--dir (.ci/run: its `bazel test //...` ran with DIR/bazelrc, so CI's own
# output base was the first) the cache is that one, else one started here; either way step 1's
# fresh output base fills or tops it up.
# Prints "remote-cache-proof: PASS …" or "remote-cache-proof: FAIL …"; exits 0 or 1.
set -uo pipefail
cd "$(dirname "$0")/.."

TARGETS=(//conformance:reference //conformance:dtypes_numpy)
CHANGED_TEST=//conformance:dtypes_numpy  # numpy's test in TARGETS: the one a numpy upgrade re-runs

url="" dir="" root="" runs=0
for a in "$@"; do
  case "$a" in
    --url=*) url="${a#--url=}" ;;
    --dir=*) dir="${a#--dir=}" ;;
    --output-base-root=*) root="${a#--output-base-root=}" ;;
    *) echo "usage: $0 [--url=URL --dir=DIR] [--output-base-root=DIR]" >&2; exit 2 ;;
  esac
done
# The cache's URL and token are read from DIR/bazelrc (bazel/remote_cache.sh writes it).
[[ -n "$url" && -z "$dir" ]] && { echo "$0: --url needs --dir (the cache's folder, for its bazelrc)" >&2; exit 2; }

work="$(mktemp -d "${root:-${TMPDIR:-/tmp}}/tcts-cache-proof.XXXXXX")"
bases=()
started_cache=""
cleanup() {
  local b
  for b in "${bases[@]}"; do
    bazel --output_base="$b" shutdown >/dev/null 2>&1 || true
  done
  [[ -n "$started_cache" ]] && bazel/remote_cache.sh stop "$started_cache" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "remote-cache-proof: FAIL: $*"
  exit 1
}

if [[ -z "$url" ]]; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  dir="$work/cache"
  bazel/remote_cache.sh start "127.0.0.1:$port" "$dir" || fail "the cache did not start"
  started_cache="$dir"
  url="http://127.0.0.1:$port"
fi

# bazel in output base $1 (created here; its server exits by itself after 5 idle minutes even
# if the trap never runs), the rest its command; output also in $work/<name>.log.
run_bazel() {
  local name="$1"
  shift
  local base="$work/$name"
  [[ " ${bases[*]} " == *" $base "* ]] || bases+=("$base")
  local start=$(date +%s.%N)
  runs=$((runs + 1))
  last_log="$work/$name.$runs.log"
  # The cache's private bazelrc: its URL and the writer's token (never on a command line).
  bazel --output_base="$base" --bazelrc="$dir/bazelrc" --max_idle_secs=300 "$@" --color=no --curses=no \
    --noshow_progress >"$last_log" 2>&1
  local rc=$?
  last_s=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  return $rc
}

hits() {  # "INFO: 123 processes: 100 remote cache hit, 23 internal." -> 100 (0 without)
  local n
  n=$(grep -E '^INFO: [0-9]+ process' "$1" | tail -1 | grep -oE '[0-9]+ remote cache hit' | grep -oE '^[0-9]+')
  echo "${n:-0}"
}
processes_line() { grep -E '^INFO: [0-9]+ process' "$1" | tail -1 | sed 's/^INFO: //'; }
cached_tests() { grep -cE '^//[^ ]+ +\(cached\) PASSED' "$1"; }
ran_tests() { grep -E '^//[^ ]+ +PASSED' "$1" | awk '{print $1}'; }
test_lines() { grep -E '^//[^ ]+ +(\(cached\) )?(PASSED|FAILED|NO STATUS|TIMEOUT|FLAKY)' "$1"; }

# A warm first output base (a CI machine that keeps Bazel's output base between runs) uploads only
# the actions it ran: what it had up to date never reaches the cache. So a fresh output base
# always tops the cache up first: its hits are what the first base uploaded, what it runs is
# uploaded now, and step 2's clean output base must then find everything.
results=$(find "$dir/data/ac" -type f 2>/dev/null | wc -l)
if [[ -n "$started_cache" ]]; then
  echo "remote-cache-proof: 1. a new, empty cache: a fresh output base fills it"
else
  echo "remote-cache-proof: 1. the first output base left ${results} action results; a fresh output base tops the cache up"
fi
run_bazel fill test "${TARGETS[@]}" || { tail -30 "$last_log"; fail "the filling build failed"; }
echo "remote-cache-proof: 1. filled in ${last_s} s: $(processes_line "$last_log")"
bazel --output_base="$work/fill" shutdown >/dev/null 2>&1  # its server's memory, for the next two
results=$(find "$dir/data/ac" -type f | wc -l)
echo "remote-cache-proof: 1. the cache holds ${results} action results, $(du -sh "$dir/data" | cut -f1)"

run_bazel clean test "${TARGETS[@]}" || { tail -30 "$last_log"; fail "the clean output base's build failed"; }
clean_hits=$(hits "$last_log") clean_s=$last_s
expected=$(test_lines "$last_log" | wc -l)
cached=$(cached_tests "$last_log")
echo "remote-cache-proof: 2. clean output base: bazel test ${TARGETS[*]} in ${clean_s} s: $(processes_line "$last_log");" \
     "${cached} of ${expected} tests (cached)"
[[ "$clean_hits" -gt 0 ]] || fail "no remote cache hit in a clean output base"
[[ "$expected" -gt 0 && "$cached" -eq "$expected" ]] || { test_lines "$last_log"; fail "a test ran instead of coming from the cache"; }

run_bazel clean test --repo_env=TCTS_VERSION_OVERRIDE_numpy=remote-cache-proof-$$ "${TARGETS[@]}" ||
  { tail -30 "$last_log"; fail "the build with a changed numpy version failed"; }
ran=$(ran_tests "$last_log" | tr '\n' ' ')
cached2=$(cached_tests "$last_log")
echo "remote-cache-proof: 3. numpy's version changed: $(processes_line "$last_log"); re-ran: ${ran:-none}; ${cached2} (cached)"
[[ "${ran% }" == "$CHANGED_TEST" ]] || { test_lines "$last_log"; fail "expected exactly $CHANGED_TEST to re-run"; }
[[ "$cached2" -eq $((expected - 1)) ]] || { test_lines "$last_log"; fail "a test of another candidate re-ran"; }

echo "remote-cache-proof: PASS: ${clean_hits} remote cache hits and ${cached}/${expected} tests cached in a clean output base" \
     "(${clean_s} s); numpy's version change re-ran ${CHANGED_TEST} only"
