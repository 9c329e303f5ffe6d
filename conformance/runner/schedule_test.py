"""schedule.py: the case times a run leaves in its logs, and which of them the next run hands the
suite binaries (--tcts_weights; the binaries' dealing is contract_test's)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402


class CaseTimes(unittest.TestCase):
    def test_a_run_keeps_its_timed_cases_for_the_next_run_of_the_same_candidate(self):
        cases = [{"test": "A.heavy", "duration_ms": 7211}, {"test": "A.light", "duration_ms": 0},
                 {"test": "A.crashed", "duration_ms": None}, {"test": "A.one", "duration_ms": 1},
                 {"test": "A.odd", "duration_ms": True}]
        with tempfile.TemporaryDirectory() as out:
            logs = os.path.join(out, "logs")
            os.mkdir(logs)
            self.assertEqual(schedule.previous(out, "torch_python"), "")  # none yet
            schedule.write(logs, "torch_python", cases)
            path = schedule.previous(out, "torch_python")
            self.assertEqual(path, os.path.join(os.path.abspath(logs), schedule.FILE))
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            self.assertTrue(lines[0].startswith("# "))
            self.assertEqual(lines[1:], ["7211\tA.heavy", "1\tA.one"])
            # Another candidate's times, or a file that is not ours, are not used.
            self.assertEqual(schedule.previous(out, "torch_meta"), "")
            with open(path, "w", encoding="utf-8") as f:
                f.write("7211\tA.heavy\n")
            self.assertEqual(schedule.previous(out, "torch_python"), "")
            with open(path, "wb") as f:
                f.write(b"\xff\xfe")
            self.assertEqual(schedule.previous(out, "torch_python"), "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
