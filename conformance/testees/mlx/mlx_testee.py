"""MLX as a tensor-cts testee (conformance/protocol/PROTOCOL.md): Apple's array framework, its CPU
backend on Linux (the mlx-cpu wheel), judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=mlx

MLX's arrays are lazy values on a device with no strides, storage or memory formats in the
Python API (https://ml-explore.github.io/mlx/build/html/python/array.html: shape, dtype, size,
itemsize; no strides attribute). The testee declares strides unsupported (`not_supported`), answers
meta with "strides": [] and "storage_offset": 0 (PROTOCOL.md "Strides"), leaves unimplemented
every operation MLX has no function for, and translates the rest into the mlx.core call a user
writes:

  dtypes            mlx.core's dtype objects by the spec's names (mx.bool_ for bool); MLX has no
                    complex128 and no complex32 (missing_dtypes) and no dtype parser from a name
                    (dtype_from_name: not implemented). dtype_info: Dtype.size, mx.issubdtype
                    (mx.floating, mx.complexfloating), is_signed from mx.iinfo / mx.finfo's min.
                    finfo: mx.finfo (bits, eps, max, min, smallest_normal as tiny).
  promotion         MLX has no promote_types: mx.result_type(dtype, dtype), its promotion of two
                    dtypes. result_type: mx.result_type(a, b), Python scalars as given (MLX
                    refuses them: ValueError "Inputs must be arrays or dtypes").
  can_cast          mx.can_cast(from, to).
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to
                    the dtype (ml_dtypes' bfloat16 for bfloat16), mx.array takes the host array
                    (bfloat16 as its 16-bit pattern, viewed by mx.array.view). Values are read back
                    as NumPy arrays (MLX's buffer protocol; bfloat16 through its bit pattern).
  arithmetic        mx.add / mx.subtract / mx.multiply / mx.divide; in place: a += b etc.
                    (mx.array.__iadd__ ...); no alpha (NotSupported for an alpha other than the
                    integer 1), no out=.
  views             array.T (t), mx.swapaxes (transpose), mx.transpose(axes) (permute), basic
                    indexing (narrow, slice, select), mx.broadcast_to (expand), mx.expand_dims,
                    mx.squeeze, mx.reshape. mx.view reinterprets a dtype, not a shape: torch's view
                    is not translated. mx.as_strided is not translated: it reads the buffer
                    without a bounds check ("can result into crashes", its documentation), so a
                    case asking for a refused view would read unowned memory.
  format copies     contiguous: mx.contiguous (contiguous_format only: it takes no format);
                    clone: mx.array(x) (a copy); empty_like: mx.zeros_like (MLX has no
                    uninitialised memory); for contiguous_format and preserve_format only (MLX has
                    no memory formats).
  devices           'cpu' is mx.cpu; MLX's functions take a device as stream= (empty_on: mx.zeros,
                    which mx.empty is). There is no GPU backend in the CPU wheel.
  asarray           mx.asarray(obj, dtype=, copy=): host arrays as NumPy arrays over the suite's
                    memory, NumPy scalars, memoryviews, Python values, DLPack capsules as given
                    (its nanobind ndarray reads a capsule). mx.asarray takes no device:
                    NotSupported for a device.
  DLPack            x.__dlpack__() and mx.from_dlpack(the kit's DLPackProducer).

Not implemented, because MLX has no such API: dtype_from_name, default_dtype, legacy_constructor,
devices as objects from strings, storage, data_ptr, sparse layouts, autograd's requires_grad_ and
binary_out. MLX's default device (mx.default_device, mx.set_default_device, mx.stream) is not
translated yet.
"""

import operator
import os
import sys

if sys.argv[1:]:
    sys.exit(f"mlx_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import ml_dtypes  # noqa: E402
import mlx.core as mx  # noqa: E402
import numpy as np  # noqa: E402

import tcts_testee  # noqa: E402

# MLX's dtypes by the spec's names: the namespace's own names, bool as mx.bool_.
DTYPES = {name: getattr(mx, "bool_" if name == "bool" else name)
          for name in ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
                       "bfloat16", "float32", "float64", "complex64")}
NAMES = {d: name for name, d in DTYPES.items()}
# NumPy's host dtype for each (ml_dtypes' bfloat16: NumPy has none).
HOST = {name: (ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)) for name in DTYPES}
UFUNC = {"add": mx.add, "sub": mx.subtract, "mul": mx.multiply, "div": mx.divide}
INPLACE = {"add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "div": operator.itruediv}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}


def xdtype(name):
    if name not in DTYPES:
        raise tcts_testee.NotSupported(f"MLX {mx.__version__} has no dtype {name!r}")
    return DTYPES[name]


def name_of(d):
    return NAMES[d]


def translated(op):
    if op not in UFUNC:
        raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to mlx.core")
    return UFUNC[op]


def device_of(name):
    if name != "cpu":
        raise tcts_testee.NotSupported(f"this MLX (the CPU wheel) has no device {name!r}")
    return mx.cpu


def layout_free(memory_format):
    if memory_format not in LAYOUT_FREE:
        raise tcts_testee.NotSupported(f"MLX has no memory format {memory_format!r}: its arrays have one layout")


class MlxTestee(tcts_testee.Testee):
    name = "mlx (CPU)"
    version = mx.__version__
    build = f"Python {sys.version.split()[0]}, MLX {mx.__version__} (mlx-cpu), NumPy {np.__version__}"
    missing_dtypes = {"complex128", "complex32"}
    not_supported = {"strides"}

    # -- dtypes
    def dtype_info(self, dtype):
        d = xdtype(dtype)
        if mx.issubdtype(d, mx.integer):
            signed = mx.iinfo(d).min < 0
        elif mx.issubdtype(d, mx.inexact):
            signed = mx.finfo(d).min < 0
        else:  # bool
            signed = False
        return {"itemsize": d.size, "is_floating_point": bool(mx.issubdtype(d, mx.floating)),
                "is_complex": bool(mx.issubdtype(d, mx.complexfloating)), "is_signed": bool(signed)}

    def finfo(self, dtype):
        f = mx.finfo(xdtype(dtype))
        return {"bits": f.bits, "eps": float(f.eps), "max": float(f.max), "min": float(f.min),
                "tiny": float(f.smallest_normal)}

    # -- promotion and casting
    def promote_types(self, a, b):
        return name_of(mx.result_type(xdtype(a), xdtype(b)))

    def result_type(self, a, b):
        return name_of(mx.result_type(a, b))  # Python scalars as given: MLX's own ValueError for them

    def can_cast(self, from_, to):
        return bool(mx.can_cast(xdtype(from_), xdtype(to)))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = xdtype(dtype)
        host = tcts_testee.host_values(np, values, HOST[dtype]).reshape(sizes)
        if dtype == "bfloat16":
            return mx.array(host.view(np.uint16)).view(d)
        return mx.array(host, dtype=d)

    def meta(self, t):
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": [], "storage_offset": 0,
                "device": "cpu"}

    def values(self, t):
        if t.dtype == mx.bfloat16:
            host = np.array(t.view(mx.uint16)).view(ml_dtypes.bfloat16).astype(np.float32)
        else:
            host = np.array(t)
        return host.ravel().tolist()

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"mlx.core's {translated(op).__name__} has no alpha (asked for "
                                           f"alpha={alpha!r})")
        return translated(op)(a, b)

    def binary_inplace(self, op, target, other, alpha):
        """target op= other: mx.array.__iadd__ etc."""
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"mlx.core's in-place {op} has no alpha (asked for alpha={alpha!r})")
        if op not in INPLACE:
            raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to mlx.core")
        INPLACE[op](target, other)

    # -- views (new arrays in MLX's API)
    def t(self, t):
        return t.T

    def transpose(self, t, dim0, dim1):
        return mx.swapaxes(t, dim0, dim1)

    def permute(self, t, dims):
        return mx.transpose(t, list(dims))

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return mx.broadcast_to(t, list(sizes))

    def unsqueeze(self, t, dim):
        return mx.expand_dims(t, dim)

    def squeeze(self, t, dim):
        return mx.squeeze(t) if dim is None else mx.squeeze(t, axis=dim)

    def reshape(self, t, sizes):
        return mx.reshape(t, list(sizes))

    # -- format copies
    def contiguous(self, t, memory_format):
        if memory_format != "contiguous_format":  # it takes no format: it makes the one layout there is
            raise tcts_testee.NotSupported(f"mx.contiguous takes no memory format (asked for {memory_format!r})")
        return mx.contiguous(t)

    def clone(self, t, memory_format):
        layout_free(memory_format)
        return mx.array(t)

    def empty_like(self, t, memory_format):
        layout_free(memory_format)
        return mx.zeros_like(t)

    # -- devices
    def empty_on(self, sizes, dtype, device):
        d = xdtype(dtype)
        if device is None:
            return mx.zeros(list(sizes), dtype=d)
        return mx.zeros(list(sizes), dtype=d, stream=device_of(device))

    # -- asarray
    def asarray(self, source, dtype=None, device=None, copy=None):
        if device is not None:
            raise tcts_testee.NotSupported("mx.asarray takes no device")
        if isinstance(source, tcts_testee.HostArray):
            source = source.to_numpy(np)  # an ndarray, or a NumPy scalar
        kw = {"copy": copy}
        if dtype is not None:
            kw["dtype"] = xdtype(dtype)
        return mx.asarray(source, **kw)

    # -- DLPack
    def to_dlpack(self, t):
        return t.__dlpack__()

    def from_dlpack(self, capsule):
        return mx.from_dlpack(tcts_testee.DLPackProducer(capsule))


if __name__ == "__main__":
    tcts_testee.serve(MlxTestee())
