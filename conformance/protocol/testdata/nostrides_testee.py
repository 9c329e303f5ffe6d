"""NumPy's testee as a library whose arrays have no strides or storage offset (a lazy, traced
or sparse array library; an Array API library): it declares the feature strides unsupported
(`not_supported`) and its meta answers "strides": [] and "storage_offset": 0, as PROTOCOL.md
"Strides" says. For conformance/protocol/protocol_test.py (issue 48: strides as a capability):
no case may FAIL on a strides or offset check; everything else is judged as for NumPy.
TCTS_NUMPY_TESTEE_DIR: where numpy_testee.py is (default: conformance/testees/numpy).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TCTS_NUMPY_TESTEE_DIR", os.path.join(HERE, "..", "..", "testees", "numpy")))
import numpy_testee  # noqa: E402
import tcts_testee  # noqa: E402


class NoStrides(numpy_testee.NumpyTestee):
    name = "numpy without strides"
    not_supported = set(numpy_testee.NumpyTestee.not_supported) | {"strides"}

    def meta(self, t):
        m = super().meta(t)
        return dict(m, strides=[], storage_offset=0)


if __name__ == "__main__":
    tcts_testee.serve(NoStrides())
