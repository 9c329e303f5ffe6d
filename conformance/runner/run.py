"""The main job's entry point: `bazel run //conformance:run`, each suite's `bazel test`, the
suite bundle's tcts. The runner is the package beside this file (main.py says it all;
run.py --help prints it).

The one place the import path is set: the runner's modules (this directory, which Python puts
first as the script's own) and the report tools (reports/, two levels up: the same layout in a
checkout, in the runfiles tree and in the suite bundle).
"""

import gc
import os
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "reports"))

from main import main  # noqa: E402

if __name__ == "__main__":
    # A run keeps what it allocates (the stream's events, the records, the report) and makes no
    # cycles worth collecting: the cyclic collector's passes over those millions of objects cost
    # a reference run 0.3 s (437 collections, measured with gc.callbacks), for nothing.
    gc.disable()
    sys.exit(main(sys.argv[1:]))
