"""The Python testee kit: validate a Python tensor library with tensor-cts, without forking it.

A testee is a small program in the library's own repository. It subclasses Testee, implements
the operations its library has, and calls serve():

    import tcts_testee

    class MyTestee(tcts_testee.Testee):
        name, version = "mylib", mylib.__version__

        def promote_types(self, a, b):          # dtype names in, a dtype name out
            return NAMES[mylib.promote_types(DTYPES[a], DTYPES[b])]
        ...

    if __name__ == "__main__":
        tcts_testee.serve(MyTestee())

The suite starts it (`bazel run //conformance:run -- --testee='python3 my_testee.py'
--expectations=my_expectations.txt`) and sends one request per line on stdin; the kit answers
each on stdout (conformance/protocol/PROTOCOL.md). Stdlib only: copy this file, or let the
runner put it on PYTHONPATH (it does).

What the kit does for you:
  * the protocol loop, the handshake and the handle table: methods take and return the
    library's own tensor objects; the kit names them for the suite and forgets them when the
    suite releases them;
  * value encoding: dtypes by canonical name ("float32"), scalars as Python bool/int/float/
    complex (exact, NaN and infinities included), operands as a tensor object or a Python
    number, devices as strings;
  * host memory: an asarray source (an array, a NumPy-like scalar, a buffer, a DLPack capsule)
    arrives as an object over real memory of this process (HostArray, a writable memoryview,
    a PyCapsule built with ctypes) that the suite's writes reach, and addresses inside it are
    reported relative to it; a DLPack capsule the library exports is mirrored to the suite;
  * declarations: a feature is declared supported exactly when every operation of it is
    implemented (FEATURE_OPS). Features that are a property of an answer rather than an
    operation (sparse_layout, device_forms, device_repr, cuda_tensors) are declared by listing
    them in `also_supports`; `not_supported` withdraws any. Everything else answers
    NotSupported, declared so. The dtypes the library has are `dtypes` (default: all the
    suite names), less `missing_dtypes`;

  * errors: raise the library's own exception; classify() maps it onto the protocol's error
    kinds (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError; anything
    else is Internal). Raise NotSupported for a call the library has no equivalent of.

A library's semantics are its own: translate only. Never compute an answer the library did not
give.
"""

from __future__ import annotations

import ctypes
import json
import sys
import traceback
import weakref

PROTOCOL = 1

# Each feature and the operations (methods) it covers; candidate.h's Feature, by name.
FEATURE_OPS = {
    "dtype_from_name": ["dtype_from_name"],
    "dtype_info": ["dtype_info"],
    "finfo": ["finfo"],
    "legacy_constructor": ["legacy_constructor"],
    "promote_types": ["promote_types"],
    "result_type": ["result_type"],
    "can_cast": ["can_cast"],
    "default_dtype": ["default_dtype", "set_default_dtype"],
    "tensors": ["make_tensor", "meta", "values"],
    "binary": ["binary"],
    "binary_out": ["binary_out"],
    "binary_inplace": ["binary_inplace"],
    "memory_formats": ["empty", "empty_strided", "is_contiguous"],
    "sparse_layout": [],
    "views": ["as_strided", "t", "transpose", "permute", "narrow", "select", "slice", "expand", "unsqueeze",
              "squeeze", "view", "reshape"],
    "format_copies": ["contiguous", "clone", "empty_like"],
    "storage": ["storage", "storage_values", "write_storage", "write_element", "data_ptr"],
    "devices": ["device", "compare_devices"],
    "device_forms": [],
    "device_repr": [],
    "default_device": ["default_device", "set_default_device", "enter_device", "exit_device"],
    "device_factories": ["empty_on"],
    "cuda_tensors": [],
    "asarray": ["asarray"],
    "dlpack": ["to_dlpack", "from_dlpack"],
}
# Features with no operation of their own: declared only through also_supports.
ANSWER_FEATURES = {"sparse_layout", "device_forms", "device_repr", "cuda_tensors"}

ERROR_KINDS = ("RuntimeError", "TypeError", "ValueError", "IndexError", "NotImplementedError", "NotSupported",
               "Internal")


class NotSupported(Exception):
    """The library has no equivalent of this call."""


class TesteeError(Exception):
    """An error of an explicit protocol kind (one of ERROR_KINDS)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}; one of {ERROR_KINDS}")
        self.kind = kind


class ProtocolError(Exception):
    """A request this kit cannot read: names the field."""


# ---------------------------------------------------------------- host memory
class HostArray:
    """An array-interface source: `dtype` elements at memory[offset + sum(i[k] * byte_strides[k])].
    `memory` is a writable memoryview (format 'B') over memory the suite's writes reach;
    build the library's array over it (e.g. numpy.ndarray(shape, dtype, buffer=memory,
    offset=offset, strides=byte_strides)). `scalar` is True for a NumPy-like scalar (shape ())."""

    def __init__(self, memory, offset, dtype, shape, byte_strides, scalar):
        self.memory, self.offset, self.dtype = memory, offset, dtype
        self.shape, self.byte_strides, self.scalar = tuple(shape), tuple(byte_strides), scalar


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


_CAPSULE_NAME = b"dltensor"
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _Region:
    """Bytes mirrored with the suite. A lent region (id > 0) is memory of ours the suite's
    bytes were copied into; an export region (id < 0) is memory a DLPack capsule of the
    library describes."""

    def __init__(self, rid, address, size, keep=None):
        self.id, self.address, self.size = rid, address, size
        self.keep = keep  # what keeps the memory alive, while the kit must
        self.seen = ctypes.string_at(address, size) if size else b""

    def read(self):
        return ctypes.string_at(self.address, self.size) if self.size else b""

    def write(self, data):
        if len(data) != self.size:
            raise ProtocolError(f"sync: region {self.id} holds {self.size} bytes, got {len(data)}")
        ctypes.memmove(self.address, data, self.size)
        self.seen = data


def _b64decode(text, field):
    import base64
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except Exception:
        raise ProtocolError(f"{field}: not base64") from None


def _b64encode(data):
    import base64
    return base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------- values
def encode_float(f):
    f = float(f)
    return {"float": "nan" if f != f else f.hex()}


def encode_scalar(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return encode_float(v)
    if isinstance(v, complex):
        return {"complex": [encode_float(v.real)["float"], encode_float(v.imag)["float"]]}
    if hasattr(v, "item"):  # a library's own scalar type (numpy.float32(...)): its Python value
        return encode_scalar(v.item())
    raise TypeError(f"not a scalar: {v!r} ({type(v).__name__})")


def _float(v, field):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, dict) and isinstance(v.get("float"), str):
        try:
            return float.fromhex(v["float"]) if v["float"] not in ("nan", "-nan") else float("nan")
        except ValueError:
            pass
    raise ProtocolError(f"{field}: expected a float, got {v!r}")


def decode_scalar(v, field="scalar"):
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, dict) and "float" in v:
        return _float(v, field)
    if isinstance(v, dict) and isinstance(v.get("complex"), list) and len(v["complex"]) == 2:
        return complex(_float({"float": v["complex"][0]}, field), _float({"float": v["complex"][1]}, field))
    raise ProtocolError(f"{field}: expected a scalar, got {v!r}")


def _pyvalue(v, field):
    if isinstance(v, list):
        return [_pyvalue(x, field) for x in v]
    return decode_scalar(v, field)


class DeviceArg:
    """The arguments of one torch.device(...) call: form "string" (text: "cuda:1"),
    "type_index" (text: "cuda", index: 1) or "ordinal" (index: 1)."""

    def __init__(self, form, text, index):
        self.form, self.text, self.index = form, text, index

    def __repr__(self):
        return f"DeviceArg({self.form!r}, {self.text!r}, {self.index!r})"


def _device_arg(v, field):
    if not isinstance(v, dict) or v.get("form") not in ("string", "type_index", "ordinal"):
        raise ProtocolError(f"{field}: expected a device argument {{\"form\", \"text\", \"index\"}}, got {v!r}")
    return DeviceArg(v["form"], v.get("text", ""), v.get("index", 0))


# ---------------------------------------------------------------- the testee
class Testee:
    """Subclass and implement what the library has. Methods take decoded arguments (dtype names,
    Python numbers, the library's tensor objects) and return the library's answers; the
    signatures are those of conformance/candidate/candidate.h, in Python (see PROTOCOL.md)."""

    name = "unnamed"
    version = ""
    build = ""
    also_supports: set = set()
    not_supported: set = set()
    # The dtypes the library has, by canonical name ("float32"); None: every dtype the suite
    # names (hello's "dtypes"). `missing_dtypes` withdraws any. A case that needs a dtype left
    # out is NOT_SUPPORTED, naming it, and is not run; a declared dtype that answers
    # NotSupported FAILs.
    dtypes: set | None = None
    missing_dtypes: set = set()

    def classify(self, exc: BaseException) -> str:
        """The protocol's error kind of an exception the library raised."""
        for cls, kind in ((NotSupported, "NotSupported"), (IndexError, "IndexError"), (TypeError, "TypeError"),
                          (ValueError, "ValueError"), (NotImplementedError, "NotImplementedError"),
                          (RuntimeError, "RuntimeError")):
            if isinstance(exc, cls):
                return kind
        return "Internal"

    def features(self) -> set:
        declared = set()
        for feature, ops in FEATURE_OPS.items():
            if feature in ANSWER_FEATURES:
                if feature in self.also_supports:
                    declared.add(feature)
            elif all(getattr(type(self), op, None) is not getattr(Testee, op, None) for op in ops):
                declared.add(feature)
        return declared - set(self.not_supported)


def _unimplemented(op):
    def method(self, *args, **kwargs):
        raise NotSupported(op)
    method.__name__ = op
    return method


for _ops in FEATURE_OPS.values():
    for _op in _ops:
        setattr(Testee, _op, _unimplemented(_op))


# The result of each op: "tensor" (a new handle), "none", or an encoder.
def _meta(m):
    return {"dtype": m["dtype"], "sizes": list(m["sizes"]), "strides": list(m["strides"]),
            "storage_offset": m["storage_offset"], "device": m["device"], "layout": m.get("layout", "strided")}


_RESULTS = {
    "make_tensor": "tensor", "binary": "tensor", "empty": "tensor", "empty_strided": "tensor", "as_strided": "tensor",
    "t": "tensor", "transpose": "tensor", "permute": "tensor", "narrow": "tensor", "select": "tensor",
    "slice": "tensor", "expand": "tensor", "unsqueeze": "tensor", "squeeze": "tensor", "view": "tensor",
    "reshape": "tensor", "contiguous": "tensor", "clone": "tensor", "empty_like": "tensor", "empty_on": "tensor",
    "asarray": "tensor", "from_dlpack": "tensor",
    "set_default_dtype": "none", "binary_out": "none", "binary_inplace": "none", "write_storage": "none",
    "write_element": "none", "set_default_device": "none", "enter_device": "none", "exit_device": "none",
    "meta": _meta,
    "values": lambda v: [encode_scalar(x) for x in v],
    "storage_values": lambda v: [encode_scalar(x) for x in v],
    "finfo": lambda f: {k: encode_float(f[k]) for k in ("eps", "max", "min", "tiny")} | {"bits": int(f["bits"])},
    "storage": lambda s: {"id": int(s["id"]), "numel": int(s["numel"])},
    "device": lambda d: {"type": d["type"], "index": d["index"], "str": d["str"], "repr": d.get("repr", "")},
    "compare_devices": lambda c: {"equal": bool(c["equal"]), "same_hash": bool(c["same_hash"])},
    "is_contiguous": bool, "can_cast": bool,
}
# Arguments that are tensor handles, by op.
_TENSOR_ARGS = ("t", "self", "out")


class _Server:
    def __init__(self, testee: Testee, out):
        self.testee, self.out = testee, out
        self.handles: dict[int, object] = {}
        self.next_handle = 1
        self.regions: dict[int, _Region] = {}
        self.next_export = -1
        self.exports: dict[int, object] = {}  # export region -> the library's capsule, kept unconsumed
        self.imports: dict[int, tuple] = {}  # lent region -> (managed struct, its buffers), until deleted
        self.deleted: list[int] = []
        self.released: list[int] = []
        self.pinned: list = []  # strong references kept until the current answer is sent
        self.graveyard: list = []  # DLPack imports whose deleter ran, freed at the next request
        self.features = testee.features()

    # -- arguments
    def tensor(self, h, field):
        if not isinstance(h, int) or isinstance(h, bool) or h not in self.handles:
            raise ProtocolError(f"{field}: no tensor with handle {h!r}")
        return self.handles[h]

    def operand(self, v, field):
        if isinstance(v, dict) and "tensor" in v:
            return self.tensor(v["tensor"], field)
        if isinstance(v, dict) and "scalar" in v:
            return decode_scalar(v["scalar"], field)
        raise ProtocolError(f"{field}: expected {{\"tensor\": h}} or {{\"scalar\": s}}, got {v!r}")

    def lend(self, src, field):
        reg = src.get("region")
        if not isinstance(reg, dict) or not isinstance(reg.get("id"), int):
            raise ProtocolError(f"{field}.region: expected {{\"id\", \"bytes\"}}, got {reg!r}")
        data = _b64decode(reg.get("bytes", ""), f"{field}.region.bytes")
        buf = (ctypes.c_char * max(len(data), 1))()
        ctypes.memmove(buf, data, len(data))
        rid = reg["id"]
        self.regions[rid] = _Region(rid, ctypes.addressof(buf), len(data))
        server = self
        weakref.finalize(buf, lambda: server.forget(rid))
        self.pinned.append(buf)
        return buf, memoryview(buf).cast("B")[:len(data)]

    def forget(self, rid):
        if self.regions.pop(rid, None) is not None:
            self.released.append(rid)

    def dlpack_capsule(self, src, field):
        buf, _ = self.lend(src, field)
        region = self.regions[src["region"]["id"]]
        shape = src.get("shape", [])
        strides = src.get("strides")
        dt, dev = src.get("dtype", {}), src.get("device", {})
        shape_arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        strides_arr = (ctypes.c_int64 * max(len(shape), 1))(*strides) if strides is not None else None
        managed = _DLManagedTensor()
        t = managed.dl_tensor
        t.data = None if src.get("null_data") else region.address + src.get("data_offset", 0)
        t.device = _DLDevice(dev.get("type", 1), dev.get("id", 0))
        t.ndim = len(shape)
        t.dtype = _DLDataType(dt.get("code", 0), dt.get("bits", 0), dt.get("lanes", 1))
        t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64)) if strides_arr is not None else None
        t.byte_offset = src.get("byte_offset", 0)
        rid = region.id
        server = self

        def deleter(_):
            server.deleted.append(rid)
            # The library is done with it; free what we kept once this call has returned.
            server.graveyard.append(server.imports.pop(rid, None))
        managed.deleter = _DELETER(deleter)
        self.imports[rid] = (managed, shape_arr, strides_arr, buf, managed.deleter)
        return _PyCapsule_New(ctypes.addressof(managed), _CAPSULE_NAME, None), rid

    def asarray_source(self, src):
        kind = src.get("kind")
        if kind == "tensor":
            return self.tensor(src.get("tensor"), "source.tensor"), None
        if kind in ("array", "array_scalar"):
            _, mem = self.lend(src, "source")
            return HostArray(mem, src.get("offset", 0), src.get("dtype"), src.get("shape", []),
                             src.get("byte_strides", []), kind == "array_scalar"), None
        if kind == "buffer":
            _, mem = self.lend(src, "source")
            return mem, None
        if kind == "dlpack":
            return self.dlpack_capsule(src, "source")
        if kind == "sequence":
            return _pyvalue(src.get("value"), "source.value"), None
        raise ProtocolError(f"source.kind: unknown {kind!r}")

    # -- addresses and exports
    def address(self, a):
        for r in self.regions.values():
            if r.address <= a <= r.address + r.size:
                return {"region": r.id, "offset": a - r.address}
        return a

    def export(self, capsule):
        ptr = _PyCapsule_GetPointer(capsule, _CAPSULE_NAME)
        m = _DLManagedTensor.from_address(ptr)
        t = m.dl_tensor
        shape = [t.shape[k] for k in range(t.ndim)]
        strides = [t.strides[k] for k in range(t.ndim)] if t.strides else None
        item = max(1, (t.dtype.bits * t.dtype.lanes + 7) // 8)
        if strides is None:
            strides, run = [0] * len(shape), 1
            for k in reversed(range(len(shape))):
                strides[k], run = run, run * max(shape[k], 1)
            compact = None
        else:
            compact = strides
        lo, hi = 0, item
        if any(s == 0 for s in shape):
            lo = hi = 0
        else:
            for n, s in zip(shape, strides):
                reach = (n - 1) * s * item
                if reach < 0:
                    lo += reach
                else:
                    hi += reach
        first = (t.data or 0) + t.byte_offset + lo
        rid = self.next_export
        self.next_export -= 1
        on_host = t.device.device_type == 1
        region = _Region(rid, first, hi - lo if on_host and t.data else 0)
        self.regions[rid] = region
        self.exports[rid] = capsule
        return {"region": {"id": rid, "bytes": _b64encode(region.seen)}, "data_offset": (t.data or 0) - first,
                "dtype": {"code": t.dtype.code, "bits": t.dtype.bits, "lanes": t.dtype.lanes},
                "device": {"type": t.device.device_type, "id": t.device.device_id},
                "shape": shape, "strides": compact, "byte_offset": t.byte_offset}

    # -- one request
    def handle(self, req):
        self.graveyard.clear()
        for h in req.get("release", ()):
            self.handles.pop(h, None)
        for rid in req.get("release_regions", ()):
            self.regions.pop(rid, None)
            self.exports.pop(rid, None)  # the capsule goes: its destructor runs the library's deleter
        for s in req.get("sync", ()):
            r = self.regions.get(s.get("id"))
            if r is not None:
                r.write(_b64decode(s.get("bytes", ""), "sync.bytes"))
        op = req.get("op")
        if op == "release":  # nothing but the release fields above
            return None
        if op == "hello":
            unknown = self.features - set(req.get("features", FEATURE_OPS))
            if unknown:
                raise ProtocolError(f"features: the suite does not know {sorted(unknown)}")
            answer = {"name": self.testee.name, "version": self.testee.version, "build": self.testee.build,
                      "protocol": PROTOCOL, "features": sorted(self.features)}
            # A suite that names no dtypes (before protocol dtypes) takes no declaration.
            if (self.testee.dtypes is not None or self.testee.missing_dtypes) and "dtypes" in req:
                known = set(req["dtypes"])
                declared = set(known if self.testee.dtypes is None else self.testee.dtypes)
                unknown = (declared | set(self.testee.missing_dtypes)) - known
                if unknown:
                    raise ProtocolError(f"dtypes: the suite does not know {sorted(unknown)}")
                answer["dtypes"] = sorted(declared - set(self.testee.missing_dtypes))
            return answer
        if not isinstance(op, str) or op not in _ALL_OPS:
            raise NotSupported(f"unknown request {op!r}")
        method = getattr(self.testee, op)
        args = {k: v for k, v in req.items() if k not in ("id", "op", "release", "release_regions", "sync")}
        for k in _TENSOR_ARGS:
            if k in args:
                args[k] = self.tensor(args[k], k)
        for k in ("a", "b", "other"):
            if k in args and op in ("result_type", "binary", "binary_out", "binary_inplace"):
                args[k] = self.operand(args[k], k)
        if "binary_op" in args:
            args["op"] = args.pop("binary_op")
        for wire_name, python_name in (("self", "target"), ("from", "from_")):  # Python keywords
            if wire_name in args:
                args[python_name] = args.pop(wire_name)
        if op in ("device", "compare_devices"):
            for k in ("arg", "a", "b"):
                if k in args:
                    args[k] = _device_arg(args[k], k)
        for k in ("alpha", "value"):
            if k in args:
                args[k] = decode_scalar(args[k], k)
        if op == "make_tensor":
            args["values"] = [decode_scalar(v, "values") for v in args["values"]]
        capsule_region = None
        if op == "asarray":
            args["source"], capsule_region = self.asarray_source(args["source"])
        if op == "from_dlpack":
            capsule, capsule_region = self.dlpack_capsule(args, "from_dlpack")
            args = {"capsule": capsule}
        try:
            result = method(**args)
        except BaseException:
            if capsule_region is not None:
                self.imports.pop(capsule_region, None)  # not consumed: the caller's again
            raise
        kind = _RESULTS.get(op)
        if kind == "tensor":
            h = self.next_handle
            self.next_handle += 1
            self.handles[h] = result
            return h
        if kind == "none":
            return None
        if op == "data_ptr":
            return self.address(int(result))
        if op == "to_dlpack":
            return self.export(result)
        if op in ("promote_types", "result_type", "dtype_from_name", "default_dtype", "legacy_constructor",
                  "default_device"):
            return str(result)
        if op == "dtype_info":
            return {k: (int(result[k]) if k == "itemsize" else bool(result[k]))
                    for k in ("itemsize", "is_floating_point", "is_complex", "is_signed")}
        return kind(result) if kind else result

    def extras(self, answer):
        sync = []
        for r in self.regions.values():
            if r.size:
                now = r.read()
                if now != r.seen:
                    r.seen = now
                    sync.append({"id": r.id, "bytes": _b64encode(now)})
        if sync:
            answer["sync"] = sync
        if self.deleted:
            answer["deleted"], self.deleted = self.deleted, []
        if self.released:
            answer["released"], self.released = self.released, []

    def serve(self, stdin):
        # Bytes in and out where the streams have them (one decode and one encode less per call).
        reader = getattr(stdin, "buffer", stdin)
        raw = getattr(self.out, "buffer", None)
        for line in reader:
            if not line.strip():
                continue
            rid = None
            try:
                req = json.loads(line)
                rid = req.get("id") if isinstance(req, dict) else None
                if not isinstance(req, dict):
                    raise ProtocolError("the request is not a JSON object")
                answer = {"id": rid, "ok": self.handle(req)}
            except ProtocolError as e:
                answer = {"id": rid, "error": {"kind": "Internal", "message": f"testee kit: bad request: {e}"}}
            except Exception as e:  # noqa: BLE001: every library error becomes an answer
                kind = self.testee.classify(e)
                message = str(e) if kind != "Internal" else f"{type(e).__name__}: {e}"
                if kind == "Internal":  # where it came from, for the run's log
                    traceback.print_exc(file=sys.stderr)
                answer = {"id": rid, "error": {"kind": kind, "message": message}}
            # Objects the library released during the call (a copy of a lent buffer) are gone now.
            self.pinned.clear()
            self.extras(answer)
            text = json.dumps(answer, separators=(",", ":")) + "\n"
            if raw is not None:
                raw.write(text.encode("utf-8"))
                raw.flush()
            else:
                self.out.write(text)
                self.out.flush()


_ALL_OPS = {op for ops in FEATURE_OPS.values() for op in ops}


def serve(testee: Testee, stdin=None, stdout=None) -> None:
    """Answers the suite's requests until stdin ends. Anything the library prints goes to
    stderr (stdout is the protocol's)."""
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    if stdout is None:
        sys.stdout = sys.stderr  # stray prints must not break the protocol
    _Server(testee, out).serve(stdin)
