"""NumPy's testee restricted to four dtypes, float32, int32, bool and complex64, as a library
such as TensorFlow.js has them: for conformance/protocol/protocol_test.py.

It declares those four (Testee.dtypes) and, like such a library, refuses every other dtype with
the library's own error ("Unknown data type int64", a TypeError). The suite must judge its
views, memory formats and storage in a dtype it has: those clauses do not depend on the dtype.
TCTS_NUMPY_TESTEE_DIR: where numpy_testee.py is (default: conformance/testees/numpy).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TCTS_NUMPY_TESTEE_DIR", os.path.join(HERE, "..", "..", "testees", "numpy")))
import numpy_testee  # noqa: E402
import tcts_testee  # noqa: E402

DTYPES = {"float32", "int32", "bool", "complex64"}
_numpy_dtype = numpy_testee.dtype


def dtype(name):
    if name not in DTYPES:
        raise TypeError(f"Unknown data type {name}")
    return _numpy_dtype(name)


numpy_testee.dtype = dtype  # the testee's one dtype translation: every call goes through it


class Restricted(numpy_testee.NumpyTestee):
    name = "numpy restricted to float32, int32, bool, complex64"
    dtypes = DTYPES


if __name__ == "__main__":
    tcts_testee.serve(Restricted())
