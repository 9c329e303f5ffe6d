"""A testee's command line, as a person types it (--testee='CMD ARGS', a --known-testee, the
command a trace recorded), split once into the testee's argv with the standard library's shlex
(POSIX words: quotes and backslashes group and escape). The suite binary runs that argv with no
shell between (conformance/protocol/testee_pipe.cc): nothing is expanded — no variables, no `~`,
no globs — and there are no operators or redirections.

What only a shell would give is refused here, naming the word, rather than handed to the
program as an argument it never expected: an unquoted shell operator or redirection (`&&`, `;`,
`|`, the `>` of `2>/dev/null`; found by shlex's own shell-like lexer), a leading NAME=value
assignment, a word starting with `~`.
A testee that needs a shell says so: --testee="sh -c 'cd lib && exec python3 t.py'"."""

from __future__ import annotations

import re
import shlex

_OPERATOR_CHARS = "();<>|&"
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_WITH_A_SHELL = "the testee runs as a program with arguments, no shell between; for a shell write sh -c '...'"


class CommandError(ValueError):
    """A command line that is not a program and its arguments (the message names it)."""


def argv(command: str, what: str = "--testee") -> list[str]:
    """The testee's argv for `command`; CommandError naming `what` and the word at fault."""
    try:
        words = shlex.split(command)
    except ValueError as e:  # an open quote, a trailing backslash
        raise CommandError(f"{what}={command!r}: {e} (quotes and backslashes as in a POSIX shell)") from None
    if not words:
        raise CommandError(f"{what}={command!r}: no program to run")
    if _ASSIGNMENT.match(words[0]):
        raise CommandError(f"{what}={command!r}: {words[0]!r} sets a variable, which only a shell does; "
                           f"write env {shlex.join(words)} ({_WITH_A_SHELL})")
    # shlex's shell-like lexer reads control operators and redirections apart from the words
    # around them (`t.py;`, `2>/dev/null`) unless they are quoted or escaped.
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace_split = True
    for token in lexer:
        if not token.strip(_OPERATOR_CHARS):
            raise CommandError(f"{what}={command!r}: {token!r} is shell syntax ({_WITH_A_SHELL})")
    for word in words:
        if word.startswith("~"):
            raise CommandError(f"{what}={command!r}: {word!r}: only a shell expands '~' ({_WITH_A_SHELL}; "
                               f"or let your own shell expand $HOME: --testee=\"python3 $HOME/...\")")
    return words
