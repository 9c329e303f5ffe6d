"""tinygrad as a tensor-cts testee (conformance/protocol/PROTOCOL.md): its Tensor on the CPU device,
judged against PyTorch's documented semantics.

    bazel run //conformance:run -- --candidate=tinygrad

tinygrad's Tensor is lazy: an operation builds a graph, and reading values (Tensor.numpy())
compiles and runs kernels for it (the CPU device compiles C with the machine's clang or LLVM, once
per new kernel; https://docs.tinygrad.org/tensor/). It has no strides, storage or memory formats
in its API: the testee declares strides unsupported (`not_supported`), answers meta with
"strides": [] and "storage_offset": 0 (PROTOCOL.md "Strides"), leaves unimplemented every
operation tinygrad has no function for, and translates the rest into the call a user writes:

  dtypes            tinygrad.dtypes' objects by the spec's names (dtypes.int16, dtypes.bfloat16, ...);
                    dtype_from_name: tinygrad.dtype.to_dtype (its parser, aliases included);
                    tinygrad has no complex dtypes (missing_dtypes). A tensor's dtype is answered by
                    its spec name, or by tinygrad's own name where it is none of the spec's
                    (dtypes.weakfloat, dtypes.weakint: the dtype of a result with a Python number).
  promotion         tinygrad.dtype.least_upper_dtype(a, b), tinygrad's promotion of two dtypes
                    (promote_types); tinygrad has no result_type and no can_cast.
  tensors           make_tensor: NumPy builds the values at their widest kind and casts them to the
                    dtype, Tensor(host, dtype=) copies them (bfloat16: ml_dtypes' bit pattern as
                    uint16, Tensor.bitcast). Values: Tensor.numpy() (bfloat16 as float32, its own).
  arithmetic        a + b, a - b, a * b, a / b (Tensor's operators: a Python number on either side
                    as given); two Python numbers have no tinygrad call: NotSupported. In place:
                    a += b etc. (Tensor.__iadd__: Tensor.assign). No alpha (NotSupported for an
                    alpha other than the integer 1), no out=.
  views             Tensor.T (t), transpose, permute, basic indexing (narrow, slice, select),
                    expand, unsqueeze, squeeze, reshape. No as_strided, no view.
  format copies     contiguous: Tensor.contiguous() (contiguous_format only); clone:
                    Tensor.clone(); empty_like: Tensor.empty_like(); for
                    contiguous_format and preserve_format only.
  devices           'cpu' is tinygrad's CPU device; empty_on: Tensor.empty(..., device='CPU').

Not implemented, because tinygrad has no such API: dtype_info (DType has itemsize and min, but
nothing says a dtype is complex: tinygrad has none), finfo,
result_type, can_cast, default_dtype, legacy_constructor, devices as objects, default_device,
storage, data_ptr, sparse layouts, asarray (tinygrad's Tensor(data) constructor copies, it is
torch.tensor's counterpart), DLPack, autograd's requires_grad_ and binary_out.
"""

import importlib.metadata
import operator
import os
import sys

if sys.argv[1:]:
    sys.exit(f"tinygrad_testee.py: unknown argument {sys.argv[1]!r} (it takes none)")

# tinygrad's default device is the first it can open (tinygrad/device.py: METAL, AMD, NV, CUDA, ...,
# CPU); DEV, its own switch, pins the CPU device so a machine with a GPU driver runs the same.
os.environ.setdefault("DEV", "CPU")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol", "python"))
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from tinygrad import Tensor, dtypes  # noqa: E402
from tinygrad.dtype import least_upper_dtype, to_dtype  # noqa: E402

import tcts_testee  # noqa: E402

DTYPES = {name: getattr(dtypes, name) for name in ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16",
                                                    "int32", "int64", "float16", "bfloat16", "float32", "float64")}
NAMES = {d: name for name, d in DTYPES.items()}
OPERATOR = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
INPLACE = {"add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "div": operator.itruediv}
LAYOUT_FREE = {"contiguous_format", "preserve_format"}
# tinygrad's CPU device.
DEVICES = {"cpu": "CPU"}


def tdtype(name):
    if name not in DTYPES:
        raise tcts_testee.NotSupported(f"tinygrad has no dtype {name!r}")
    return DTYPES[name]


def name_of(d):
    """The spec's name of a tinygrad dtype, or tinygrad's own (repr 'dtypes.weakfloat' -> 'weakfloat')."""
    return NAMES.get(d) or repr(d).removeprefix("dtypes.")


def layout_free(memory_format):
    if memory_format not in LAYOUT_FREE:
        raise tcts_testee.NotSupported(f"tinygrad has no memory format {memory_format!r}")


def device_of(name):
    if name not in DEVICES:
        raise tcts_testee.NotSupported(f"tinygrad is run on its CPU device here, not {name!r}")
    return DEVICES[name]


class TinygradTestee(tcts_testee.Testee):
    name = "tinygrad (CPU)"
    version = importlib.metadata.version("tinygrad")
    build = f"Python {sys.version.split()[0]}, tinygrad {version}, NumPy {np.__version__}; device CPU"
    missing_dtypes = {"complex32", "complex64", "complex128"}
    not_supported = {"strides"}

    # -- dtypes
    def dtype_from_name(self, name):
        return name_of(to_dtype(name))  # tinygrad's parser: its AttributeError for a name it lacks

    # -- promotion
    def promote_types(self, a, b):
        return name_of(least_upper_dtype(tdtype(a), tdtype(b)))

    # -- tensors
    def make_tensor(self, sizes, dtype, values):
        d = tdtype(dtype)
        host_type = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
        host = tcts_testee.host_values(np, values, host_type).reshape(sizes)
        if dtype == "bfloat16":
            return Tensor(host.view(np.uint16), dtype=dtypes.uint16, device="CPU").bitcast(d)
        return Tensor(host, dtype=d, device="CPU")

    def meta(self, t):
        return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": [], "storage_offset": 0,
                "device": "cpu" if t.device == "CPU" else str(t.device).lower()}

    def values(self, t):
        return np.asarray(t.numpy()).ravel().tolist()  # bfloat16 comes back as float32 (Tensor.numpy)

    # -- arithmetic
    def binary(self, op, a, b, alpha):
        if op not in OPERATOR:
            raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to tinygrad")
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"tinygrad's {op} has no alpha (asked for alpha={alpha!r})")
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise tcts_testee.NotSupported("two Python numbers: no tinygrad call")
        return OPERATOR[op](a, b)

    def binary_inplace(self, op, target, other, alpha):
        """target op= other: Tensor.__iadd__ etc. (Tensor.assign, which refuses a result of
        another dtype than the target's)."""
        if op not in INPLACE:
            raise tcts_testee.NotSupported(f"binary op {op!r} is not translated to tinygrad")
        if op in ("add", "sub") and not (type(alpha) is int and alpha == 1):
            raise tcts_testee.NotSupported(f"tinygrad's {op} has no alpha (asked for alpha={alpha!r})")
        INPLACE[op](target, other)

    # -- views
    def t(self, t):
        return t.T

    def transpose(self, t, dim0, dim1):
        return t.transpose(dim0, dim1)

    def permute(self, t, dims):
        return t.permute(tuple(dims))

    def narrow(self, t, dim, start, length):
        return t[tcts_testee.index_at(dim, (tcts_testee.narrow_slice(start, length),))]

    def select(self, t, dim, index):
        return t[tcts_testee.index_at(dim, (index,))]

    def slice(self, t, dim, start, end, step):
        return t[tcts_testee.index_at(dim, (slice(start, end, step),))]

    def expand(self, t, sizes):
        return t.expand(tuple(sizes))

    def unsqueeze(self, t, dim):
        return t.unsqueeze(dim)

    def squeeze(self, t, dim):
        return t.squeeze() if dim is None else t.squeeze(dim)

    def reshape(self, t, sizes):
        return t.reshape(tuple(sizes))

    # -- format copies
    def contiguous(self, t, memory_format):
        if memory_format != "contiguous_format":  # it takes no format: it makes the one layout there is
            raise tcts_testee.NotSupported(f"Tensor.contiguous takes no memory format (asked for {memory_format!r})")
        return t.contiguous()

    def clone(self, t, memory_format):
        layout_free(memory_format)
        return t.clone()

    def empty_like(self, t, memory_format):
        layout_free(memory_format)
        return t.empty_like()

    # -- devices
    def empty_on(self, sizes, dtype, device):
        return Tensor.empty(tuple(sizes), dtype=tdtype(dtype), device=device_of(device) if device is not None else None)


if __name__ == "__main__":
    tcts_testee.serve(TinygradTestee())
