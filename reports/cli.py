"""The report tools' command lines (render.py, compare.py, diff.py, report.py, ...): argparse with
the tools' convention that bad usage is exit status 2 with a message naming the tool, and
--help prints the tool's docstring; and where a path given by the user points (the one reader of
Bazel's `bazel run` variables in the project: the report tools, the runner's options, the
tools). Standard library only."""

from __future__ import annotations

import argparse
import os


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parser(prog: str, doc: str) -> argparse.ArgumentParser:
    return _Parser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter,
                   allow_abbrev=False)


def parse(p: argparse.ArgumentParser, argv: list[str], stderr):
    """The parsed arguments, or the exit status: 0 after --help, 2 after a usage error (its
    message on stderr, with the tool's name)."""
    try:
        return p.parse_args(argv)
    except UsageError as e:
        print(f"{p.prog.removesuffix('.py')}: {e}\n{p.format_usage()}", file=stderr, end="")
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)


def os_error(e: OSError) -> str:
    """An OSError's words for a message: its reason, and the file where it names one (a write
    that fails for a full disk names none: "No space left on device", never "(None)")."""
    return f"{e.strerror or e}" + (f" ({e.filename})" if e.filename else "")


# ---------------------------------------------------------------- where a path points
def working_directory(environ=None, default: str = "") -> str:
    """Where the user started the tool: `bazel run` sets BUILD_WORKING_DIRECTORY (the tool itself
    runs in its runfiles); else `default`, else the current directory. A relative path the user
    gives starts here. `environ`: the environment to read (default: this process's)."""
    environ = os.environ if environ is None else environ
    return environ.get("BUILD_WORKING_DIRECTORY") or default or os.getcwd()


def workspace(environ=None) -> str | None:
    """The Bazel workspace `bazel run` was started in (BUILD_WORKSPACE_DIRECTORY), None outside one."""
    environ = os.environ if environ is None else environ
    return environ.get("BUILD_WORKSPACE_DIRECTORY") or None


def user_path(path: str) -> str:
    """A path the user gave, from where they started the tool (working_directory; ~ expanded)."""
    return os.path.join(working_directory(), os.path.expanduser(path))
