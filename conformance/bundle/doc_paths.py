"""The bundle is its own world: every path its documents name (the bundle's README.md,
conformance/protocol/PROTOCOL.md, conformance/expectations/FORMAT.md and the kits' headers) is
in the bundle, or the sentence naming it says it is "in the tensor-cts repository".

    /usr/bin/python3 conformance/bundle/doc_paths.py BUNDLE_ROOT    exit 1 naming each missing path
"""

from __future__ import annotations

import os
import re
import sys

DOCUMENTS = ("README.md", "conformance/protocol/PROTOCOL.md", "conformance/expectations/FORMAT.md",
             "conformance/protocol/python/tcts_testee.py", "conformance/protocol/js/tcts_testee.js")
KIT_HEADER_LINES = 80  # a kit's manual is its header
ROOTS = ("conformance/", "spec/", "reports/", "generators/", "reference/", "docs/")
PATH = re.compile(r"(?<![\w/.-])((?:%s)[\w./-]*[\w/])" % "|".join(re.escape(r) for r in ROOTS))
ELSEWHERE = "in the tensor-cts repository"


def named_paths(text: str) -> list[tuple[int, str]]:
    """(line, path) of each repository path `text` names, less those whose line or paragraph says
    they are in the tensor-cts repository."""
    out = []
    text = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)  # markers
    for para in re.split(r"\n\s*\n", text):
        if ELSEWHERE in " ".join(para.split()):
            continue
        for m in PATH.finditer(para):
            line = text[:text.find(para)].count("\n") + para[:m.start()].count("\n") + 1
            out.append((line, m.group(1).rstrip(".")))
    return out


def missing(root: str) -> list[str]:
    problems = []
    for doc in DOCUMENTS:
        path = os.path.join(root, doc)
        if not os.path.isfile(path):
            problems.append(f"{doc}: the document is not in the bundle")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if doc.endswith((".py", ".js")):
            text = "\n".join(text.splitlines()[:KIT_HEADER_LINES])
        for line, p in named_paths(text):
            if "*" in p or "<" in p:
                continue
            if not os.path.exists(os.path.join(root, p)):
                problems.append(f"{doc}:{line}: names {p}, which is not in the bundle (ship it, or say it is "
                                f"{ELSEWHERE})")
    return problems


def main(argv: list[str]) -> int:
    problems = missing(argv[0])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
