"""NumPy's testee with some operations and not others, as a library with most view ops but no
expand, unsqueeze, squeeze, view or reshape, no empty_like and no write_element: for
conformance/protocol/protocol_test.py (issue 48: a case is judged only on what the library
declared).

Its features views, format_copies and storage_values are then partly implemented: the kit
declares the ops it has (hello's "ops") and the features whose every op it has. The suite must
run the cases of the ops it has (as_strided, transpose, contiguous, clone, storage_values, ...)
and judge them, make the cases that need a missing op NOT_SUPPORTED naming it, and FAIL none of
them on the declaration alone.
TCTS_NUMPY_TESTEE_DIR: where numpy_testee.py is (default: conformance/testees/numpy).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("TCTS_NUMPY_TESTEE_DIR", os.path.join(HERE, "..", "..", "testees", "numpy")))
import numpy_testee  # noqa: E402
import tcts_testee  # noqa: E402

MISSING = ("expand", "unsqueeze", "squeeze", "view", "reshape", "empty_like", "write_element")


class Partial(numpy_testee.NumpyTestee):
    name = "numpy without " + ", ".join(MISSING)


for _op in MISSING:  # not a method: the kit does not declare the op
    setattr(Partial, _op, None)

if __name__ == "__main__":
    tcts_testee.serve(Partial())
