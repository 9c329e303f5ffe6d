"""Test vectors of the testee protocol, generated from the interface description
(spec/interface.toml; `emit_interface.py --suite vectors` writes //spec:interface_vectors.json).
Every kit's own test replays them. Stdlib only.

The file is one JSON object:

  "format":   "tcts-interface-vectors/1"
  "doc":      this paragraph, shortened
  "values":   [{"type", "v1", "v2", "note"}]: one value of a wire type, written as protocol
              version 2 writes it ("v2": an integer beyond +-(2^53 - 1) as its decimal string, a
              float as its shortest round-trip decimal text; version 3 writes values alike) and as
              version 1 wrote it ("v1": integers as JSON numbers, floats as C99 hex texts; the
              version is retired, no end writes this form, every reader still reads it). "type" is a wire type of the interface
              ("int", "int?", "uint64", "uintptr", "ints", "float", "scalar", "scalars",
              "device_arg", a record's name) or "python_value" (an asarray sequence: a scalar or a
              nested list of them). A kit must decode both forms to the same native value, and
              encode that value back equal to the vector's v2 form: floats
              compared by the double they denote ("1e+16" and "10000000000000000" are one value;
              -0.0 is not 0.0; NaN equals NaN), everything else exactly (an integer's form
              included: under v2 a number within +-(2^53 - 1), a string beyond).
  "sessions": [{"protocol", "testee", "notes", "steps"}]: conversations in which the suite
              offers version 2 alone (version 3 adds facts to answers, which each kit's own test
              covers), one with a testee that implements every op and one with a testee that lacks
              one. "testee" says how the echo testee the kit's test builds is made:
              {"name", "version", "build", "also_supports", "dtypes", "lacks"}: it implements
              every op of the interface except those in "lacks" (so the features it declares
              follow from the interface and those), declares the answer features of
              "also_supports" and those declared by default (strides), and the dtypes of "dtypes". Each step:
                "request": the request line the suite sends (as a JSON value);
                "returns": what the testee's method returns, written as the v2 wire form of the
                           op's result type (decode it with the kit's own decoder for that
                           type: a record as the record, "scalars" as scalars); for an op whose
                           result is a tensor, {"new_tensor": label}: the method returns a new
                           object of the test's, which later requests name by the handle the
                           kit answered (handles count from 1 in each session);
                "raises":  instead of "returns": {"kind", "message"}: the method raises an
                           error of that kind with that message (the kit's NotSupported,
                           the language's exception of that name, or its TesteeError);
                "answer":  the answer line the kit must write, compared as the values are.
              Steps whose request the kit refuses before calling the testee (an unknown op, an
              unknown handle, an op the testee lacks) have neither "returns" nor "raises".
              A kit's test also re-encodes the arguments the method received and compares them
              with the request's (its decoders and encoders agree).
  "notes":    what the vectors do not cover.
"""

from __future__ import annotations

import base64
import json
import math

FORMAT = "tcts-interface-vectors/1"
SAFE = 2 ** 53 - 1

# ---------------------------------------------------------------- edge values
I63 = 2 ** 63 - 1
INT_EDGES = [
    (0, "zero"), (1, "one"), (-1, "minus one"), (SAFE, "2^53 - 1: the largest integer exact in a double (a number in v2)"),
    (-SAFE, "-(2^53 - 1) (a number in v2)"), (2 ** 53, "2^53: exact in a double but past the bound, a string in v2"),
    (-(2 ** 53), "-2^53 (a string in v2)"), (2 ** 53 + 1, "2^53 + 1: a double would read 2^53"),
    (-(2 ** 53 + 1), "-(2^53 + 1)"), (I63, "INT64_MAX (spec/arithmetic.toml sends it)"),
    (-I63, "-(2^63 - 1)"), (-(2 ** 63), "INT64_MIN"),
]
DOUBLE_MAX = float.fromhex("0x1.fffffffffffffp+1023")
FLOAT_EDGES = [
    (0.0, "zero"), (-0.0, "negative zero: \"-0.0\" in v2, \"-0x0.0p+0\" in v1"), (1.5, "an exact binary fraction"),
    (0.1, "0.1: the double nearest 1/10 (v1 writes its exact bits)"), (math.nan, "NaN"),
    (math.inf, "infinity"), (-math.inf, "minus infinity"), (5e-324, "the smallest subnormal double (2^-1074)"),
    (DOUBLE_MAX, "the largest finite double (1.7976931348623157e+308)"),
    (-DOUBLE_MAX, "the most negative finite double"),
    (2.0 ** -1022, "the smallest normal double"),
    (2.0 ** -24, "float16's smallest subnormal (2^-24), as a double"),
    (2.0 ** -14 - 2.0 ** -24, "float16's largest subnormal (2^-14 - 2^-24), as a double"),
    (2.0 ** -133, "bfloat16's smallest subnormal (2^-133), as a double"),
    (2.0 ** -126 - 2.0 ** -133, "bfloat16's largest subnormal (2^-126 - 2^-133), as a double"),
    (2.0 ** -149, "float32's smallest subnormal (2^-149), as a double"),
    (1e16, "1e16: Python writes \"1e+16\", JavaScript \"10000000000000000\": one value"),
    (9007199254740993.0, "2^53 + 1 read as a double: 2^53 (a float, not an integer)"),
    (2.0 ** 63, "2^63 as a float"), (-1e-300, "a tiny negative normal"), (1e300, "\"1e+300\""),
    (65504.0, "float16's largest finite value"),
]
COMPLEX_EDGES = [
    (complex(1.5, -0.0), "complex with a negative-zero imaginary part"),
    (complex(math.nan, math.inf), "complex(nan, inf)"),
    (complex(-math.inf, 5e-324), "complex(-inf, the smallest subnormal)"),
    (complex(2.0 ** -24, -(2.0 ** -14 - 2.0 ** -24)), "complex of float16 subnormals"),
    (complex(2.0 ** -133, 2.0 ** -126 - 2.0 ** -133), "complex of bfloat16 subnormals"),
    (complex(DOUBLE_MAX, 0.1), "complex(the largest double, 0.1)"),
]
BOOL_EDGES = [(True, "true (a bool, never the integer 1)"), (False, "false")]
SCALAR_EDGES = BOOL_EDGES + INT_EDGES + FLOAT_EDGES + COMPLEX_EDGES
DTYPES = ["float32", "float64", "complex64", "complex128", "float16", "bfloat16", "uint8", "int8", "int16",
          "int32", "int64", "bool", "complex32", "uint16", "uint32", "uint64"]
# ^ the hello's dtypes: spec/dtypes.toml's, in its order, as the suite sends them (generators_test
#   `test_vectors_hello_names_the_spec_dtypes` holds the two together)


# ---------------------------------------------------------------- encodings
def enc_int(n: int, protocol: int):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"not an integer: {n!r}")
    return str(n) if protocol >= 2 and abs(n) > SAFE else n


def float_text(f: float, protocol: int) -> str:
    if math.isnan(f):
        return "nan"
    if protocol >= 2:
        return repr(f)  # shortest round trip: "1.5", "-0.0", "1e+16", "5e-324", "inf"
    return f.hex()  # "0x1.8000000000000p+0", "-0x0.0p+0", "inf"


def enc_scalar(v, protocol: int):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return enc_int(v, protocol)
    if isinstance(v, float):
        return {"float": float_text(v, protocol)}
    if isinstance(v, complex):
        return {"complex": [float_text(v.real, protocol), float_text(v.imag, protocol)]}
    raise TypeError(f"not a scalar: {v!r}")


def enc_python_value(v, protocol: int):
    if isinstance(v, list):
        return [enc_python_value(x, protocol) for x in v]
    return enc_scalar(v, protocol)


INT_TYPES = ("int", "int32", "uint8", "uint16", "uint64", "uintptr")
STRING_TYPES = ("dtype", "string", "layout", "memory_format", "binary_op")


def encode(iface_json: dict, t: str, v, protocol: int):
    """The wire form of native value `v` of wire type `t` (stateless types only)."""
    if t.endswith("?"):
        return None if v is None else encode(iface_json, t[:-1], v, protocol)
    if t in INT_TYPES or t == "address":
        return enc_int(v, protocol)
    if t == "float":
        return {"float": float_text(v, protocol)}
    if t == "bool" or t in STRING_TYPES:
        return v
    if t == "ints":
        return [enc_int(x, protocol) for x in v]
    if t == "scalar":
        return enc_scalar(v, protocol)
    if t == "scalars":
        return [enc_scalar(x, protocol) for x in v]
    if t == "python_value":
        return enc_python_value(v, protocol)
    if t == "device_arg":
        out = {"form": v["form"]}
        if "text" in v:
            out["text"] = v["text"]
        if "index" in v:
            out["index"] = enc_int(v["index"], protocol)
        return out
    fields = iface_json["records"].get(t)
    if fields is None:
        raise ValueError(f"vectors.py: no encoding for type {t!r}")
    out = {}
    for f in fields:
        if f["name"] in v:
            out[f["name"]] = encode(iface_json, f["type"], v[f["name"]], protocol)
        elif "default" in f:
            out[f["name"]] = f["default"]
        else:
            raise ValueError(f"vectors.py: record {t} value lacks field {f['name']!r}")
    return out


# ---------------------------------------------------------------- value vectors
def _record_samples() -> dict[str, list[tuple[dict, str]]]:
    return {
        "DTypeInfo": [({"itemsize": 8, "is_floating_point": True, "is_complex": False, "is_signed": True},
                       "float64's")],
        "FloatInfo": [
            ({"bits": 64, "eps": 2.0 ** -52, "max": DOUBLE_MAX, "min": -DOUBLE_MAX, "tiny": 2.0 ** -1022},
             "float64's finfo"),
            ({"bits": 16, "eps": 2.0 ** -10, "max": 65504.0, "min": -65504.0, "tiny": 2.0 ** -14}, "float16's finfo"),
            ({"bits": 16, "eps": 2.0 ** -7, "max": float.fromhex("0x1.fep+127"), "min": -float.fromhex("0x1.fep+127"),
              "tiny": 2.0 ** -126}, "bfloat16's finfo"),
            ({"bits": 32, "eps": math.nan, "max": math.inf, "min": -0.0, "tiny": 5e-324},
             "not a real finfo: NaN, infinity, -0.0 and a subnormal in float fields"),
        ],
        "TensorMeta": [
            ({"dtype": "int64", "sizes": [2, 0, SAFE], "strides": [I63, -(2 ** 63), 1], "storage_offset": 2 ** 53 + 1,
              "device": "cpu", "layout": "strided"}, "int64 edges in sizes, strides and storage_offset"),
            ({"dtype": "float32", "sizes": [], "strides": [], "storage_offset": 0, "device": "cuda:0",
              "layout": "sparse_coo"}, "zero-dim, another layout"),
        ],
        "StorageInfo": [({"id": 2 ** 64 - 1, "numel": 2 ** 53}, "uintptr id at its maximum; numel 2^53 (a string in v2)"),
                        ({"id": 140737488355328, "numel": 0}, "an address-like id (2^47), within 2^53")],
        "DeviceInfo": [({"type": "cuda", "index": 1, "str": "cuda:1", "repr": "device(type='cuda', index=1)"},
                        "with an index"),
                       ({"type": "cpu", "index": None, "str": "cpu", "repr": ""}, "index null"),
                       ({"type": "cuda", "index": I63, "str": "cuda:9223372036854775807", "repr": ""},
                        "index INT64_MAX")],
        "DeviceComparison": [({"equal": True, "same_hash": False}, "")],
        "DLPackDType": [({"code": 2, "bits": 64, "lanes": 1}, "kDLFloat 64"),
                        ({"code": 255, "bits": 255, "lanes": 65535}, "each field at its maximum")],
        "DLPackDevice": [({"type": 1, "id": 0}, "kDLCPU"), ({"type": 2, "id": 2147483647}, "kDLCUDA, id INT32_MAX")],
        "DLPackDescriptor": [
            ({"data_offset": 8, "null_data": False, "dtype": {"code": 0, "bits": 32, "lanes": 1},
              "device": {"type": 1, "id": 0}, "shape": [2, 3], "strides": None, "byte_offset": 2 ** 64 - 1},
             "compact (strides null); byte_offset UINT64_MAX"),
            ({"data_offset": 0, "null_data": True, "dtype": {"code": 5, "bits": 128, "lanes": 1},
              "device": {"type": 1, "id": 0}, "shape": [I63], "strides": [-(2 ** 63)], "byte_offset": 0},
             "null data, int64 edges in shape and strides"),
        ],
    }


# Edge values of the narrower integer types (record fields).
NARROW_EDGES = {"int32": [2 ** 31 - 1, -(2 ** 31)], "uint8": [255, 0], "uint16": [65535, 0],
                "uint64": [2 ** 64 - 1, 0], "uintptr": [2 ** 64 - 1, 2 ** 47]}


def _generic_sample(iface_json: dict, t: str, k: int):
    """A sample value of wire type `t` (the k-th of its kind): the edges, rotated."""
    if t.endswith("?"):
        return None if k % 2 else _generic_sample(iface_json, t[:-1], k)
    if t == "int":
        return INT_EDGES[(k + 9) % len(INT_EDGES)][0]
    if t in NARROW_EDGES:
        return NARROW_EDGES[t][k % 2]
    if t == "float":
        return FLOAT_EDGES[(k * 5 + 4) % len(FLOAT_EDGES)][0]
    if t == "bool":
        return k % 2 == 0
    if t in ("dtype",):
        return "float32"
    if t in STRING_TYPES:
        return f"text {k}"
    if t == "ints":
        return [INT_EDGES[(k + j) % len(INT_EDGES)][0] for j in range(3)]
    if t == "scalar":
        return SCALAR_EDGES[(k * 7) % len(SCALAR_EDGES)][0]
    if t == "scalars":
        return [SCALAR_EDGES[(k * 7 + j) % len(SCALAR_EDGES)][0] for j in range(3)]
    fields = iface_json["records"].get(t)
    if fields is None:
        raise ValueError(f"vectors.py: no sample of type {t!r}")
    return {f["name"]: _generic_sample(iface_json, f["type"], k + j) for j, f in enumerate(fields)}


def record_samples(iface_json: dict, name: str) -> list[tuple[dict, str]]:
    """Sample values of record `name`: the hand-written ones whose fields are the record's
    (edges chosen for their meaning), else two from the edges of each field's type."""
    names = {f["name"] for f in iface_json["records"][name]}
    hand = [(v, note) for v, note in _record_samples().get(name, []) if set(v) == names]
    return hand or [(_generic_sample(iface_json, name, k), "edges of each field's type") for k in range(2)]


def value_vectors(iface_json: dict) -> list[dict]:
    out = []

    def add(t, v, note):
        out.append({"type": t, "v1": encode(iface_json, t, v, 1), "v2": encode(iface_json, t, v, 2), "note": note})

    for n, note in INT_EDGES:
        add("int", n, note)
    add("int?", None, "null")
    add("int?", -(2 ** 53 + 1), "-(2^53 + 1)")
    add("uint64", 2 ** 64 - 1, "UINT64_MAX (a DLPack byte_offset)")
    add("uintptr", 2 ** 63, "2^63: past int64, within uintptr")
    add("ints", [n for n, _ in INT_EDGES], "every int edge in one list")
    add("ints", [], "empty")
    for f, note in FLOAT_EDGES:
        add("float", f, note)
    for v, note in SCALAR_EDGES:
        add("scalar", v, note)
    add("scalars", [v for v, _ in SCALAR_EDGES], "every scalar edge in one list")
    add("python_value", [[1, I63], [-(2 ** 63), True], [0.1, complex(-0.0, math.inf)]],
        "a nested sequence (asarray): ints past 2^53, a bool, floats, a complex")
    add("python_value", -(2 ** 53 + 1), "a bare scalar")
    add("python_value", [[[]]], "empty, nested")
    add("device_arg", {"form": "string", "text": "cuda:1"}, "torch.device('cuda:1')")
    add("device_arg", {"form": "type_index", "text": "cuda", "index": I63}, "torch.device('cuda', 2^63 - 1)")
    add("device_arg", {"form": "ordinal", "index": -(2 ** 53 + 1)}, "torch.device(-(2^53 + 1))")
    for name in iface_json["records"]:
        for v, note in record_samples(iface_json, name):
            add(name, v, note)
    return out


# ---------------------------------------------------------------- sessions
class _Session:
    def __init__(self, iface_json: dict, protocol: int):
        self.iface, self.protocol = iface_json, protocol
        self.steps: list[dict] = []
        self.next_id = 1
        self.next_handle = 1
        self.handles: list[int] = []

    def enc(self, t, v):
        return encode(self.iface, t, v, self.protocol)

    def request(self, op, args):
        req = {"id": self.next_id, "op": op, **args}
        self.next_id += 1
        return req

    def step(self, op, args, result_type=None, returns=None, raises=None, ok=None, answer=None, **extra):
        req = self.request(op, args)
        req.update(extra)
        s = {"request": req}
        if raises is not None:
            s["raises"] = raises
            s["answer"] = {"id": req["id"], "error": raises}
        elif answer is not None:
            s["answer"] = {"id": req["id"], **answer}
        elif result_type == "tensor":
            h = self.next_handle
            self.next_handle += 1
            self.handles.append(h)
            s["returns"] = {"new_tensor": f"T{h}"}
            s["answer"] = {"id": req["id"], "ok": h}
        elif result_type == "none":
            s["returns"] = None
            s["answer"] = {"id": req["id"], "ok": None}
        else:
            fields = self.iface["records"].get(result_type)
            if fields:  # a record's fields as returned: one left out is answered with its default
                s["returns"] = {f["name"]: encode(self.iface, f["type"], returns[f["name"]], 2)
                                for f in fields if f["name"] in returns}
            else:
                s["returns"] = encode(self.iface, result_type, returns, 2)
            s["answer"] = {"id": req["id"], "ok": self.enc(result_type, ok if ok is not None else returns)}
        self.steps.append(s)
        return s


def _rotate(items):
    k = 0
    while True:
        yield items[k % len(items)]
        k += 1


def _results(iface_json):
    """A sample return value per op, by result type (native values; v2 wire forms in the file)."""
    scal = [v for v, _ in SCALAR_EDGES]
    half = len(scal) // 2
    def rec(name, k):
        samples = record_samples(iface_json, name) if name in iface_json["records"] else []
        return samples[min(k, len(samples) - 1)][0] if samples else None

    def without(v, key):  # a field left out: the record's default is answered
        return {k: x for k, x in v.items() if k != key} if v else v
    out = {"values": scal[:half], "storage_values": scal[half:], "data_ptr": 2 ** 60 + 8,
           "legacy_constructor": "torch.*.FloatTensor", "default_device": "cuda:1",
           "finfo": rec("FloatInfo", 3), "meta": without(rec("TensorMeta", 0), "layout"),
           "device": without(rec("DeviceInfo", 2), "repr")}
    for o in iface_json["ops"]:  # any other record result: its first sample, defaulted fields left out
        r = o["result"]
        if out.get(o["name"]) is None and r in iface_json["records"]:
            out[o["name"]] = {k: v for k, v in rec(r, 0).items()
                              if not any(f["name"] == k and "default" in f for f in iface_json["records"][r])}
    return out


def _with_defaults(iface_json, t, v):
    fields = iface_json["records"].get(t)
    if not fields or not isinstance(v, dict):
        return v
    return {f["name"]: v[f["name"]] if f["name"] in v else f["default"] for f in fields}


def session(iface_json: dict, protocol: int, lacking: bool = False) -> dict:
    s = _Session(iface_json, protocol)
    ops = [o["name"] for o in iface_json["ops"]]
    lacks = [] if not lacking else ["compare_devices"] if "compare_devices" in ops else ops[:1]
    testee = {"name": "echo", "version": "1", "build": "vectors", "also_supports": ["device_repr"],
              "dtypes": ["float64", "int64", "bool", "complex128"], "lacks": lacks}
    lacking_features = {o["feature"] for o in iface_json["ops"] if o["name"] in lacks}
    features = sorted({o["feature"] for o in iface_json["ops"]} - lacking_features | set(testee["also_supports"])
                      | set(iface_json.get("declared_by_default", [])))
    hello = {"protocol": protocol, "protocols": [protocol], "features": iface_json["features"],
             "dtypes": DTYPES, "interface": iface_json}
    s.step("hello", hello, answer={"ok": {"name": "echo", "version": "1", "build": "vectors", "protocol": protocol,
                                          "features": features, "ops": sorted(o for o in ops if o not in lacks),
                                          "dtypes": sorted(testee["dtypes"])}})
    # Tensors holding every scalar edge (make_tensor's values), one per kind.
    groups = [("bool", [v for v, _ in BOOL_EDGES]), ("int64", [v for v, _ in INT_EDGES]),
              ("float64", [v for v, _ in FLOAT_EDGES]), ("complex128", [v for v, _ in COMPLEX_EDGES])]
    for dtype, vals in groups if "make_tensor" in ops and "make_tensor" not in lacks else []:
        s.step("make_tensor", {"sizes": s.enc("ints", [len(vals)]), "dtype": dtype, "values": s.enc("scalars", vals)},
               "tensor")
    ints = _rotate([n for n, _ in INT_EDGES][1:])
    scalars = _rotate([v for v, _ in SCALAR_EDGES])
    floats = _rotate([f for f, _ in FLOAT_EDGES])
    handles = _rotate(list(s.handles) or [1])
    nullable = _rotate([True, False])
    devices = _rotate([{"form": "string", "text": "cuda:1"}, {"form": "type_index", "text": "cuda", "index": I63},
                       {"form": "ordinal", "index": 2 ** 53 + 1}])
    results = _results(iface_json)

    def sample(op, a):
        t = a["type"]
        if t.endswith("?"):
            if next(nullable):
                return None
            t = t[:-1]
        if t == "tensor":
            return next(handles)
        if t == "operand":
            return {"tensor": next(handles)} if a["name"] == "a" and s.handles else {"scalar": s.enc("scalar", next(scalars))}
        if t == "asarray_source":
            return {"kind": "sequence", "value": s.enc("python_value", [[1, I63], [0.1, complex(-0.0, math.inf)]])}
        if t == "dlpack_import":
            data = bytes(range(8))
            return {"region": {"id": 7, "bytes": base64.b64encode(data).decode()}, "data_offset": 0, "null_data": False,
                    "dtype": {"code": 0, "bits": 32, "lanes": 1}, "device": {"type": 1, "id": 0}, "shape": [2],
                    "strides": None, "byte_offset": 0}
        if t == "dtype":
            return "float64"
        if t == "string":
            return {"name": "float"}.get(a["name"], "cuda:1")
        if t == "layout":
            return "strided"
        if t == "memory_format":
            return "channels_last"
        if t == "binary_op":
            return "sub"
        if t == "device_arg":
            return s.enc("device_arg", next(devices))
        if t == "scalar":
            return s.enc("scalar", next(scalars))
        if t == "float":
            return s.enc("float", next(floats))
        if t in INT_TYPES:
            return s.enc("int", next(ints))
        if t == "ints":
            return s.enc("ints", [next(ints), next(ints)])
        if t == "bool":
            return True
        if t == "scalars":
            return s.enc("scalars", [next(scalars) for _ in range(3)])
        raise ValueError(f"vectors.py: no sample argument of type {t!r} (op {op})")

    for o in iface_json["ops"]:
        args = {}
        for a in o["args"]:
            v = sample(o["name"], a)
            if a.get("inline"):  # its fields are the request's own (from_dlpack, as the suite sends it)
                args.update(v)
            else:
                args[a["name"]] = v
        tensor_args = [a["name"] for a in o["args"] if a["type"] == "tensor"]
        if o["name"] not in lacks and tensor_args and not s.handles:  # no tensor made yet: refused
            s.step(o["name"], args, answer={"error": {"kind": "Internal", "message":
                                                      f"testee kit: bad request: {tensor_args[0]}: no tensor with handle 1"}})
            continue
        if o["name"] in lacks:
            s.step(o["name"], args, answer={"error": {"kind": "NotSupported",
                                                      "message": f"the testee does not implement '{o['name']}'"}})
            continue
        r = o["result"]
        if r == "dlpack_export":
            s.step(o["name"], args, raises={"kind": "NotSupported", "message": "no DLPack export in the vectors"})
        elif r in ("tensor", "none"):
            s.step(o["name"], args, r)
        else:
            v = results.get(o["name"])
            if v is None:
                v = {"dtype": "float64", "bool": True, "string": "cpu"}.get(r)
            if v is None:
                raise ValueError(f"vectors.py: no sample result for op {o['name']} ({r})")
            s.step(o["name"], args, r, returns=v, ok=_with_defaults(iface_json, r, v))
        if o["name"] == "asarray" and s.handles:  # its other simple source: a tensor
            s.step("asarray", {**args, "source": {"kind": "tensor", "tensor": s.handles[0]}}, "tensor")
    # Errors of each kind the testee raises (Internal's message is the kit's own: left out), from
    # an op without tensor arguments.
    plain = next(o for o in iface_json["ops"] if o["name"] not in lacks and
                 all(a["type"] not in ("tensor", "operand") and not a["type"].startswith(("asarray", "dlpack"))
                     for a in o["args"]))
    for kind in iface_json["errors"]:
        if kind != "Internal":
            s.step(plain["name"], {a["name"]: sample(plain["name"], a) for a in plain["args"]}, raises={"kind": kind, "message": f"{kind} from the testee (ü, \"quoted\")"})
    # Requests the kit refuses itself.
    s.step("frobnicate", {}, answer={"error": {"kind": "NotSupported", "message": "unknown request 'frobnicate'"}})
    one_tensor = next((o for o in iface_json["ops"] if o["name"] not in lacks and [a["type"] for a in o["args"]] == ["tensor"]), None)
    if one_tensor is not None:
        arg = one_tensor["args"][0]["name"]
        s.step(one_tensor["name"], {arg: 999}, answer={"error": {"kind": "Internal",
                                                         "message": f"testee kit: bad request: {arg}: no tensor with handle 999"}})
    # Releases: the handle is forgotten (the next use is a bad request).
    if s.handles:
        s.step("release", {}, answer={"ok": None}, release=[s.handles[0]])
    if s.handles and one_tensor is not None:
        s.step(one_tensor["name"], {arg: s.handles[0]}, answer={"error": {"kind": "Internal",
                                                         "message": f"testee kit: bad request: {arg}: no tensor with handle {s.handles[0]}"}})
    return {"protocol": protocol, "testee": testee, "steps": s.steps,
            "notes": (f"v{protocol} session: the suite offers version {protocol} alone; the testee lacks "
                      "compare_devices (feature devices undeclared; the call answers NotSupported from the kit)."
                      if lacking else f"v{protocol} session: the suite offers version {protocol} alone; the testee "
                      "implements every op.")}


NOTES = [
    "asarray: only the sequence and tensor sources (no array, array_scalar, buffer or dlpack kinds: they lend host memory).",
    "from_dlpack: the request's descriptor and lent region reach the kit, but the tests do not compare the DLPack "
    "capsule the Python kit builds (and the Node.js kit passes the source as sent); no deleter is called.",
    "to_dlpack: the testee raises NotSupported: an export (region bytes, addresses) is not covered.",
    "data_ptr: a plain integer (2^60 + 8, past 2^53); an address inside a region ({region, offset}) is not covered.",
    "Regions: no sync, released or deleted fields.",
    "Error messages of kind Internal (the kit adds the exception's class name) are not covered.",
]


def emit(iface) -> str:
    iface_json = iface.as_json()
    doc = {
        "format": FORMAT,
        "generated_from": ["spec/interface.toml", "spec/features.toml"],
        "doc": ("Test vectors of the testee protocol (conformance/protocol/PROTOCOL.md), generated by "
                "generators/vectors.py from spec/interface.toml; its docstring documents this format. "
                "values: each value's v2 wire form and the v1 form readers still read; sessions: requests, "
                "what the testee returns, "
                "and the answer the kit must write."),
        "values": value_vectors(iface_json),
        "sessions": [session(iface_json, 2), session(iface_json, 2, lacking=True)],
        "notes": NOTES,
    }
    # Checked here: every float text of a v2 form is decimal, of a v1 form hex (or a named value).
    _check(doc)
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _check(doc):
    def walk(v, protocol, where):
        if isinstance(v, dict):
            texts = [v["float"]] if isinstance(v.get("float"), str) else v["complex"] if isinstance(v.get("complex"), list) and len(v) == 1 else []
            for text in texts:
                hexa = "0x" in text.lower()
                named = text in ("inf", "-inf", "nan")
                if (protocol == 2 and hexa) or (protocol == 1 and not (hexa or named)):
                    raise ValueError(f"vectors.py: {where}: float text {text!r} in a v{protocol} form")
            for k, x in v.items():
                walk(x, protocol, f"{where}.{k}")
        elif isinstance(v, list):
            for k, x in enumerate(v):
                walk(x, protocol, f"{where}[{k}]")
        elif isinstance(v, int) and not isinstance(v, bool) and protocol == 2 and abs(v) > SAFE:
            raise ValueError(f"vectors.py: {where}: {v} is a JSON number past 2^53 - 1 in a v2 form")
        elif isinstance(v, float):
            raise ValueError(f"vectors.py: {where}: a JSON float ({v!r}): floats travel as {{\"float\": text}}")
    for k, v in enumerate(doc["values"]):
        walk(v["v1"], 1, f"values[{k}].v1")
        walk(v["v2"], 2, f"values[{k}].v2")
    for n, sess in enumerate(doc["sessions"]):
        for k, st in enumerate(sess["steps"]):
            walk(st["request"], sess["protocol"], f"sessions[{n}].steps[{k}].request")
            walk(st["answer"], sess["protocol"], f"sessions[{n}].steps[{k}].answer")
            walk(st.get("returns"), 2, f"sessions[{n}].steps[{k}].returns")
