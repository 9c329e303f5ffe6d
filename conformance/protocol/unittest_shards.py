"""Bazel's test sharding for a unittest module: with shard_count = N on its target, each shard
runs a round-robin share of the module's test methods (in unittest's order), so a long Python
test runs on N cores instead of one. Without sharding it runs them all, as unittest.main does.

    import unittest_shards  # beside the test (its folder is the script's: first on the path)
    ...
    if __name__ == "__main__":
        unittest_shards.main()

Each test class's setUpClass runs in every shard that holds one of its methods: shard a test
whose methods are long, not one whose class setup is.
"""

import os
import sys
import time
import unittest


class _TimedResult(unittest.TextTestResult):
    """unittest's verbose result, with each test's seconds (to balance the shards)."""

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.stream.writeln(f"  ({time.monotonic() - self._started:.1f} s)")
        self.stream.flush()


def _flat(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flat(t)
        else:
            yield t


def shard():
    """(index, total) from Bazel's TEST_SHARD_INDEX / TEST_TOTAL_SHARDS; (0, 1) when unsharded."""
    total, index = os.environ.get("TEST_TOTAL_SHARDS", "1"), os.environ.get("TEST_SHARD_INDEX", "0")
    try:
        total, index = int(total), int(index)
    except ValueError:
        sys.exit(f"unittest_shards: TEST_TOTAL_SHARDS={total!r} and TEST_SHARD_INDEX={index!r} are not integers")
    if total < 1 or not 0 <= index < total:
        sys.exit(f"unittest_shards: TEST_SHARD_INDEX={index} is not in [0, TEST_TOTAL_SHARDS={total})")
    return index, total


def main(module="__main__"):
    index, total = shard()
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:  # tells Bazel this test shards
        open(status, "a").close()
    tests = list(_flat(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module])))
    mine = tests[index::total]
    print(f"shard {index + 1} of {total}: {len(mine)} of {len(tests)} tests", flush=True)
    result = unittest.TextTestRunner(verbosity=2, resultclass=_TimedResult).run(unittest.TestSuite(mine))
    sys.exit(0 if result.wasSuccessful() else 1)
