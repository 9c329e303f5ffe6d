"""Runs every reproduction of README.md's section "Findings in PyTorch's own implementations" and
checks that it prints what the README says it prints.

    /usr/bin/python3 conformance/testees/torch/readme_findings_test.py README.md

In that section each ```python block is a standalone program and the ```text block right after it
is its standard output, exactly (trailing blanks aside). Each program runs under this interpreter
(Debian's, which sees python3-torch and python3-numpy) in a fresh process; warnings go to stderr
and are not compared. Exit 0 when every snippet prints what the README says; 1 otherwise, naming
each snippet by its line and showing both outputs; 2 when the section or its blocks are missing.
"""

import re
import subprocess
import sys

SECTION = "## Findings in PyTorch's own implementations"
BLOCK = re.compile(r"^```python\n(.*?)^```\n\n?```text\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def snippets(readme: str) -> list[tuple[int, str, str]]:
    """(line, program, expected output) of each python/text pair in the section."""
    start = readme.find("\n" + SECTION + "\n")
    if start < 0:
        return []
    end = readme.find("\n## ", start + len(SECTION) + 2)
    body = readme[start:end if end >= 0 else len(readme)]
    base = readme[:start].count("\n") + 1
    return [(base + body[:m.start()].count("\n") + 1, m.group(1), m.group(2)) for m in BLOCK.finditer(body)]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        found = snippets(f.read())
    if not found:
        print(f"{argv[1]}: no ```python / ```text pairs under '{SECTION}'", file=sys.stderr)
        return 2
    failed = 0
    for line, program, expected in found:
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
        got = "\n".join(x.rstrip() for x in run.stdout.rstrip().splitlines())
        want = "\n".join(x.rstrip() for x in expected.rstrip().splitlines())
        if run.returncode != 0 or got != want:
            failed += 1
            print(f"FAIL {argv[1]}:{line} (exit {run.returncode})\n--- README says\n{want}\n--- prints\n{got}\n"
                  f"--- stderr (last 600 characters)\n{run.stderr[-600:]}")
        else:
            print(f"ok   {argv[1]}:{line}")
    print(f"{len(found) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
