"""schedule.py: the case times a run leaves in its logs, and which of them the next run hands the
suite binaries (--tcts_weights; the binaries' dealing is contract_test's)."""

import os
import tempfile
import unittest

from . import schedule


class CaseTimes(unittest.TestCase):
    def test_a_run_keeps_its_timed_cases_for_the_next_run_of_the_same_candidate(self):
        cases = [{"test": "A.heavy", "duration_ms": 7211}, {"test": "A.light", "duration_ms": 0},
                 {"test": "A.crashed", "duration_ms": None}, {"test": "A.one", "duration_ms": 1},
                 {"test": "A.odd", "duration_ms": True}]
        with tempfile.TemporaryDirectory() as out:
            logs = os.path.join(out, "logs")
            os.mkdir(logs)
            work = os.path.join(out, "work")
            os.mkdir(work)
            self.assertEqual(schedule.previous(out, "torch_python", work)[0], "")  # none yet
            schedule.write(logs, "torch_python", cases)
            path = os.path.join(logs, schedule.FILE)
            checked, wrong = schedule.previous(out, "torch_python", work)
            self.assertEqual(wrong, "")
            self.assertEqual(checked, os.path.join(work, schedule.FILE))  # a checked copy
            with open(checked, encoding="utf-8") as f:
                lines = f.read().splitlines()
            self.assertTrue(lines[0].startswith("# "))
            self.assertEqual(lines[1:], ["7211\tA.heavy", "1\tA.one"])
            # Another candidate's times, or a file that is not ours, are not used.
            self.assertEqual(schedule.previous(out, "torch_meta", work)[0], "")
            with open(path, "w", encoding="utf-8") as f:
                f.write("7211\tA.heavy\n")
            self.assertEqual(schedule.previous(out, "torch_python", work)[0], "")
            with open(path, "wb") as f:
                f.write(b"\xff\xfe")
            self.assertEqual(schedule.previous(out, "torch_python", work)[0], "")

    def test_a_damaged_file_costs_the_balance_never_the_run(self):
        with tempfile.TemporaryDirectory() as out:
            logs, work = os.path.join(out, "logs"), os.path.join(out, "work")
            os.mkdir(logs)
            os.mkdir(work)
            path = os.path.join(logs, schedule.FILE)
            head = schedule.header("numpy")
            # Lines that are not MS<TAB>TEST are left out; a truncated last line too.
            with open(path, "w", encoding="utf-8") as f:
                f.write(head + "12\tA.ok\nx\tA.bad\n0\tA.zero\n-3\tA.neg\n99999999999\tA.huge\n7\n\t\n5\tA.cut")
            checked, wrong = schedule.previous(out, "numpy", work)
            with open(checked, encoding="utf-8") as f:
                self.assertEqual(f.read(), head + "12\tA.ok\n5\tA.cut\n")
            self.assertIn("6 line(s) not MS<TAB>TEST left out", wrong)
            # Only bad lines: no weights at all.
            with open(path, "w", encoding="utf-8") as f:
                f.write(head + "x\tA.bad\n")
            self.assertEqual(schedule.previous(out, "numpy", work), ("", f"{path}: 1 line(s) not MS<TAB>TEST left out"))
            # Larger than MAX_BYTES: not read.
            with open(path, "w", encoding="utf-8") as f:
                f.write(head)
                f.write("1\tA.x\n" * (schedule.MAX_BYTES // 6 + 1))
            checked, wrong = schedule.previous(out, "numpy", work)
            self.assertEqual(checked, "")
            self.assertIn("more than the 8388608 bytes case times may have", wrong)
            # Not a regular file: a link to /dev/zero (read until memory ran out) and a FIFO (the
            # run never started) are not opened for reading.
            os.remove(path)
            os.symlink("/dev/zero", path)
            self.assertEqual(schedule.previous(out, "numpy", work), ("", f"{path}: not read (a symbolic link)"))
            os.remove(path)
            os.mkfifo(path)
            self.assertEqual(schedule.previous(out, "numpy", work), ("", f"{path}: not a regular file, not read"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
