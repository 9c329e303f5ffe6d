"""Replay: a file recorded from a real PyTorch (conformance/replay/testdata/recorded_torch.json,
written by generators/record_cases.py, which writes it again from the plan) replays on the
reference and passes; a doctored copy fails exactly where it was doctored; malformed files,
and files of version 1, are refused with an error that names the file, the case and the
field. Standard library only.
"""

import copy
import json
import os
import subprocess
import tempfile
import tomllib
import unittest

from conformance.runner.options import test_free


def child_env() -> dict:
    return test_free(os.environ)

RECORDED = "conformance/replay/testdata/recorded_torch.json"
PLAN = "conformance/replay/testdata/replay_plan.json"
INTERFACE = "spec/interface.toml"  # the candidate interface: every op's arguments by name
PROMOTION = "spec/promotion.toml"  # its [[op]] rows: the binary ops a call's binary_op may name
# The interface's features whose ops a case's call may name (REPLAY.md).
CALL_FEATURES = ("binary", "binary_out", "binary_inplace", "views", "format_copies")
# The runner's report check needs Debian's python3-jsonschema: Debian's interpreter.
PYTHON = os.environ.get("TCTS_PYTHON", "/usr/bin/python3")


def replay(path, out):
    # child_env: the runner must not take this test's XML, shards or filter for its own.
    p = subprocess.run([PYTHON, "-m", "conformance.runner.run", path, "--candidate=reference", f"--out={out}", "--jobs=2"],
                       capture_output=True, text=True, timeout=300, env=child_env())
    return p


def binary_op_names() -> str:
    """The spec's binary ops, as the reader's error lists them ("add, sub, ...")."""
    with open(PROMOTION, "rb") as f:
        return ", ".join(op["name"] for op in tomllib.load(f)["op"])


class Replay(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        with open(RECORDED) as f:
            self.doc = json.load(f)

    def write(self, doc, name="cases.json"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def report(self):
        with open(os.path.join(self.tmp, "out", "report.json")) as f:
            return json.load(f)

    def test_recorded_file_passes_on_the_reference(self):
        p = replay(RECORDED, os.path.join(self.tmp, "out"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        r = self.report()
        self.assertEqual(r["summary"]["outcomes"]["PASS"], len(self.doc["cases"]))
        self.assertGreaterEqual(len(self.doc["cases"]), 25)
        self.assertTrue(r["run"]["replay_file"].endswith("recorded_torch.json"))
        self.assertIn("torch", r["cases"][0]["basis"])  # recorded: torch <version>

    def test_the_recorder_writes_this_recording(self):
        """generators/record_cases.py, from the plan, writes exactly the recorded file (with the
        torch that recorded it): the writer and the reader speak one dialect, version 2."""
        out = os.path.join(self.tmp, "recorded.json")
        p = subprocess.run([PYTHON, "generators/record_cases.py", PLAN, out], capture_output=True, text=True,
                           timeout=300)
        if "needs torch" in p.stderr:
            self.skipTest(f"{PYTHON} has no torch")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(out) as f:
            written = json.load(f)
        if written["source"] != self.doc["source"]:
            self.skipTest(f"recorded with {self.doc['source']}; this is {written['source']}")
        self.assertEqual(written, self.doc)
        self.assertEqual(written["version"], 2)

    def test_calls_use_the_interfaces_argument_names(self):
        """One dialect: a call built from spec/interface.toml alone (its op name, and each
        argument under the interface's name, with a value of its type) is read for every op a
        call may name, and an input tensor is make_tensor's arguments. A field the reader
        names otherwise is an unknown or missing field: the file is refused (exit 2)."""
        with open(INTERFACE, "rb") as f:
            ops = {op["name"]: op for op in tomllib.load(f)["op"]}
        tensor = {arg["name"]: {"ints": [1, 2, 3, 4], "dtype": "float32", "scalars": "arange"}[arg["type"]]
                  for arg in ops["make_tensor"]["args"]}
        values = {"tensor": "a", "operand": "b", "binary_op": "add", "scalar": 1, "int": 0, "int?": None,
                  "ints": [1], "memory_format": "contiguous_format"}
        cases = []
        for name, op in ops.items():
            if op["feature"] not in CALL_FEATURES:
                continue
            call = {"op": name}
            call.update({arg["name"]: values[arg["type"]] for arg in op["args"]})
            call.update({k: v for k, v in (("a", "a"), ("out", "o")) if k in call})
            cases.append({"id": name, "inputs": {"a": {"tensor": tensor}, "b": {"scalar": 2}, "o": {"tensor": tensor}},
                          "call": call, "expect": {"error": "RuntimeError"}})
        self.assertGreaterEqual(len(cases), 3 + 15)  # the three binary forms, the 15 view and copy ops
        doc = {"format": "tensor-cts/cases", "version": 2, "source": INTERFACE, "cases": cases}
        p = replay(self.write(doc), os.path.join(self.tmp, "out"))
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)  # read; the made-up expectations may fail
        self.assertEqual({c["id"] for c in self.report()["cases"]}, {c["id"] for c in cases})

    def test_doctored_cases_fail_and_say_where(self):
        doc = copy.deepcopy(self.doc)
        by_id = {c["id"]: c for c in doc["cases"]}
        by_id["mul.uint8.wraps"]["expect"]["values"][0] = 145
        by_id["add.transposed_f32.row_f32"]["expect"]["strides"] = [3, 1]
        by_id["add.broadcast_error"]["expect"] = {"error": "TypeError"}
        p = replay(self.write(doc), os.path.join(self.tmp, "out"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        failed = {c["id"]: c for c in self.report()["cases"] if c["outcome"] == "FAIL"}
        self.assertEqual(set(failed), {"mul.uint8.wraps", "add.transposed_f32.row_f32", "add.broadcast_error"})
        self.assertIn("145", failed["mul.uint8.wraps"]["expected"])
        self.assertIn("[1, 4]", failed["add.transposed_f32.row_f32"]["observed"])
        self.assertIn("TypeError", failed["add.broadcast_error"]["expected"])
        self.assertIn("bazel run //conformance:replay", failed["mul.uint8.wraps"]["rerun"])
        self.assertIn("--filter='mul.uint8.wraps'", failed["mul.uint8.wraps"]["rerun"])

    def test_malformed_files_name_the_problem(self):
        first = self.doc["cases"][0]

        def with_case(change):
            doc = copy.deepcopy(self.doc)
            doc["cases"] = [copy.deepcopy(first)]
            change(doc["cases"][0])
            return doc

        cases = {
            "not json": ('{"format": "tensor-cts/cases",\n "cases": [}', "line 2, column 12"),
            "format": ({"format": "other", "version": 2, "source": "", "cases": []}, '"format" must be'),
            # Version 1 spoke a second dialect of the protocol's arguments: refused, naming the renames.
            "version 1": ({**with_case(lambda c: None), "version": 1},
                          ('version 1 is no longer read: version 2 names every argument as the testee protocol does',
                           'a case\'s "op" -> "call"', '"input" -> "t"', '"dims": [d0, d1] -> "dim0": d0, "dim1": d1',
                           '"offset" -> "storage_offset"', '"shape" -> "sizes"', '"self": x, "other": y')),
            "version 3": ({**with_case(lambda c: None), "version": 3}, "version: this runner reads version 2, got 3"),
            "dtype": (with_case(lambda c: c["inputs"]["a"]["tensor"].update(dtype="flaot32")),
                      "cases[0] (id 'add.transposed_f32.row_f32').inputs.a.tensor.dtype: unknown dtype 'flaot32'"),
            "expect": (with_case(lambda c: c.pop("expect")), "(id 'add.transposed_f32.row_f32'): missing \"expect\""),
            "view op": (with_case(lambda c: c["inputs"]["a"]["tensor"]["views"].append({"op": "flip"})),
                        "inputs.a.tensor.views[1].op: unknown view op 'flip'"),
            "values": (with_case(lambda c: c["inputs"]["b"]["tensor"].update(values=[1, 2])),
                       "inputs.b.tensor.values: 2 values for 3 elements"),
            "arg": (with_case(lambda c: c["call"].update(b="zz")), "call.b: no input named 'zz'"),
            # One dialect: version 1's names are unknown fields of version 2.
            "old arg names": (with_case(lambda c: c["call"].update(args=["a", "b"])), 'call: unknown field "args"'),
            "old dims": (with_case(lambda c: c.update(call={"op": "transpose", "t": "a", "dims": [0, 1]})),
                         'call: unknown field "dims"'),
            "old offset": (with_case(lambda c: c.update(call={"op": "as_strided", "t": "a", "sizes": [2], "strides": [1],
                                                              "storage_offset": 0, "offset": 1})),
                           'call: unknown field "offset"'),
            "old shape": (with_case(lambda c: c["inputs"]["b"]["tensor"].update(shape=[3])),
                          'inputs.b.tensor: unknown field "shape"'),
            "binary_op": (with_case(lambda c: c["call"].update(binary_op="pow")),
                          f"call.binary_op: unknown binary op 'pow' ({binary_op_names()})"),
            "op": (with_case(lambda c: c["call"].update(op="matmul")), "call.op: unknown op 'matmul'"),
            "inplace self": (with_case(lambda c: c.update(call={"op": "binary_inplace", "binary_op": "add", "self": "s",
                                                                "other": "a"}) or c["inputs"].update(s={"scalar": 1})),
                             "call.self: 's' must be a tensor"),
            "out and inplace": (with_case(lambda c: c["call"].update(op="binary_inplace")), 'call: unknown field "a"'),
            "field": (with_case(lambda c: c.update(extra=1)), "unknown field \"extra\""),
            # An expected error names a kind PyTorch raises (spec/interface.toml raised_by), not the suite's own.
            "error kind": (with_case(lambda c: c.update(expect={"error": "NotSupported"})),
                           ".expect.error: expected an error kind PyTorch raises (RuntimeError, TypeError, ValueError, "
                           "IndexError, NotImplementedError)"),
            # Hostile sizes: an error naming the shape, never an allocation that takes the process down.
            "huge shape": (with_case(lambda c: c["inputs"]["a"]["tensor"].update(sizes=[1099511627776], values={"fill": 1})),
                           "inputs.a.tensor.sizes: [1099511627776] has 1099511627776 elements; a file's inputs hold at most"),
            # A few bytes each, 2^23 elements each: the file's total is bounded, not only each input's.
            "inputs in all": (with_case(lambda c: c["inputs"].update(
                c={"tensor": {"sizes": [2**23], "dtype": "int8", "values": {"fill": 1}}},
                d={"tensor": {"sizes": [2**23], "dtype": "int8", "values": "arange"}})),
                "inputs.d.tensor.sizes: [8388608] has 8388608 elements; a file's inputs hold at most 16777216 in all"),
            "overflowing shape": (with_case(lambda c: c["inputs"]["a"]["tensor"].update(sizes=[2**32, 2**32, 2], values={"fill": 1})),
                                  "has more than 2^63 elements"),
            "int64 range": (with_case(lambda c: c["inputs"]["a"]["tensor"].update(sizes=[2**64])),
                            "inputs.a.tensor.sizes: expected integers (int64)"),
            "deep nesting": ('{"format": ' + "[" * 100000 + "]" * 100000 + "}", '"format" must be'),
            # Review findings: an op object nested a million deep (copying it recursed), a
            # long id or source (copied into every field path and every case's basis), a NUL.
            "deep op": (json.dumps(with_case(lambda c: c.update(call={"op": "t", "t": "a", "x": "DEEP"})))
                        .replace('"DEEP"', "[" * 1000000 + "]" * 1000000), 'call: unknown field "x"'),
            "long id": (with_case(lambda c: c.update(id="x" * 300)), "cases[0].id: 300 bytes; a name has 1 to 256"),
            "nul in id": (with_case(lambda c: c.update(id="a\u0000b")), "cases[0].id: a control byte (0) in a name"),
            "long input name": (with_case(lambda c: c["inputs"].update({"i" * 257: {"scalar": 1}})),
                                ".inputs: 257 bytes; a name has 1 to 256"),
            "long source": ({**with_case(lambda c: None), "source": "s" * 2000},
                            "source: 2000 bytes; a source is at most 1024"),
            "number past double": ('{"format": "tensor-cts/cases", "version": 1e400}', "not JSON"),  # fuzz finding
            "invalid utf-8": ('{"format": "tensor-cts/cases", "version": 2, "source": "", "cases": []}', "not JSON"),
        }
        for name, (doc, message) in cases.items():
            with self.subTest(name):
                path = self.write(doc, name.replace(" ", "_") + ".json")
                if name == "invalid utf-8":  # a lone 0xff byte inside a string
                    with open(path, "wb") as f:
                        f.write(b'{"format": "tensor-cts/cases", "version": 2, "source": "\xff", "cases": []}')
                p = replay(path, os.path.join(self.tmp, "bad"))
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                for m in message if isinstance(message, tuple) else (message,):
                    self.assertIn(m, p.stderr)
                self.assertIn(path + ": ", p.stderr)  # names the file


if __name__ == "__main__":
    unittest.main(verbosity=2)
