"""Runs a Python testee with the kit held to an older protocol version, to prove that the suite
speaks to a testee written for that version as before (PROTOCOL.md "Versions"):

    /usr/bin/python3 conformance/protocol/testdata/held_testee.py VERSION TESTEE.py [ARGS...]

VERSION is one the kit speaks (tcts_testee._SPOKEN); the testee then answers it in `hello`
and never sends what later versions added (version 3's facts).
"""

import os
import runpy
import sys

import tcts_testee


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) not in tcts_testee._SPOKEN:
        sys.exit(f"usage: held_testee.py VERSION TESTEE.py [ARGS...]: VERSION one of {tcts_testee._SPOKEN}, "
                 f"got {sys.argv[1:3]!r}")
    tcts_testee.PROTOCOL = int(sys.argv[1])
    script = sys.argv[2]
    sys.argv = sys.argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
