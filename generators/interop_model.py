"""Loads spec/devices.toml, spec/asarray.toml and spec/dlpack.toml and derives what they imply.

Python 3.11 standard library only. Spec (spec_model.py) builds an Interop from its files; the
emitters read devices, asarray and DLPack facts only through it. Derived here, from the
tables' rules and never from a library under test:
  * the outcome of a torch.device(...) call (the grammar, the index range, the error class);
  * what each step of a default-device case answers;
  * the outcome of torch.asarray(source, dtype, device, copy): error, or dtype, sizes, device
    and whether the result shares the source's memory;
  * dtype inference and sizes of Python sequences (and the ragged-sequence error);
  * the DLPack code, bits and device of every dtype and device.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import spec_schema
from spec_rows import SpecError, source_of

INT_MAX = 2**31 - 1
DEVICE_ERRORS = ("empty", "malformed", "unknown_type", "index_range", "index_unparsable", "cpu_index",
                 "index_twice", "negative_index")
SOURCE_KINDS = ("tensor", "array", "dlpack", "array_scalar", "buffer", "sequence", "scalar")
DEFAULT_STEPS = ("set", "enter", "exit", "factory", "get", "asarray", "asarray_tensor")


class DeviceRuleError(Exception):
    """A device call the grammar rejects: the error class and the placeholders of its message."""

    def __init__(self, cls: str, **fills):
        super().__init__(cls)
        self.cls, self.fills = cls, fills


@dataclasses.dataclass(frozen=True)
class Device:
    type: str
    index: int | None

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def repr(self) -> str:
        return f"device(type='{self.type}'" + ("" if self.index is None else f", index={self.index}") + ")"


def call_text(args: list) -> str:
    """torch.device(...) as Python writes the call."""
    return "torch.device(" + ", ".join(repr(a) for a in args) + ")"


def fill(message: str, fills: dict) -> str:
    for k, v in fills.items():
        message = message.replace("{" + k + "}", str(v))
    return message


class Interop:
    def __init__(self, spec, files: dict):
        self.spec = spec
        self._load_devices(*files["devices.toml"])
        self._load_asarray(*files["asarray.toml"])
        self._load_dlpack(*files["dlpack.toml"])

    # ------------------------------------------------------------------ helpers
    def _rule(self, table: dict, path: str, row: str, inherit=None) -> dict:
        """A row with id, text and source (its own clause and basis, or `inherit`'s)."""
        rid = table["id"]
        self.spec._claim_id(rid, path)
        # A row that inherits its clause and basis is still its own row.
        source = inherit.for_row(rid) if inherit is not None and "clause" not in table else source_of(table, rid)
        return {"id": rid, "text": table["text"], "source": source}

    def _error(self, table: dict, key: str, path: str, row: str) -> dict:
        e = table[key]  # fields and kinds: spec_schema.ERROR's
        return {"kind": e["kind"],
                "message": e["message"],
                "lists_types": bool(e.get("lists_types", False))}

    def _dtype(self, name, path: str, row: str) -> str:
        if not isinstance(name, str):
            raise SpecError(path, row, f"expected a dtype name, got {name!r}")
        return self.spec.dtype(name, path, row).name

    # ------------------------------------------------------------------ devices.toml
    def _load_devices(self, path: str, doc: dict) -> None:
        g = doc["grammar"]
        self.grammar = self._rule(g, path, "grammar")
        self.pattern = g["pattern"]
        self.max_index = g["max_index"]
        errs = doc["errors"]
        self.device_errors = {cls: self._error(errs, cls, path, "errors") for cls in DEVICE_ERRORS}
        self.errors_source = errs["errors_source"]
        self.device_types: list[dict] = []
        for i, r in enumerate(doc.get("device_type", [])):
            rule = {"id": r["id"]}
            self.spec._claim_id(rule["id"], path)
            rule.update(name=r["name"], documented=r["documented"],
                        source=source_of(r, rule["id"]))
            self.device_types.append(rule)
        more = doc["device_types_pytorch"]
        self.spec._claim_id(more["id"], path)
        more_source = source_of(more, "device_types_pytorch")
        for name in more["names"]:
            self.device_types.append({"id": f"device.type.{name}", "name": name, "documented": False,
                                      "source": more_source})
        names = [t["name"] for t in self.device_types]
        if len(set(names)) != len(names):
            raise SpecError(path, "device_type", "a device type is listed twice")
        for n in names:
            if not re.fullmatch(r"[a-z_]+", n):
                raise SpecError(path, f"device.type.{n}", "device types are lower-case letters and underscores")
        self.type_names = names
        self.documented_types = [t["name"] for t in self.device_types if t["documented"]]

        self.device_examples = []
        for i, r in enumerate(doc.get("example", [])):
            rid = r["id"]
            self.spec._claim_id(rid, path)
            args = self._device_args(r, path, rid)
            want = r["repr"]
            got = self.device_outcome(args)
            if got[0] != "ok" or got[1].repr() != want:
                raise SpecError(path, rid, f"the grammar gives {call_text(args)} -> {self._outcome_text(got)}, "
                                                f"the row says {want}")
            self.device_examples.append({"id": rid, "args": args, "repr": want, "source": source_of(r, rid)})

        self.device_inputs = []
        for i, r in enumerate(doc.get("input", [])):
            rid = r["id"]
            self.spec._claim_id(rid, path)
            args = self._device_args(r, path, rid)
            cls = r["error"]
            if cls != "none" and cls not in DEVICE_ERRORS:
                raise SpecError(path, rid, f"error {cls!r} is not 'none' or one of {', '.join(DEVICE_ERRORS)}")
            got = self.device_outcome(args)
            got_cls = "none" if got[0] == "ok" else got[1]
            if got_cls != cls:
                raise SpecError(path, rid, f"the grammar gives {call_text(args)} -> {self._outcome_text(got)}, "
                                                f"the row says {cls}")
            self.device_inputs.append({"id": rid, "args": args, "error": cls, "why": r["why"]})

        self.str_rule = self._rule(doc["str"], path, "str")
        self.repr_rule = self._rule(doc["repr"], path, "repr")
        eq = doc["equality"]
        self.equality = self._rule(eq, path, "equality")
        self.equality_devices = []
        for args in eq["devices"]:
            args = self._device_args({"args": args}, path, "equality")
            got = self.device_outcome(args)
            if got[0] != "ok":
                raise SpecError(path, "equality", f"{call_text(args)} is not a valid device")
            self.equality_devices.append((args, got[1]))

        dd = doc["default_device"]
        self.default_device = self._rule(dd, path, "default_device")
        self.default_initial = dd["initial"]
        self.default_cases = []
        for i, c in enumerate(dd.get("case", [])):
            rid = c["id"]
            self.spec._claim_id(rid, path)
            steps = c["steps"]
            self.default_cases.append({"id": rid, "text": c["text"],
                                       "steps": self._default_steps(steps, path, rid)})

    def _device_args(self, r: dict, path: str, rid: str) -> list:
        args = r["args"]
        ok = ((len(args) == 1 and isinstance(args[0], (str, int))) or
              (len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], int)))
        if not ok or any(isinstance(a, bool) for a in args):
            raise SpecError(path, rid, f"args {args!r} is not [string], [string, int] or [int]")
        return args

    @staticmethod
    def _outcome_text(got) -> str:
        return repr(got[1]) if got[0] == "ok" and isinstance(got[1], Device) else " ".join(str(x) for x in got)

    def parse_device_string(self, text: str) -> Device:
        if text == "":
            raise DeviceRuleError("empty", input=text)
        m = re.fullmatch(self.pattern, text, flags=re.ASCII)
        if not m:
            raise DeviceRuleError("malformed", input=text)
        dtype, digits = m.group(1), m.group(2)
        index = None
        if digits is not None:
            if int(digits) > INT_MAX:  # PyTorch reads it with std::stoi
                raise DeviceRuleError("index_unparsable", input=text, index=digits)
            index = int(digits)
        if dtype not in self.type_names:
            raise DeviceRuleError("unknown_type", input=text, type=dtype)
        self._check_index(dtype, index, text)
        return Device(dtype, index)

    def _check_index(self, dtype: str, index: int | None, text: str) -> None:
        if index is not None and index > self.max_index:
            raise DeviceRuleError("index_range", input=text, index=index)
        if dtype == "cpu" and index is not None and index > 0:
            raise DeviceRuleError("cpu_index", input=text, index=index)

    def device(self, args: list) -> Device:
        """The device a torch.device(*args) call makes; DeviceRuleError when it is rejected."""
        if len(args) == 1 and isinstance(args[0], int):
            if args[0] < 0:
                raise DeviceRuleError("negative_index", input=args[0], index=args[0])
            self._check_index("cuda", args[0], str(args[0]))
            return Device("cuda", args[0])
        d = self.parse_device_string(args[0])
        if len(args) == 1:
            return d
        if d.index is not None:
            raise DeviceRuleError("index_twice", input=args[0])
        if args[1] < 0:
            raise DeviceRuleError("negative_index", input=args[0], index=args[1])
        self._check_index(d.type, args[1], args[0])
        return Device(d.type, args[1])

    def device_outcome(self, args: list):
        try:
            return ("ok", self.device(args))
        except DeviceRuleError as e:
            return ("error", e.cls, e.fills)

    def _default_steps(self, steps: list, path: str, rid: str) -> list[tuple]:
        """Each step with what it must answer: the default-device rule, simulated."""
        contexts: list[str] = []
        current = self.default_initial
        out = []
        for step in steps:
            if not isinstance(step, list) or not step or step[0] not in DEFAULT_STEPS:
                raise SpecError(path, rid, f"step {step!r} is not one of {', '.join(DEFAULT_STEPS)}")
            kind, arg = step[0], (step[1] if len(step) > 1 else None)
            if kind in ("set", "enter") and not isinstance(arg, str):
                raise SpecError(path, rid, f"step {step!r} needs a device")
            if arg is not None and self.device_outcome([arg])[0] != "ok":
                raise SpecError(path, rid, f"step {step!r}: {arg!r} is not a valid device")
            default = contexts[-1] if contexts else current
            expect = None
            if kind == "set":
                current = arg
            elif kind == "enter":
                contexts.append(arg)
            elif kind == "exit":
                if not contexts:
                    raise SpecError(path, rid, "exit without an open device context")
                contexts.pop()
            elif kind == "factory":
                expect = self.resolve(arg if arg is not None else default)
            elif kind == "get":
                expect = default
            elif kind == "asarray":
                expect = self.resolve(default)
            elif kind == "asarray_tensor":
                expect = "cpu"  # a tensor source keeps its device (003); the suite's tensors are on cpu
            out.append((kind, arg, expect))
        if contexts:
            raise SpecError(path, rid, "a device context is left open")
        if current != self.default_initial:
            raise SpecError(path, rid, f"the case must restore the default device to {self.default_initial}")
        return out

    def resolve(self, device: str) -> str:
        """The device a tensor made on `device` reports: an index-less cuda is the current device, 0."""
        d = self.device([device])
        return f"{d.type}:0" if d.type == "cuda" and d.index is None else str(d)

    # ------------------------------------------------------------------ asarray.toml
    def _load_asarray(self, path: str, doc: dict) -> None:
        self.sources: dict[str, dict] = {}
        for i, r in enumerate(doc.get("source", [])):
            rule = self._rule(r, path, f"source[{i}]")
            kind = r["kind"]
            if kind not in SOURCE_KINDS or kind in self.sources:
                raise SpecError(path, rule["id"], f"kind {kind!r} is unknown or repeated")
            rule.update(kind=kind, aliases=r["aliases"],
                        dtype=r["dtype"], device=r["device"],
                        copy_false=self._error(r, "copy_false", path, rule["id"]) if "copy_false" in r else None)
            if rule["dtype"] not in ("source", "default", "inferred") or rule["device"] not in ("source", "cpu", "default"):
                raise SpecError(path, rule["id"], "dtype must be source|default|inferred, device source|cpu|default")
            if rule["aliases"] == (rule["copy_false"] is not None):
                raise SpecError(path, rule["id"], "a source that never aliases needs copy_false (and only it)")
            self.sources[kind] = rule
        if tuple(self.sources) != SOURCE_KINDS:
            raise SpecError(path, "source", f"expected the sources {', '.join(SOURCE_KINDS)}, in that order")
        mm = doc["mismatch"]
        self.mismatch = self._rule(mm, path, "mismatch")
        self.mismatch.update(device_error=self._error(mm, "device_error", path, "mismatch"),
                             dtype_error=self._error(mm, "dtype_error", path, "mismatch"))
        sw = doc["sweep"]
        self.other_device = sw["other_device"]
        self.sweep = {}
        for kind in SOURCE_KINDS:
            s = sw[kind]
            entry = {"other_dtype": self._dtype(s.get("other_dtype"), path, f"sweep.{kind}")}
            if kind in ("tensor", "array", "dlpack", "array_scalar"):
                entry["dtype"] = self._dtype(s.get("dtype"), path, f"sweep.{kind}")
                entry["sizes"] = tuple(self.spec._ints(s, "sizes", path, f"sweep.{kind}"))
            elif kind == "buffer":
                entry["bytes"] = s["bytes"]
            else:
                entry["value"] = self.py_value(s["value"], path, f"sweep.{kind}")
                entry["literal"] = s["value"]
            self.sweep[kind] = entry
        self.dtype_pairs = sw["dtype_pairs"]

        inf = doc["inference"]
        self.inference = self._rule(inf, path, "inference")
        if inf["order"] != ["bool", "int64", "default_float", "default_complex"]:
            raise SpecError(path, "inference", "order must be bool, int64, default_float, default_complex")
        self.ragged_error = self._error(inf, "ragged_error", path, "inference")
        self.not_sequence_error = self._error(inf, "not_sequence_error", path, "inference")
        self.complex_to_real_error = self._error(inf, "complex_to_real_error", path, "inference")
        self.complex_to_integer_error = self._error(inf, "complex_to_integer_error", path, "inference")
        self.inference_examples = []
        for i, ex in enumerate(inf.get("example", [])):
            rid = ex["id"]
            self.spec._claim_id(rid, path)
            literal = ex["value"]
            default = self._dtype(ex["default"], path, rid)
            if default not in self.spec.default_dtypes:
                raise SpecError(path, rid, f"default {default} is not a possible default dtype")
            dtype = self._dtype(ex["dtype"], path, rid) if "dtype" in ex else None
            self.inference_examples.append({"id": rid, "literal": literal, "value": self.py_value(literal, path, rid),
                                            "default": default, "dtype": dtype})

        buf = doc["buffer"]
        self.buffer = self._rule(buf, path, "buffer")
        self.buffer.update(length_error=self._error(buf, "length_error", path, "buffer"),
                           empty_error=self._error(buf, "empty_error", path, "buffer"),
                           lengths=tuple(self.spec._ints(buf, "lengths", path, "buffer")))

        arr = doc["array"]
        self.array = self._rule(arr, path, "array")
        self.array.update(stride_error=self._error(arr, "stride_error", path, "array"),
                          negative_error=self._error(arr, "negative_error", path, "array"))
        self.array_examples = []
        for i, ex in enumerate(arr.get("example", [])):
            rid = ex["id"]
            self.spec._claim_id(rid, path)
            sizes = tuple(self.spec._ints(ex, "sizes", path, rid))
            strides = tuple(self.spec._ints(ex, "byte_strides", path, rid, lo=-2**40))
            if len(sizes) != len(strides):
                raise SpecError(path, rid, "sizes and byte_strides differ in length")
            self.array_examples.append({"id": rid, "dtype": self._dtype(ex.get("dtype"), path, rid), "sizes": sizes,
                                        "byte_strides": strides})

        self.doc_examples = []
        for i, ex in enumerate(doc.get("doc_example", [])):
            rid = ex["id"]
            self.spec._claim_id(rid, path)
            kind = ex["source"]
            if kind not in ("tensor", "array", "array_scalar"):
                raise SpecError(path, rid, "doc examples use tensor, array or array_scalar sources")
            values = ex["values"]
            e = {"id": rid, "text": ex["text"], "kind": kind,
                 "dtype": self._dtype(ex.get("dtype"), path, rid), "values": values,
                 "sizes": () if kind == "array_scalar" else (len(values),),
                 "as_dtype": self._dtype(ex["as_dtype"], path, rid) if "as_dtype" in ex else None,
                 "copy": ex.get("copy"), "shares": ex["shares"]}
            got = self.asarray_outcome(kind, e["dtype"], e["sizes"], e["as_dtype"], None, e["copy"], "float32", "cpu")
            if got[0] != "ok" or got[4] != e["shares"]:
                raise SpecError(path, rid, f"the rules give {got}, the row says shares = {e['shares']}")
            self.doc_examples.append(e)

        self.autograd, self.autograd_examples = None, []
        if "autograd" in doc:
            self._load_autograd(path, doc["autograd"])

    def _load_autograd(self, path: str, ag: dict) -> None:
        self.autograd = self._rule(ag, path, "autograd")
        self.autograd.update({k: ag[k] for k in ("history_grad_fn", "clone_grad_fn",
                                                                              "to_grad_fn")},
                             integer_error=self._error(ag, "integer_error", path, "autograd"))
        for i, ex in enumerate(ag.get("example", [])):
            e = self._rule(ex, path, f"autograd.example[{i}]")
            kind = ex["obj"]
            history = ex.get("history", "none")
            if history != "none" and kind != "tensor":
                raise SpecError(path, e["id"], "only a tensor source has autograd history")
            if kind in ("sequence", "scalar"):
                if "value" not in ex or "dtype" in ex:
                    raise SpecError(path, e["id"], f"a {kind} source gives value (its dtype is inferred)")
                value = self.py_value(ex["value"], path, e["id"])
                src_dtype, sizes = None, self.sizes_of(value)
            elif kind == "buffer":
                if "value" in ex or "dtype" in ex:
                    raise SpecError(path, e["id"], "a buffer source has no value or dtype (8 zero bytes)")
                value, src_dtype, sizes = None, None, ()
            else:
                if "value" in ex or "dtype" not in ex:
                    raise SpecError(path, e["id"], f"a {kind} source gives dtype (its values are 1, 2, ...)")
                value, src_dtype = None, self._dtype(ex["dtype"], path, e["id"])
                sizes = () if kind == "array_scalar" else (3,)
            if ex.get("source_only") and (history == "none" or any(k in ex for k in ("requires_grad", "copy", "as_dtype"))):
                raise SpecError(path, e["id"], "a source_only row makes a tensor with history and calls nothing")
            e.update(source_only=bool(ex.get("source_only")))
            e.update(kind=kind, history=history, src_dtype=src_dtype, value=value, literal=ex.get("value"),
                     sizes=sizes, requires_grad=ex.get("requires_grad"), copy=ex.get("copy"),
                     as_dtype=self._dtype(ex["as_dtype"], path, e["id"]) if "as_dtype" in ex else None)
            if history != "none" and self.spec.by_name[src_dtype].category not in ("floating", "complex"):
                raise SpecError(path, e["id"], "a source that requires grad has a floating or complex dtype")
            self.autograd_examples.append(e)

    def autograd_outcome(self, natural: str, history: str, as_dtype: str | None, shares: bool,
                         requires_grad: bool | None) -> tuple:
        """What asarray gives for autograd, for a source of dtype `natural` (a tensor's
        `history`: none, leaf, add) whose result shares its memory or not (asarray_outcome):
        ("error", error) or ("ok", requires_grad, is_leaf, grad_fn or None, the source's
        requires_grad afterwards or None when not decided). requires_grad not given is False
        (003's signature); the rest is [autograd]'s rule (spec/asarray.toml)."""
        ag = self.autograd
        rg = bool(requires_grad)
        result_dtype = as_dtype or natural
        if rg and self.spec.by_name[result_dtype].category not in ("floating", "complex"):
            return ("error", ag["integer_error"])
        tracked = history != "none"  # the source requires grad
        # The source afterwards: a copy leaves it as it was; an aliasing result from a leaf is
        # the source object, its flag set to requires_grad (not given on a leaf that requires
        # grad: 1.13 clears the flag, current PyTorch keeps it, so it is not checked); a
        # non-leaf keeps its history (a detached alias is another tensor).
        if shares and history == "add":
            got, source_after = ((True, False, ag["history_grad_fn"]) if rg else (False, True, None)), True
        elif shares:
            got = (rg, True, None)
            source_after = None if history == "leaf" and requires_grad is None else rg
        elif tracked and rg:  # a recorded copy: clone, or Tensor.to for another dtype
            got, source_after = (True, False, ag["to_grad_fn"] if as_dtype and as_dtype != natural
                                 else ag["clone_grad_fn"]), True
        else:
            got, source_after = (rg, True, None), tracked
        return ("ok",) + got + (source_after,)

    def py_value(self, literal: str, path: str, row: str):
        """A Python literal (numbers, True/False, complex, nested lists) as Python values."""
        try:
            v = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            raise SpecError(path, row, f"{literal!r} is not a Python literal") from None

        def ok(x):
            return isinstance(x, (bool, int, float, complex)) or (isinstance(x, list) and all(ok(y) for y in x))
        if not ok(v):
            raise SpecError(path, row, f"{literal!r} is not a number or a nested list of numbers")
        return v

    @staticmethod
    def sizes_of(value) -> tuple:
        """The sizes of a nested list (each depth's from its first element, as compute_sizes
        takes them); ("ragged", expected, dim, got) when a list's length disagrees, and
        ("not_sequence",) when a number stands where those sizes need a sequence."""
        sizes: list[int] = []

        def walk(v, dim):
            if not isinstance(v, list):
                if dim < len(sizes):
                    return ("not_sequence",)
                return None
            if dim == len(sizes):
                sizes.append(len(v))
            elif sizes[dim] != len(v):
                return ("ragged", sizes[dim], dim, len(v))
            for item in v:
                r = walk(item, dim + 1)
                if r:
                    return r
            return None
        r = walk(value, 0)
        return r if r else tuple(sizes)

    @staticmethod
    def leaves(value) -> list:
        if not isinstance(value, list):
            return [value]
        return [x for item in value for x in Interop.leaves(item)]

    def store_error(self, value, dtype: str) -> dict | None:
        """The error storing `value` into `dtype` raises (recursive_store): a complex number
        into a floating or integral dtype; None when every element converts."""
        if not any(isinstance(x, complex) for x in self.leaves(value)):
            return None
        category = self.spec.by_name[dtype].category
        return {"floating": self.complex_to_real_error, "integral": self.complex_to_integer_error}.get(category)

    def infer_dtype(self, value, default: str) -> str:
        kinds = [0 if isinstance(x, bool) else 1 if isinstance(x, int) else 2 if isinstance(x, float) else 3
                 for x in self.leaves(value)]
        top = max(kinds, default=2)
        return ("bool", "int64", default, self.spec.to_complex(default))[top]

    def asarray_outcome(self, kind: str, src_dtype: str | None, sizes: tuple, dtype: str | None,
                        device: str | None, copy: bool | None, default: str, default_device: str):
        """("ok", dtype, sizes, device, shares) or ("error", error dict, rule id)."""
        src = self.sources[kind]
        if copy is False and src["copy_false"]:
            return ("error", src["copy_false"], src["id"])
        # "source" and "inferred": the caller passes the source's (or the inferred) dtype;
        # "default": a buffer is read as the dtype asked for, else the default dtype.
        natural = (dtype or default) if src["dtype"] == "default" else src_dtype
        home = {"source": "cpu", "cpu": "cpu", "default": default_device}[src["device"]]
        if not src["aliases"]:
            return ("ok", dtype or natural, sizes, self.resolve(device or home), False)
        wrong_device = device is not None and self.resolve(device) != home
        wrong_dtype = dtype is not None and dtype != natural
        if copy is True or (copy is None and (wrong_device or wrong_dtype)):
            return ("ok", dtype or natural, sizes, self.resolve(device or home), False)
        if wrong_device:
            return ("error", self.mismatch["device_error"], self.mismatch["id"])
        if wrong_dtype:
            return ("error", self.mismatch["dtype_error"], self.mismatch["id"])
        return ("ok", natural, sizes, home, True)

    # ------------------------------------------------------------------ dlpack.toml
    def _load_dlpack(self, path: str, doc: dict) -> None:
        codes = doc["codes"]
        self.dl_codes = {k: codes[k] for k in codes}
        dcodes = doc["device_codes"]
        self.dl_device_codes = {k: dcodes[k] for k in dcodes}
        dt = doc["dtype_codes"]
        self.dl_dtype = self._rule(dt, path, "dtype_codes")
        self.dl_dtype_codes = {}
        fields = spec_schema.FILES["dlpack.toml"]["dtype_codes"].type.fields  # the rest name dtypes
        documented = {d.name for d in self.spec.documented}
        for name in dt:
            if name not in documented and name not in fields:
                raise SpecError(path, "dtype_codes", f"{name!r} is not a documented dtype")
        for d in self.spec.documented:
            if d.name not in dt:  # the schema types the codes; which dtypes need one is the dtype table's
                raise SpecError(path, "dtype_codes", f"missing field '{d.name}': every documented dtype has a code")
            code = dt[d.name]
            if code not in self.dl_codes:
                raise SpecError(path, "dtype_codes", f"{d.name}: unknown code {code!r}")
            self.dl_dtype_codes[d.name] = (code, self.dl_codes[code], 8 * d.itemsize)
        pairs = [(c, b) for (_, c, b) in self.dl_dtype_codes.values()]
        if len(set(pairs)) != len(pairs):
            raise SpecError(path, "dtype_codes", "two dtypes share a (code, bits): import would be ambiguous")
        dev = doc["devices"]
        self.dl_devices = self._rule(dev, path, "devices")
        self.dl_devices.update(cpu=dev["cpu"], cuda=dev["cuda"],
                               unpackable=dev["unpackable"],
                               export_error=self._error(dev, "export_error", path, "devices"))
        for name in ("cpu", "cuda"):
            if self.dl_devices[name].get("device_type") not in self.dl_device_codes:
                raise SpecError(path, "devices", f"{name}: unknown device_type")

        ex = doc["export"]
        self.dl_export = self._rule(ex, path, "export")
        self.dl_export["normalize"] = ex["normalize_strides"]
        self.dl_export_geometries = []
        for i, g in enumerate(ex.get("geometry", [])):
            name = g["name"]
            base = tuple(self.spec._ints(g, "base", path, name))
            chain = g["chain"]
            geo = self.spec._chain_geometry(base, chain, path, f"export.geometry {name}")
            self.dl_export_geometries.append({"name": name, "base": base, "chain": chain, "geometry": geo})

        im = doc["import"]
        self.dl_import = self._rule(im, path, "import")
        self.dl_import_geometries = []
        for i, g in enumerate(im.get("geometry", [])):
            name = g["name"]
            sizes = tuple(self.spec._ints(g, "sizes", path, name))
            strides = tuple(self.spec._ints(g, "strides", path, name))
            if strides and len(strides) != len(sizes):
                raise SpecError(path, name, "strides must be [] (NULL) or one per size")
            self.dl_import_geometries.append({"name": name, "sizes": sizes, "strides": strides,
                                              "byte_offset": g["byte_offset"]})
        self.dl_import_invalid = []
        for i, r in enumerate(im.get("invalid", [])):
            rule = self._rule(r, path, f"import.invalid[{i}]", inherit=self.dl_import["source"])
            dtype = r.get("dtype", {"code": "kDLFloat", "bits": 32, "lanes": 1})
            code = dtype.get("code")
            code_num = self.dl_codes.get(code) if isinstance(code, str) else code
            if not isinstance(code_num, int):
                raise SpecError(path, rule["id"], f"unknown type code {code!r}")
            device = r.get("device", "kDLCPU")
            if device not in self.dl_device_codes:
                raise SpecError(path, rule["id"], f"unknown device type {device!r}")
            rule.update(code=code_num, bits=int(dtype.get("bits", 32)), lanes=int(dtype.get("lanes", 1)),
                        device=self.dl_device_codes[device], error=self._error(r, "error", path, rule["id"]))
            self.dl_import_invalid.append(rule)

        rt = doc["round_trip"]
        self.dl_round_trip = self._rule(rt, path, "round_trip")
        self.dl_round_trip["peer"] = rt["peer"]
        known = {g["name"] for g in self.dl_export_geometries}
        self.dl_round_trip["geometries"] = rt["geometries"]
        for name in self.dl_round_trip["geometries"]:
            if name not in known:
                raise SpecError(path, "round_trip", f"unknown export geometry {name!r}")

    def dl_strides(self, sizes, strides) -> tuple:
        """The strides an export reports: size-0/1 dimensions get 1 when [export] normalises."""
        if not self.dl_export["normalize"]:
            return tuple(strides)
        return tuple(1 if s < 2 else st for s, st in zip(sizes, strides))
