#!/usr/bin/env bash
# Runs a Python script with Debian's interpreter, /usr/bin/python3: the runner and the report
# tools need Debian's python3-jsonschema, which a `python3` earlier on PATH (a pyenv build,
# say) may not see. TCTS_PYTHON overrides the interpreter.
#   system_python.sh path/to/script.py ARGS...
set -euo pipefail
exec "${TCTS_PYTHON:-/usr/bin/python3}" "$@"
