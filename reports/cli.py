"""The report tools' command lines (render.py, compare.py, diff.py, report.py): argparse with
the tools' convention that bad usage is exit status 2 with a message naming the tool, and
--help prints the tool's docstring. Standard library only."""

from __future__ import annotations

import argparse


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
