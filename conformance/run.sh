#!/usr/bin/env bash
# The main job: runs every conformance suite for one candidate, writes GoogleTest XML and
# logs, and prints a per-clause summary.
#
#   bazel run //conformance:run -- [--candidate=reference|libtorch] [--out=DIR]
#
# --candidate  default: reference
# --out        where results go; default: <workspace>/out/<candidate>
# (--suites=a,b,c comes from the BUILD target.)
# Exit status: 0 when every case matches the spec or the candidate's expectations file.
set -uo pipefail

candidate=reference
out=""
suites=""
for arg in "$@"; do
  case "$arg" in
    --candidate=*) candidate="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    --suites=*) suites="${arg#*=}" ;;
    *) echo "run: unknown argument '$arg' (expected --candidate=NAME, --out=DIR)" >&2; exit 2 ;;
  esac
done
[[ -n "$suites" ]] || { echo "run: no --suites given (the BUILD target passes them)" >&2; exit 2; }

# bazel run starts in the runfiles tree of this script.
root="${RUNFILES_DIR:-$0.runfiles}/tensor_cts"
[[ -d "$root" ]] && cd "$root"
expectations="conformance/expectations/${candidate}.txt"
if [[ ! -f "$expectations" ]]; then
  known=$(ls conformance/expectations/*.txt 2>/dev/null | sed 's|.*/||; s|\.txt$||' | tr '\n' ' ')
  echo "run: unknown candidate '${candidate}'; known: ${known}" >&2
  exit 2
fi
out="${out:-${BUILD_WORKSPACE_DIRECTORY:-$PWD}/out/${candidate}}"
mkdir -p "$out"
rm -f "$out"/*.xml "$out"/*.log

start=$(date +%s%N)
IFS=, read -r -a suite_list <<< "$suites"
for suite in "${suite_list[@]}"; do
  bin="conformance/${suite}_${candidate}"
  if [[ ! -x "$bin" ]]; then
    echo "run: $bin is missing from this build" >&2
    exit 2
  fi
  "$bin" "--candidate=${candidate}" "--expectations=${expectations}" \
    "--target=//conformance:${suite}_${candidate}" \
    "--gtest_output=xml:${out}/${suite}.xml" > "${out}/${suite}.log" 2>&1
  echo "ran ${suite} for ${candidate}: exit $? (log: ${out}/${suite}.log)"
  if [[ ! -f "${out}/${suite}.xml" ]]; then
    # A placeholder target (candidate library not found) or a runner that died early.
    sed 's/^/  | /' "${out}/${suite}.log" | tail -5
    echo "run: ${suite}_${candidate} produced no results" >&2
    no_results=1
  fi
done
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
printf 'wall time: %d.%03d s for %d suites\n' $((ms / 1000)) $((ms % 1000)) "${#suite_list[@]}"
if [[ -n "${no_results:-}" ]]; then
  echo "run: no report for ${candidate}: some suites produced no results (see above)" >&2
  exit 2
fi
exec python3 reports/summarize.py --candidate="$candidate" "$out"/*.xml
