"""Reads one TOML file for the generators: its bytes as UTF-8 (TOML's only encoding), then
tomllib. Every failure is a TomlFileError with a one-line reason; a byte that is not UTF-8 is
named with its line and column, as a text editor counts them, so the file can be fixed."""

from __future__ import annotations

import tomllib


class TomlFileError(Exception):
    """`reason` says what is wrong with the file at `path`."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def load(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TomlFileError(path, f"cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        # The column in characters: the line's bytes before the bad one are valid UTF-8.
        column = len(data[line_start:e.start].decode("utf-8", errors="replace")) + 1
        raise TomlFileError(path, f"line {line}, column {column}: byte 0x{data[e.start]:02X} is not UTF-8 "
                                  "(a TOML file is UTF-8 text)") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlFileError(path, f"not valid TOML: {e}") from None
