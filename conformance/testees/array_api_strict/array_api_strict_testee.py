"""array-api-strict as a tensor-cts testee (conformance/protocol/PROTOCOL.md): the Array API
standard's reference implementation, judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=array_api_strict

array_api_strict implements exactly the standard (https://data-apis.org/array-api/latest/) and
refuses what the standard leaves out: no strides or storage, no float16 / bfloat16, no
in-place or out= arithmetic with promotion, no Python float with an integer array. The testee
declares strides unsupported (`not_supported`; meta answers "strides": [] and
"storage_offset": 0, PROTOCOL.md "Strides"), leaves unimplemented every operation the standard
has no function for, and translates the rest into the call a user of the standard writes:

  dtypes            the namespace's dtype objects by their standard names (xp.float32, ...);
                    float16, bfloat16 and complex32 are not in the standard: missing_dtypes.
                    finfo: xp.finfo (bits, eps, max, min, smallest_normal as tiny). The standard
                    has no dtype parser (dtype_from_name) and no itemsize (dtype_info).
  promotion         promote_types: xp.result_type(dtype, dtype); result_type: xp.result_type(a, b)
                    with arrays and Python scalars as given (the standard's "mixing arrays with
                    Python scalars").
  can_cast          xp.can_cast(from, to).
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to
                    the dtype; xp.asarray takes them as Python numbers of that dtype. Values are
                    read back through DLPack (np.from_dlpack: the standard's interchange).
  arithmetic        xp.add / xp.subtract / xp.multiply / xp.divide; no alpha (NotSupported for an
                    alpha other than the integer 1).
  views             x.T (t, the standard's 2-d transpose), xp.permute_dims, basic indexing
                    (narrow, slice, select), xp.broadcast_to (expand), xp.expand_dims,
                    xp.squeeze(axis=), xp.reshape. No transpose(d0, d1) (the standard has
                    permute_dims only), no view, no as_strided.
  format copies     clone: xp.asarray(x, copy=True); xp.empty_like; for contiguous_format and
                    preserve_format only (the standard has no memory formats).
  devices           'cpu' is array_api_strict's CPU_DEVICE; empty_on: xp.empty(device=).
  asarray           xp.asarray(obj, dtype=, device=, copy=): host arrays as NumPy arrays over the
                    suite's memory (buffer protocol), NumPy scalars, memoryviews, Python values.
  DLPack            x.__dlpack__() and xp.from_dlpack(the kit's DLPackProducer).
"""

import os
import sys

if sys.argv[1:]:
    sys.exit(f"array_api_strict_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import array_api_strict as xp  # noqa: E402
import numpy as np  # noqa: E402

import tcts_testee  # noqa: E402

# The standard's dtypes by name; the spec's others are not in it.
DTYPES = {name: getattr(xp, name) for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                               "uint64", "float32", "float64", "complex64", "complex128")}
NAMES = {d: name for name, d in DTYPES.items()}
UFUNC = {"add": xp.add, "sub": xp.subtract, "mul": xp.multiply, "div": xp.divide}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}
CPU = xp.Device("CPU_DEVICE")


def xdtype(name):
    if name not in DTYPES:
        raise tcts_testee.NotSupported(f"the Array API standard has no dtype {name!r}")
    return DTYPES[name]


def name_of(d):
    return NAMES[d]


def translated(op):
    if op not in UFUNC:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to the Array API")
    return UFUNC[op]


def device_of(name):
    if name != "cpu":
        raise tcts_testee.NotSupported(f"array_api_strict has no device {name!r} (its CPU device is 'cpu' here)")
    return CPU


def layout_free(memory_format):
    if memory_format not in LAYOUT_FREE:
        raise tcts_testee.NotSupported(f"the Array API standard has no memory format {memory_format!r}")


class ArrayApiStrictTestee(tcts_testee.Testee):
    name = f"array_api_strict (Array API {xp.__array_api_version__})"
    version = xp.__version__
    build = (f"Python {sys.version.split()[0]}, array_api_strict {xp.__version__} (standard "
             f"{xp.__array_api_version__}) over NumPy {np.__version__}")
    missing_dtypes = {"float16", "bfloat16", "complex32"}
    not_supported = {"strides"}

    # -- dtypes
    def finfo(self, dtype):
        f = xp.finfo(xdtype(dtype))
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min),
                "tiny": float(f.smallest_normal)}

    # -- promotion and casting
    def promote_types(self, a, b):
        return name_of(xp.result_type(xdtype(a), xdtype(b)))

    def result_type(self, a, b):
        return name_of(xp.result_type(a, b))

    def can_cast(self, from_, to):
        return bool(xp.can_cast(xdtype(from_), xdtype(to)))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = xdtype(dtype)
        host = tcts_testee.host_values(np, values, np.dtype(dtype))
        return xp.reshape(xp.asarray(host.tolist(), dtype=d), tuple(sizes))

    def meta(self, t):
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": [], "storage_offset": 0,
                "device": "cpu" if t.device == CPU else str(t.device)}

    def values(self, t):
        return np.from_dlpack(t).ravel().tolist()

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"the Array API's {translated(op).__name__} has no alpha (asked for "
                                           f"alpha={alpha!r})")
        return translated(op)(a, b)

    # -- views
    def t(self, t):
        return t.T

    def permute(self, t, dims):
        return xp.permute_dims(t, tuple(dims))

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return xp.broadcast_to(t, tuple(sizes))

    def unsqueeze(self, t, dim):
        return xp.expand_dims(t, axis=dim)

    def squeeze(self, t, dim):
        if dim is None:
            raise tcts_testee.NotSupported("the Array API's squeeze needs an axis")
        return xp.squeeze(t, axis=dim)

    def reshape(self, t, sizes):
        return xp.reshape(t, tuple(sizes))

    # -- format copies
    def clone(self, t, memory_format):
        layout_free(memory_format)
        return xp.asarray(t, copy=True)

    def empty_like(self, t, memory_format):
        layout_free(memory_format)
        return xp.empty_like(t)

    # -- devices
    def empty_on(self, sizes, dtype, device):
        d = xdtype(dtype)
        if device is None:
            return xp.empty(tuple(sizes), dtype=d)
        return xp.empty(tuple(sizes), dtype=d, device=device_of(device))

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if type(source).__name__ == "PyCapsule":
            raise tcts_testee.NotSupported("the Array API's asarray does not read DLPack capsules (from_dlpack does)")
        if isinstance(source, tcts_testee.HostArray):
            source = source.to_numpy(np)  # an ndarray, or a NumPy scalar
        kw = {"copy": copy}
        if dtype is not None:
            kw["dtype"] = xdtype(dtype)
        if device is not None:
            kw["device"] = device_of(device)
        return xp.asarray(source, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return t.__dlpack__()

    def from_dlpack(self, capsule):
        return xp.from_dlpack(tcts_testee.DLPackProducer(capsule))


if __name__ == "__main__":
    tcts_testee.serve(ArrayApiStrictTestee())
