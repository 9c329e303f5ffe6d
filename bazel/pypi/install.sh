#!/usr/bin/env bash
# Installs bazel/pypi/requirements.lock, exactly (every package pinned with its hashes, wheels
# only, nothing resolved here), into the project's virtual environment, made from Debian's
# /usr/bin/python3:
#   bash bazel/pypi/install.sh             (.ci/setup runs it)
# Where: $TCTS_PYPI_VENV, default /opt/tensor-cts/venv as root, ~/.cache/tensor-cts/venv otherwise
# (give the same TCTS_PYPI_VENV to Bazel with
# --repo_env when you move it: bazel/pypi.bzl finds it there). Idempotent: a venv whose stamp
# (tcts-lock.sha256) holds the lock's sha256 is left as it is; any other is made anew, so a
# package dropped from the lock is gone from the venv too.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="$here/requirements.lock"
if [[ -n "${TCTS_PYPI_VENV:-}" ]]; then
  venv="$TCTS_PYPI_VENV"
elif [[ $(id -u) -eq 0 ]]; then
  venv=/opt/tensor-cts/venv
else
  venv="$HOME/.cache/tensor-cts/venv"  # bazel/pypi.bzl looks in the same place
fi
want=$(sha256sum "$lock" | cut -d' ' -f1)
if [[ -f "$venv/tcts-lock.sha256" && "$(cat "$venv/tcts-lock.sha256")" == "$want" && -x "$venv/bin/python" ]]; then
  echo "pypi: $venv already holds requirements.lock (sha256 ${want:0:12})"
  exit 0
fi
start=$(date +%s)
echo "pypi: installing requirements.lock (sha256 ${want:0:12}) into $venv"
if [[ -e "$venv" && ! -f "$venv/pyvenv.cfg" && -n "$(ls -A "$venv" 2>/dev/null)" ]]; then
  echo "pypi: $venv exists and is no virtual environment (no pyvenv.cfg): not replacing it" >&2
  exit 1
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
/usr/bin/python3 -m venv "$venv" ||
  { echo "pypi: /usr/bin/python3 -m venv failed (Debian's python3-venv)" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-hashes --only-binary=:all: --no-deps -r "$lock"
"$venv/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
  { "$venv/bin/python" -m pip check; echo "pypi: the lock's packages do not fit together" >&2; exit 1; }
echo "$want" >"$venv/tcts-lock.sha256"
echo "pypi: installed $(grep -cE '^[a-z0-9]' "$lock") packages, $(du -sh "$venv" | cut -f1), in $(( $(date +%s) - start )) s"
