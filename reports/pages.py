"""What the report pages share (render.py's report.md/report.html, compare.py's compare.md and
compare.html): the outcome colours and marks, the style sheet, escaping for Markdown and HTML,
the Markdown table, the colour of a conformance percentage, and the Jinja environment of the
HTML templates (reports/templates/, autoescaping on). Jinja is Debian's python3-jinja2."""

from __future__ import annotations

import html as html_lib
import os
import re
import sys

from . import cli

HERE = os.path.dirname(os.path.abspath(__file__))

COLORS = {"PASS": "#c8e6c9", "XFAIL": "#ffe082", "FAIL": "#ef9a9a", "XPASS": "#ce93d8",
          "NOT_SUPPORTED": "#e0e0e0", "CRASH": "#e57373", "TIMEOUT": "#ffab91"}
MARKS = {"PASS": "", "XFAIL": " ⚠", "FAIL": " ✗", "XPASS": " ✚", "NOT_SUPPORTED": " –", "CRASH": " ☠", "TIMEOUT": " ⌛"}


# ---------------------------------------------------------------- Markdown
def md_char(ch: str) -> str:
    cp = ord(ch)
    if ch in "\r\n\t":
        return " "
    if cp < 0x20 or 0x7F <= cp <= 0x9F or cp in (0x2028, 0x2029):
        return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"
    return _MD_ESCAPES.get(ch, ch)


# Characters that would make text live: a table's cell end, HTML, a code span, an escape, link
# and image brackets, emphasis (`*`, `_`) and strikethrough (`~`, GitHub's).
_MD_ESCAPES = {"|": "\\|", "<": "&lt;", "&": "&amp;", "`": "\\`", "\\": "\\\\", "[": "\\[", "]": "\\]",
               "*": "\\*", "_": "\\_", "~": "\\~"}


class MdRaw(str):
    """Markdown already escaped (a cell joined from escaped parts): _md leaves it as it is."""


def md(text: str) -> str:
    """`text` (a name, message or observed value the testee controls) as inline Markdown that
    stays on its line and in its table cell, links nothing and emphasises nothing: '|', '<',
    '&', '`', '\\', '[', ']', '*', '~' and '_' (but between two letters or digits, where it is
    inert) escaped, so that no link or image syntax (`[x](javascript:…)`, `![](http://…)`), no
    `**bold**`, `_em_` or `~~struck~~` is live; line breaks as spaces, other control characters
    as \\xNN."""
    if isinstance(text, MdRaw):
        return text
    text = str(text)
    # An underscore between two letters or digits (promote_types, NOT_SUPPORTED) can neither open
    # nor close emphasis (CommonMark's flanking rules): it stays as it is, for plain-text readers.
    return "".join("_" if ch == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
                   else md_char(ch) for i, ch in enumerate(text))


def md_bold(text: str) -> MdRaw:
    """`text` escaped (md), in bold: a table cell or part of one that stays bold."""
    return MdRaw(f"**{md(text)}**")


def md_code(text: str) -> str:
    """`text` inside a code span: backticks and control characters cannot end it or the line."""
    return "`" + "".join(" " if ch in "\r\n\t" else ("'" if ch == "`" else ch) if ch >= " " and not
                         0x7F <= ord(ch) <= 0x9F else f"\\x{ord(ch):02x}" for ch in str(text)) + "`"


def md_table(header: list[str], rows: list[list]) -> list[str]:
    # Headers are escaped like cells: compare.md's are candidate labels a testee names.
    lines = ["| " + " | ".join(md(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(md(x) for x in r) + " |" for r in rows]
    return lines


# ---------------------------------------------------------------- writing
def out_dir(given: str | None, where: str) -> str:
    """Where a page goes: DIR of --out DIR, relative to where `bazel run` was started (`where`),
    or out/ in the workspace."""
    return os.path.join(where, os.path.expanduser(given)) if given else os.path.join(
        cli.workspace() or os.getcwd(), "out")


def write_files(tool: str, directory: str, files: list[tuple[str, str]]) -> list[str] | None:
    """Writes each (name, text) into `directory` (made when missing); their paths, or None when
    it cannot (said on stderr, with the tool's name)."""
    written = []
    try:
        os.makedirs(directory, exist_ok=True)
        for name, text in files:
            path = os.path.join(directory, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            written.append(path)
    except OSError as e:
        print(f"{tool}: cannot write into '{directory}': {e.strerror}", file=sys.stderr)
        return None
    return written


# ---------------------------------------------------------------- HTML
def stylesheet(name: str) -> str:
    """A CSS file of reports/templates/, its text as it is inlined in a page's <style> (its
    leading comment left out: a page need not carry it)."""
    with open(os.path.join(HERE, "templates", name), encoding="utf-8") as f:
        text = f.read()
    return re.sub(r"\A/\*.*?\*/\n", "", text, count=1, flags=re.S)


CSS = stylesheet("pages.css")


def e(text) -> str:
    return html_lib.escape(str(text))


VERDICT_CLASS = {"CONFORMS": "ok", "CONFORMS PARTIALLY": "partial", "DOES NOT CONFORM": "bad"}


def score_color(percent) -> str:
    """A cell colour for a conformance percentage: red below 50, through amber, to green at 100."""
    if percent is None:
        return "#eeeeee"
    hue = max(0.0, min(1.0, (percent - 50.0) / 50.0)) * 120
    return f"hsl({hue:.0f}, 65%, 80%)"


_ENV = None


def templates():
    """The Jinja environment of reports/templates/ (autoescape on, undefined names are errors)."""
    global _ENV
    if _ENV is None:
        import jinja2  # Debian: python3-jinja2
        _ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
                                  autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                                  lstrip_blocks=True, keep_trailing_newline=True)
        _ENV.globals.update(COLORS=COLORS, MARKS=MARKS, CSS=CSS, VERDICT_CLASS=VERDICT_CLASS, score_color=score_color)
    return _ENV
