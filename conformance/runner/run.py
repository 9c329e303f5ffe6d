"""The main job's entry point: `bazel run //conformance:run`, each suite's `bazel test`, the
suite bundle's tcts, each running `python3 -m conformance.runner.run` from the package root (a
checkout's root, the runfiles tree's, the bundle's: the same layout). The runner is the package
beside this file (main.py says it all; --help prints it).
"""

import gc
import sys

from .main import main

if __name__ == "__main__":
    # A run keeps what it allocates (the stream's events, the records, the report) and makes no
    # cycles worth collecting: the cyclic collector's passes over those millions of objects cost
    # a reference run 0.3 s (437 collections, measured with gc.callbacks), for nothing.
    gc.disable()
    sys.exit(main(sys.argv[1:]))
