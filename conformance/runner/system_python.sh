#!/usr/bin/env bash
# Runs a Python program with Debian's interpreter, /usr/bin/python3: the runner and the report
# tools need Debian's python3-jsonschema, which a `python3` earlier on PATH (a pyenv build,
# say) may not see. TCTS_PYTHON overrides the interpreter.
#   system_python.sh path/to/program.py ARGS...
# A program inside one of the project's Python packages (its folder holds __init__.py: the
# runner, the tools, the report tools) runs as its module, `python3 -m a.b.program`, from the
# package root: the current directory, the runfiles tree's root under bazel test and bazel run.
# Any other runs as the script it is.
set -euo pipefail
program="$1"
shift
if [[ "$program" == *.py && -f "$(dirname "$program")/__init__.py" ]]; then
  module="${program%.py}"
  exec "${TCTS_PYTHON:-/usr/bin/python3}" -m "${module//\//.}" "$@"
fi
exec "${TCTS_PYTHON:-/usr/bin/python3}" "$program" "$@"
