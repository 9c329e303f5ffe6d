"""The suite binary <-> runner contract (conformance/harness/stream.schema.json), from the
runner's side: recorded stream lines (testdata/recorded_stream.jsonl, written by
//conformance:testee_bin against the NumPy testee: the begin event with its features and dtypes,
a PASS, a FAIL with a mismatch, a NOT_SUPPORTED for a feature and one for a dtype, a property
with its draws) and a live stream and case list of the faulty candidate's binary, each line checked against the schema by python3-jsonschema and read by the runner
(contract.check_event, contract.read_case_list). Lines that break the schema are refused by
both; fields the schema does not name are ignored (the stream may grow: the per-check verdicts).

Runs under /usr/bin/python3 from the runfiles tree (conformance/faulty_bin beside it).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
from . import contract

RECORDED = os.path.join(HERE, "testdata", "recorded_stream.jsonl")
FAULTY = "conformance/faulty_bin"


def validator():
    cls = jsonschema.validators.validator_for(contract.SCHEMA)
    cls.check_schema(contract.SCHEMA)
    return cls(contract.SCHEMA)


class Schema(unittest.TestCase):
    def test_the_schema_is_a_schema_and_names_the_exit_codes(self):
        validator()
        self.assertEqual(contract.EXIT_TESTEE_DIED, 86)
        self.assertEqual(contract.EXIT_FRESH_PROCESS, 87)
        self.assertEqual(contract.EXIT_CLEAN_PROCESS, 88)
        self.assertEqual(contract.EXIT_USAGE, 2)

    def test_recorded_lines_match_the_schema_and_the_runner_reads_them(self):
        v = validator()
        with open(RECORDED, encoding="utf-8") as f:
            events = [json.loads(line) for line in f if line.strip()]
        kinds = [contract.check_event(e) for e in events]
        for e in events:
            self.assertEqual(list(v.iter_errors(e)), [], e)
        self.assertEqual(kinds[0], "begin")
        self.assertEqual(kinds[-1], "done")
        ends = [e for e in events if e["event"] == "end"]
        self.assertEqual({e["outcome"] for e in ends}, {"PASS", "FAIL", "NOT_SUPPORTED"})
        self.assertTrue(any(e.get("dtype") for e in ends) and any(e.get("feature") for e in ends))
        self.assertTrue(any("draws" in e for e in ends) and any(e["mismatches"] for e in ends))

    def test_unknown_fields_and_events_are_ignored(self):
        v = validator()
        grown = {"event": "end", "test": "A.b", "outcome": "PASS", "verdicts_by_phase": [{"phase": "dtype", "verdict": "PASS"}]}
        self.assertEqual(list(v.iter_errors(grown)), [])
        self.assertEqual(contract.check_event(grown), "end")
        self.assertEqual(contract.check_event({"event": "progress", "n": 3}), "")

    def test_lines_that_break_the_schema_are_refused(self):
        v = validator()
        for bad in ({"event": "end", "outcome": "PASS"}, {"event": "start", "test": 3},
                    {"event": "begin", "candidate": {"name": "x"}, "cases": [{"id": "no test"}]},
                    {"event": "begin", "cases": []}, {"test": "A.b"}, ["end"]):
            self.assertTrue(list(v.iter_errors(bad)), bad)
            with self.assertRaises(contract.ContractError, msg=bad):
                contract.check_event(bad)


@unittest.skipUnless(os.access(FAULTY, os.X_OK) or "TEST_TARGET" in os.environ, f"{FAULTY} is not here")
class Live(unittest.TestCase):
    def test_a_live_stream_and_case_list_match_the_schema(self):
        v = validator()
        env = {k: v for k, v in os.environ.items() if k not in ("TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                                                                 "XML_OUTPUT_FILE", "TESTBRIDGE_TEST_ONLY")}
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            stream, listing = os.path.join(tmp, "s.jsonl"), os.path.join(tmp, "cases.jsonl")
            args = [FAULTY, "--tcts_suites=promotion", "--candidate=faulty", "--target=//t:t", "--seed=1",
                    "--candidate_option=faults=wrong=promote_types.int8.int16;undeclared=promote_types.uint8.int8"]
            subprocess.run(args + ["--tcts_shard=0/40", f"--tcts_stream={stream}", "--tcts_announce_features"],
                           env=env, capture_output=True, timeout=300)
            subprocess.run(args + ["--tcts_shard=0/40", f"--tcts_list={listing}"], env=env, check=True,
                           capture_output=True, timeout=300)
            with open(stream, encoding="utf-8") as f:
                events = [json.loads(line) for line in f]
            for e in events:
                self.assertEqual(list(v.iter_errors(e)), [], e)
                contract.check_event(e)
            listed = contract.read_case_list(listing, "promotion")
            # Each line of the case list is a listed_case of the schema.
            line_validator = type(v)({**contract.SCHEMA, "oneOf": [{"$ref": "#/$defs/listed_case"}]})
            with open(listing, encoding="utf-8") as f:
                for line in f:
                    self.assertEqual(list(line_validator.iter_errors(json.loads(line))), [], line)
        begin = events[0]
        self.assertEqual([(c.test, c.id) for c in listed], [(c["test"], c["id"]) for c in begin["cases"]])
        # Every column as the begin event has it, the rerun aside: --tcts_list writes the list
        # before runner_main sets the run's configuration ("<test binary> --candidate= ..."),
        # so a case whose process died before its begin event reports that rerun (known, left).
        self.assertEqual([{**vars(c), "rerun": ""} for c in listed],
                         [{**vars(contract.listed_case(c, "promotion")), "rerun": ""} for c in begin["cases"]])
        self.assertEqual(events[-1], {"event": "done"})

    def test_the_candidate_is_told_by_flags_and_refuses_an_option_it_does_not_take(self):
        """A candidate's settings are the suite binary's --candidate_option flags, not its environment:
        the faults reach faulty that way, and an option it does not take ends the run naming it."""
        env = {k: v for k, v in os.environ.items() if k not in ("TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                                                                 "XML_OUTPUT_FILE", "TESTBRIDGE_TEST_ONLY")}
        env["TCTS_FAULTS"] = "segv=*"  # the old channel: read by nothing now
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            cases = os.path.join(tmp, "cases.txt")
            with open(cases, "w", encoding="utf-8") as f:
                f.write("Spec/PromoteTypes.Case/promote_types_int8_int16\n")
            base = [FAULTY, "--tcts_suites=promotion", "--candidate=faulty", "--seed=1", f"--tcts_cases={cases}"]
            outcomes = {}
            for name, option in [("clean", []), ("wrong", ["--candidate_option=faults=wrong=promote_types.int8.int16"])]:
                stream = os.path.join(tmp, f"{name}.jsonl")
                p = subprocess.run(base + option + [f"--tcts_stream={stream}"], env=env, capture_output=True, text=True,
                                   timeout=300)
                with open(stream, encoding="utf-8") as f:
                    ends = [e for e in map(json.loads, f) if e["event"] == "end"]
                self.assertEqual(len(ends), 1, p.stdout[-2000:] + p.stderr[-2000:])
                outcomes[name] = ends[0]["outcome"]
            self.assertEqual(outcomes, {"clean": "PASS", "wrong": "FAIL"})
            for option, says in [("--candidate_option=fautls=wrong=*", "takes no option fautls"),
                                 ("--candidate_option=supports=some", "expected none, novalues or nostrides"),
                                 ("--candidate_option=novalue", "expected KEY=VALUE")]:
                p = subprocess.run(base + [option], env=env, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 2, p.stdout[-2000:] + p.stderr[-2000:])
                self.assertIn(says, p.stderr)

    def test_weighted_shares_balance_the_work_and_keep_the_order(self):
        """Without times a property weighs its draws and a table case 1, so a first run spreads the
        properties; --tcts_weights (an earlier run's case times): the heaviest tests are dealt first,
        each to the share with the least work, where the plain dealing put the two in one share; the
        shares still partition the tests, and each case keeps its place (`order`) in the binary.
        A weights file the binary cannot read ends it (usage) naming the file and line."""
        env = {k: v for k, v in os.environ.items() if k not in ("TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                                                                 "XML_OUTPUT_FILE", "TESTBRIDGE_TEST_ONLY")}
        base = [FAULTY, "--tcts_suites=promotion", "--candidate=faulty", "--seed=1"]
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            def shares(*extra):
                out = []
                for i in range(2):
                    listing = os.path.join(tmp, f"cases{i}.jsonl")
                    subprocess.run(base + [f"--tcts_shard={i}/2", f"--tcts_list={listing}", *extra], env=env,
                                   check=True, capture_output=True, timeout=300)
                    out.append(contract.read_case_list(listing, "promotion"))
                return out
            # No times yet (a first run into a fresh folder): a property weighs its draws (RapidCheck's
            # max_success, 1000 unless RC_PARAMS says otherwise), a table case 1; the properties are
            # spread over the shares, and the shares' work differs by at most one table case.
            for draws, rc_params in ((1000, None), (7, "max_success=7")):
                if rc_params:
                    env["RC_PARAMS"] = rc_params
                plain = shares()
                env.pop("RC_PARAMS", None)
                properties = [[c.test for c in share if c.kind == "property"] for share in plain]
                self.assertGreaterEqual(len(properties[0]) + len(properties[1]), 2)
                self.assertLessEqual(abs(len(properties[0]) - len(properties[1])), 1, properties)
                work = [sum(draws if c.kind == "property" else 1 for c in share) for share in plain]
                self.assertLessEqual(abs(work[0] - work[1]), 1, (rc_params, work))
            everything = sorted(plain[0] + plain[1], key=lambda c: c.order)
            self.assertEqual([c.order for c in everything], sorted({c.order for c in everything}))
            # Two table cases the plain dealing put in one share: make them the heavy ones.
            cases = [c for c in plain[0] if c.kind != "property"]
            heavy = [cases[0].test, cases[1].test]
            weights = os.path.join(tmp, "weights.tsv")
            with open(weights, "w", encoding="utf-8") as f:
                f.write(f"# a comment\n5000\t{heavy[0]}\n4000\t{heavy[1]}\n0\t{everything[1].test}\n")
            weighted = shares(f"--tcts_weights={weights}")
            self.assertEqual([len(set(heavy) & {c.test for c in share}) for share in weighted], [1, 1])
            self.assertEqual(sorted(c.test for c in weighted[0] + weighted[1]), sorted(c.test for c in everything))
            self.assertEqual({c.test: c.order for c in weighted[0] + weighted[1]}, {c.test: c.order for c in everything})
            # Balanced: the two shares' work differs by at most one light case (a property the file
            # does not time weighs its draws).
            times = {heavy[0]: 5000, heavy[1]: 4000, everything[1].test: 1}  # a time of 0 ms counts as 1
            work = [sum(times.get(c.test, 1000 if c.kind == "property" else 1) for c in share) for share in weighted]
            self.assertLessEqual(abs(work[0] - work[1]), 1, work)
            for bad in ("soon\tSome.Test", "99999999999999999999\tSome.Test", "-1\tSome.Test", "7\t"):
                with open(weights, "w", encoding="utf-8") as f:
                    f.write(f"# a comment\n5\t{heavy[0]}\n\n3\t{heavy[1]}\n{bad}\n")
                p = subprocess.run(base + ["--tcts_shard=0/2", f"--tcts_weights={weights}",
                                           f"--tcts_list={os.path.join(tmp, 'x.jsonl')}"],
                                   env=env, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 2, bad + p.stderr[-2000:])
                self.assertIn(f"{weights}:5: expected MS<TAB>TEST", p.stderr, bad)

    def test_a_claims_group_runs_each_test_once_in_whichever_process_takes_it(self):
        """--tcts_claims=FILE: processes given one list run each test in the process that takes it
        first (moving the group's counter, FILE, past it). A process runs exactly the tests after
        the counter, and takes them; a test another process has is in neither its stream nor its
        log; one started after the list is taken runs nothing, with a begin and a done and no
        start; two at once end every test exactly once between them. The runner reads what is
        taken from the counter (isolation.claimed). A file that cannot be mapped ends the binary
        (usage), naming it."""
        env = {k: v for k, v in os.environ.items() if k not in ("TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
                                                                 "XML_OUTPUT_FILE", "TESTBRIDGE_TEST_ONLY")}
        from .isolation import Unit, claimed, new_claims
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            base = [FAULTY, "--tcts_suites=promotion,casting", "--candidate=faulty", "--seed=1", "--tcts_shard=0/1"]

            def start(name, claims):
                log = open(os.path.join(tmp, f"{name}.log"), "w", encoding="utf-8")
                return subprocess.Popen(base + [f"--tcts_claims={claims}", f"--tcts_stream={os.path.join(tmp, name)}.jsonl"],
                                        env=env, stdout=log, stderr=subprocess.STDOUT), log

            def run(*names_and_claims):
                group = [start(n, c) for n, c in names_and_claims]
                for proc, log in group:
                    self.assertEqual(proc.wait(timeout=300), 0)
                    log.close()
                out = {}
                for n, _ in names_and_claims:
                    with open(os.path.join(tmp, f"{n}.jsonl"), encoding="utf-8") as f:
                        out[n] = [json.loads(line) for line in f]
                return out

            listing = os.path.join(tmp, "cases.jsonl")
            subprocess.run(base + [f"--tcts_list={listing}"], env=env, check=True, capture_output=True, timeout=300)
            listed = [c.test for c in contract.read_case_list(listing, "promotion")]
            # Another process took the first half: this one runs the rest, and takes it.
            half = len(listed) // 2
            first = new_claims(os.path.join(tmp, "first"))
            with open(first, "wb") as f:
                f.write(half.to_bytes(8, sys.byteorder))
            self.assertEqual(claimed(Unit(None, [], listed, claims=first)), set(listed[:half]))
            a = run(("a", first))["a"]
            self.assertEqual([c["test"] for c in a[0]["cases"]], listed)
            self.assertEqual([e["test"] for e in a if e["event"] == "start"], listed[half:])
            self.assertEqual([e["test"] for e in a if e["event"] == "end"], listed[half:])
            self.assertEqual(claimed(Unit(None, [], listed, claims=first)), set(listed))
            with open(os.path.join(tmp, "a.log"), encoding="utf-8") as f:
                log_a = f.read()
            self.assertIn(f"[ RUN      ] {listed[half]}\n", log_a)
            self.assertNotIn(f"[ RUN      ] {listed[half - 1]}\n", log_a)
            self.assertNotIn("claimed by another process", log_a)
            self.assertEqual([e["event"] for e in run(("late", first))["late"]], ["begin", "done"])
            # Two at once: between them, every test ends exactly once.
            second = new_claims(os.path.join(tmp, "second"))
            both = run(("b", second), ("c", second))
            ended = [e["test"] for n in ("b", "c") for e in both[n] if e["event"] == "end"]
            self.assertEqual(sorted(ended), sorted(listed))
            # A process that cannot use the device asked for takes nothing: begin and done only
            # (another member may run the tests; else the runner resumes them unclaimed).
            unusable = new_claims(os.path.join(tmp, "unusable"))
            p = subprocess.run(base + ["--device=cuda:7", f"--tcts_claims={unusable}", f"--tcts_stream={tmp}/u.jsonl"],
                               env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(os.path.join(tmp, "u.jsonl"), encoding="utf-8") as f:
                self.assertEqual([json.loads(line)["event"] for line in f], ["begin", "done"])
            self.assertEqual(claimed(Unit(None, [], listed, claims=unusable)), set())
            # GoogleTest's shuffle would walk the list in another order in each process: refused.
            p = subprocess.run(base + [f"--tcts_claims={unusable}", f"--tcts_stream={tmp}/x.jsonl"],
                               env={**env, "GTEST_SHUFFLE": "1"}, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 2, p.stderr[-2000:])
            self.assertIn("not with GoogleTest's shuffle or repeat", p.stderr)
            for bad in (os.path.join(tmp, "none"), new_claims(os.path.join(tmp, "short"))):
                if bad.endswith("short"):
                    with open(bad, "wb") as f:
                        f.write(b"\0\0\0")
                p = subprocess.run(base + [f"--tcts_claims={bad}", f"--tcts_stream={tmp}/d.jsonl"],
                                   env=env, capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 2, p.stderr[-2000:])
                self.assertIn(f"cannot map the claims file '{bad}'", p.stderr)

if __name__ == "__main__":
    unittest.main(verbosity=2)
