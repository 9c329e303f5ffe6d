"""Runs every reproduction of a section of findings (docs/findings.md) and checks that it prints
what the page says it prints.

    /usr/bin/python3 conformance/testees/torch/readme_findings_test.py docs/findings.md
    /usr/bin/python3 conformance/testees/torch/readme_findings_test.py docs/findings.md \
        --section="## Findings in torch 2.x" --python=/opt/tensor-cts/venv/bin/python

The section is "## Findings in PyTorch's own implementations" unless --section names another. In
it each ```python block is a standalone program and the ```text block right after it is its
standard output, exactly (trailing blanks aside). Each program runs in a fresh process under
--python (default: this interpreter, Debian's, which sees python3-torch 1.13 and python3-numpy;
the PyPI venv's for torch 2.x); warnings go to stderr and are not compared. Exit 0 when every
snippet prints what the page says; 1 otherwise, naming each snippet by its line and showing both
outputs; 2 when the section or its blocks are missing, or an argument is not understood.
"""

import re
import subprocess
import sys

SECTION = "## Findings in PyTorch's own implementations"
BLOCK = re.compile(r"^```python\n(.*?)^```\n\n?```text\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def snippets(readme: str, section: str = SECTION) -> list[tuple[int, str, str]]:
    """(line, program, expected output) of each python/text pair in the section."""
    start = readme.find("\n" + section + "\n")
    if start < 0:
        return []
    end = readme.find("\n## ", start + len(section) + 2)
    body = readme[start:end if end >= 0 else len(readme)]
    base = readme[:start].count("\n") + 1
    return [(base + body[:m.start()].count("\n") + 1, m.group(1), m.group(2)) for m in BLOCK.finditer(body)]


def main(argv: list[str]) -> int:
    section, python, rest = SECTION, sys.executable, []
    for arg in argv[1:]:
        if arg.startswith("--section="):
            section = arg.removeprefix("--section=")
        elif arg.startswith("--python="):
            python = arg.removeprefix("--python=")
        else:
            rest.append(arg)
    if len(rest) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    argv = [argv[0], rest[0]]
    with open(argv[1], encoding="utf-8") as f:
        found = snippets(f.read(), section)
    if not found:
        print(f"{argv[1]}: no ```python / ```text pairs under '{section}'", file=sys.stderr)
        return 2
    failed = 0
    for line, program, expected in found:
        run = subprocess.run([python, "-c", program], capture_output=True, text=True, timeout=120)
        got = "\n".join(x.rstrip() for x in run.stdout.rstrip().splitlines())
        want = "\n".join(x.rstrip() for x in expected.rstrip().splitlines())
        if run.returncode != 0 or got != want:
            failed += 1
            print(f"FAIL {argv[1]}:{line} (exit {run.returncode})\n--- the page says\n{want}\n--- prints\n{got}\n"
                  f"--- stderr (last 600 characters)\n{run.stderr[-600:]}")
        else:
            print(f"ok   {argv[1]}:{line}")
    print(f"{len(found) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
