"""The Python testee kit: validate a Python tensor library with tensor-cts, without forking it.

A testee is a small program in the library's own repository. It subclasses Testee, implements
the operations its library has, and calls serve():

    import tcts_testee

    class MyTestee(tcts_testee.Testee):
        name, version = "mylib", mylib.__version__
        dtypes = ["bool", "int32", "float32"]     # the dtypes mylib has (default: all)

        def promote_types(self, a, b):          # dtype names in, a dtype name out
            return NAMES[mylib.promote_types(DTYPES[a], DTYPES[b])]
        ...

    if __name__ == "__main__":
        tcts_testee.serve(MyTestee())

The suite starts it (`bazel run //conformance:run -- --testee='python3 my_testee.py'
--expectations=my_expectations.txt` in a checkout, `tensor-cts-suite/tcts --testee=...` from the
suite bundle: "The suite in your own CI" in docs/library-authors.md, in the tensor-cts repository)
and sends one request per line on stdin; the kit answers
each on stdout (conformance/protocol/PROTOCOL.md). Stdlib only: copy this file, or let the
runner put it on PYTHONPATH (it does).

What the kit does for you:
  * the protocol loop, the handshake and the handle table: methods take and return the
    library's own tensor objects; the kit names them for the suite and forgets them when the
    suite releases them;
  * the interface: the suite sends its description (spec/interface.json, built in the tensor-cts repository: every operation with
    its feature, typed arguments and result; the records; the error kinds) in `hello`, and the
    kit dispatches, decodes the arguments and encodes the results from it. Nothing here names
    an operation: a method of your subclass named as an operation implements it (an operation
    it lacks answers NotSupported). Arguments arrive by keyword, named as the interface names
    them (`def make_tensor(self, sizes, dtype, values)`): a parameter named otherwise does not
    receive its argument, and the call answers NotSupported, naming it. Python's binding renames
    three arguments: `self` arrives as `target`, `from` as `from_`, `binary_op` as `op`; a
    DLPack source as `capsule`. The binary
    ops (a `binary_op` value: "add", ...) and their Python operator symbols ("+") come with it:
    `self.iface.binary_ops` maps each name to its symbol; a method answers NotSupported for an
    op it does not translate;
  * value encoding: dtypes by canonical name ("float32"), scalars as Python bool/int/float/
    complex (exact, NaN and infinities included), operands as a tensor object or a Python
    number, devices as strings, device arguments as DeviceArg, records as dicts (return a dict,
    or an object with those attributes). Protocol version 2 when the suite offers it (integers
    past +-(2^53 - 1) as decimal strings, floats as shortest round-trip decimals), else 1;
    version 3 (those values, and each new tensor's answer carries its facts: what your meta
    and storage methods answer for it, called right after the method that made it) first;
  * host memory: an asarray source (an array, a NumPy-like scalar, a buffer, a DLPack capsule)
    arrives as an object over real memory of this process (HostArray, a writable memoryview,
    a PyCapsule built with ctypes) that the suite's writes reach, and addresses inside it are
    reported relative to it; a DLPack capsule the library exports is mirrored to the suite;
  * declarations: a feature is declared supported exactly when every operation of it (the
    interface's) is implemented. Features that are a property of an answer rather than an
    operation (the interface's answer_features: sparse_layout, device_forms, device_repr,
    cuda_tensors) are declared by listing them in `also_supports`; `strides` (the interface's
    declared_by_default) is declared unless listed in `not_supported`, which withdraws any: a
    library whose arrays have no strides or storage offset lists it there, and its meta
    answers "strides": [] and "storage_offset": 0 (PROTOCOL.md "Strides"). The dtypes the library has are `dtypes` (default: all the suite names), less
    `missing_dtypes`;
  * helpers for a library that takes Python's indexing or NumPy's objects: index_at(dim, key)
    and narrow_slice(start, length) (torch's dim-wise views as a Python index),
    HostArray.to_numpy(np) (the NumPy array over an asarray source's memory), DLPackProducer
    (what a from_dlpack taking no bare capsule takes);
  * errors: raise the library's own exception; classify() maps it onto the protocol's error
    kinds (a Python exception class named as a kind: IndexError, TypeError, ValueError,
    NotImplementedError, RuntimeError; anything else is Internal). Raise NotSupported for a
    call the library has no equivalent of, TesteeError(kind, message) for an explicit kind.

A library's semantics are its own: translate only. Never compute an answer the library did not
give.
"""

from __future__ import annotations

import builtins
import ctypes
import json
import operator
import re
import sys
import traceback
import weakref

# The newest protocol version this kit speaks; it answers the newest version the suite offers
# up to this one. (A test may set a version the kit does not speak: it is claimed as is, and
# the suite refuses it.)
PROTOCOL = 3
_SPOKEN = (2, 3)  # version 1 (hex floats) was retired on 2026-12-05 (spec/interface.toml)
_SAFE = 2 ** 53 - 1  # integers beyond it travel as decimal strings

# The protocol's JSON, with no set-up per call (json.dumps with separators builds an encoder each time).
# Where a lent region's bytes start: a multiple of this (see _Server.lend).
_REGION_ALIGNMENT = 256

_encode_json = json.JSONEncoder(separators=(",", ":")).encode
_decode_json = json.JSONDecoder().decode

# The Python binding: arguments whose names are Python keywords (or clash), renamed.
RENAMES = {"self": "target", "from": "from_", "binary_op": "op"}


class NotSupported(Exception):
    """The library has no equivalent of this call."""


class TesteeError(Exception):
    """An error of an explicit protocol kind (one of the interface's error kinds; another kind
    is answered as Internal, naming it)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class ProtocolError(Exception):
    """A request this kit cannot read: names the field."""


class _AnswerError(Exception):
    """A method's result the protocol cannot carry: answered as Internal."""


# ---------------------------------------------------------------- host memory
class HostArray:
    """An array-interface source: `dtype` elements at memory[offset + sum(i[k] * byte_strides[k])].
    `memory` is a writable memoryview (format 'B') over memory the suite's writes reach;
    build the library's array over it (e.g. numpy.ndarray(shape, dtype, buffer=memory,
    offset=offset, strides=byte_strides)). `scalar` is True for a NumPy-like scalar (shape ())."""

    def __init__(self, memory, offset, dtype, shape, byte_strides, scalar):
        self.memory, self.offset, self.dtype = memory, offset, dtype
        self.shape, self.byte_strides, self.scalar = tuple(shape), tuple(byte_strides), scalar

    def to_numpy(self, np, dtype=None):
        """The NumPy object over this memory, for a library that takes NumPy's: an ndarray with
        these strides, or a NumPy scalar when `scalar`. `np` is the numpy module; `dtype` NumPy's
        dtype for self.dtype (default np.dtype(self.dtype); NotSupported where NumPy has none)."""
        if dtype is None:
            try:
                dtype = np.dtype(self.dtype)
            except TypeError:
                raise NotSupported(f"NumPy has no {self.dtype} array over the suite's memory") from None
        array = np.ndarray(self.shape, dtype=dtype, buffer=self.memory, offset=self.offset, strides=self.byte_strides)
        return array[()] if self.scalar else array


def host_values(np, values, dtype):
    """make_tensor's values (Python bools, ints, floats, complexes) as a flat NumPy array of
    `dtype` (a NumPy dtype, or ml_dtypes' bfloat16): each value made at its widest kind (bool,
    int64, float64, complex128) and cast to `dtype` by NumPy, for a library that takes its values
    from NumPy. `np` is the numpy module."""
    widest = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
    host = np.empty(len(values), dtype=dtype)
    for k, v in enumerate(values):
        host[k] = np.array(v, dtype=widest[type(v)]).astype(dtype)
    return host


def index_at(dim, key):
    """The Python index that applies `key` (a tuple: a slice, an integer) at axis `dim` of an
    array and keeps the others, by Python's indexing alone: the axes after it by an Ellipsis (the
    Array API: a multi-axis index names every axis or has one), a negative dim counting from the
    end through the Ellipsis. x[index_at(dim, (slice(a, b),))] is torch's x.slice(dim, a, b)."""
    if dim >= 0:
        return (slice(None),) * dim + key + (Ellipsis,)
    return (Ellipsis,) + key + (slice(None),) * (-dim - 1)


def narrow_slice(start, length):
    """torch.narrow's `length` elements from `start` as a Python slice: a negative start counts
    from the end, where an end of 0 would be the first element, so the end is None there."""
    end = start + length
    return slice(start, None if start < 0 and end == 0 else end)


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
_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]


class DLPackProducer:
    """What a library's from_dlpack(x) takes (the DLPack Python specification): x.__dlpack__()
    hands over the suite's capsule, x.__dlpack_device__() says the device its DLTensor names.
    For a library whose from_dlpack takes no bare capsule (JAX, NumPy 2, the Array API)."""

    def __init__(self, capsule):
        self.capsule = capsule
        managed = _DLTensor.from_address(_PyCapsule_GetPointer(capsule, _PyCapsule_GetName(capsule)))
        self.device = (managed.device.device_type, managed.device.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def _unconsumed(capsule) -> bool:
    """Whether a DLPack capsule the kit made is still unconsumed: named "dltensor". A consumer
    renames the capsule it took ("used_dltensor": the DLPack convention; torch 1.13's
    tensor_fromDLPack renames it once at::fromDLPack has taken the managed tensor, whose
    deleter it calls when that tensor goes). Any other name counts as consumed."""
    try:
        return _PyCapsule_GetName(capsule) == _CAPSULE_NAME
    except Exception:  # noqa: BLE001: not a capsule any more: never free what it described
        return False


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
_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
_DECIMAL = re.compile(r"[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)\Z", re.IGNORECASE)
_INT_TYPES = ("int", "int32", "uint8", "uint16", "uint64", "uintptr")
_TEXT_TYPES = ("dtype", "string", "layout", "memory_format", "binary_op")


def encode_int(n, protocol=PROTOCOL):
    """An integer as the protocol writes it (versions 2 and 3 alike): a JSON number, or its
    decimal string when its magnitude exceeds 2^53 - 1."""
    n = operator.index(n)
    return str(n) if abs(n) > _SAFE else n


def decode_int(v, field="int"):
    """A JSON integer or a decimal string (any size: readers accept both forms) -> int."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and _INT_TEXT.match(v):
        return int(v)
    raise ProtocolError(f"{field}: expected an integer (a JSON number or a decimal string), got {v!r}")


def float_text(f, protocol=PROTOCOL):
    """A double's text (versions 2 and 3 alike): the shortest round-trip decimal ("1.5", "-0.0",
    "1e+16", "5e-324", "inf"); NaN is "nan"."""
    f = float(f)
    if f != f:
        return "nan"
    return repr(f)


def parse_float_text(text, field="float"):
    """A float text -> the double: hex when it contains "0x" (version 1's form, which readers
    still accept), decimal otherwise (float.fromhex would read "1.5" as hex 1.3125)."""
    if isinstance(text, str):
        try:
            if "0x" in text.lower():
                return float.fromhex(text)
            if _DECIMAL.match(text):
                return float(text)
        except ValueError:
            pass
    raise ProtocolError(f"{field}: expected a float text (\"1.5\", \"0x1.8p+0\", \"inf\", \"nan\"), got {text!r}")


def encode_float(f, protocol=PROTOCOL):
    return {"float": float_text(f, protocol)}


def decode_float(v, field="float"):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, dict) and "float" in v:
        return parse_float_text(v["float"], field)
    raise ProtocolError(f"{field}: expected a float ({{\"float\": text}}), got {v!r}")


def encode_scalar(v, protocol=PROTOCOL):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return encode_int(v, protocol)
    if isinstance(v, float):
        return encode_float(v, protocol)
    if isinstance(v, complex):
        return {"complex": [float_text(v.real, protocol), float_text(v.imag, protocol)]}
    if hasattr(v, "item"):  # a library's own scalar type (numpy.float32(...)): its Python value
        return encode_scalar(v.item(), protocol)
    raise TypeError(f"not a scalar: {v!r} ({type(v).__name__})")


def decode_scalar(v, field="scalar"):
    """bool -> bool; an integer (a JSON number or a decimal string) -> int; a float -> float;
    a complex -> complex."""
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        return decode_int(v, field)
    if isinstance(v, dict) and "float" in v:
        return decode_float(v, field)
    if isinstance(v, dict) and isinstance(v.get("complex"), list) and len(v["complex"]) == 2:
        return complex(parse_float_text(v["complex"][0], field), parse_float_text(v["complex"][1], field))
    raise ProtocolError(f"{field}: expected a scalar, got {v!r}")


def decode_python_value(v, field="value"):
    """An asarray sequence: a scalar or a (nested) list of them."""
    if isinstance(v, list):
        return [decode_python_value(x, field) for x in v]
    return decode_scalar(v, field)


def encode_python_value(v, protocol=PROTOCOL):
    if isinstance(v, (list, tuple)):
        return [encode_python_value(x, protocol) for x in v]
    return encode_scalar(v, protocol)


class DeviceArg:
    """The arguments of one torch.device(...) call: form "string" (text: "cuda:1"),
    "type_index" (text: "cuda", index: 1) or "ordinal" (index: 1)."""

    def __init__(self, form, text, index):
        self.form, self.text, self.index = form, text, index

    def __repr__(self):
        return f"DeviceArg({self.form!r}, {self.text!r}, {self.index!r})"

    def __eq__(self, other):
        return isinstance(other, DeviceArg) and (self.form, self.text, self.index) == (other.form, other.text, other.index)


def _device_arg(v, field):
    if not isinstance(v, dict) or v.get("form") not in ("string", "type_index", "ordinal"):
        raise ProtocolError(f"{field}: expected a device argument {{\"form\", \"text\", \"index\"}}, got {v!r}")
    text = v.get("text", "")
    if not isinstance(text, str):
        raise ProtocolError(f"{field}.text: expected a string, got {text!r}")
    return DeviceArg(v["form"], text, decode_int(v.get("index", 0), f"{field}.index"))


def _device_arg_json(a, protocol):
    out = {"form": a.form}
    if a.form in ("string", "type_index"):
        out["text"] = a.text
    if a.form in ("type_index", "ordinal"):
        out["index"] = encode_int(a.index, protocol)
    return out


class Interface:
    """The interface description the suite sends in `hello` (spec/interface.json)."""

    def __init__(self, doc):
        def need(cond, what):
            if not cond:
                raise ProtocolError(f"interface: {what}")
        need(isinstance(doc, dict), f"expected an object, got {type(doc).__name__}")
        for key in ("errors", "features", "answer_features", "records", "ops"):
            need(key in doc, f"missing {key!r}")
        need(isinstance(doc["records"], dict), "records: expected an object")
        need(isinstance(doc["ops"], list), "ops: expected a list")
        for key in ("errors", "features", "answer_features"):
            need(isinstance(doc[key], list) and all(isinstance(x, str) for x in doc[key]),
                 f"{key}: expected a list of names")
        self.errors = list(doc["errors"])
        self.features = list(doc["features"])
        self.answer_features = set(doc["answer_features"])
        # Answer features a testee has unless not_supported withdraws them (strides); absent in
        # a description older than them.
        self.declared_by_default = set(doc.get("declared_by_default", []))
        self.records = {}
        for name, fields in doc["records"].items():
            need(isinstance(fields, list) and all(isinstance(f, dict) and isinstance(f.get("name"), str) and
                                                  isinstance(f.get("type"), str) for f in fields),
                 f"record {name!r}: expected a list of {{\"name\", \"type\"}}")
            self.records[name] = fields
        self.ops = {}
        for k, o in enumerate(doc["ops"]):
            need(isinstance(o, dict) and isinstance(o.get("name"), str) and isinstance(o.get("feature"), str) and
                 isinstance(o.get("result"), str) and isinstance(o.get("args"), list) and
                 all(isinstance(a, dict) and isinstance(a.get("name"), str) and isinstance(a.get("type"), str)
                     for a in o["args"]), f"ops[{k}]: expected {{\"name\", \"feature\", \"args\", \"result\"}}")
            self.ops[o["name"]] = o
        # Version 3: the ops whose answer for a new tensor goes with the answer that made it.
        self.fact_ops = [o["name"] for o in self.ops.values() if o.get("fact") is True]
        self.feature_ops = {f: [] for f in self.features}
        for o in self.ops.values():
            need(o["feature"] in self.feature_ops, f"op {o['name']!r}: feature {o['feature']!r} is not in features")
            self.feature_ops[o["feature"]].append(o["name"])
        # The binary ops, name -> symbol (spec/promotion.toml [[op]]); None from a suite that sends none.
        self.binary_ops = None
        if "binary_ops" in doc:
            ops = doc["binary_ops"]
            need(isinstance(ops, list) and all(isinstance(o, dict) and isinstance(o.get("name"), str) and
                                               isinstance(o.get("symbol"), str) for o in ops),
                 "binary_ops: expected a list of {\"name\", \"symbol\"}")
            self.binary_ops = {o["name"]: o["symbol"] for o in ops}
            need(len(self.binary_ops) == len(ops), "binary_ops: a name is listed twice")

    def decode(self, t, v, field):
        """Wire value `v` of stateless wire type `t` -> the Python value."""
        if t.endswith("?"):
            return None if v is None else self.decode(t[:-1], v, field)
        if t in _INT_TYPES or t == "address":
            return decode_int(v, field)
        if t == "float":
            return decode_float(v, field)
        if t == "bool":
            if not isinstance(v, bool):
                raise ProtocolError(f"{field}: expected true or false, got {v!r}")
            return v
        if t in _TEXT_TYPES:
            if not isinstance(v, str):
                raise ProtocolError(f"{field}: expected a string, got {v!r}")
            if t == "binary_op" and self.binary_ops is not None and v not in self.binary_ops:
                raise ProtocolError(f"{field}: {v!r} is not a binary op of the interface ({', '.join(self.binary_ops)})")
            return v
        if t == "ints":
            if not isinstance(v, list):
                raise ProtocolError(f"{field}: expected a list of integers, got {v!r}")
            return [decode_int(x, f"{field}[{i}]") for i, x in enumerate(v)]
        if t == "scalar":
            return decode_scalar(v, field)
        if t == "scalars":
            if not isinstance(v, list):
                raise ProtocolError(f"{field}: expected a list of scalars, got {v!r}")
            return [decode_scalar(x, f"{field}[{i}]") for i, x in enumerate(v)]
        if t == "python_value":
            return decode_python_value(v, field)
        if t == "device_arg":
            return _device_arg(v, field)
        fields = self.records.get(t)
        if fields is None:
            raise ProtocolError(f"{field}: the kit has no decoder for type {t!r}")
        if not isinstance(v, dict):
            raise ProtocolError(f"{field}: expected an object {{{', '.join(f['name'] for f in fields)}}}, got {v!r}")
        out = {}
        for f in fields:
            name = f["name"]
            if name in v:
                out[name] = self.decode(f["type"], v[name], f"{field}.{name}")
            elif "default" in f:
                out[name] = f["default"]
            elif f["type"].endswith("?"):
                out[name] = None
            else:
                raise ProtocolError(f"{field}: missing field {name!r}")
        return out

    def encode(self, t, v, protocol, field):
        """Python value `v` of stateless wire type `t` -> its wire form under `protocol`."""
        try:
            if t.endswith("?"):
                return None if v is None else self.encode(t[:-1], v, protocol, field)
            if t in _INT_TYPES or t == "address":
                return encode_int(v, protocol)
            if t == "float":
                return encode_float(v, protocol)
            if t == "bool":
                return bool(v)
            if t in _TEXT_TYPES:
                return str(v)
            if t == "ints":
                return [encode_int(x, protocol) for x in v]
            if t == "scalar":
                return encode_scalar(v, protocol)
            if t == "scalars":
                return [encode_scalar(x, protocol) for x in v]
            if t == "python_value":
                return encode_python_value(v, protocol)
            if t == "device_arg":
                return _device_arg_json(v if isinstance(v, DeviceArg) else _device_arg(v, field), protocol)
        except (TypeError, ValueError, ProtocolError) as e:
            raise _AnswerError(f"{field}: cannot encode {v!r} as {t}: {e}") from None
        fields = self.records.get(t)
        if fields is None:
            raise _AnswerError(f"{field}: the kit has no encoder for type {t!r}")
        out = {}
        for f in fields:
            name = f["name"]
            if isinstance(v, dict):
                present, x = name in v, v.get(name)
            else:
                present, x = hasattr(v, name), getattr(v, name, None)
            if not present:
                if "default" in f:
                    out[name] = f["default"]
                    continue
                if not f["type"].endswith("?"):
                    raise _AnswerError(f"{field}: the {t} answered lacks field {name!r}")
            out[name] = self.encode(f["type"], x, protocol, f"{field}.{name}")
        return out


# ---------------------------------------------------------------- the testee
class Testee:
    """Subclass and implement what the library has: a method per operation of the interface
    (PROTOCOL.md's table), taking its arguments by name, decoded (dtype names, Python numbers,
    the library's tensor objects), and returning the library's answer."""

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
    # Protocol version 3: the fact ops (meta, storage) whose answers go with each new tensor;
    # None: every one the testee implements. A fact costs its call for every tensor made, used
    # or not (the suites ask meta of about 2 in 5 new tensors and storage of 1 in 5): a library
    # whose answer costs more than a round trip sends fewer (PROTOCOL.md "Version 3").
    facts: set | None = None
    # The run's --device (hello's "device"): a method use_device(self, device) that makes every
    # tensor the testee makes from then on on `device` ("meta", "cuda:1"), withdrawing in it
    # what the library has not there (a meta tensor's values), before the declaration is
    # sent; it raises (the library's own error) when the library cannot. None: the suite moves
    # the tensors itself through the default device (set_default_device), if declared.
    use_device = None

    def classify(self, exc: BaseException) -> str:
        """The protocol's error kind of an exception the library raised: TesteeError's kind;
        NotSupported; else the most specific Python exception class it is an instance of
        whose name is an error kind (NotImplementedError before RuntimeError; NumPy's
        AxisError, both a ValueError and an IndexError, is an IndexError); else Internal."""
        if isinstance(exc, TesteeError):
            return exc.kind
        if isinstance(exc, NotSupported):
            return "NotSupported"
        kinds = self._error_kinds if hasattr(self, "_error_kinds") else ()
        matches = [cls for cls in (getattr(builtins, k, None) for k in kinds)
                   if isinstance(cls, type) and issubclass(cls, BaseException) and isinstance(exc, cls)]
        if not matches:
            return "Internal"
        # The deepest class wins; among equally deep ones, the first in the exception's MRO.
        mro = type(exc).__mro__
        return max(matches, key=lambda cls: (len(cls.__mro__), -mro.index(cls))).__name__

    def implements(self, op: str) -> bool:
        """Whether this testee has a method for operation `op`."""
        return op not in _TESTEE_ATTRIBUTES and callable(getattr(self, op, None))

    def ops(self, interface: Interface) -> set:
        """The operations declared, one by one (hello's "ops"): those implemented, less those of
        the features in not_supported. A case is judged on its ops' declarations: a library
        with some view ops and not others has the cases of the ones it has run."""
        return {op for feature, ops in interface.feature_ops.items() if feature not in self.not_supported
                for op in ops if self.implements(op)}

    def features(self, interface: Interface) -> set:
        """The features declared: those whose every operation is declared (ops), the answer
        features listed in also_supports and those declared by default (strides); less
        not_supported."""
        declared, ops = set(), self.ops(interface)
        for feature, feature_ops in interface.feature_ops.items():
            if feature in interface.answer_features:
                if feature in self.also_supports or feature in interface.declared_by_default:
                    declared.add(feature)
            elif feature_ops and all(op in ops for op in feature_ops):
                declared.add(feature)
        return declared - set(self.not_supported)


_TESTEE_ATTRIBUTES = set(dir(Testee))  # the kit's own names are no operations


def _parameters(method):
    """The keyword names `method` takes; None when it takes any (**kwargs, or no signature)."""
    import inspect
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin without a signature: pass everything
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return None
    return frozenset(params)


def _accepted(params, op, args):
    """`args` less the null ones the method has no parameter for (`params`, from _parameters):
    an optional argument the interface gained after the testee was written (asarray's
    requires_grad, say) reaches only a method that takes it. A non-null one it cannot take is a
    call it does not support."""
    if params is None or params.issuperset(args):
        return args
    kept = {}
    for name, value in args.items():
        if name in params:
            kept[name] = value
        elif value is not None:
            raise NotSupported(f"{op}: the testee's method takes no argument {name!r} (given {value!r})")
    return kept


class _Server:
    def __init__(self, testee: Testee, out):
        self.testee, self.out = testee, out
        self.parameters: dict = {}  # op -> the keyword names its method takes (None: any)
        self.arg_specs: dict = {}  # op -> its arguments' (name, type, base type, optional)
        self.dispatch: dict = {}  # op -> (its interface entry, the testee's method or None), once per op
        self.iface: Interface | None = None
        self.protocol = PROTOCOL
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
        self.features: set = set()
        self.facts: dict | None = None  # version 3: the facts of the tensor being answered

    # -- arguments
    def tensor(self, h, field):
        if isinstance(h, str) and _INT_TEXT.match(h):
            h = int(h)
        if not isinstance(h, int) or isinstance(h, bool) or h not in self.handles:
            raise ProtocolError(f"{field}: no tensor with handle {h!r}")
        return self.handles[h]

    def operand(self, v, field):
        if isinstance(v, dict) and "tensor" in v:
            return self.tensor(v["tensor"], field)
        if isinstance(v, dict) and "scalar" in v:
            return decode_scalar(v["scalar"], field)
        raise ProtocolError(f"{field}: expected {{\"tensor\": h}} or {{\"scalar\": s}}, got {v!r}")

    def descriptor(self, src, field):
        """A DLPack source's descriptor fields (the interface's DLPackDescriptor record)."""
        if not isinstance(src, dict):
            raise ProtocolError(f"{field}: expected a DLPack source object, got {src!r}")
        return self.iface.decode("DLPackDescriptor", src, field)

    def lend(self, src, field):
        reg = src.get("region")
        if not isinstance(reg, dict) or "id" not in reg:
            raise ProtocolError(f"{field}.region: expected {{\"id\", \"bytes\"}}, got {reg!r}")
        rid = decode_int(reg["id"], f"{field}.region.id")
        data = _b64decode(reg.get("bytes", ""), f"{field}.region.bytes")
        # At a 256-byte boundary (dlpack.h: the data pointer "is always aligned to 256 bytes"): a
        # library that shares only aligned memory and copies the rest (JAX on the CPU shares
        # 64-byte-aligned data) then does the same on every run, whatever malloc gave.
        n = max(len(data), 1)
        raw = (ctypes.c_char * (n + _REGION_ALIGNMENT - 1))()
        buf = (ctypes.c_char * n).from_buffer(raw, -ctypes.addressof(raw) % _REGION_ALIGNMENT)
        ctypes.memmove(buf, data, len(data))
        self.regions[rid] = _Region(rid, ctypes.addressof(buf), len(data))
        server = self
        weakref.finalize(buf, lambda: server.forget(rid))
        self.pinned.append(buf)
        return buf, memoryview(buf).cast("B")[:len(data)]

    def forget(self, rid):
        if self.regions.pop(rid, None) is not None:
            self.released.append(rid)

    def dlpack_capsule(self, src, field):
        d = self.descriptor(src, field)
        buf, _ = self.lend(src, field)
        region = self.regions[decode_int(src["region"]["id"])]
        shape, strides = d["shape"], d["strides"]
        dt, dev = d["dtype"], d["device"]
        shape_arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        strides_arr = (ctypes.c_int64 * max(len(shape), 1))(*strides) if strides is not None else None
        managed = _DLManagedTensor()
        t = managed.dl_tensor
        t.data = None if d["null_data"] else region.address + d["data_offset"]
        t.device = _DLDevice(dev["type"], dev["id"])
        t.ndim = len(shape)
        t.dtype = _DLDataType(dt["code"], dt["bits"], dt["lanes"])
        t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64)) if strides_arr is not None else None
        t.byte_offset = d["byte_offset"]
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
        if not isinstance(src, dict):
            raise ProtocolError(f"source: expected an object {{\"kind\", ...}}, got {src!r}")
        kind = src.get("kind")
        if kind == "tensor":
            return self.tensor(src.get("tensor"), "source.tensor"), None
        if kind in ("array", "array_scalar"):
            _, mem = self.lend(src, "source")
            ints = [[decode_int(x, f"source.{k}") for x in src.get(k, [])] for k in ("shape", "byte_strides")]
            return HostArray(mem, decode_int(src.get("offset", 0), "source.offset"), src.get("dtype"), *ints,
                             kind == "array_scalar"), None
        if kind == "buffer":
            _, mem = self.lend(src, "source")
            return mem, None
        if kind == "dlpack":
            return self.dlpack_capsule(src, "source")
        if kind == "sequence":
            return decode_python_value(src.get("value"), "source.value"), None
        raise ProtocolError(f"source.kind: unknown {kind!r}")

    # -- addresses and exports
    def address(self, a):
        for r in self.regions.values():
            if r.address <= a <= r.address + r.size:
                return {"region": r.id, "offset": encode_int(a - r.address, self.protocol)}
        return encode_int(a, self.protocol)

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
        desc = {"data_offset": (t.data or 0) - first,
                "dtype": {"code": t.dtype.code, "bits": t.dtype.bits, "lanes": t.dtype.lanes},
                "device": {"type": t.device.device_type, "id": t.device.device_id},
                "shape": shape, "strides": compact, "byte_offset": t.byte_offset}
        # The descriptor's fields as the interface's DLPackDescriptor record writes them.
        types = {f["name"]: f["type"] for f in self.iface.records["DLPackDescriptor"]}
        return {"region": {"id": rid, "bytes": _b64encode(region.seen)},
                **{k: self.iface.encode(types[k], v, self.protocol, k) for k, v in desc.items()}}

    # -- one request
    def hello(self, req):
        if "interface" not in req:
            raise ProtocolError("hello: no \"interface\": this kit dispatches from the interface description the "
                                "suite sends (a suite of protocol version 2's handshake)")
        self.iface = Interface(req["interface"])
        offered = req.get("protocols")
        if not isinstance(offered, list) or not offered:
            raise ProtocolError(f"protocols: expected a list of versions, got {offered!r}")
        # Where none of the offered versions is spoken here (a suite of version 1 alone), the
        # kit's own is claimed, and the suite refuses it by name.
        if PROTOCOL in _SPOKEN:
            common = [v for v in offered if v in _SPOKEN and v <= PROTOCOL and not isinstance(v, bool)]
            self.protocol = max(common) if common else PROTOCOL
        else:  # a test's version the kit does not speak: claimed, for the suite to refuse
            self.protocol = PROTOCOL
        self.testee._error_kinds = tuple(self.iface.errors)
        device, refused = req.get("device"), None
        if device is not None and not isinstance(device, str):
            raise ProtocolError(f"device: expected a device's name or null, got {device!r}")
        if device is not None and self.testee.use_device is not None:
            try:
                self.testee.use_device(device)
            except Exception as e:  # noqa: BLE001: the library's refusal, said in the answer
                refused = f"{self.testee.classify(e)}: {e}"
        wanted = self.testee.facts
        self.fact_ops = [op for op in self.iface.fact_ops if wanted is None or op in wanted]
        self.features = self.testee.features(self.iface)
        unknown = self.features - set(req.get("features", self.iface.features))
        if unknown:
            raise ProtocolError(f"features: the suite does not know {sorted(unknown)}")
        answer = {"name": self.testee.name, "version": self.testee.version, "build": self.testee.build,
                  "protocol": self.protocol, "features": sorted(self.features),
                  "ops": sorted(self.testee.ops(self.iface))}
        # A suite that names no dtypes (before protocol dtypes) takes no declaration.
        if (self.testee.dtypes is not None or self.testee.missing_dtypes) and "dtypes" in req:
            known = set(req["dtypes"])
            declared = set(known if self.testee.dtypes is None else self.testee.dtypes)
            unknown = (declared | set(self.testee.missing_dtypes)) - known
            if unknown:
                raise ProtocolError(f"dtypes: the suite does not know {sorted(unknown)}")
            answer["dtypes"] = sorted(declared - set(self.testee.missing_dtypes))
        # Where the tensors are (PROTOCOL.md "Handshake"), for a suite that asks (hello has
        # "device"): so the suite sends nothing before its first case. Asked for a device the
        # testee cannot take itself (no use_device), it says nothing: the suite moves it.
        if refused is not None:
            answer["device_refused"] = refused
        elif "device" in req and (device is None or self.testee.use_device is not None):
            where, why = self.tensor_device(answer.get("dtypes", req.get("dtypes", ())))
            if device is not None and where is None:
                answer["device_refused"] = f"no tensor could be made there ({why})"
            else:
                answer["device"] = where
        return answer

    def tensor_device(self, dtypes):
        """(meta().device of a one-element tensor the testee makes, None) or (None, why not): it
        makes none, or the library refused (with no device asked for, the suite then takes
        "cpu", the documented initial default). The tensor is float32's, else the first declared
        dtype's."""
        make, meta = self.entry("make_tensor"), self.entry("meta")
        if make is None or meta is None or make[1] is None or meta[1] is None:
            return None, "the testee has no make_tensor and meta"
        dtype = "float32" if "float32" in dtypes or not dtypes else dtypes[0]  # none named: every one
        try:
            made = make[1](sizes=[1], dtype=dtype, values=[0])
            m = self.iface.encode(meta[0]["result"], meta[1](made), self.protocol, "meta")
        except Exception as e:  # noqa: BLE001: the library's refusal; the cases that need a tensor say it
            return None, f"make_tensor([1], {dtype}) then meta: {self.testee.classify(e)}: {e}"
        return m.get("device") or None, None

    def arguments(self, o, req):
        """The request's arguments of op `o`, decoded, by the Python binding's names; and the
        DLPack capsule made for the call with its lent region, (capsule, region id), or None."""
        args, capsule_region = {}, None
        specs = self.arg_specs.get(o["name"])
        if specs is None:  # each op's arguments as (name, type, type less "?", optional), once per op
            specs = self.arg_specs[o["name"]] = [(a["name"], a["type"], a["type"].rstrip("?"), a["type"].endswith("?"))
                                                 for a in o["args"]]
        for name, t, base, optional in specs:
            if name in req:
                v = req[name]
            elif t == "dlpack_import":  # an inline argument (spec/interface.toml): its fields are the request's own
                v = req
            elif optional:
                v = None
            else:
                raise ProtocolError(f"{o['name']}: missing argument {name!r}")
            if v is None and optional:
                value = None
            elif base == "tensor":
                value = self.tensor(v, name)
            elif base == "operand":
                value = self.operand(v, name)
            elif base == "asarray_source":
                value, rid = self.asarray_source(v)
                capsule_region = (value, rid) if rid is not None else None
            elif base == "dlpack_import":
                value, rid = self.dlpack_capsule(v, name)
                capsule_region = (value, rid)
                name = "capsule"
            else:
                value = self.iface.decode(t, v, name)
            args[RENAMES.get(name, name)] = value
        return args, capsule_region

    def result(self, o, result):
        t = o["result"]
        if t == "tensor":
            h = self.next_handle
            self.next_handle += 1
            self.handles[h] = result
            if self.protocol >= 3:
                self.facts = self.facts_of(result)
            return h
        if t == "none":
            return None
        try:
            if t == "address":
                return self.address(operator.index(result))
            if t == "dlpack_export":
                return self.export(result)
        except (TypeError, ValueError) as e:
            raise _AnswerError(f"cannot encode {result!r} as {t}: {e}") from None
        return self.iface.encode(t, result, self.protocol, o["name"])

    def facts_of(self, tensor):
        """Version 3: the answers of the interface's fact ops (meta, storage) for a new tensor,
        as the later requests would have them; an op the testee lacks, or one that raises, is
        left out (the suite asks it)."""
        facts = {}
        for op in self.fact_ops:
            o, method = self.entry(op)
            if method is None:
                continue
            try:
                facts[op] = self.result(o, method(**_accepted(self.parameters[op], op, {"t": tensor})))
            except Exception:  # noqa: BLE001: the request, asked later, answers the error
                continue
        return facts or None

    def entry(self, op):
        """(the op's interface entry, the testee's method or None); None for an unknown op.
        Looked up once per op: declarations do not change during a session (PROTOCOL.md)."""
        entry = self.dispatch.get(op) if isinstance(op, str) else None
        if entry is None:
            o = self.iface.ops.get(op) if isinstance(op, str) else None
            if o is None:
                return None
            method = getattr(self.testee, op) if self.testee.implements(op) else None
            entry = self.dispatch[op] = (o, method)
            if method is not None:
                self.parameters[op] = _parameters(method)
        return entry

    def handle(self, req):
        self.graveyard.clear()
        for h in req.get("release", ()):
            self.handles.pop(decode_int(h, "release"), None)
        for rid in req.get("release_regions", ()):
            rid = decode_int(rid, "release_regions")
            self.regions.pop(rid, None)
            self.exports.pop(rid, None)  # the capsule goes: its destructor runs the library's deleter
        for s in req.get("sync", ()):
            r = self.regions.get(decode_int(s.get("id"), "sync.id"))
            if r is not None:
                r.write(_b64decode(s.get("bytes", ""), "sync.bytes"))
        op = req.get("op")
        if op == "release":  # nothing but the release fields above
            return None
        if op == "hello":
            return self.hello(req)
        if self.iface is None:
            raise ProtocolError(f"{op!r} before hello")
        entry = self.entry(op)
        if entry is None:
            raise NotSupported(f"unknown request {op!r}")
        o, method = entry
        if method is None:
            raise NotSupported(f"the testee does not implement {op!r}")
        args, capsule_region = self.arguments(o, req)
        try:
            args = _accepted(self.parameters[op], op, args)
            result = method(**args)
        except BaseException:
            # A capsule the library did not consume is ours again: its import goes. One it
            # consumed before raising stays until the library calls its deleter (the consumed
            # tensor's last reference may be the exception's traceback): freeing it here had
            # that deleter run on freed memory (issue 36).
            if capsule_region is not None and _unconsumed(capsule_region[0]):
                self.imports.pop(capsule_region[1], None)
            raise
        return self.result(o, result)

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
            text = _encode_json(self.answer(line)) + "\n"
            if raw is not None:
                raw.write(text.encode("utf-8"))
                raw.flush()
            else:
                self.out.write(text)
                self.out.flush()

    def answer(self, line):
        """One request line -> its answer (a JSON value)."""
        rid = None
        try:
            # A request line of bytes that opens as an object is UTF-8 (json.loads would detect
            # that, and read lone surrogates as surrogatepass does): decoded here, without
            # json.loads's detection per call. Anything else goes through json.loads as before.
            if isinstance(line, bytes) and line[:2] == b'{"':
                req = _decode_json(line.decode("utf-8", "surrogatepass"))
            else:
                req = json.loads(line)
            rid = req.get("id") if isinstance(req, dict) else None
            if not isinstance(req, dict):
                raise ProtocolError("the request is not a JSON object")
            self.facts = None
            answer = {"id": rid, "ok": self.handle(req)}
            if self.facts:
                answer["facts"] = self.facts
        except ProtocolError as e:
            answer = {"id": rid, "error": {"kind": "Internal", "message": f"testee kit: bad request: {e}"}}
        except _AnswerError as e:
            answer = {"id": rid, "error": {"kind": "Internal", "message": f"testee kit: bad answer: {e}"}}
        except Exception as e:  # noqa: BLE001: every library error becomes an answer
            kind = self.testee.classify(e)
            if self.iface is not None and kind not in self.iface.errors:
                message = f"the testee answered an unknown error kind {kind!r}: {e}"
                kind = "Internal"
            else:
                message = str(e) if kind != "Internal" else f"{type(e).__name__}: {e}"
            if kind == "Internal":  # where it came from, for the run's log
                traceback.print_exc(file=sys.stderr)
            answer = {"id": rid, "error": {"kind": kind, "message": message}}
        # Objects the library released during the call (a copy of a lent buffer) are gone now.
        self.pinned.clear()
        self.extras(answer)
        return answer


def serve(testee: Testee, stdin=None, stdout=None) -> None:
    """Answers the suite's requests until stdin ends. Anything the library prints goes to
    stderr (stdout is the protocol's)."""
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    if stdout is None:
        sys.stdout = sys.stderr  # stray prints must not break the protocol
    _Server(testee, out).serve(stdin)
