"""Tests that are Python programs run by Debian's interpreter: the runner, the report tools and
their tests need Debian's python3-jsonschema and python3-jinja2, which a `python3` earlier on PATH
may not see (conformance/runner/system_python.sh runs /usr/bin/python3, or $TCTS_PYTHON)."""

_SYSTEM_PYTHON = "//conformance/runner:system_python.sh"
_SKIPPED = "//conformance/runner:skipped_candidate.sh"

def system_python_test(name, script, args = [], missing = "", **kwargs):
    """An sh_test running `script` (its path from the repository root; the file must be in `data`)
    with `args` under Debian's python3. With `missing` (a reason, such as testees.bzl's PYPI_MISSING
    when the PyPI venv is absent) the test is a placeholder that passes saying why
    (skipped_candidate.sh NAME REASON). Every other attribute is sh_test's."""
    if missing:
        # One shell word: Bazel splits args as a shell would, so the reason is quoted (its ' escaped).
        native.sh_test(name = name, srcs = [_SKIPPED], args = [name, "'%s'" % missing.replace("'", "'\\''")], **kwargs)
    else:
        native.sh_test(name = name, srcs = [_SYSTEM_PYTHON], args = [script] + args, **kwargs)

def system_python_binary(name, program, data = [], **kwargs):
    """`bazel run` runs `program` (its path from the repository root; the file must be in `data`)
    under Debian's python3: as its module (`python3 -m reports.diff`) when it is in one of the
    project's Python packages (system_python.sh). Every other attribute is sh_binary's."""
    native.sh_binary(name = name, srcs = [_SYSTEM_PYTHON], args = [program], data = data, **kwargs)
