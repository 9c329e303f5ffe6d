"""PROTOCOL.md's operation and record tables are spec/interface.toml's: the block between the
GENERATED markers must equal what generators/emit_interface.py --suite protocol_table writes
(//spec:interface_protocol_table.md). On a difference it prints the table to paste.

Usage: protocol_doc_test.py PROTOCOL.md GENERATED_TABLE
"""

import difflib
import sys

BEGIN = "<!-- BEGIN GENERATED from spec/interface.toml by generators/emit_interface.py --suite protocol_table -->\n"
END = "<!-- END GENERATED -->"


def main(doc_path: str, table_path: str) -> int:
    doc = open(doc_path, encoding="utf-8").read()
    table = open(table_path, encoding="utf-8").read()
    if table.startswith("<!-- GENERATED"):  # the generated file's own header: not pasted
        table = table.split("\n", 1)[1]
    if BEGIN not in doc or END not in doc:
        print(f"{doc_path}: no generated block (the markers {BEGIN.strip()!r} and {END!r})")
        return 1
    block = doc[doc.index(BEGIN) + len(BEGIN):doc.index(END)]
    if block == table:
        print(f"{doc_path}: its tables are spec/interface.toml's ({table.count(chr(10))} lines)")
        return 0
    print(f"{doc_path}: the tables differ from spec/interface.toml's; the difference (- doc, + interface):")
    sys.stdout.writelines(difflib.unified_diff(block.splitlines(True), table.splitlines(True), "PROTOCOL.md", "interface"))
    print("\nPaste this between the markers:\n")
    print(table)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
